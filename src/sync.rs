//! The atomics, locks and condition variables of the concurrent cores, switched to loom's
//! under `cfg(loom)` (a shim, as tokio's `src/loom/`), and the small helpers every module
//! shares: a lock and a condition-variable wait that ignore poisoning, and the add of a
//! single-writer counter.
//!
//! Every module that takes part in a cross-thread protocol (parking and the thread parker,
//! the steal range, the loop ticker, the live-task registry, the task count) imports its
//! primitives from here, so that `RUSTFLAGS="--cfg loom"` swaps them all for loom's
//! model-checked versions at once, and the loom models run the code that ships. `Arc` stays
//! std's: nothing in the modelled protocols depends on its orderings (and a `Waker` is made
//! from a std `Arc`).

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};

#[cfg(all(feature = "test-util", loom))]
pub(crate) use loom::{sync::atomic::AtomicU8, thread};
/// The paused clock's counted `block_on` (`test-util`): its state word, and the thread it
/// parks and unparks, which loom must see too.
#[cfg(all(feature = "test-util", not(loom)))]
pub(crate) use std::{sync::atomic::AtomicU8, thread};

/// `lock` without the poisoning: every critical section in filch leaves its data consistent
/// at each step (no user code runs while a filch lock is held, and a user panic caught
/// elsewhere cannot leave half-made state behind), so a poisoned lock still holds valid data.
pub(crate) trait LockUnpoisoned<T> {
    /// Locks, taking the guard out of a `PoisonError` if a holder panicked.
    fn lock_unpoisoned(&self) -> std::sync::MutexGuard<'_, T>;
    /// `get_mut`, ignoring poisoning.
    fn get_mut_unpoisoned(&mut self) -> &mut T;
    /// `into_inner`, ignoring poisoning.
    fn into_inner_unpoisoned(self) -> T;
}

impl<T> LockUnpoisoned<T> for std::sync::Mutex<T> {
    fn lock_unpoisoned(&self) -> std::sync::MutexGuard<'_, T> {
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get_mut_unpoisoned(&mut self) -> &mut T {
        self.get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn into_inner_unpoisoned(self) -> T {
        self.into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The loom twin of [`LockUnpoisoned`] (loom's guard is its own type).
#[cfg(loom)]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Locks one of the modelled mutexes (std's, or loom's under `cfg(loom)`), ignoring
/// poisoning as [`LockUnpoisoned`] does.
#[cfg(not(loom))]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock_unpoisoned()
}

/// Waits on `condvar`, releasing `guard` meanwhile (std's or loom's, as [`lock`]), ignoring
/// poisoning as [`lock`] does. May return without a notification (a spurious wake-up).
pub(crate) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar
        .wait(guard)
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Adds `n` (wrapping) to a counter that only the calling thread writes: a plain load and
/// store, no read-modify-write on a shared cache line.
///
/// Relaxed: the single writer reads its own last store; other threads only read the value
/// as a statistic or after a synchronising operation named by the caller.
pub(crate) fn add_single_writer(counter: &AtomicU64, n: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(n),
        Ordering::Relaxed,
    );
}
