//! `interleave` and `interleave_shortest`: the items of two indexed iterators taken in
//! turn. The producer knows both lengths and which side comes next, so it can tell how
//! many items of each side precede any output index.

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator, Take};

/// The iterator of [`IndexedParallelIterator::interleave`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Interleave<I, J> {
    i: I,
    j: J,
}

impl<I, J> Interleave<I, J> {
    pub(super) fn new(i: I, j: J) -> Self {
        Interleave { i, j }
    }
}

impl<I, J> ParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, J> IndexedParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.i.len().checked_add(self.j.len()).expect("overflow")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct CallbackI<CB, J> {
            callback: CB,
            i_len: usize,
            j_len: usize,
            j: J,
        }

        impl<CB, J> ProducerCallback<J::Item> for CallbackI<CB, J>
        where
            J: IndexedParallelIterator,
            CB: ProducerCallback<J::Item>,
        {
            type Output = CB::Output;

            fn callback<PI: Producer<Item = J::Item>>(self, i: PI) -> CB::Output {
                let (i_len, j_len, callback) = (self.i_len, self.j_len, self.callback);
                self.j.with_producer(CallbackJ {
                    callback,
                    i,
                    i_len,
                    j_len,
                })
            }
        }

        struct CallbackJ<CB, PI> {
            callback: CB,
            i: PI,
            i_len: usize,
            j_len: usize,
        }

        impl<CB, PI> ProducerCallback<PI::Item> for CallbackJ<CB, PI>
        where
            PI: Producer,
            CB: ProducerCallback<PI::Item>,
        {
            type Output = CB::Output;

            fn callback<PJ: Producer<Item = PI::Item>>(self, j: PJ) -> CB::Output {
                let producer = InterleaveProducer {
                    i: self.i,
                    j,
                    i_len: self.i_len,
                    j_len: self.j_len,
                    i_next: true,
                };
                self.callback.callback(producer)
            }
        }

        let (i_len, j_len) = (self.i.len(), self.j.len());
        self.i.with_producer(CallbackI {
            callback,
            i_len,
            j_len,
            j: self.j,
        })
    }
}

/// The items of `i` and `j` in turn, `i`'s first when `i_next`; the longer side's extra
/// items at the end.
struct InterleaveProducer<PI, PJ> {
    i: PI,
    j: PJ,
    i_len: usize,
    j_len: usize,
    i_next: bool,
}

impl<PI, PJ> InterleaveProducer<PI, PJ> {
    /// How many of the first `index` outputs come from `i`.
    fn i_count(&self, index: usize) -> usize {
        let pairs = self.i_len.min(self.j_len);
        if index <= 2 * pairs {
            // The sides strictly alternate so far.
            if self.i_next {
                index.div_ceil(2)
            } else {
                index / 2
            }
        } else if self.i_len > self.j_len {
            // `j` gave all its items.
            index - self.j_len
        } else {
            self.i_len
        }
    }
}

impl<PI, PJ> Producer for InterleaveProducer<PI, PJ>
where
    PI: Producer,
    PJ: Producer<Item = PI::Item>,
{
    type Item = PI::Item;
    type IntoIter = InterleaveIter<PI::IntoIter, PJ::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            i: self.i.into_iter(),
            j: self.j.into_iter(),
            i_next: self.i_next,
        }
    }

    fn min_len(&self) -> usize {
        self.i.min_len().max(self.j.min_len())
    }

    fn max_len(&self) -> usize {
        self.i.max_len().min(self.j.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let i_index = self.i_count(index);
        let j_index = index - i_index;
        let (i_left, i_right) = self.i.split_at(i_index);
        let (j_left, j_right) = self.j.split_at(j_index);
        let (i_rest, j_rest) = (self.i_len - i_index, self.j_len - j_index);
        // While both sides have items they alternate: after an even count the side that
        // led leads again. Once one side is out, the other leads.
        let right_i_next = if i_rest == 0 || j_rest == 0 {
            i_rest > 0
        } else {
            (index % 2 == 0) == self.i_next
        };
        (
            InterleaveProducer {
                i: i_left,
                j: j_left,
                i_len: i_index,
                j_len: j_index,
                i_next: self.i_next,
            },
            InterleaveProducer {
                i: i_right,
                j: j_right,
                i_len: i_rest,
                j_len: j_rest,
                i_next: right_i_next,
            },
        )
    }
}

/// The sequential iterator of an interleave producer.
pub(super) struct InterleaveIter<I, J> {
    i: I,
    j: J,
    /// Whether the next item from the front comes from `i`.
    i_next: bool,
}

impl<I, J> Iterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator<Item = I::Item> + ExactSizeIterator,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let from_i = self.i_next;
        self.i_next = !self.i_next;
        if from_i {
            self.i.next().or_else(|| self.j.next())
        } else {
            self.j.next().or_else(|| self.i.next())
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.i.len() + self.j.len();
        (len, Some(len))
    }
}

impl<I, J> DoubleEndedIterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator<Item = I::Item> + ExactSizeIterator,
{
    fn next_back(&mut self) -> Option<I::Item> {
        // The longer side ends the sequence; of equal sides, the one that does not lead.
        match self.i.len().cmp(&self.j.len()) {
            std::cmp::Ordering::Greater => self.i.next_back(),
            std::cmp::Ordering::Less => self.j.next_back(),
            std::cmp::Ordering::Equal if self.i_next => self.j.next_back(),
            std::cmp::Ordering::Equal => self.i.next_back(),
        }
    }
}

impl<I, J> ExactSizeIterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator<Item = I::Item> + ExactSizeIterator,
{
}

/// The iterator of [`IndexedParallelIterator::interleave_shortest`]: an [`Interleave`] of
/// the two sides cut where the shorter one runs out.
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct InterleaveShortest<I, J> {
    interleave: Interleave<Take<I>, Take<J>>,
}

impl<I: IndexedParallelIterator, J: IndexedParallelIterator<Item = I::Item>>
    InterleaveShortest<I, J>
{
    pub(super) fn new(i: I, j: J) -> Self {
        let (i_len, j_len) = (i.len(), j.len());
        // `i` leads, so it gives one more item than a shorter `j`.
        let (i_take, j_take) = if i_len <= j_len {
            (i_len, i_len)
        } else {
            (j_len + 1, j_len)
        };
        InterleaveShortest {
            interleave: Interleave::new(Take::new(i, i_take), Take::new(j, j_take)),
        }
    }
}

impl<I, J> ParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self.interleave, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.interleave.len())
    }
}

impl<I, J> IndexedParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self.interleave, consumer)
    }

    fn len(&self) -> usize {
        self.interleave.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.interleave.with_producer(callback)
    }
}
