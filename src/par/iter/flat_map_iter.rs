//! `flat_map_iter` and `flatten_iter`: each item becomes a sequential iterator, whose items
//! go on in its place, on the same thread.

use std::fmt;

use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::{ParallelIterator, FULL_CHECK_BATCH};

/// The iterator of [`ParallelIterator::flat_map_iter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMapIter<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator<Item: Send>,
{
    type Item = SI::Item;

    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

/// The iterator of [`ParallelIterator::flatten_iter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator<Item: IntoIterator<Item: Send>>,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let identity = |x: I::Item| x;
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op: &identity,
        })
    }
}

struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, SI> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FlatMapIterConsumer {
                base: left,
                map_op: self.map_op,
            },
            FlatMapIterConsumer {
                base: right,
                map_op: self.map_op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C, F, SI> UnindexedConsumer<T> for FlatMapIterConsumer<'_, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapIterFolder<'f, F, M> {
    base: F,
    map_op: &'f M,
}

impl<T, F, M, SI> Folder<T> for FlatMapIterFolder<'_, F, M>
where
    F: Folder<SI::Item>,
    M: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        let base = self.base.consume_iter((self.map_op)(item));
        FlatMapIterFolder {
            base,
            map_op: self.map_op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        loop {
            let mut taken = 0;
            let batch = iter.by_ref().take(FULL_CHECK_BATCH).inspect(|_| taken += 1);
            self.base = self.base.consume_iter(batch.flat_map(self.map_op));
            if taken < FULL_CHECK_BATCH || self.base.full() {
                return self;
            }
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
