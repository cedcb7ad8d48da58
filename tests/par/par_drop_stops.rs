//! Dropping a loop's future before it completes stops the loop: no new items start. The
//! future is dropped directly after one poll, by aborting the task that awaits it, and by
//! dropping the whole executor.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{named_executor, wait_until, watchdog};

const N: usize = 100_000;

/// A body that counts its calls and sleeps 1 ms: `0..N` would take about 50 s on 2 workers.
fn slow(calls: &Arc<AtomicUsize>) -> impl Fn(usize) + Send + Sync + 'static + use<> {
    let calls = Arc::clone(calls);
    move |_| {
        calls.fetch_add(1, Ordering::SeqCst);
        thread::sleep(Duration::from_millis(1));
    }
}

/// After the loop's future is gone: bodies already running may finish, then the count of
/// calls stays put, far below `N`.
fn assert_stopped(calls: &AtomicUsize, what: &str) {
    thread::sleep(Duration::from_millis(50));
    let a = calls.load(Ordering::SeqCst);
    thread::sleep(Duration::from_millis(200));
    let b = calls.load(Ordering::SeqCst);
    assert_eq!(a, b, "{what}: {} bodies started after the drop", b - a);
    assert!(b < N / 10, "{what}: {b} of {N} items ran");
}

#[test]
fn dropping_the_future_after_one_poll() {
    watchdog(30, "dropping_the_future_after_one_poll", || {
        for workers in [1, 2] {
            let ex = named_executor(workers, "drop-poll");
            let calls = Arc::new(AtomicUsize::new(0));
            let c = Arc::clone(&calls);
            ex.block_on(async move {
                let mut fut = Box::pin(filch::par_range(0..N, slow(&c)));
                assert!(futures::poll!(&mut fut).is_pending());
                wait_until(10, "the loop to start", || c.load(Ordering::SeqCst) > 0);
                thread::sleep(Duration::from_millis(20));
                drop(fut);
            });
            assert_stopped(&calls, &format!("drop after one poll, {workers} workers"));
            // The executor still works.
            assert_eq!(ex.block_on(ex.par_map(0..3, |i| i)), vec![0, 1, 2]);
        }
    });
}

#[test]
fn aborting_the_awaiting_task() {
    watchdog(30, "aborting_the_awaiting_task", || {
        // Leaked: if the abort is not honoured, dropping the executor would wait for the loop.
        let ex: &'static filch::Executor = Box::leak(Box::new(named_executor(2, "drop-abort")));
        let calls = Arc::new(AtomicUsize::new(0));
        let body = slow(&calls);
        let task = ex.spawn(async move { filch::par_range(0..N, body).await });
        wait_until(10, "the loop to start", || calls.load(Ordering::SeqCst) > 0);
        thread::sleep(Duration::from_millis(20));
        task.abort();
        wait_until(2, "the aborted task's future to be dropped", || {
            task.is_finished()
        });
        let err = ex.block_on(task).expect_err("an aborted task");
        assert!(err.is_cancelled());
        assert_stopped(&calls, "abort of the awaiting task");

        // The same for par_reduce, awaited through a Handle.
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let handle = ex.handle();
        let task = ex.spawn(async move {
            handle
                .par_reduce(
                    0..N,
                    || 0u64,
                    move |a, i| {
                        c.fetch_add(1, Ordering::SeqCst);
                        thread::sleep(Duration::from_millis(1));
                        a + i as u64
                    },
                    |a, b| a + b,
                )
                .await
        });
        wait_until(10, "the reduce to start", || {
            calls.load(Ordering::SeqCst) > 0
        });
        task.abort();
        wait_until(2, "the aborted task's future to be dropped", || {
            task.is_finished()
        });
        assert!(ex.block_on(task).expect_err("aborted").is_cancelled());
        assert_stopped(&calls, "abort of a task awaiting par_reduce");
    });
}

#[test]
fn dropping_the_executor_mid_loop() {
    watchdog(30, "dropping_the_executor_mid_loop", || {
        let ex = named_executor(2, "drop-exec");
        let calls = Arc::new(AtomicUsize::new(0));
        let body = slow(&calls);
        let task = ex.spawn(async move { filch::par_range(0..N, body).await });
        wait_until(10, "the loop to start", || calls.load(Ordering::SeqCst) > 0);
        drop(ex);
        let err = futures::executor::block_on(task).expect_err("the executor is gone");
        assert!(err.is_cancelled());
        assert_stopped(&calls, "executor dropped");
    });
}
