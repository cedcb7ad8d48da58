//! tokio's timers under filch's paused clock (features `test-util` and `tokio-context`):
//! they cannot follow it (`src/runtime/tokio_context/timers_off.rs`), so the first one panics
//! with filch's message, which says what to use instead; never a hang, never a wait in real
//! time. The cases: `tokio::time::sleep` of an hour and `tokio::time::timeout` of 30 s, in
//! `block_on`'s future and in a task; a `tokio::spawn`ed task with filch's interval (refused
//! with a message of its own, and the same task on `filch::spawn` finishing at once with the
//! paused clock's answer) or with tokio's; and a `#[filch::main(start_paused = true)]`
//! program, in a child process (its executor is the fallback of every other thread while it
//! runs). Each case runs under the watchdog, which turns a hang into a failure.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use crate::common::{self, assert_child_passes, is_child, panic_message, watchdog};

const HOUR: Duration = Duration::from_secs(3600);

/// What filch's message for a tokio timer under a paused clock says to use instead.
const USE_FILCH_TIME: &str = "Use filch::time::{sleep, timeout, interval, Instant} instead";

/// The panic message of `body` run in `block_on` after pausing the clock (it must panic).
fn paused_panic<F>(name: &str, body: impl FnOnce() -> F + Send + 'static) -> String
where
    F: Future<Output = ()>,
{
    watchdog(30, name, move || {
        let ex = common::executor(2);
        let payload = catch_unwind(AssertUnwindSafe(|| {
            ex.block_on(async move {
                filch::time::pause();
                body().await;
            })
        }))
        .expect_err("a tokio timer under a paused clock must panic");
        panic_message(&*payload)
    })
}

#[test]
fn a_tokio_sleep_of_an_hour_panics_at_once_saying_what_to_use() {
    let message = paused_panic("tokio sleep under pause", || async {
        tokio::time::sleep(HOUR).await;
    });
    assert!(message.contains(USE_FILCH_TIME), "{message}");
    assert!(
        message.contains("timers are disabled"),
        "tokio's own words follow: {message}"
    );
}

#[test]
fn a_tokio_timeout_of_30_s_panics_at_once_saying_what_to_use() {
    let message = paused_panic("tokio timeout under pause", || async {
        let _ = tokio::time::timeout(Duration::from_secs(30), std::future::pending::<()>()).await;
    });
    assert!(message.contains(USE_FILCH_TIME), "{message}");
}

#[test]
fn in_a_task_the_join_error_carries_filchs_message() {
    let message = watchdog(30, "tokio sleep in a paused task", || {
        let ex = common::executor(2);
        ex.block_on(async {
            filch::time::pause();
            let err = filch::spawn(async { tokio::time::sleep(HOUR).await })
                .await
                .unwrap_err();
            assert!(err.is_panic(), "{err:?}");
            panic_message(&*err.into_panic())
        })
    });
    assert!(message.contains(USE_FILCH_TIME), "{message}");
}

#[test]
fn a_tokio_spawned_task_with_filchs_interval_is_refused_and_filch_spawn_follows_the_clock() {
    let (refused, ticked) = watchdog(30, "interval in a tokio task", || {
        let ex = common::executor(2);
        ex.block_on(async {
            filch::time::pause();
            // tokio runs it outside the executor: its filch timer would wait in real time.
            let refused = tokio::spawn(async {
                let mut ticks = filch::time::interval(Duration::from_secs(1));
                for _ in 0..20 {
                    ticks.tick().await;
                }
            })
            .await
            .unwrap_err();
            assert!(refused.is_panic(), "{refused:?}");
            // The same task on filch: at once, with the paused clock's answer.
            let start = filch::time::now();
            let end = filch::spawn(async {
                let mut ticks = filch::time::interval(Duration::from_secs(1));
                for _ in 0..20 {
                    ticks.tick().await;
                }
                filch::time::now()
            })
            .await
            .unwrap();
            (panic_message(&*refused.into_panic()), end - start)
        })
    });
    assert!(
        refused.contains("Spawn the task with filch::spawn instead"),
        "{refused}"
    );
    // The first tick is at once, the 20th 19 periods later.
    assert_eq!(ticked, Duration::from_secs(19));
}

#[test]
fn a_tokio_spawned_task_with_tokios_interval_panics_and_its_unwrap_says_what_to_use() {
    let message = paused_panic("tokio interval in a tokio task", || async {
        tokio::spawn(async {
            let mut ticks = tokio::time::interval(Duration::from_secs(1));
            for _ in 0..20 {
                ticks.tick().await;
            }
        })
        .await
        .unwrap();
    });
    assert!(message.contains(USE_FILCH_TIME), "{message}");
}

#[test]
fn after_resume_tokios_timers_work_again_and_tokio_io_works_throughout() {
    watchdog(30, "tokio after resume", || {
        let ex = common::executor(2);
        ex.block_on(async {
            filch::time::pause();
            // tokio's IO needs no timer: it works under the paused clock.
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let accept = filch::spawn(async move { listener.accept().await.map(|_| ()) });
            tokio::net::TcpStream::connect(addr).await.unwrap();
            accept.await.unwrap().unwrap();
            filch::time::resume();
            tokio::time::sleep(Duration::from_millis(1)).await;
        });
        // The executor goes on after a refused timer, too.
        ex.block_on(async {
            filch::time::pause();
            let err = filch::spawn(async { tokio::time::sleep(HOUR).await })
                .await
                .unwrap_err();
            assert!(err.is_panic());
            filch::time::sleep(HOUR).await;
        });
    });
}

/// `#[filch::main(start_paused = true)]`: its executor is also the one filch's timers on
/// other threads use, so a `tokio::spawn`ed task's filch interval follows its paused clock.
#[filch::main(worker_threads = 2, start_paused = true)]
async fn paused_program() -> String {
    let start = filch::time::now();
    let ticked = tokio::spawn(async {
        let mut ticks = filch::time::interval(Duration::from_secs(1));
        for _ in 0..20 {
            ticks.tick().await;
        }
        filch::time::now()
    })
    .await
    .unwrap();
    assert_eq!(ticked - start, Duration::from_secs(19));
    let sleep = filch::spawn(async { tokio::time::sleep(HOUR).await }).await;
    panic_message(&*sleep.unwrap_err().into_panic())
}

#[test]
#[ignore = "run by main_with_start_paused_refuses_tokio_timers (a child process)"]
fn main_with_start_paused_child() {
    if !is_child() {
        return;
    }
    let message = watchdog(60, "start_paused main", paused_program);
    assert!(message.contains(USE_FILCH_TIME), "{message}");
    println!("main with start_paused: done");
}

#[test]
fn main_with_start_paused_refuses_tokio_timers() {
    assert_child_passes(
        module_path!(),
        "main_with_start_paused_child",
        &[],
        "main with start_paused: done",
    );
}
