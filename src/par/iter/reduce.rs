//! `reduce` and `reduce_with`: the items combined with an associative operation, in order.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;

/// Reduces `pi` with `op`, each piece starting from `identity()`.
pub(super) fn reduce<I, ID, OP, T>(pi: I, identity: ID, op: OP) -> T
where
    I: ParallelIterator<Item = T>,
    OP: Fn(T, T) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    pi.drive_unindexed(ReduceConsumer {
        identity: &identity,
        op: &op,
    })
}

/// Reduces `pi` with `op`; `None` when it is empty.
pub(super) fn reduce_with<I, OP, T>(pi: I, op: OP) -> Option<T>
where
    I: ParallelIterator<Item = T>,
    OP: Fn(T, T) -> T + Sync + Send,
    T: Send,
{
    pi.drive_unindexed(ReduceWithConsumer { op: &op })
}

/// Consumes items into a running value per piece, started from `identity()`; the pieces'
/// values are combined with `op`.
struct ReduceConsumer<'r, ID, OP> {
    identity: &'r ID,
    op: &'r OP,
}

impl<ID, OP> Clone for ReduceConsumer<'_, ID, OP> {
    fn clone(&self) -> Self {
        ReduceConsumer {
            identity: self.identity,
            op: self.op,
        }
    }
}

impl<'r, T, ID, OP> Consumer<T> for ReduceConsumer<'r, ID, OP>
where
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
    T: Send,
{
    type Folder = ReduceFolder<'r, OP, T>;
    type Reducer = Self;
    type Result = T;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> Self::Folder {
        ReduceFolder {
            acc: (self.identity)(),
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, ID, OP> UnindexedConsumer<T> for ReduceConsumer<'_, ID, OP>
where
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<T, ID, OP> Reducer<T> for ReduceConsumer<'_, ID, OP>
where
    OP: Fn(T, T) -> T,
{
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

struct ReduceFolder<'r, OP, T> {
    acc: T,
    op: &'r OP,
}

impl<T, OP> Folder<T> for ReduceFolder<'_, OP, T>
where
    OP: Fn(T, T) -> T,
{
    type Result = T;

    fn consume(self, item: T) -> Self {
        ReduceFolder {
            acc: (self.op)(self.acc, item),
            op: self.op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        ReduceFolder {
            acc: iter.into_iter().fold(self.acc, op),
            op,
        }
    }

    fn complete(self) -> T {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}

/// Consumes items into an optional running value per piece (none until the first item).
struct ReduceWithConsumer<'r, OP> {
    op: &'r OP,
}

impl<OP> Clone for ReduceWithConsumer<'_, OP> {
    fn clone(&self) -> Self {
        ReduceWithConsumer { op: self.op }
    }
}

impl<'r, T, OP> Consumer<T> for ReduceWithConsumer<'r, OP>
where
    OP: Fn(T, T) -> T + Sync,
    T: Send,
{
    type Folder = ReduceWithFolder<'r, OP, T>;
    type Reducer = Self;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }

    fn into_folder(self) -> Self::Folder {
        ReduceWithFolder {
            acc: None,
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, OP> UnindexedConsumer<T> for ReduceWithConsumer<'_, OP>
where
    OP: Fn(T, T) -> T + Sync,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<T, OP> Reducer<Option<T>> for ReduceWithConsumer<'_, OP>
where
    OP: Fn(T, T) -> T,
{
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(a), Some(b)) => Some((self.op)(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

struct ReduceWithFolder<'r, OP, T> {
    acc: Option<T>,
    op: &'r OP,
}

impl<T, OP> Folder<T> for ReduceWithFolder<'_, OP, T>
where
    OP: Fn(T, T) -> T,
{
    type Result = Option<T>;

    fn consume(self, item: T) -> Self {
        let acc = match self.acc {
            Some(acc) => (self.op)(acc, item),
            None => item,
        };
        ReduceWithFolder {
            acc: Some(acc),
            op: self.op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        let iter = iter.into_iter();
        let acc = match self.acc {
            Some(acc) => Some(iter.fold(acc, op)),
            None => iter.reduce(op),
        };
        ReduceWithFolder { acc, op }
    }

    fn complete(self) -> Option<T> {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}
