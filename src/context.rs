//! Which executor the current thread belongs to: the context that `Handle::current`, the
//! free functions and the data-parallel loops read.
//!
//! A worker thread enters its executor for its whole life; `block_on` enters for the
//! duration of the call (restoring the previous context after, so calls nest); a
//! blocking-pool thread enters the executor that owns it.
//!
//! Invariant: the thread-local pointer is either null or points to the `Shared` of an
//! executor that an [`EnterGuard`] alive on this thread holds a reference to; guards are
//! dropped in the reverse order of their creation (they are `!Send` and live on the stack).

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use crate::executor::Handle;
use crate::shared::Shared;

thread_local! {
    static CURRENT: Cell<*const Shared> = const { Cell::new(ptr::null()) };
}

/// Restores the previous context when dropped.
pub(crate) struct EnterGuard {
    previous: *const Shared,
    /// Keeps the entered executor's state alive while the pointer is installed.
    _handle: Handle,
    /// `!Send`: the guard must be dropped on the thread that entered.
    _not_send: PhantomData<*const ()>,
}

/// Makes `handle`'s executor the current one on this thread until the guard is dropped.
pub(crate) fn enter(handle: Handle) -> EnterGuard {
    let previous = CURRENT.with(|c| c.replace(Arc::as_ptr(handle.shared())));
    EnterGuard {
        previous,
        _handle: handle,
        _not_send: PhantomData,
    }
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

/// Calls `f` with the current executor's state, if this thread is in one.
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Arc<Shared>>) -> R) -> R {
    let ptr = CURRENT.with(Cell::get);
    if ptr.is_null() {
        return f(None);
    }
    // SAFETY: by the module invariant `ptr` came from `Arc::as_ptr` of an `Arc<Shared>`
    // that a live `EnterGuard` on this thread holds, so the strong count is at least one
    // for the whole call. `ManuallyDrop` keeps us from releasing a count we did not take.
    let shared = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(ptr) });
    f(Some(&shared))
}

/// The current executor's handle, if this thread is in one.
pub(crate) fn current() -> Option<Handle> {
    with_current(|shared| shared.map(|s| Handle::from_shared(Arc::clone(s))))
}
