//! Keeps an executor's state alive exactly as long as anything that needs it (its tasks, its
//! workers, the `Executor` itself), without a read-modify-write on a shared cache line per
//! task; and the one place where that "anchor" reference is taken and released.
//!
//! A task reaches its executor through a [`CountedRef`], a plain pointer. Had each task held
//! an `Arc` instead, every spawn and every task's end would hit the same reference count
//! from every core (on a 2-core machine that increment alone was four fifths of the time
//! spent in `spawn`). Instead, the tasks together hold one `Arc` reference, the *anchor*,
//! released when the count below says nothing needs it any more.
//!
//! # The count
//!
//! - On worker `i`, a task's creation or end moves `local[i]`, a counter only that worker's
//!   thread writes (a plain load and store on its own cache line). It is a signed value in
//!   two's complement and is *folded* into `global` (added, then reset to zero) as soon as
//!   its magnitude reaches [`FOLD_AT`], and when the worker exits.
//! - On any other thread it moves `global` with an atomic read-modify-write.
//! - `global` also holds one [`BIAS`] for as long as any *holder* is left: the executor and
//!   each worker that has not exited (`holders` counts them). The holder that leaves last
//!   removes the bias.
//!
//! So, with `L` the number of live tasks and `u_i` the unfolded part of `local[i]`:
//! `global = BIAS·[holders > 0] + L − Σ u_i`, where `|u_i| < FOLD_AT`. While a holder is
//! left, `global > BIAS − n·FOLD_AT > 0` (with `n < 2^32` workers, `n·FOLD_AT < 2^52`), and
//! `global < BIAS + L + 2^52 < 2^64` (a task takes more than 64 bytes, so `L < 2^58`). Once
//! the last holder is gone every local count has been folded, and `global == L` exactly.
//! Hence `global` is zero exactly when no holder and no task is left: that is exact by
//! construction, whatever the flow of tasks between threads (a task created on a worker and
//! ended elsewhere moves two different counters, but the folds bound the difference).
//!
//! The update that brings `global` to zero returns a [`Zero`] token; `global` can go from
//! zero back to one only through a task spawned through a `Handle` after the executor and
//! all its tasks are gone, and that update returns a [`Revived`] token. Each token is
//! `#[must_use]` and consumed by this module's anchor functions (the only code that touches
//! the anchor), so anchors taken and released always balance.
//!
//! **Invariant:** exactly one anchor is held while `global != 0`, none while it is zero.

use std::ptr::NonNull;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::util::sync::{add_single_writer, AtomicU64, AtomicUsize, Ordering};

/// The bias that the holders keep in `global` (see the module docs for the bounds).
const BIAS: u64 = 1 << 62;

/// A worker folds its local count into `global` once its magnitude reaches this.
#[cfg(not(loom))]
const FOLD_AT: u64 = 1 << 20;
/// Small under loom, so that the models go through folds.
#[cfg(loom)]
const FOLD_AT: u64 = 2;

/// What a [`CountedRef`] needs from the state it points to.
pub(crate) trait Counted {
    /// The count that keeps this state alive.
    fn task_count(&self) -> &TaskCount;
    /// The index of the current thread among the state's workers, if it is one.
    fn current_worker(&self) -> Option<usize>;
}

/// The count reached zero: the anchor must be released (see [`CountedRef`]'s drop and
/// [`holder_left`]).
#[must_use = "the anchor must be released"]
pub(crate) struct Zero(());

/// The count left zero: a new anchor must be taken (see [`CountedRef::new`]).
#[must_use = "a new anchor must be taken"]
pub(crate) struct Revived(());

/// The live-task count of one executor (module docs).
pub(crate) struct TaskCount {
    local: Box<[CachePadded<AtomicU64>]>,
    global: CachePadded<AtomicU64>,
    /// The executor plus the workers that have not exited.
    holders: AtomicUsize,
}

