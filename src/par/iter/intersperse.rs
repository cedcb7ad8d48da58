//! `intersperse`: a clone of a separator between each two adjacent items.
//!
//! Indexed, output position `i` of a piece is a separator or a base item by its parity and
//! whether the piece starts with a separator (`sep_first`): the producer splits by output
//! index and maps it to the base index. Unindexed, every piece but the leftmost puts a
//! separator before each of its items, and the leftmost before each item but its first; as
//! rayon's, a leftmost piece that yields nothing leaves a separator at the very front.

use std::cell::Cell;
use std::iter::FusedIterator;

use super::plumbing::{bridge, Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::intersperse`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    item: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(super) fn new(base: I, item: I::Item) -> Self {
        Intersperse { base, item }
    }
}

/// The output length of `len` base items.
fn output_len(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        len.checked_add(len - 1).expect("overflow")
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item: Clone>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let consumer = IntersperseConsumer {
            base: consumer,
            item: self.item,
            sep_first: Cell::new(false),
        };
        self.base.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        let len = self.base.opt_len()?;
        if len == 0 {
            Some(0)
        } else {
            len.checked_add(len - 1)
        }
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator<Item: Clone>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        output_len(self.base.len())
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct IntersperseCallback<CB, T> {
            callback: CB,
            item: T,
            len: usize,
        }

        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for IntersperseCallback<CB, T> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let producer = IntersperseProducer {
                    base,
                    item: self.item,
                    len: self.len,
                    sep_first: false,
                };
                self.callback.callback(producer)
            }
        }

        let len = self.len();
        self.base.with_producer(IntersperseCallback {
            callback,
            item: self.item,
            len,
        })
    }
}

/// `len` output positions over `base`; position `i` is a separator when its parity says so
/// (even positions if `sep_first`, else odd ones).
struct IntersperseProducer<P: Producer> {
    base: P,
    item: P::Item,
    len: usize,
    sep_first: bool,
}

impl<P> Producer for IntersperseProducer<P>
where
    P: Producer<Item: Clone + Send>,
{
    type Item = P::Item;
    type IntoIter = IntersperseIter<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        // The last position is a separator when its parity says so.
        let sep_last = self.len > 0 && ((self.len - 1) % 2 == 0) == self.sep_first;
        IntersperseIter {
            base: self.base.into_iter(),
            item: self.item,
            len: self.len,
            sep_front: self.sep_first,
            sep_back: sep_last,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.len);
        // The base items among the first `index` positions.
        let base_index = if self.sep_first {
            index / 2
        } else {
            index.div_ceil(2)
        };
        let (left, right) = self.base.split_at(base_index);
        let right_sep_first = (index % 2 == 0) == self.sep_first;
        (
            IntersperseProducer {
                base: left,
                item: self.item.clone(),
                len: index,
                sep_first: self.sep_first,
            },
            IntersperseProducer {
                base: right,
                item: self.item,
                len: self.len - index,
                sep_first: right_sep_first,
            },
        )
    }
}

/// The sequential iterator of an intersperse producer.
pub(super) struct IntersperseIter<I: Iterator> {
    base: I,
    item: I::Item,
    /// Positions left.
    len: usize,
    /// Whether the next position from the front (back) is a separator.
    sep_front: bool,
    sep_back: bool,
}

impl<I> Iterator for IntersperseIter<I>
where
    I: DoubleEndedIterator<Item: Clone>,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        self.sep_front = !self.sep_front;
        if self.sep_front {
            self.base.next()
        } else {
            Some(self.item.clone())
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<I> DoubleEndedIterator for IntersperseIter<I>
where
    I: DoubleEndedIterator<Item: Clone>,
{
    fn next_back(&mut self) -> Option<I::Item> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        self.sep_back = !self.sep_back;
        if self.sep_back {
            self.base.next_back()
        } else {
            Some(self.item.clone())
        }
    }
}

impl<I> ExactSizeIterator for IntersperseIter<I> where I: DoubleEndedIterator<Item: Clone> {}

impl<I> FusedIterator for IntersperseIter<I> where I: DoubleEndedIterator<Item: Clone> {}

/// Puts a separator before each item but the first of the leftmost piece. `split_at`
/// takes base indices and splits `base` at the matching output index.
struct IntersperseConsumer<C, T> {
    base: C,
    item: T,
    sep_first: Cell<bool>,
}

impl<C, T> Consumer<T> for IntersperseConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let sep_first = self.sep_first.get();
        let out_index = if sep_first {
            index * 2
        } else {
            output_len(index)
        };
        let (left, right, reducer) = self.base.split_at(out_index);
        (
            IntersperseConsumer {
                base: left,
                item: self.item.clone(),
                sep_first: Cell::new(sep_first),
            },
            IntersperseConsumer {
                base: right,
                item: self.item,
                sep_first: Cell::new(true),
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            item: self.item,
            sep_next: self.sep_first.get(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<C, T> UnindexedConsumer<T> for IntersperseConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    fn split_off_left(&self) -> Self {
        let left = IntersperseConsumer {
            base: self.base.split_off_left(),
            item: self.item.clone(),
            sep_first: Cell::new(self.sep_first.get()),
        };
        self.sep_first.set(true);
        left
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct IntersperseFolder<F, T> {
    base: F,
    item: T,
    sep_next: bool,
}

impl<F: Folder<T>, T: Clone> Folder<T> for IntersperseFolder<F, T> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        if self.sep_next {
            self.base = self.base.consume(self.item.clone());
            if self.base.full() {
                return self;
            }
        }
        self.sep_next = true;
        self.base = self.base.consume(item);
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
