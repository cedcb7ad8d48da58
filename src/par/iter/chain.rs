//! `chain`: one iterator's items, then another's. The two halves run as the two sides of a
//! `join`; indexed, the producer holds both and splits whichever side the index falls in.

use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};
use crate::par::join;

/// The iterator of [`ParallelIterator::chain`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        // With `a`'s length known the consumer splits exactly there (a collect needs it).
        let (left, right, reducer) = match a.opt_len() {
            Some(len) => consumer.split_at(len),
            None => {
                let reducer = consumer.to_reducer();
                (consumer.split_off_left(), consumer, reducer)
            }
        };
        let (a, b) = join(|| a.drive_unindexed(left), || b.drive_unindexed(right));
        reducer.reduce(a, b)
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        let (left, right, reducer) = consumer.split_at(a.len());
        let (a, b) = join(|| a.drive(left), || b.drive(right));
        reducer.reduce(a, b)
    }

    fn len(&self) -> usize {
        self.a.len().checked_add(self.b.len()).expect("overflow")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        struct ChainCallbackA<CB, B> {
            callback: CB,
            a_len: usize,
            b: B,
        }

        impl<CB, B> ProducerCallback<B::Item> for ChainCallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;

            fn callback<PA: Producer<Item = B::Item>>(self, a: PA) -> CB::Output {
                let (callback, a_len) = (self.callback, self.a_len);
                self.b.with_producer(ChainCallbackB { callback, a_len, a })
            }
        }

        struct ChainCallbackB<CB, PA> {
            callback: CB,
            a_len: usize,
            a: PA,
        }

        impl<CB, PA> ProducerCallback<PA::Item> for ChainCallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;

            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                self.callback.callback(ChainProducer {
                    a: self.a,
                    b,
                    a_len: self.a_len,
                })
            }
        }

        let a_len = self.a.len();
        self.a.with_producer(ChainCallbackA {
            callback,
            a_len,
            b: self.b,
        })
    }
}

/// The `a_len` items of `a`, then those of `b`.
struct ChainProducer<PA, PB> {
    a: PA,
    b: PB,
    a_len: usize,
}

impl<PA, PB> Producer for ChainProducer<PA, PB>
where
    PA: Producer,
    PB: Producer<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = ChainIter<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        ChainIter {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
        }
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len: index,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: self.a_len - index,
                },
            )
        } else {
            let (a_left, a_right) = self.a.split_at(self.a_len);
            let (b_left, b_right) = self.b.split_at(index - self.a_len);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len: self.a_len,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: 0,
                },
            )
        }
    }

    fn fold_with<F: Folder<PA::Item>>(self, folder: F) -> F {
        let folder = self.a.fold_with(folder);
        if folder.full() {
            folder
        } else {
            self.b.fold_with(folder)
        }
    }
}

/// `a`'s items then `b`'s, with an exact length (std's `Chain` has none).
pub(super) struct ChainIter<A, B> {
    a: A,
    b: B,
}

impl<A, B> Iterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        self.a.next().or_else(|| self.b.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.a.len() + self.b.len();
        (len, Some(len))
    }

    fn fold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut g: G) -> Acc {
        let acc = self.a.fold(init, &mut g);
        self.b.fold(acc, g)
    }
}

impl<A, B> DoubleEndedIterator for ChainIter<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator<Item = A::Item> + ExactSizeIterator,
{
    fn next_back(&mut self) -> Option<A::Item> {
        self.b.next_back().or_else(|| self.a.next_back())
    }
}

impl<A, B> ExactSizeIterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