impl TaskCount {
    /// A count for `workers` workers; the executor and every worker are holders.
    pub(crate) fn new(workers: usize) -> TaskCount {
        TaskCount {
            local: (0..workers)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            global: CachePadded::new(AtomicU64::new(BIAS)),
            holders: AtomicUsize::new(workers + 1),
        }
    }

    /// A task was created on worker `worker` (`None`: on another thread).
    pub(crate) fn created(&self, worker: Option<usize>) -> Option<Revived> {
        match worker {
            Some(i) => {
                self.add_local(i, 1);
                None
            }
            // AcqRel: an increment from zero acquires the decrement that reached zero (it
            // read that value), and the decrement that later reaches zero acquires this one
            // (both are in the release sequence on `global`).
            None => (self.global.fetch_add(1, Ordering::AcqRel) == 0).then_some(Revived(())),
        }
    }

    /// A task was destroyed on worker `worker` (`None`: on another thread).
    pub(crate) fn destroyed(&self, worker: Option<usize>) -> Option<Zero> {
        match worker {
            Some(i) => {
                self.add_local(i, 1u64.wrapping_neg());
                None
            }
            None => self.sub_global(1),
        }
    }

    /// A holder is gone: worker `Some(i)` has left its loop and counts no more (its local
    /// count is folded in), or `None`, the executor was dropped.
    pub(crate) fn holder_left(&self, worker: Option<usize>) -> Option<Zero> {
        if let Some(i) = worker {
            self.fold(i);
        }
        // AcqRel: the holder that leaves last sees every other holder's fold before it
        // removes the bias.
        if self.holders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.sub_global(BIAS)
        } else {
            None
        }
    }

    /// The number of live tasks, read without stopping anyone (for `Stats`): exact when
    /// nothing moves, else off by the updates in flight.
    pub(crate) fn alive(&self) -> usize {
        // Relaxed: a statistic; it pairs with nothing.
        let holders = self.holders.load(Ordering::Relaxed);
        let mut n = self.global.load(Ordering::Relaxed);
        if holders > 0 {
            n = n.wrapping_sub(BIAS);
        }
        for local in self.local.iter() {
            n = n.wrapping_add(local.load(Ordering::Relaxed));
        }
        // A transiently negative reading (a race with a fold) shows as zero.
        if n > BIAS {
            0
        } else {
            usize::try_from(n).unwrap_or(usize::MAX)
        }
    }

    /// Adds `n` to worker `i`'s counter (only worker `i`'s thread calls this), folding it
    /// into `global` once it is large.
    fn add_local(&self, i: usize, n: u64) {
        let local = &self.local[i];
        add_single_writer(local, n);
        // Relaxed: our own last store.
        let v = local.load(Ordering::Relaxed);
        if v.wrapping_add(FOLD_AT - 1) >= 2 * FOLD_AT - 1 {
            // |v| >= FOLD_AT (as a signed value).
            self.fold(i);
        }
    }

    /// Moves worker `i`'s local count into `global`. While the worker is a holder the bias
    /// keeps `global` above zero through this (module docs); at the worker's exit the
    /// holder count still includes it, so the same holds.
    fn fold(&self, i: usize) {
        let local = &self.local[i];
        // Relaxed: written only by this thread (worker `i`).
        let v = local.load(Ordering::Relaxed);
        if v != 0 {
            local.store(0, Ordering::Relaxed);
            // AcqRel: part of the release sequence on `global` (see `sub_global`).
            let before = self.global.fetch_add(v, Ordering::AcqRel);
            debug_assert_ne!(before.wrapping_add(v), 0, "a fold reached zero");
        }
    }

    fn sub_global(&self, n: u64) -> Option<Zero> {
        // AcqRel: the update that reaches zero acquires every earlier one (they form a
        // release sequence on `global`), so the anchor is released after every use of the
        // state by the tasks and holders that went before.
        (self.global.fetch_sub(n, Ordering::AcqRel) == n).then_some(Zero(()))
    }
}

