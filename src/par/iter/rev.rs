//! `rev`: the items from the last to the first (the producer splits from the other end).

use std::iter;

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::rev`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(super) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct RevCallback<CB> {
            callback: CB,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for RevCallback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(RevProducer {
                    base,
                    len: self.len,
                })
            }
        }

        let len = self.base.len();
        self.base.with_producer(RevCallback { callback, len })
    }
}

/// The `len` items of `base`, back to front.
struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = iter::Rev<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().rev()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (front, back) = self.base.split_at(self.len - index);
        (
            RevProducer {
                base: back,
                len: index,
            },
            RevProducer {
                base: front,
                len: self.len - index,
            },
        )
    }
}
