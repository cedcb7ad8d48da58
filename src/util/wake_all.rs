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
//! [`drop_quietly`] and [`call_quietly`] are the single-item forms: a value whose destructor
//! may panic, a user hook that may panic, where nobody is there to report the panic to (its
//! payload is leaked, not dropped: dropping it might panic again).
//!
//! **Invariant:** every item gets its call, whatever the others do.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::task::Waker;

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

/// Drops `value`, catching a panic of its destructor (whose payload is leaked: dropping it
/// might panic again).
pub(crate) fn drop_quietly<T>(value: T) {
    call_quietly(move || drop(value));
}

/// Calls `f`, catching its panic (whose payload is leaked: dropping it might panic again).
pub(crate) fn call_quietly(f: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
        std::mem::forget(payload);
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
