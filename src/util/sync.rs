//! The atomics, the lock and the condition variable of the concurrent cores, switched to
//! loom's under `cfg(loom)` (a shim, as tokio's `src/loom/`), and the add of a
//! single-writer counter.
//!
//! Every atomic, lock and condition variable that filch declares comes from here, so that
//! `RUSTFLAGS="--cfg loom"` swaps them all for loom's model-checked versions at once, and
//! the loom models run the code that ships. The exceptions, each marked where it stands,
//! are those loom cannot run: `static`s (loom's types have no `const fn new`) and what a
//! signal handler touches. Atomics inside the crates filch uses are theirs: futures'
//! `AtomicWaker` (a data-parallel loop's waker, `par/run.rs`), event-listener's (loom-aware
//! through its `loom` feature), crossbeam's deques, async-task's task state. `Arc` stays std's:
//! nothing in the modelled protocols depends on its orderings (and a `Waker` is made from a std
//! `Arc`).
//!
//! [`Mutex`] and [`Condvar`] ignore poisoning: every critical section in filch leaves its
//! data consistent at each step (no user code runs while a filch lock is held, and a user
//! panic caught elsewhere cannot leave half-made state behind), so a poisoned lock still
//! holds valid data.

use std::fmt;
use std::time::Duration;

#[cfg(not(loom))]
use std::sync as imp;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

#[cfg(loom)]
use loom::sync as imp;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

/// The guard of a [`Mutex`] (std's, or loom's under `cfg(loom)`).
pub(crate) use imp::MutexGuard;

/// The claim word of a fork-join piece, a task's placement hints (`runtime/task/meta.rs`),
/// the state word of the paused clock's counted `block_on` (`test-util`), and of tests.
#[cfg(loom)]
pub(crate) use loom::sync::atomic::AtomicU8;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::AtomicU8;

/// Threads that park and unpark through this shim, which loom must see: the fork-join
/// waits (`runtime/scheduler/forkjoin/`) and the paused clock's counted `block_on`
/// (`test-util`).
#[cfg(loom)]
pub(crate) use loom::thread;
#[cfg(not(loom))]
pub(crate) use std::thread;

/// A mutual-exclusion lock that ignores poisoning (module docs): [`Mutex::lock`] returns the
/// guard, [`Mutex::try_lock`] an `Option` of it.
pub(crate) struct Mutex<T>(imp::Mutex<T>);

impl<T> Mutex<T> {
    /// A lock holding `value`; usable in a `static` (outside loom builds).
    #[cfg(not(loom))]
    pub(crate) const fn new(value: T) -> Mutex<T> {
        Mutex(imp::Mutex::new(value))
    }

    /// A lock holding `value`.
    #[cfg(loom)]
    pub(crate) fn new(value: T) -> Mutex<T> {
        Mutex(imp::Mutex::new(value))
    }

    /// Locks, waiting for the lock if another thread holds it.
    #[inline]
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Locks if no other thread holds the lock.
    #[inline]
    pub(crate) fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        match self.0.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// The value, taken out of the lock.
    pub(crate) fn into_inner(self) -> T {
        self.0
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A condition variable for [`Mutex`]'s guards that ignores poisoning (module docs).
pub(crate) struct Condvar(imp::Condvar);

impl Default for Condvar {
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl Condvar {
    pub(crate) fn new() -> Condvar {
        Condvar(imp::Condvar::new())
    }

    /// Waits for a notification, releasing `guard` meanwhile. May return without one (a
    /// spurious wake-up).
    pub(crate) fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0
            .wait(guard)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// As [`Condvar::wait`], for at most `timeout`; also returns whether the wait timed out.
    /// (loom's never times out: it waits for a notification.)
    pub(crate) fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> (MutexGuard<'a, T>, bool) {
        let (guard, result) = self
            .0
            .wait_timeout(guard, timeout)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        (guard, result.timed_out())
    }

    pub(crate) fn notify_one(&self) {
        self.0.notify_one();
    }

    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
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
