//! [`AbortHandle`]: a clonable right to cancel a task, which (unlike a `JoinHandle`) does
//! not keep the task alive, and the per-task slot that links a task to its abort handles.
//!
//! A task's metadata holds an [`AbortSlot`]: one word, null until the first `abort_handle()`
//! call (then an `Arc<AbortCell>` shared with the handles) or until the task's future is
//! dropped (then `DONE`). Tasks that never have an abort handle pay that word, one load per
//! poll and one compare-and-swap when their future is dropped.
//!
//! The cell holds the abort flag (the task reads it before every poll, beside its own), the
//! finished flag (set when the task's future is dropped) and the task's waker, so that an
//! abort can wake a task that waits:
//! - the task deposits its waker when it first waits, after publishing its registry key;
//! - the handle's maker, after installing the cell, takes the waker of an already waiting
//!   task from the registry (by the key).
//!
//! Both sides store, then fence (SeqCst), then load the other's: at least one of them sees
//! the other, so a waiting task's waker always reaches the cell. (Fences rather than SeqCst
//! accesses: loom models SeqCst fences exactly but treats SeqCst accesses as AcqRel.) The
//! task's `finish` and a maker race on the slot word itself, each with a compare-and-swap
//! from null, so a handle made at the moment the task finishes still learns that it has.
//! [`AbortHandle::abort`] sets the flag, then wakes the deposited waker (both under the cell's
//! lock); the task re-checks the flag after depositing, so one of the two wakes it.

use std::fmt;
use std::ptr;
use std::sync::Arc;
use std::task::Waker;

use crate::runtime::task::id::Id;
use crate::util::sync::{fence, AtomicBool, AtomicPtr, Mutex, Ordering};

/// What a task and its abort handles share.
///
/// **Ownership of the waker:** the cell owns the waker it holds from its deposit until the
/// first of: an abort (which takes and wakes it), a newer deposit (which replaces it), the
/// task's finish (which takes and drops it). Once the task has finished, no waker is
/// deposited, so an abort handle that outlives its task keeps no part of it alive.
pub(crate) struct AbortCell {
    aborted: AtomicBool,
    finished: AtomicBool,
    /// The task's waker once it waits. A lock rather than `AtomicWaker`: it is touched only
    /// by tasks that have abort handles, and loom models it (it does not see inside
    /// futures' `AtomicWaker`).
    pub(super) waker: Mutex<Option<Waker>>,
}

impl AbortCell {
    fn new(finished: bool) -> AbortCell {
        AbortCell {
            aborted: AtomicBool::new(false),
            finished: AtomicBool::new(finished),
            waker: Mutex::new(None),
        }
    }

    /// Gives the cell the task's waker (module docs), unless the task's future is already
    /// gone: a finished task needs no wake-up, and its waker kept here would keep the task
    /// alive through its own metadata (task → slot → cell → waker → task).
    pub(crate) fn deposit(&self, waker: &Waker) {
        let replaced = {
            let mut slot = self.waker.lock();
            // Relaxed: `finished` is stored under this lock by `take_waker_at_finish`, and
            // the lock orders the two.
            if self.finished.load(Ordering::Relaxed)
                || slot.as_ref().is_some_and(|w| w.will_wake(waker))
            {
                return;
            }
            slot.replace(waker.clone())
        };
        // Dropped outside the lock: a waker's drop may run arbitrary code.
        drop(replaced);
    }

    /// The task's future was dropped: marks the cell finished and gives back the waker it
    /// holds (to be dropped by the caller, outside the lock). After this no waker is
    /// deposited again, so the cell ends holding none.
    fn take_waker_at_finish(&self) -> Option<Waker> {
        let mut slot = self.waker.lock();
        // Release: pairs with the Acquire load in `AbortHandle::is_finished`; under the lock
        // so that `deposit` sees it (see there).
        self.finished.store(true, Ordering::Release);
        slot.take()
    }

    /// Whether an abort handle aborted the task. SeqCst: pairs with the store in `abort`
    /// (after a deposit, this is the re-check).
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }
}

/// A task's link to its abort handles (module docs).
pub(crate) struct AbortSlot {
    /// Null until the first abort handle is made or the future is dropped; then either a
    /// pointer from `Arc::into_raw`, whose reference the slot holds until it is dropped (with
    /// the task's metadata), or [`done`] if the future was dropped before any handle was
    /// made. Changes once, from null, by a compare-and-swap: the maker's install and the
    /// task's `finish` race on this one word, so each sees what the other did.
    cell: AtomicPtr<AbortCell>,
}

/// The value of a slot whose future was dropped before any abort handle was made: an
/// address no allocation has (aligned, never handed out).
fn done() -> *mut AbortCell {
    ptr::dangling_mut()
}

