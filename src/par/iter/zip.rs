//! `zip` and `zip_eq`: pairs of two indexed iterators' items, as long as the shorter (the
//! two producers split at the same indices).

use std::iter;

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::zip`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        /// Receives `a`'s producer, then asks `b` for its own.
        struct ZipCallbackA<CB, B> {
            callback: CB,
            b: B,
        }

        impl<CB, ITEM, B> ProducerCallback<ITEM> for ZipCallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<(ITEM, B::Item)>,
        {
            type Output = CB::Output;

            fn callback<PA: Producer<Item = ITEM>>(self, a: PA) -> CB::Output {
                self.b.with_producer(ZipCallbackB {
                    a,
                    callback: self.callback,
                })
            }
        }

        /// Holds `a`'s producer and receives `b`'s.
        struct ZipCallbackB<CB, PA> {
            a: PA,
            callback: CB,
        }

        impl<CB, ITEM, PA> ProducerCallback<ITEM> for ZipCallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<(PA::Item, ITEM)>,
        {
            type Output = CB::Output;

            fn callback<PB: Producer<Item = ITEM>>(self, b: PB) -> CB::Output {
                self.callback.callback(ZipProducer { a: self.a, b })
            }
        }

        self.a.with_producer(ZipCallbackA {
            callback,
            b: self.b,
        })
    }
}

struct ZipProducer<A, B> {
    a: A,
    b: B,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = iter::Zip<A::IntoIter, B::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
            },
        )
    }
}

/// The iterator of [`IndexedParallelIterator::zip_eq`]: a [`Zip`] whose two lengths were
/// checked equal.
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A, B> ZipEq<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        ZipEq {
            zip: Zip::new(a, b),
        }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for ZipEq<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.zip.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator
    for ZipEq<A, B>
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }

    fn len(&self) -> usize {
        self.zip.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}
