//! The executor's shutdown stops a fork-join call that is running at its next piece: its
//! drop does not wait for the call to run to its end, the call's values are dropped once,
//! no piece starts after the drop returned, and whoever waits for the call learns that the
//! executor shut down (a `par::run` future panics, an `install` from another thread panics),
//! rather than getting a value or an opaque payload.
//!
//! Each call below would run for many minutes (a million 1 ms items): without the stop, the
//! executor's drop waits for it and the watchdog fails the test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread;
use std::time::Duration;

use filch::par::prelude::*;

use crate::common::{executor, panic_message, wait_until, watchdog, Tally};

const N: usize = 1_000_000;

/// A body that counts its calls and sleeps 1 ms.
fn slow(calls: &Arc<AtomicUsize>) -> impl Fn(usize) + Send + Sync + 'static + use<> {
    let calls = Arc::clone(calls);
    move |_| {
        calls.fetch_add(1, Ordering::SeqCst);
        thread::sleep(Duration::from_millis(1));
    }
}

/// Once the executor is gone, no item starts any more.
fn assert_no_item_starts(calls: &AtomicUsize, what: &str) {
    let before = calls.load(Ordering::SeqCst);
    thread::sleep(Duration::from_millis(100));
    let after = calls.load(Ordering::SeqCst);
    assert_eq!(
        before, after,
        "{what}: items started after the executor's drop returned"
    );
    assert!(after < N / 10, "{what}: {after} of {N} items ran");
}

#[test]
fn shutting_down_stops_a_running_par_run_call() {
    for workers in [1, 2] {
        watchdog(
            60,
            &format!("par::run at shutdown, {workers} workers"),
            move || {
                let ex = executor(workers);
                let calls = Arc::new(AtomicUsize::new(0));
                let tally = Tally::new();
                let probe = tally.probe();
                let body = slow(&calls);
                let mut run = Box::pin(filch::par::run(move || {
                    // Dropped when the call ends, however it ends.
                    let _probe = probe;
                    (0..N).into_par_iter().for_each(body);
                }));
                let waker = futures::task::noop_waker();
                let mut cx = Context::from_waker(&waker);
                {
                    // The first poll starts the call on the current executor.
                    let _enter = ex.enter();
                    assert!(run.as_mut().poll(&mut cx).is_pending(), "{workers} workers");
                }
                wait_until(10, "the call's first items", || {
                    calls.load(Ordering::SeqCst) > 0
                });
                drop(ex);
                assert_no_item_starts(&calls, &format!("par::run, {workers} workers"));
                tally.assert_all_dropped_once("the call's closure");
                let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run.as_mut().poll(&mut cx)
                }));
                match polled {
                    Ok(Poll::Ready(())) => panic!("the call completed under a shut-down executor"),
                    Ok(Poll::Pending) => panic!("the call's future still waits after the shutdown"),
                    Err(payload) => {
                        let message = panic_message(&*payload);
                        assert!(
                            message.contains("shut down"),
                            "the future's panic does not say the executor shut down: {message:?}"
                        );
                    }
                }
            },
        );
    }
}

#[test]
fn shutting_down_stops_an_install_from_another_thread() {
    watchdog(60, "install at shutdown", || {
        let ex = executor(2);
        let handle = ex.handle();
        let calls = Arc::new(AtomicUsize::new(0));
        let body = slow(&calls);
        let caller = thread::spawn(move || {
            handle.install(move || (0..N).into_par_iter().for_each(body));
        });
        wait_until(10, "the call's first items", || {
            calls.load(Ordering::SeqCst) > 0
        });
        drop(ex);
        assert_no_item_starts(&calls, "install");
        let payload = caller
            .join()
            .expect_err("the install returned under a shut-down executor");
        let message = panic_message(&*payload);
        assert!(
            message.contains("shut down"),
            "the install's panic does not say the executor shut down: {message:?}"
        );
    });
}

/// `in_place_scope` called off the workers of an executor that shut down before the call, or
/// while its closures run: the caller runs what is left and returns, every closure run once.
#[test]
fn in_place_scope_off_the_workers_returns_when_the_executor_shut_down() {
    watchdog(60, "in_place_scope after shutdown", || {
        let ex = executor(2);
        let handle = ex.handle();
        drop(ex);
        let _entered = handle.enter();
        let ran = AtomicUsize::new(0);
        filch::par::in_place_scope(|s| {
            for _ in 0..10 {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(ran.load(Ordering::SeqCst), 10);
    });
    watchdog(60, "in_place_scope during shutdown", || {
        let ex = executor(2);
        let handle = ex.handle();
        let ran = Arc::new(AtomicUsize::new(0));
        let dropper = {
            let ran = Arc::clone(&ran);
            thread::spawn(move || {
                wait_until(10, "the first closures", || ran.load(Ordering::SeqCst) > 2);
                drop(ex);
            })
        };
        let _entered = handle.enter();
        filch::par::in_place_scope(|s| {
            for _ in 0..200 {
                let ran = Arc::clone(&ran);
                s.spawn(move |_| {
                    thread::sleep(std::time::Duration::from_micros(200));
                    ran.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        dropper.join().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 200);
    });
}