impl AbortSlot {
    pub(crate) fn new() -> AbortSlot {
        AbortSlot {
            cell: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The cell, if an abort handle was made.
    pub(crate) fn with_cell<R>(&self, f: impl FnOnce(&AbortCell) -> R) -> Option<R> {
        // Acquire: pairs with the install (the CAS) in `handle`, so the cell's contents are
        // visible.
        let raw = self.cell.load(Ordering::Acquire);
        if raw.is_null() || raw == done() {
            return None;
        }
        // SAFETY: any other value came from `Arc::into_raw` in `handle`, and the slot holds
        // that reference until it is dropped (it is never replaced); the caller borrows the
        // slot.
        Some(f(unsafe { &*raw }))
    }

    /// The future was dropped: marks the cell finished, or the slot done if no handle was
    /// made (one compare-and-swap, no fence: it races with a maker's install on the same
    /// word).
    pub(crate) fn finish(&self) {
        // AcqRel/Acquire: the CAS pairs with the maker's (a failure reads its installed cell,
        // whose contents the Acquire makes visible).
        if let Err(raw) =
            self.cell
                .compare_exchange(ptr::null_mut(), done(), Ordering::AcqRel, Ordering::Acquire)
        {
            debug_assert_ne!(raw, done(), "a task's future finished twice");
            // SAFETY: as in `with_cell`: an installed cell, kept by the slot.
            let cell = unsafe { &*raw };
            // The task's own waker, if it ever waited: dropped here, as the last use of the
            // cell by the task, so that the cell's abort handles do not keep it alive.
            drop(cell.take_waker_at_finish());
        }
    }

    /// An abort handle for the task, installing the cell on first use. The caller keeps the
    /// task (and so this slot) alive. `waiting_waker` gives the waker of the task if it
    /// already waits (from the registry, by the key it loads); it is called after the
    /// install and a SeqCst fence (module docs).
    /// `id` is the task's.
    pub(crate) fn handle(
        &self,
        id: Id,
        waiting_waker: impl FnOnce() -> Option<Waker>,
    ) -> AbortHandle {
        // Acquire: pairs with the install in another maker's CAS and with `finish`'s.
        let raw = self.cell.load(Ordering::Acquire);
        if raw == done() {
            return AbortHandle::finished(id);
        }
        if !raw.is_null() {
            // SAFETY: as in `with_cell`: the slot holds a reference for as long as we borrow
            // it, so the count is at least one; we add ours.
            let cell = unsafe {
                Arc::increment_strong_count(raw);
                Arc::from_raw(raw)
            };
            // Every maker deposits: a handle made while another maker is between its install
            // and its deposit must not be able to abort a waiting task without waking it.
            if let Some(waker) = waiting_waker() {
                cell.deposit(&waker);
            }
            return AbortHandle { cell, id };
        }
        let cell = Arc::new(AbortCell::new(false));
        let raw = Arc::into_raw(Arc::clone(&cell)).cast_mut();
        // AcqRel: publishes the cell (pairs with the Acquire loads in `with_cell` and in
        // `finish`'s failed CAS).
        match self
            .cell
            .compare_exchange(ptr::null_mut(), raw, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                // The install is the store of the store-fence-load pair with the task's
                // first wait (its key store, fence, then its look at this slot).
                fence(Ordering::SeqCst);
                if let Some(waker) = waiting_waker() {
                    cell.deposit(&waker);
                }
                AbortHandle { cell, id }
            }
            Err(_) => {
                // SAFETY: `raw` came from `into_raw` just above and was not installed.
                drop(unsafe { Arc::from_raw(raw) });
                // Another maker installed one first, or the future is gone: look again.
                self.handle(id, waiting_waker)
            }
        }
    }
}

impl Drop for AbortSlot {
    fn drop(&mut self) {
        // Relaxed: `&mut self` is exclusive; the task's last use happened before its drop.
        let raw = self.cell.load(Ordering::Relaxed);
        if !raw.is_null() && raw != done() {
            // SAFETY: the slot's own reference (see the field), given up once, here.
            drop(unsafe { Arc::from_raw(raw) });
        }
    }
}

/// A clonable right to cancel a task, from
/// [`JoinHandle::abort_handle`](crate::JoinHandle::abort_handle) or
/// [`JoinSet::spawn`](crate::JoinSet::spawn). It does not keep the task alive and does not give its
/// output.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let task = ex.spawn(std::future::pending::<()>());
/// let abort = task.abort_handle();
/// std::thread::spawn(move || abort.abort()).join().unwrap();
/// assert!(ex.block_on(task).unwrap_err().is_cancelled());
/// ```
#[derive(Clone)]
pub struct AbortHandle {
    pub(super) cell: Arc<AbortCell>,
    id: Id,
}

impl AbortHandle {
    /// A handle of task `id`, whose future is already gone.
    pub(crate) fn finished(id: Id) -> AbortHandle {
        AbortHandle {
            cell: Arc::new(AbortCell::new(true)),
            id,
        }
    }

    /// The task's id, as its `JoinHandle::id` gives it.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = ex.spawn(async {});
    /// assert_eq!(task.abort_handle().id(), task.id());
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    /// Cancels the task, as [`JoinHandle::abort`](crate::JoinHandle::abort) does: its future
    /// is dropped at once if it waits, or after its current poll. Harmless on a finished
    /// task, and when called twice.
    pub fn abort(&self) {
        // SeqCst: pairs with the task's re-check after it deposits its waker (the lock
        // orders the two as well).
        self.cell.aborted.store(true, Ordering::SeqCst);
        let waker = self.cell.waker.lock().take();
        // Woken outside the lock: a wake may run the schedule function.
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether the task's future is gone: it completed, panicked, or was cancelled.
    pub fn is_finished(&self) -> bool {
        // Acquire: pairs with the Release store in `AbortSlot::finish`.
        self.cell.finished.load(Ordering::Acquire)
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}
