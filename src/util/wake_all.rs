//! [`call_each`] and [`wake_all`]: running one call per item of a list (the wakers a
//! driver turn takes, the sources an OS poll made ready) so that one that panics does not
//! keep the others from running.
//!
//! A waker may be foreign code (another executor's, a test's) and may panic. The wakers of
//! one turn were already taken out of their timers and waiter lists, so a waker skipped by
//! an unwind would be lost for good: its task would never be woken. Each call runs inside
//! `catch_unwind`; once every item had its call, the first panic goes on unwinding (to the
//! worker loop, which survives it), and any later ones are dropped quietly. At shutdown
//! ([`wake_all_quietly`]) every panic is dropped: the protocol of `State::shutdown` must run
//! to its end, and nobody is left to report to.
//!
//! **Invariant:** every item gets its call, whatever the others do.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::task::Waker;

use crate::runtime::task::drop_quietly;

/// Calls `f` on every item of `items`, in order, even if some of the calls panic; then
/// unwinds with the first panic, if any (module docs).
pub(crate) fn call_each<T>(items: impl IntoIterator<Item = T>, f: impl FnMut(T)) {
    if let Some(payload) = call_each_catching(items, f) {
        resume_unwind(payload);
    }
}

/// Wakes every waker of `wakers`, even if some of them panic, then unwinds with the first
/// panic (see [`call_each`]).
pub(crate) fn wake_all(wakers: impl IntoIterator<Item = Waker>) {
    call_each(wakers, Waker::wake);
}

/// Wakes every waker of `wakers`, dropping the panics of those that panic (shutdown).
pub(crate) fn wake_all_quietly(wakers: impl IntoIterator<Item = Waker>) {
    call_each_quietly(wakers, Waker::wake);
}

/// Calls `f` on every item of `items`, dropping the panics of the calls that panic
/// (shutdown).
pub(crate) fn call_each_quietly<T>(items: impl IntoIterator<Item = T>, f: impl FnMut(T)) {
    if let Some(payload) = call_each_catching(items, f) {
        drop_quietly(payload);
    }
}

/// Calls `f` on every item; returns the first panic's payload (later ones are dropped).
fn call_each_catching<T>(
    items: impl IntoIterator<Item = T>,
    mut f: impl FnMut(T),
) -> Option<Box<dyn std::any::Any + Send>> {
    let mut first_panic = None;
    for item in items {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| f(item))) {
            match first_panic {
                None => first_panic = Some(payload),
                Some(_) => drop_quietly(payload),
            }
        }
    }
    first_panic
}

#[cfg(all(test, not(loom)))]
mod tests {
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
}
