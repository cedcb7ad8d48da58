//! Parallel iterators over a `VecDeque` (rayon's `rayon::collections::vec_deque`), in
//! order and indexed: by reference over its two slices, by value and drained through a
//! `Vec`.

use std::collections::VecDeque;
use std::ops::{Range, RangeBounds};

use super::VecGuard;
use crate::par::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{delegate_indexed, Chain, IndexedParallelIterator};
use crate::par::iter::{IntoParallelIterator, ParallelDrainRange, ParallelIterator};
use crate::par::{slice, vec};

/// A parallel iterator over a deque's items, moved out: `deque.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    inner: vec::IntoIter<T>,
}

impl<T: Send> IntoParallelIterator for VecDeque<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter {
            inner: Vec::from(self).into_par_iter(),
        }
    }
}

delegate_indexed!(IntoIter<; T> => vec::IntoIter<T>, item = T, where [T: Send]);

/// A parallel iterator over references to a deque's items: `deque.par_iter()`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: Chain<slice::Iter<'a, T>, slice::Iter<'a, T>>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_slices();
        Iter {
            inner: front.into_par_iter().chain(back),
        }
    }
}

delegate_indexed!(Iter<'a; T> => Chain<slice::Iter<'a, T>, slice::Iter<'a, T>>, item = &'a T, where [T: Sync + 'a]);

/// A parallel iterator over mutable references to a deque's items: `deque.par_iter_mut()`.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: Chain<slice::IterMut<'a, T>, slice::IterMut<'a, T>>,
}

impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_mut_slices();
        IterMut {
            inner: front.into_par_iter().chain(back),
        }
    }
}

delegate_indexed!(IterMut<'a; T> => Chain<slice::IterMut<'a, T>, slice::IterMut<'a, T>>, item = &'a mut T, where [T: Send + 'a]);

/// A parallel iterator that removes a range of a deque's items: `deque.par_drain(range)`.
/// The range is removed even if the iterator is dropped unrun or a closure panics.
#[derive(Debug)]
pub struct Drain<'a, T> {
    guard: VecGuard<'a, VecDeque<T>, T>,
    /// The range still to remove; emptied once a producer took it over.
    range: Range<usize>,
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = crate::par::math::simplify_range(range, self.len());
        Drain {
            guard: VecGuard::new(self),
            range,
        }
    }
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.range.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let range = std::mem::replace(&mut self.range, 0..0);
        self.guard.vec.par_drain(range).with_producer(callback)
    }
}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        // Unrun: remove the range here (the guard then moves the rest back).
        self.guard.vec.drain(self.range.clone());
    }
}
