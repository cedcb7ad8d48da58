//! `flat_map` and `flatten`: each item becomes a parallel iterator, run in place of the
//! item (its own bridged call, whose consumer is split off the outer one), the results
//! reduced in order.

use std::fmt;

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::{IntoParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::flat_map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMap").field("base", &self.base).finish()
    }
}

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

/// The iterator of [`ParallelIterator::flatten`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator<Item: IntoParallelIterator>,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let identity = |x: I::Item| x;
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op: &identity,
        })
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, PI> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FlatMapConsumer {
                base: left,
                map_op: self.map_op,
            },
            FlatMapConsumer {
                base: right,
                map_op: self.map_op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C, F, PI> UnindexedConsumer<T> for FlatMapConsumer<'_, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// Runs each item's iterator into a consumer split off the left of `base`, and reduces
/// the results in order into `previous`.
struct FlatMapFolder<'f, C, F, R> {
    base: C,
    map_op: &'f F,
    previous: Option<R>,
}

impl<T, C, F, PI> Folder<T> for FlatMapFolder<'_, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let result = inner.drive_unindexed(self.base.split_off_left());
        let previous = match self.previous {
            None => result,
            Some(previous) => self.base.to_reducer().reduce(previous, result),
        };
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: Some(previous),
        }
    }

    fn complete(self) -> C::Result {
        match self.previous {
            Some(previous) => previous,
            None => self.base.into_folder().complete(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