/// Makes the state of a new executor, with its anchor taken (the holders' bias makes the
/// count non-zero from the start).
pub(crate) fn new_anchored<S: Counted>(state: S) -> Arc<S> {
    let state = Arc::new(state);
    take_anchor(&state, Revived(()));
    state
}

/// A holder (worker `Some(i)` or the executor) is gone: releases the anchor if it was the
/// last thing keeping the state.
pub(crate) fn holder_left<S: Counted>(state: &Arc<S>, worker: Option<usize>) {
    if let Some(zero) = state.task_count().holder_left(worker) {
        // The caller holds its own `Arc`, so the state outlives this call either way.
        release_anchor(arc_ptr(state), zero);
    }
}

/// The pointer of `Arc::as_ptr`, which carries the provenance of the whole `Arc`
/// allocation (a pointer made from `&*arc` would not reach the reference counts).
fn arc_ptr<S>(state: &Arc<S>) -> NonNull<S> {
    NonNull::new(Arc::as_ptr(state).cast_mut()).expect("an Arc's pointer is never null")
}

fn take_anchor<S>(state: &Arc<S>, _revived: Revived) {
    // The anchor: a strong reference that nobody owns as an `Arc`, released by
    // `release_anchor` with the pointer of `Arc::as_ptr`.
    std::mem::forget(Arc::clone(state));
}

fn release_anchor<S>(ptr: NonNull<S>, _zero: Zero) {
    // SAFETY: `ptr` came from `Arc::as_ptr` of an `Arc<S>` of this allocation (the same
    // pointer, with the provenance of the whole `Arc` allocation, that `Arc::into_raw`
    // gives). A `Zero` token exists once per anchor taken (module invariant), so the strong
    // reference that `take_anchor` forgot is still there and is given up exactly once here.
    unsafe { Arc::decrement_strong_count(ptr.as_ptr()) };
}

/// A task's counted pointer to its executor's state: created with the task, dropped with it.
/// While it lives, the state does (through the anchor).
pub(crate) struct CountedRef<S: Counted> {
    /// From `Arc::as_ptr`, so that the anchor can be released through it.
    ptr: NonNull<S>,
}

// SAFETY: a `CountedRef` gives shared access to `S` only (like an `Arc<S>`), so it may move
// to and be used from other threads when `S` is Send + Sync.
unsafe impl<S: Counted + Send + Sync> Send for CountedRef<S> {}
// SAFETY: as above.
unsafe impl<S: Counted + Send + Sync> Sync for CountedRef<S> {}

impl<S: Counted> CountedRef<S> {
    /// Counts a new task of `state`.
    pub(crate) fn new(state: &Arc<S>) -> CountedRef<S> {
        if let Some(revived) = state.task_count().created(state.current_worker()) {
            // The executor and all its tasks were gone: this task takes a new anchor.
            take_anchor(state, revived);
        }
        CountedRef {
            ptr: arc_ptr(state),
        }
    }

    /// The state.
    pub(crate) fn get(&self) -> &S {
        // SAFETY: this task is counted (`new`) until `drop` below uncounts it, and while
        // it is counted the anchor keeps the allocation alive (module invariant).
        unsafe { self.ptr.as_ref() }
    }

    /// An `Arc` of the state, for a caller that may drop the task (and with it, perhaps, the
    /// last thing keeping the state) while it still uses the state.
    pub(crate) fn to_arc(&self) -> Arc<S> {
        // SAFETY: `ptr` came from `Arc::as_ptr` of a live allocation (see `get`), whose
        // strong count is at least one (the anchor); we add one for the `Arc` we make.
        unsafe {
            Arc::increment_strong_count(self.ptr.as_ptr());
            Arc::from_raw(self.ptr.as_ptr())
        }
    }
}

impl<S: Counted> Drop for CountedRef<S> {
    fn drop(&mut self) {
        let state = self.get();
        if let Some(zero) = state.task_count().destroyed(state.current_worker()) {
            // `state` is not used after this.
            release_anchor(self.ptr, zero);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
