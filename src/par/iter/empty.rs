//! `empty()`: a parallel iterator with no items.

use std::fmt;
use std::marker::PhantomData;

use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// A parallel iterator that yields nothing.
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::empty;
///
/// let v: Vec<i32> = (0..3).into_par_iter().chain(empty()).collect();
/// assert_eq!(v, [0, 1, 2]);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        marker: PhantomData,
    }
}

/// The iterator of [`empty()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
pub struct Empty<T> {
    marker: PhantomData<fn() -> T>,
}

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty {
            marker: PhantomData,
        }
    }
}

impl<T: Send> fmt::Debug for Empty<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Empty")
    }
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        consumer.into_folder().complete()
    }

    fn len(&self) -> usize {
        0
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(EmptyProducer(PhantomData))
    }
}

struct EmptyProducer<T: Send>(PhantomData<T>);

impl<T: Send> Producer for EmptyProducer<T> {
    type Item = T;
    type IntoIter = std::iter::Empty<T>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::empty()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert_eq!(index, 0);
        (self, EmptyProducer(PhantomData))
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder
    }
}
