//! A panic in a destructor that the executor runs (a task's future dropped by `abort` or at
//! shutdown, a future dropped after it returned `Ready`, a detached task's output) is caught
//! like a panic in `poll`: the process survives, the worker goes on running tasks, a waiting
//! `JoinHandle` gets a panic `JoinError` carrying the destructor's payload, and no other task
//! is lost or dropped twice (shared/API.md, Tasks).
//!
//! A destructor panic that is not caught ends the process ("panic in a destructor during
//! cleanup", "non-unwinding panic"), so each scenario runs in a child process (the ignored
//! `child_*` tests, started by the test of the same scenario): the parent asserts that the
//! child exited successfully and printed that it got through.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Barrier};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::common::{
    assert_child_passes, executor, is_child, panic_message, wait_until, watchdog, Tally,
};
use filch::{Executor, JoinError};
use futures::channel::oneshot;

/// The worker counts every scenario runs with.
const WORKERS: [usize; 2] = [1, 2];

/// Panics when dropped, after counting the drop in `drops`.
struct Bomb {
    what: &'static str,
    drops: Arc<AtomicUsize>,
}

impl Bomb {
    fn new(what: &'static str) -> (Bomb, Arc<AtomicUsize>) {
        let drops = Arc::new(AtomicUsize::new(0));
        let bomb = Bomb {
            what,
            drops: Arc::clone(&drops),
        };
        (bomb, drops)
    }
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.drops.fetch_add(1, SeqCst);
        panic!("bomb: {} panics in its destructor", self.what);
    }
}

/// Asserts that `result` is a panic `JoinError` whose payload is the panic of the bomb `what`.
fn assert_bomb_panic<T: std::fmt::Debug>(result: Result<T, JoinError>, what: &str) {
    let err = match result {
        Ok(value) => {
            panic!("{what}: the JoinHandle gave Ok({value:?}), expected a panic JoinError")
        }
        Err(err) => err,
    };
    assert!(
        err.is_panic(),
        "{what}: the JoinHandle gave {err:?} ({err}), expected a panic JoinError"
    );
    let message = panic_message(&*err.into_panic());
    assert!(
        message.contains("bomb:") && message.contains(what),
        "{what}: the panic JoinError carries {message:?}, not the destructor's payload"
    );
}

/// Every worker of `ex` still runs tasks: `workers` tasks that each block until all of them
/// run at once (so each needs a worker of its own, the one that met the bomb included),
/// then many small tasks, all of which complete with the right output.
fn assert_workers_still_run_tasks(ex: &Executor, workers: usize, what: &str) {
    let barrier = Arc::new(Barrier::new(workers));
    let meet: Vec<_> = (0..workers)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            ex.spawn(async move {
                barrier.wait();
            })
        })
        .collect();
    for task in meet {
        ex.block_on(task)
            .unwrap_or_else(|e| panic!("{what}: a barrier task failed: {e}"));
    }
    let tasks: Vec<_> = (0..500u64)
        .map(|i| ex.spawn(async move { i * 3 }))
        .collect();
    let sum: u64 = tasks
        .into_iter()
        .map(|t| ex.block_on(t).unwrap_or_else(|e| panic!("{what}: {e}")))
        .sum();
    assert_eq!(sum, 3 * (0..500u64).sum::<u64>(), "{what}: later tasks");
}

// ---------------------------------------------------------------------------------------
// a. A waiting task whose future holds a bomb is aborted.

#[test]
#[ignore = "run in a child process by abort_of_a_task_whose_future_panics_on_drop"]
fn child_abort_of_a_task_whose_future_panics_on_drop() {
    if !is_child() {
        return;
    }
    watchdog(60, "abort with a panicking destructor", || {
        for workers in WORKERS {
            let what = format!("abort, {workers} worker(s)");
            let ex = executor(workers);
            // A bystander that waits across the bomb's drop, and must still complete.
            let (go_tx, go_rx) = oneshot::channel::<u32>();
            let bystander = ex.spawn(async move { go_rx.await.unwrap() + 1 });

            let (bomb, drops) = Bomb::new("aborted future");
            let (started_tx, started_rx) = mpsc::channel();
            let task = ex.spawn(async move {
                let _bomb = bomb;
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await;
            });
            started_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("the task never ran");
            task.abort();
            assert_bomb_panic(ex.block_on(task), "aborted future");
            assert_eq!(
                drops.load(SeqCst),
                1,
                "{what}: the future was not dropped once"
            );

            go_tx.send(41).unwrap();
            assert_eq!(ex.block_on(bystander).unwrap(), 42, "{what}: bystander");
            assert_workers_still_run_tasks(&ex, workers, &what);
        }
    });
    println!("CHILD_OK abort");
}

#[test]
fn abort_of_a_task_whose_future_panics_on_drop() {
    assert_child_passes(
        module_path!(),
        "child_abort_of_a_task_whose_future_panics_on_drop",
        &[],
        "CHILD_OK abort",
    );
}

// ---------------------------------------------------------------------------------------
// b. The same kind of task is dropped at shutdown.

