//! `repeat(item)` (endless clones, unindexed: cut it with `take` or `zip`) and
//! `repeat_n(item, n)` (`n` clones, indexed).

use std::iter;

use super::plumbing::{bridge, bridge_unindexed, Consumer, Folder, Producer, ProducerCallback};
use super::plumbing::{UnindexedConsumer, UnindexedProducer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, Zip};

/// Endless clones of `item`; cut it with [`Repeat::take`] or [`Repeat::zip`] (or a
/// short-circuiting consumer).
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::repeat;
///
/// let x: Vec<(i32, i32)> = repeat(22).zip(0..3).collect();
/// assert_eq!(x, [(22, 0), (22, 1), (22, 2)]);
/// ```
pub fn repeat<T: Clone + Send>(item: T) -> Repeat<T> {
    Repeat { item }
}

/// The iterator of [`repeat()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct Repeat<T> {
    item: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// `n` clones of the item, as an indexed iterator ([`repeat_n`]).
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.item, n)
    }

    /// Pairs each item of `zip_op` with a clone of the item (as long as `zip_op`).
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let z = zip_op.into_par_iter();
        let n = z.len();
        self.take(n).zip(z)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            RepeatProducer {
                item: self.item,
                splits: usize::BITS,
            },
            consumer,
        )
    }
}

/// Endless clones; halves into two endless producers a bounded number of times.
struct RepeatProducer<T> {
    item: T,
    splits: u32,
}

impl<T: Clone + Send> UnindexedProducer for RepeatProducer<T> {
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        if self.splits == 0 {
            return (self, None);
        }
        let splits = self.splits - 1;
        let right = RepeatProducer {
            item: self.item.clone(),
            splits,
        };
        (
            RepeatProducer {
                item: self.item,
                splits,
            },
            Some(right),
        )
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(iter::repeat(self.item))
    }
}

/// `n` clones of `item`, as an indexed iterator.
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::repeat_n;
///
/// let v: Vec<&str> = repeat_n("ab", 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    RepeatN {
        item: (n > 0).then_some(item),
        count: n,
    }
}

/// [`repeat_n`] under its old name.
#[deprecated(note = "use `repeat_n`")]
pub fn repeatn<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    repeat_n(item, n)
}

/// The iterator of [`repeat_n()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct RepeatN<T> {
    item: Option<T>,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.count
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RepeatNProducer {
            item: self.item,
            count: self.count,
        })
    }
}

/// `count` clones of `item` (the last one is the item itself); `item` is `None` only when
/// `count` is 0.
struct RepeatNProducer<T> {
    item: Option<T>,
    count: usize,
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;

    fn into_iter(self) -> RepeatNIter<T> {
        RepeatNIter {
            item: self.item,
            count: self.count,
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left_item = if index > 0 { self.item.clone() } else { None };
        let right_count = self.count - index;
        let right_item = if right_count > 0 { self.item } else { None };
        (
            RepeatNProducer {
                item: left_item,
                count: index,
            },
            RepeatNProducer {
                item: right_item,
                count: right_count,
            },
        )
    }
}

/// The sequential iterator of [`repeat_n`]: clones, and the item itself last.
pub(super) struct RepeatNIter<T> {
    item: Option<T>,
    count: usize,
}

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self.count {
            0 => None,
            1 => {
                self.count = 0;
                self.item.take()
            }
            _ => {
                self.count -= 1;
                self.item.clone()
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }

    fn nth(&mut self, n: usize) -> Option<T> {
        // Skipped items are never made (no clone to drop).
        if n >= self.count {
            self.count = 0;
            self.item = None;
            return None;
        }
        self.count -= n;
        self.next()
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    fn next_back(&mut self) -> Option<T> {
        self.next()
    }

    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}
