//! [`join`] and [`join_context`]: two closures that may run in parallel, on the workers.
//!
//! On a thread doing fork-join work the call takes the fast path of the core
//! (`runtime/scheduler/forkjoin/join_frame.rs`): the second closure runs inline after the first
//! unless a worker wants work, in which case another worker may run it. A call from a task's
//! poll starts fork-join work on that worker; a call from any other thread runs on a worker
//! of the current executor (else the global one) while the calling thread waits
//! (`forkjoin/inject.rs`). The core's door is `runtime/scheduler/forkjoin/mod.rs`.

use std::marker::PhantomData;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin;

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
/// `b` is offered to other workers when one wants work, when the call has run alone a
/// while with workers asleep, or about a tick after the call began if the caller makes no
/// check meanwhile (an `a` that blocks or spins until `b` has done something): then an idle
/// worker runs `b`. On a busy pool nothing promises that `b` starts while `a` runs, so such
/// an `a` waits until some worker is free, as in rayon. Halves that must run at the same time
/// belong on threads or tasks.
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
#[cfg_attr(feature = "console", track_caller)]
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
#[cfg_attr(feature = "console", track_caller)]
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let a = move |migrated| a(FnContext::new(migrated));
    let b = move |migrated| b(FnContext::new(migrated));
    let site = forkjoin::Site::here("par::join");
    forkjoin::join(a, b, current_or_global_state, site)
}
