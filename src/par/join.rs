//! `join` and `join_context`: two closures that may run in parallel.
//!
//! INTERIM: a sequential stand-in with the final signatures, so that the parallel
//! iterators can be written against them while the fork-join core is built.

use std::cell::Cell;
use std::marker::PhantomData;

/// What a closure of [`join_context`] learns about where it runs.
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
    /// `!Send` and `!Sync`, as rayon's.
    _not_send: PhantomData<*mut ()>,
}

impl FnContext {
    /// Whether the closure runs on a thread other than the one that called
    /// [`join_context`] (it was stolen).
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `a` and `b`, possibly in parallel, and returns both results.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| a(), |_| b())
}

/// As [`join`], with a [`FnContext`] for each closure.
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let ctx = || FnContext {
        migrated: false,
        _not_send: PhantomData,
    };
    let ra = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a(ctx()))) {
        Ok(ra) => ra,
        Err(payload) => {
            // rayon's rule: `b` still runs when `a` panicked, then `a`'s panic goes on.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b(ctx())));
            std::panic::resume_unwind(payload);
        }
    };
    (ra, b(ctx()))
}

thread_local! {
    static SPLITS: Cell<u32> = const { Cell::new(0) };
}

/// Whether a parallel iterator should split the rest of its piece now (and `join` the two
/// halves), rather than go on folding it: true when another worker wants work.
///
/// INTERIM: true on every third call, so that the iterators' splitting paths run.
#[allow(dead_code)]
pub(crate) fn wants_split() -> bool {
    SPLITS.with(|s| {
        let n = s.get().wrapping_add(1);
        s.set(n);
        n % 3 == 0
    })
}

/// Called by the parallel iterators between two pieces of work: unwinds if the call they
/// belong to was cancelled (its `par::run` future dropped).
///
/// INTERIM: never unwinds.
#[inline]
#[allow(dead_code)]
pub(crate) fn at_piece_boundary() {}
