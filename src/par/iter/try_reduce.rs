//! `try_reduce` and `try_reduce_with` (and through them `try_for_each*`): a reduction of
//! fallible items that stops every piece at the first failure, which becomes the result.

use crate::util::sync::{AtomicBool, Ordering};
use std::marker::PhantomData;
use std::ops::ControlFlow::{Break, Continue};

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::try_trait::Try;
use super::ParallelIterator;

/// Reduces `pi`'s outputs with `op` from `identity()`, stopping at the first failure.
pub(super) fn try_reduce<I, ID, OP, T, R>(pi: I, identity: ID, op: OP) -> R
where
    I: ParallelIterator<Item = R>,
    R: Try<Output = T> + Send,
    OP: Fn(T, T) -> R + Sync,
    ID: Fn() -> T + Sync,
{
    let failed = AtomicBool::new(false);
    let start = || Some(R::from_output(identity()));
    let consumer = TryReduce {
        start: &start,
        op: &op,
        failed: &failed,
        result: PhantomData,
    };
    pi.drive_unindexed(consumer)
        .unwrap_or_else(|| R::from_output(identity()))
}

/// Reduces `pi`'s outputs with `op`, stopping at the first failure; `None` when empty.
pub(super) fn try_reduce_with<I, OP, T, R>(pi: I, op: OP) -> Option<R>
where
    I: ParallelIterator<Item = R>,
    R: Try<Output = T> + Send,
    OP: Fn(T, T) -> R + Sync,
{
    let failed = AtomicBool::new(false);
    let start = || None;
    let consumer = TryReduce {
        start: &start,
        op: &op,
        failed: &failed,
        result: PhantomData,
    };
    pi.drive_unindexed(consumer)
}

/// The consumer: a running `Option<R>` per piece (`start()` gives the first; a failure
/// stays a failure). `failed` is set (Relaxed: it only stops work early; the failure
/// travels in the results) once any piece fails.
struct TryReduce<'r, S, OP, R> {
    start: &'r S,
    op: &'r OP,
    failed: &'r AtomicBool,
    result: PhantomData<fn() -> R>,
}

impl<S, OP, R> Clone for TryReduce<'_, S, OP, R> {
    fn clone(&self) -> Self {
        TryReduce {
            start: self.start,
            op: self.op,
            failed: self.failed,
            result: PhantomData,
        }
    }
}

impl<S, OP, T, R> TryReduce<'_, S, OP, R>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    /// Combines two results in order; a failure wins (the left one first).
    fn combine(&self, left: Option<R>, right: Option<R>) -> Option<R> {
        let (left, right) = match (left, right) {
            (None, x) | (x, None) => return x,
            (Some(left), Some(right)) => (left, right),
        };
        let combined = match (left.branch(), right.branch()) {
            (Break(r), _) | (_, Break(r)) => R::from_residual(r),
            (Continue(a), Continue(b)) => (self.op)(a, b),
        };
        // Checking the combined value for a failure means taking it apart and back.
        Some(match combined.branch() {
            Continue(t) => R::from_output(t),
            Break(r) => {
                self.failed.store(true, Ordering::Relaxed);
                R::from_residual(r)
            }
        })
    }
}

impl<'r, S, OP, T, R> Consumer<R> for TryReduce<'r, S, OP, R>
where
    S: Fn() -> Option<R> + Sync,
    OP: Fn(T, T) -> R + Sync,
    R: Try<Output = T> + Send,
{
    type Folder = TryReduceFolder<'r, S, OP, R>;
    type Reducer = Self;
    type Result = Option<R>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> Self::Folder {
        TryReduceFolder {
            acc: (self.start)(),
            broken: false,
            consumer: self,
        }
    }

    fn full(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

impl<S, OP, T, R> UnindexedConsumer<R> for TryReduce<'_, S, OP, R>
where
    S: Fn() -> Option<R> + Sync,
    OP: Fn(T, T) -> R + Sync,
    R: Try<Output = T> + Send,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<S, OP, T, R> Reducer<Option<R>> for TryReduce<'_, S, OP, R>
where
    OP: Fn(T, T) -> R,
    R: Try<Output = T>,
{
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        self.combine(left, right)
    }
}

struct TryReduceFolder<'r, S, OP, R> {
    consumer: TryReduce<'r, S, OP, R>,
    acc: Option<R>,
    /// Whether `acc` holds a failure.
    broken: bool,
}

impl<S, OP, T, R> Folder<R> for TryReduceFolder<'_, S, OP, R>
where
    OP: Fn(T, T) -> R,
    R: Try<Output = T>,
{
    type Result = Option<R>;

    fn consume(mut self, item: R) -> Self {
        let acc = self
            .consumer
            .combine(self.acc.take(), Some(item))
            .expect("a value");
        let acc = match acc.branch() {
            Continue(t) => R::from_output(t),
            Break(r) => {
                self.broken = true;
                self.consumer.failed.store(true, Ordering::Relaxed);
                R::from_residual(r)
            }
        };
        self.acc = Some(acc);
        self
    }

    fn complete(self) -> Option<R> {
        self.acc
    }

    fn full(&self) -> bool {
        self.broken || self.consumer.failed.load(Ordering::Relaxed)
    }
}
