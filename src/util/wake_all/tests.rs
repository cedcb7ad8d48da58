//! White-box tests of `util/wake_all.rs`.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Wake;

struct Counting(AtomicUsize, bool);

impl Wake for Counting {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
        assert!(!self.1, "a panicking waker");
    }
}

#[test]
fn every_waker_is_called_though_some_panic() {
    let wakers: Vec<_> = (0..6)
        .map(|i| Arc::new(Counting(AtomicUsize::new(0), i % 3 == 0)))
        .collect();
    let list: Vec<Waker> = wakers.iter().map(|w| Waker::from(Arc::clone(w))).collect();
    let outcome = catch_unwind(AssertUnwindSafe(|| wake_all(list)));
    let payload = outcome.expect_err("the first panic goes on unwinding");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"a panicking waker"));
    for (i, w) in wakers.iter().enumerate() {
        assert_eq!(w.0.load(SeqCst), 1, "waker {i}");
    }
}

#[test]
fn at_shutdown_no_panic_goes_on() {
    let wakers: Vec<_> = (0..3)
        .map(|i| Arc::new(Counting(AtomicUsize::new(0), i != 1)))
        .collect();
    wake_all_quietly(wakers.iter().map(|w| Waker::from(Arc::clone(w))));
    assert!(wakers.iter().all(|w| w.0.load(SeqCst) == 1));
}

#[test]
fn no_panic_no_unwind() {
    let mut seen = Vec::new();
    call_each(0..4, |i| seen.push(i));
    assert_eq!(seen, [0, 1, 2, 3]);
}
