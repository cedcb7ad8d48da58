//! The atomics and locks of the concurrent cores, switched to loom's under `cfg(loom)`.
//!
//! Every module that takes part in a cross-thread protocol (parking, the steal range, the
//! live-task registry) imports its primitives from here, so that `RUSTFLAGS="--cfg loom"`
//! swaps them all for loom's model-checked versions at once. `Arc` stays std's: nothing
//! in the modelled protocols depends on its orderings.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};

/// Locks `mutex`, ignoring poisoning.
///
/// Every critical section in filch leaves its data consistent at each step (no user code
/// runs while a filch lock is held), so a poisoned lock holds valid data.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
