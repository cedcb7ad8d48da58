//! `filter` and `filter_map`: only some items go on (so the length becomes unknown).

use std::fmt;

use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::{ParallelIterator, FULL_CHECK_BATCH};

/// The iterator of [`ParallelIterator::filter`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = |item: I::Item| (self.filter_op)(&item).then_some(item);
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &op,
        })
    }
}

/// The iterator of [`ParallelIterator::filter_map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for FilterMap<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> FilterMap<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        FilterMap { base, filter_op }
    }
}

impl<I, P, R> ParallelIterator for FilterMap<I, P>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &self.filter_op,
        })
    }
}

/// Passes on the `Some` outputs of `op` (`filter` is `filter_map` with `then_some`).
struct FilterMapConsumer<'p, C, P> {
    base: C,
    op: &'p P,
}

impl<'p, T, R, C, P> Consumer<T> for FilterMapConsumer<'p, C, P>
where
    C: Consumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    type Folder = FilterMapFolder<'p, C::Folder, P>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FilterMapConsumer {
                base: left,
                op: self.op,
            },
            FilterMapConsumer {
                base: right,
                op: self.op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FilterMapFolder {
            base: self.base.into_folder(),
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, R, C, P> UnindexedConsumer<T> for FilterMapConsumer<'_, C, P>
where
    C: UnindexedConsumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    fn split_off_left(&self) -> Self {
        FilterMapConsumer {
            base: self.base.split_off_left(),
            op: self.op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FilterMapFolder<'p, F, P> {
    base: F,
    op: &'p P,
}

impl<T, R, F, P> Folder<T> for FilterMapFolder<'_, F, P>
where
    F: Folder<R>,
    P: Fn(T) -> Option<R>,
{
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        match (self.op)(item) {
            Some(out) => FilterMapFolder {
                base: self.base.consume(out),
                op: self.op,
            },
            None => self,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        loop {
            let mut taken = 0;
            let batch = iter.by_ref().take(FULL_CHECK_BATCH).inspect(|_| taken += 1);
            self.base = self.base.consume_iter(batch.filter_map(self.op));
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
