//! A loop future that resumed a body's panic, polled again, panics again: it never completes
//! with a value (issue 9, defect 1: `par_map` used to return a `Vec` of uninitialised
//! elements, `par_reduce` a partial result and `par_range` success).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use crate::common::{executor, watchdog};

/// Wakes the test thread.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `fut` until a poll panics (the body's panic resumed), then polls it once more and
/// returns what that second poll did: `Err(message)` if it panicked, `Ok(debug of value)`
/// if it completed.
fn poll_after_panic<F>(fut: F) -> Result<String, String>
where
    F: Future,
    F::Output: std::fmt::Debug,
{
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))) {
            Ok(Poll::Pending) => thread::park(),
            Ok(Poll::Ready(value)) => panic!("completed despite the panic: {value:?}"),
            Err(_) => break,
        }
    }
    match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))) {
        Ok(Poll::Ready(value)) => {
            let mut shown = format!("Ready({value:?})");
            shown.truncate(80);
            Ok(shown)
        }
        Ok(Poll::Pending) => Ok("Pending".to_owned()),
        Err(payload) => Err(payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()),
    }
}

fn boom(i: usize) {
    if i == 700 {
        panic!("boom at 700");
    }
}

#[test]
fn par_map_polled_after_its_panic_panics_again() {
    watchdog(60, "par_map_polled_after_its_panic_panics_again", || {
        let ex = executor(2);
        // u64 results: should the bug return a Vec of uninitialised elements, dropping it
        // frees the buffer without reading them.
        let second = poll_after_panic(ex.par_map(0..1000, |i| {
            boom(i);
            i as u64
        }));
        assert!(second.is_err(), "second poll gave {second:?}");
    });
}

#[test]
fn par_reduce_polled_after_its_panic_panics_again() {
    watchdog(60, "par_reduce_polled_after_its_panic_panics_again", || {
        let ex = executor(2);
        let second = poll_after_panic(ex.par_reduce(
            0..1000,
            || 0u64,
            |a, i| {
                boom(i);
                a + i as u64
            },
            |a, b| a + b,
        ));
        assert!(second.is_err(), "second poll gave {second:?}");
    });
}

#[test]
fn par_range_polled_after_its_panic_panics_again() {
    watchdog(60, "par_range_polled_after_its_panic_panics_again", || {
        let ex = executor(2);
        let second = poll_after_panic(ex.par_range(0..1000, boom));
        assert!(second.is_err(), "second poll gave {second:?}");
    });
}

#[test]
fn second_poll_names_the_earlier_panic() {
    watchdog(60, "second_poll_names_the_earlier_panic", || {
        let ex = executor(1);
        let second = poll_after_panic(ex.par_range(0..10, boom_at_3));
        let message = second.expect_err("the second poll must panic");
        assert!(message.contains("panicked"), "message: {message}");
    });
}

fn boom_at_3(i: usize) {
    if i == 3 {
        panic!("boom at 3");
    }
}