#[test]
#[ignore = "run in a child process by shutdown_drops_a_task_whose_future_panics_on_drop"]
fn child_shutdown_drops_a_task_whose_future_panics_on_drop() {
    if !is_child() {
        return;
    }
    watchdog(60, "shutdown with a panicking destructor", || {
        for workers in WORKERS {
            let what = format!("shutdown, {workers} worker(s)");
            let ex = executor(workers);
            let tally = Tally::new();
            let polled = Arc::new(AtomicUsize::new(0));
            // Tasks waiting for a wake-up that never comes, before and after the bomb.
            let spawn_waiting = |ex: &Executor| {
                let (probe, polled) = (tally.probe(), Arc::clone(&polled));
                ex.spawn(async move {
                    let _probe = probe;
                    polled.fetch_add(1, SeqCst);
                    std::future::pending::<()>().await;
                })
            };
            let mut others: Vec<_> = (0..10).map(|_| spawn_waiting(&ex)).collect();
            let (bomb, drops) = Bomb::new("future dropped at shutdown");
            let task = ex.spawn({
                let polled = Arc::clone(&polled);
                async move {
                    let _bomb = bomb;
                    polled.fetch_add(1, SeqCst);
                    std::future::pending::<()>().await;
                }
            });
            others.extend((0..10).map(|_| spawn_waiting(&ex)));
            wait_until(10, "every task to wait for a wake-up", || {
                polled.load(SeqCst) == 21
            });

            // Must neither abort nor panic here.
            drop(ex);

            assert_eq!(
                drops.load(SeqCst),
                1,
                "{what}: the bomb's future was not dropped once"
            );
            tally.assert_all_dropped_once(&what);
            let fresh = executor(1);
            assert_bomb_panic(fresh.block_on(task), "future dropped at shutdown");
            for other in others {
                let err = fresh
                    .block_on(other)
                    .expect_err("a task that never completed gave Ok");
                assert!(err.is_cancelled(), "{what}: another task gave {err:?}");
            }
        }
    });
    println!("CHILD_OK shutdown");
}

#[test]
fn shutdown_drops_a_task_whose_future_panics_on_drop() {
    assert_child_passes(
        module_path!(),
        "child_shutdown_drops_a_task_whose_future_panics_on_drop",
        &[],
        "CHILD_OK shutdown",
    );
}

// ---------------------------------------------------------------------------------------
// c. A detached task's output panics when dropped.

#[test]
#[ignore = "run in a child process by a_detached_task_whose_output_panics_on_drop"]
fn child_a_detached_task_whose_output_panics_on_drop() {
    if !is_child() {
        return;
    }
    watchdog(60, "detached output with a panicking destructor", || {
        for workers in WORKERS {
            let what = format!("detached output, {workers} worker(s)");
            let ex = executor(workers);
            let (bomb, drops) = Bomb::new("detached output");
            let (go_tx, go_rx) = oneshot::channel::<()>();
            // Detached while it waits: its output has no JoinHandle to go to, so the
            // executor drops it when the task completes.
            drop(ex.spawn(async move {
                go_rx.await.unwrap();
                bomb
            }));
            go_tx.send(()).unwrap();
            wait_until(10, "the detached task's output to be dropped", || {
                drops.load(SeqCst) == 1
            });
            assert_workers_still_run_tasks(&ex, workers, &what);
            assert_eq!(drops.load(SeqCst), 1, "{what}: output dropped twice");
        }
    });
    println!("CHILD_OK detached output");
}

#[test]
fn a_detached_task_whose_output_panics_on_drop() {
    assert_child_passes(
        module_path!(),
        "child_a_detached_task_whose_output_panics_on_drop",
        &[],
        "CHILD_OK detached output",
    );
}

// ---------------------------------------------------------------------------------------
// d. A future returns `Ready`, and its own state panics when it is dropped afterwards.

/// Ready at once with `7`; its `Bomb` goes off when the future itself is dropped (after it
/// completed), not inside `poll`.
struct ReadyThenBomb {
    _bomb: Bomb,
}

impl Future for ReadyThenBomb {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u32> {
        Poll::Ready(7)
    }
}

#[test]
#[ignore = "run in a child process by a_completed_future_that_panics_on_drop"]
fn child_a_completed_future_that_panics_on_drop() {
    if !is_child() {
        return;
    }
    watchdog(60, "completed future with a panicking destructor", || {
        for workers in WORKERS {
            let what = format!("completed future, {workers} worker(s)");
            let ex = executor(workers);
            let (bomb, drops) = Bomb::new("completed future");
            let task = ex.spawn(ReadyThenBomb { _bomb: bomb });
            // As in tokio: the future is dropped inside the task's panic guard, so its
            // destructor's panic replaces the output.
            assert_bomb_panic(ex.block_on(task), "completed future");
            assert_eq!(
                drops.load(SeqCst),
                1,
                "{what}: the future was not dropped once"
            );
            assert_workers_still_run_tasks(&ex, workers, &what);
        }
    });
    println!("CHILD_OK completed future");
}

#[test]
fn a_completed_future_that_panics_on_drop() {
    assert_child_passes(
        module_path!(),
        "child_a_completed_future_that_panics_on_drop",
        &[],
        "CHILD_OK completed future",
    );
}
