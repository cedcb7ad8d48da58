//! [`join`] and [`join_context`]: two closures that may run in parallel, on the workers.
//!
//! On a thread doing fork-join work the call takes the fast path of the core
//! (`runtime/scheduler/forkjoin/join_frame.rs`): the second closure runs inline after the first
//! unless a worker wants work, in which case another worker may run it. A call from a task's
//! poll starts fork-join work on that worker; a call from any other thread runs on a worker
//! of the current executor (else the global one) while the calling thread waits
//! (`forkjoin/inject.rs`).

use std::marker::PhantomData;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin::node::Root;
use crate::runtime::scheduler::forkjoin::occupy::on_worker;
use crate::runtime::scheduler::forkjoin::thread::{with_current, Cancelled, FjThread};
use crate::runtime::scheduler::forkjoin::{inject, join_frame as core};
use crate::runtime::scheduler::worker::context;

/// What a closure of [`join_context`] learns about where it runs.
///
/// ```
/// let (a, b) = filch::par::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated());
/// // Called from outside the workers, both halves run on a worker: both migrated.
/// assert!(a && b);
/// ```
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
    /// `!Send` and `!Sync`, as rayon's.
    _not_send: PhantomData<*mut ()>,
}

impl FnContext {
    fn new(migrated: bool) -> FnContext {
        FnContext {
            migrated,
            _not_send: PhantomData,
        }
    }

    /// Whether the closure runs on a thread other than the one that called
    /// [`join_context`]: it was stolen by another worker, or the call came from outside the
    /// workers.
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `a` and `b`, possibly in parallel, and returns both results; rayon's `join`.
///
/// The closures may borrow from the caller's stack: `join` returns only once both have
/// finished. If either panics, the panic is resumed here once both have returned (`a`'s if
/// both did; `b` runs even when `a` panicked). On a worker, the calling thread runs only
/// this call's own pieces while it waits, never an unrelated task.
///
/// `b` is offered to other workers only when one wants work (or the call has run alone a
/// while with workers asleep), so nothing promises that `b` starts while `a` runs: an `a`
/// that blocks until `b` has done something may wait until some worker takes `b`, forever
/// on a busy pool. Halves that must run at the same time belong on threads or tasks.
///
/// ```
/// fn sum(v: &[u64]) -> u64 {
///     if v.len() <= 1024 {
///         return v.iter().sum();
///     }
///     let (left, right) = v.split_at(v.len() / 2);
///     let (a, b) = filch::par::join(|| sum(left), || sum(right));
///     a + b
/// }
/// let v: Vec<u64> = (1..=100_000).collect();
/// assert_eq!(sum(&v), 5_000_050_000);
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| a(), |_| b())
}

/// As [`join`], each closure told by a [`FnContext`] whether it migrated to another
/// thread; rayon's `join_context`.
///
/// ```
/// let (a, b) = filch::par::join_context(|_| 1, |ctx| if ctx.migrated() { 2 } else { 2 });
/// assert_eq!(a + b, 3);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let a = move |migrated| a(FnContext::new(migrated));
    let b = move |migrated| b(FnContext::new(migrated));
    with_current(move |t| match t {
        Some(t) => core::join(t, a, b, false),
        None => join_cold(a, b),
    })
}

/// A join that starts fork-join work: on a worker (a task's poll), or outside the workers.
#[cold]
#[inline(never)]
fn join_cold<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(bool) -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    context::with_worker(move |worker| match worker {
        Some(worker) => on_worker(worker, Root::new(), |t| core::join(t, a, b, false)),
        None => inject::call(&current_or_global_state(), move |t| {
            core::join(t, a, b, true)
        }),
    })
}

/// Runs `f`, a parallel iterator's whole call, where its pieces can spread over the workers:
/// here if this thread does fork-join work or is a worker (its splits then enter fork-join
/// work), else as a call injected into the current executor (else the global one), which a
/// worker runs while this thread sleeps (a stand-in runs it itself, once it handed its slot
/// on: `runtime/scheduler/forkjoin/inject.rs`). So a call from outside the workers runs on them, whatever its
/// length, as rayon's does.
#[inline]
pub(crate) fn on_the_workers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if with_current(|t| t.is_some()) || context::with_worker(|worker| worker.is_some()) {
        return f();
    }
    from_outside(f)
}

#[cold]
#[inline(never)]
fn from_outside<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    inject::call(&current_or_global_state(), move |_| f())
}

/// Whether a parallel iterator should split the rest of its piece now (and `join` the two
/// halves) rather than go on folding it: workers want work beyond what is on offer, or a
/// heartbeat found a worker asleep (`FjThread::wants_split`).
#[inline]
pub(crate) fn wants_split() -> bool {
    with_current(|t| t.is_some_and(FjThread::wants_split))
}

/// Has the next parallel iterator on this thread offer half of its work at its first chunk
/// boundary (an awaited loop's start: `par/loops/watched.rs`), when other workers could take
/// it. Nothing off fork-join work.
pub(crate) fn offer_half_at_once() {
    with_current(|t| {
        if let Some(t) = t.filter(|t| t.state.num_workers() > 1) {
            t.request_split();
        }
    });
}

/// Whether a sleeping worker may be woken for the split a parallel iterator is about to make:
/// a worker sleeps and nothing is on offer. If so, the split's `join` publishes its half (as
/// at a heartbeat), which wakes that worker.
#[inline]
pub(crate) fn offer_to_sleepers() -> bool {
    with_current(|t| t.is_some_and(|t| t.offer_to_sleepers()))
}

/// Called by the parallel iterators between two pieces of work: the heartbeat and demand
/// check of a `join` (it may publish a frame), which unwinds if the call was cancelled (its
/// `par::run` future dropped).
#[inline]
pub(crate) fn at_piece_boundary() {
    if with_current(|t| t.is_some_and(|t| t.check_in())) {
        std::panic::resume_unwind(Box::new(Cancelled));
    }
}
