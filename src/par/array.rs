//! Parallel iterators over arrays (rayon's `rayon::array`): `[T; N]` moves its items out
//! ([`IntoIter`]); `&[T; N]` and `&mut [T; N]` are the slice iterators.

use std::mem::ManuallyDrop;

use crate::par::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::par::slice::{Iter, IterMut};
use crate::par::vec::DrainProducer;

impl<'data, T: Sync + 'data, const N: usize> IntoParallelIterator for &'data [T; N] {
    type Item = &'data T;
    type Iter = Iter<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        <&[T]>::into_par_iter(self)
    }
}

impl<'data, T: Send + 'data, const N: usize> IntoParallelIterator for &'data mut [T; N] {
    type Item = &'data mut T;
    type Iter = IterMut<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        <&mut [T]>::into_par_iter(self)
    }
}

/// A parallel iterator that moves the items out of an array: `array.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Item = T;
    type Iter = IntoIter<T, N>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter { array: self }
    }
}

impl<T: Send, const N: usize> ParallelIterator for IntoIter<T, N> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for IntoIter<T, N> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        N
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // The producer takes the items over; the array itself must not drop them again.
        let mut array = ManuallyDrop::new(self.array);
        // SAFETY: the items are initialised, and `ManuallyDrop` gives up the array's
        // ownership of them to the producer; the array's storage outlives the callback.
        let producer = unsafe { DrainProducer::new(&mut array[..]) };
        callback.callback(producer)
    }
}
