//! `Builder::on_thread_start`, `on_thread_stop` and `thread_stack_size`: the hooks run on
//! every worker and blocking-pool thread, on that thread, the start hook before the thread
//! runs anything and the stop hook as it exits (also when the executor is dropped); a
//! panicking hook does not take the thread down; the stack size reaches the threads.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::common::{thread_name, wait_until, watchdog};

/// What the hooks saw: per thread name, the events in order.
type Log = Arc<Mutex<BTreeMap<String, Vec<&'static str>>>>;

fn record(log: &Log, event: &'static str) {
    log.lock()
        .unwrap()
        .entry(thread_name())
        .or_default()
        .push(event);
}

fn hooked(workers: usize, prefix: &str, log: &Log) -> filch::Executor {
    let (start, stop) = (Arc::clone(log), Arc::clone(log));
    filch::Builder::new()
        .worker_threads(workers)
        .thread_name(prefix)
        .on_thread_start(move || record(&start, "start"))
        .on_thread_stop(move || record(&stop, "stop"))
        .build()
        .unwrap()
}

#[test]
fn hooks_run_on_every_worker_and_blocking_thread_around_everything() {
    watchdog(60, "hooks_run_on_every_worker", || {
        let log: Log = Arc::default();
        let ex = hooked(3, "hooked", &log);
        // Tasks on every worker record that they ran; the blocking job too.
        let ran = Arc::clone(&log);
        let tasks: Vec<_> = (0..30)
            .map(|_| {
                let ran = Arc::clone(&ran);
                ex.spawn(async move { record(&ran, "task") })
            })
            .collect();
        for t in tasks {
            ex.block_on(t).unwrap();
        }
        let ran = Arc::clone(&log);
        ex.block_on(ex.spawn_blocking(move || record(&ran, "job")))
            .unwrap();
        drop(ex);
        let log = log.lock().unwrap();
        for i in 0..3 {
            let events = &log[&format!("hooked-{i}")];
            assert_eq!(events.first(), Some(&"start"), "worker {i}: {events:?}");
            assert_eq!(events.last(), Some(&"stop"), "worker {i}: {events:?}");
            assert_eq!(events.iter().filter(|e| **e == "start").count(), 1);
            assert_eq!(events.iter().filter(|e| **e == "stop").count(), 1);
        }
        let blocking = &log["hooked-blocking-0"];
        assert_eq!(blocking.first(), Some(&"start"), "{blocking:?}");
        assert!(blocking.contains(&"job"), "{blocking:?}");
        drop(log);
    });
}

#[test]
fn a_blocking_thread_runs_its_stop_hook_when_it_exits_after_shutdown() {
    watchdog(60, "blocking stop hook", || {
        let log: Log = Arc::default();
        let ex = hooked(1, "bstop", &log);
        ex.block_on(ex.spawn_blocking(|| ())).unwrap();
        drop(ex);
        // The idle blocking thread exits at shutdown, running its stop hook.
        wait_until(10, "the blocking thread's stop hook", || {
            log.lock()
                .unwrap()
                .get("bstop-blocking-0")
                .is_some_and(|e| e.last() == Some(&"stop"))
        });
    });
}

#[test]
fn a_panicking_start_hook_does_not_take_the_worker_down() {
    watchdog(60, "panicking start hook", || {
        let ex = filch::Builder::new()
            .worker_threads(1)
            .on_thread_start(|| panic!("start hook panics"))
            .on_thread_stop(|| panic!("stop hook panics"))
            .build()
            .unwrap();
        assert_eq!(ex.block_on(ex.spawn(async { 7 })).unwrap(), 7);
        assert_eq!(ex.block_on(ex.spawn_blocking(|| 8)).unwrap(), 8);
        drop(ex);
    });
}

/// Recursion that needs about 8 MiB of stack: more than std's default of 2 MiB.
fn deep(n: usize) -> usize {
    let frame = std::hint::black_box([0u8; 1024]);
    if n == 0 {
        return usize::from(frame[0]);
    }
    let depth = deep(n - 1) + 1;
    // Keeps the frame alive across the call.
    std::hint::black_box(&frame);
    depth
}

#[test]
fn the_stack_size_reaches_workers_and_blocking_threads() {
    watchdog(60, "thread_stack_size", || {
        let ex = filch::Builder::new()
            .worker_threads(1)
            .thread_stack_size(64 << 20)
            .build()
            .unwrap();
        let depth = 8 * 1024;
        assert_eq!(
            ex.block_on(ex.spawn(async move { deep(depth) })).unwrap(),
            depth
        );
        assert_eq!(
            ex.block_on(ex.spawn_blocking(move || deep(depth))).unwrap(),
            depth
        );
    });
}

#[test]
fn an_impossible_stack_size_is_an_error_from_build() {
    let err = filch::Builder::new()
        .worker_threads(1)
        .thread_stack_size(usize::MAX / 2)
        .build()
        .unwrap_err();
    assert_ne!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
}
