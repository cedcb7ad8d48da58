//! `while_some`: the `Some` values until a `None`, which stops every piece.

use crate::util::sync::{AtomicBool, Ordering};

use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::ParallelIterator;

/// The iterator of [`ParallelIterator::while_some`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_unindexed(WhileSomeConsumer {
            base: consumer,
            stop: &stop,
        })
    }
}

/// Passes on `Some` values; a `None` sets `stop` (Relaxed: it only stops work early).
struct WhileSomeConsumer<'s, C> {
    base: C,
    stop: &'s AtomicBool,
}

impl<'s, T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<'s, C> {
    type Folder = WhileSomeConsumer<'s, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            WhileSomeConsumer {
                base: left,
                stop: self.stop,
            },
            WhileSomeConsumer {
                base: right,
                stop: self.stop,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        WhileSomeConsumer {
            base: self.base.into_folder(),
            stop: self.stop,
        }
    }

    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            stop: self.stop,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>> Folder<Option<T>> for WhileSomeConsumer<'_, F> {
    type Result = F::Result;

    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(item) => self.base = self.base.consume(item),
            None => self.stop.store(true, Ordering::Relaxed),
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = Option<T>>>(mut self, iter: I) -> Self {
        let stop = self.stop;
        let items = iter.into_iter().map_while(|item| {
            if item.is_none() {
                stop.store(true, Ordering::Relaxed);
            }
            item
        });
        self.base = self
            .base
            .consume_iter(items.take_while(|_| !stop.load(Ordering::Relaxed)));
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.base.full()
    }
}
