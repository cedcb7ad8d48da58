//! `skip` and `take`: the producer split once at `n`. The skipped items still run (for
//! their side effects, and so that owned items are dropped where they would be), before
//! the rest; the items after a `take` are dropped unrun.

use super::noop::NoopConsumer;
use super::plumbing::{
    bridge, bridge_producer_consumer, Consumer, Producer, ProducerCallback, UnindexedConsumer,
};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::skip`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Skip<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len() - self.n
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct SkipCallback<CB> {
            callback: CB,
            n: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for SkipCallback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (skipped, rest) = base.split_at(self.n);
                bridge_producer_consumer(self.n, skipped, NoopConsumer);
                self.callback.callback(rest)
            }
        }

        self.base.with_producer(SkipCallback {
            callback,
            n: self.n,
        })
    }
}

/// The iterator of [`IndexedParallelIterator::take`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Take<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.n
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct TakeCallback<CB> {
            callback: CB,
            n: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for TakeCallback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (taken, _dropped) = base.split_at(self.n);
                self.callback.callback(taken)
            }
        }

        self.base.with_producer(TakeCallback {
            callback,
            n: self.n,
        })
    }
}
