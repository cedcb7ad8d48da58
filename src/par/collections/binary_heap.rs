//! Parallel iterators over a `BinaryHeap` (rayon's `rayon::collections::binary_heap`), in
//! no particular order, indexed over the heap's vector.

use std::collections::BinaryHeap;

use super::VecGuard;
use crate::par::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{delegate_indexed, IndexedParallelIterator};
use crate::par::iter::{
    IntoParallelIterator, ParallelDrainFull, ParallelDrainRange, ParallelIterator,
};
use crate::par::vec;

/// A parallel iterator over a heap's items, moved out: `heap.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    inner: vec::IntoIter<T>,
}

impl<T: Send> IntoParallelIterator for BinaryHeap<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter {
            inner: self.into_vec().into_par_iter(),
        }
    }
}

delegate_indexed!(IntoIter<; T> => vec::IntoIter<T>, item = T, where [T: Send]);

/// A parallel iterator over references to a heap's items: `heap.par_iter()`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: vec::IntoIter<&'a T>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter {
            inner: self.iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

delegate_indexed!(Iter<'a; T> => vec::IntoIter<&'a T>, item = &'a T, where [T: Sync + 'a]);

/// A parallel iterator that empties a heap (which keeps its allocation):
/// `heap.par_drain()`. The heap is empty afterwards even if the iterator is dropped unrun.
#[derive(Debug)]
pub struct Drain<'a, T: Ord> {
    guard: VecGuard<'a, BinaryHeap<T>, T>,
    /// Whether the items are still to remove (no producer took them over).
    pending: bool,
}

impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        Drain {
            guard: VecGuard::new(self),
            pending: true,
        }
    }
}

impl<T: Ord + Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Ord + Send> IndexedParallelIterator for Drain<'_, T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.guard.vec.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        self.pending = false;
        self.guard.vec.par_drain(..).with_producer(callback)
    }
}

impl<T: Ord> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        if self.pending {
            self.guard.vec.clear();
        }
    }
}
