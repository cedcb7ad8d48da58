//! Parallel iterators over vectors (rayon's `rayon::vec`): `into_par_iter()` moves the
//! items out ([`IntoIter`]), `par_drain(range)` removes a range ([`Drain`]); `par_iter()`
//! and `par_iter_mut()` are the slice iterators.
//!
//! Both hand out a `DrainProducer`: a run of items that the producer owns, moved out one
//! by one as the pieces run. **Invariant:** each item is owned by exactly one of the
//! producer, a sequential `SliceDrain` or whoever it was moved to, so a panic anywhere
//! drops each item exactly once: what a producer or drain still holds is dropped with it.

use std::iter::FusedIterator;
use std::ops::{Range, RangeBounds};
use std::ptr;

use crate::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelDrainRange, ParallelIterator,
};
use crate::par::slice::{Iter, IterMut};

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Item = &'data T;
    type Iter = Iter<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter()
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Item = &'data mut T;
    type Iter = IterMut<'data, T>;

    fn into_par_iter(self) -> Self::Iter {
        self.as_mut_slice().into_par_iter()
    }
}

/// A parallel iterator that moves the items out of a vector: `vec.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            vec: self.into_vec(),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.vec.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        // The drain takes every item; the emptied vector then frees its buffer.
        self.vec.par_drain(..).with_producer(callback)
    }
}

impl<'data, T: Send> ParallelDrainRange<usize> for &'data mut Vec<T> {
    type Iter = Drain<'data, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'data, T> {
        let range = crate::par::math::simplify_range(range, self.len());
        Drain {
            orig_len: self.len(),
            vec: self,
            range,
        }
    }
}

/// A parallel iterator that removes a range of a vector's items: `vec.par_drain(range)`.
///
/// The range is removed when the iterator is dropped, run or not (the items after it move
/// down), and each item is dropped exactly once, even if a closure panics.
#[derive(Debug)]
pub struct Drain<'data, T: Send> {
    vec: &'data mut Vec<T>,
    range: Range<usize>,
    orig_len: usize,
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

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range;
        // SAFETY: the vector's length drops to `start` first, so the range's items (owned by
        // the producer from here on) and the tail (restored by `Drop`) are out of its reach;
        // `start..end` lies within the old length (`simplify_range`).
        let producer = unsafe {
            self.vec.set_len(start);
            let run = std::slice::from_raw_parts_mut(self.vec.as_mut_ptr().add(start), end - start);
            DrainProducer::new(run)
        };
        callback.callback(producer)
        // `self` drops here (or while unwinding): the tail moves down.
    }
}

impl<T: Send> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range;
        if self.vec.len() == self.orig_len {
            // Never produced: remove the range the ordinary way.
            self.vec.drain(start..end);
        } else if start == end {
            // Nothing was taken out; only the length was lowered.
            // SAFETY: the items up to `orig_len` are still initialised and owned by the vector.
            unsafe { self.vec.set_len(self.orig_len) };
        } else {
            // The producer owned (and moved out or dropped) `start..end`; move the tail down.
            let tail = self.orig_len - end;
            // SAFETY: `end..orig_len` holds the initialised tail, `start..` is free (its items
            // are gone), and `copy` handles the overlap.
            unsafe {
                let base = self.vec.as_mut_ptr();
                ptr::copy(base.add(end), base.add(start), tail);
                self.vec.set_len(start + tail);
            }
        }
    }
}

/// A producer that owns the items of a slice and moves them out (a drain's pieces).
pub(crate) struct DrainProducer<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send> DrainProducer<'data, T> {
    /// A producer that owns the items of `slice`.
    ///
    /// # Safety
    ///
    /// The items of `slice` must be initialised, and the caller must give up their
    /// ownership: nothing else may read or drop them afterwards.
    pub(crate) unsafe fn new(slice: &'data mut [T]) -> Self {
        DrainProducer { slice }
    }
}

impl<'data, T: Send + 'data> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = SliceDrain<'data, T>;

    fn into_iter(mut self) -> SliceDrain<'data, T> {
        // The drain takes the items over; the producer's drop then has none.
        let slice = std::mem::take(&mut self.slice);
        SliceDrain {
            iter: slice.iter_mut(),
        }
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        let slice = std::mem::take(&mut self.slice);
        let (left, right) = slice.split_at_mut(index);
        // SAFETY: the two halves hand over this producer's ownership of the items.
        unsafe { (DrainProducer::new(left), DrainProducer::new(right)) }
    }
}

impl<T: Send> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        let slice = std::mem::take(&mut self.slice);
        // SAFETY: the producer owns the items of its slice (the type's invariant) and gives
        // them up here.
        unsafe { ptr::drop_in_place::<[T]>(slice) };
    }
}

/// The sequential iterator of a [`DrainProducer`]: moves the items out one by one, and
/// drops those left when dropped.
pub(crate) struct SliceDrain<'data, T> {
    iter: std::slice::IterMut<'data, T>,
}

impl<T> Iterator for SliceDrain<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let slot = self.iter.next()?;
        // SAFETY: the drain owns the items its iterator has not passed yet; passing this
        // one hands it over to the caller.
        Some(unsafe { ptr::read(slot) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for SliceDrain<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        let slot = self.iter.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { ptr::read(slot) })
    }
}

impl<T> ExactSizeIterator for SliceDrain<'_, T> {
    fn len(&self) -> usize {
        self.iter.len()
    }
}

impl<T> FusedIterator for SliceDrain<'_, T> {}

impl<T> Drop for SliceDrain<'_, T> {
    fn drop(&mut self) {
        let iter = std::mem::take(&mut self.iter);
        let rest = iter.into_slice();
        // SAFETY: the drain owns the items it has not handed out, and gives them up here.
        unsafe { ptr::drop_in_place::<[T]>(rest) };
    }
}
