//! `par_map_vec`'s in-place map: when a result has the size and alignment of an item, the
//! results are written over the items, and the output `Vec` is the input's allocation (as
//! std's `into_iter().map().collect()` does).
//!
//! It is an ordinary call on the plumbing: a source that owns the items of the buffer and
//! moves them out one by one ([`InPlaceItems`], its producer [`RawDrain`]), mapped by `f`, and
//! collected by the collect consumer of `par/iter/collect/` aimed at the same buffer, seen
//! as slots of results. The bridge splits the source and the target at the same indices, so
//! each chunk reads its items in order and writes each result into the slot its item left:
//! item `k` is read (the drain moves past slot `k`) before result `k` is written there. Both
//! sides reach the buffer through raw pointers taken from one pointer to it, never through a
//! reference (a `&mut [T]` over slots that the target writes would be invalidated by those
//! writes).
//!
//! **Invariant (exactly once):** every slot is owned by exactly one of a drain or producer
//! (an item not moved yet; dropped with its owner), `f` (the item it was given; a panicking
//! `f` drops it) or a collect result (a result written; dropped with it unless released). So
//! after a panic, a cancellation or the executor's shutdown, unwinding drops every item not
//! moved and every result made exactly once; [`map_in_place`]'s `Allocation` then frees the
//! buffer, which holds nothing any more.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::{self, NonNull};

use super::watched::watched;
use crate::par::iter::collect::CollectConsumer;
use crate::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{IndexedParallelIterator, ParallelIterator};

/// Whether `par_map_vec` from `T` to `U` writes the results over the items: a `U` fits
/// exactly where a `T` was (same size and alignment, so the allocation's layout is the same
/// for both types), and neither is zero-sized (a zero-sized `Vec` has no allocation).
pub(super) const fn in_place<T, U>() -> bool {
    size_of::<T>() == size_of::<U>() && align_of::<T>() == align_of::<U>() && size_of::<T>() != 0
}

/// Maps `items` through `f` in parallel, writing the results over the items (module docs);
/// an empty `items` gives its (empty) allocation back at once, on no executor. Requires
/// [`in_place`]`::<T, U>()`.
pub(super) fn map_in_place<T, U, F>(items: Vec<T>, f: &F) -> Vec<U>
where
    T: Send,
    U: Send,
    F: Fn(T) -> U + Sync,
{
    assert!(
        in_place::<T, U>(),
        "filch: a map in place between two layouts"
    );
    let mut items = ManuallyDrop::new(items);
    let (len, capacity) = (items.len(), items.capacity());
    // SAFETY: a vector's pointer is never null (dangling but non-null when unallocated).
    let ptr = unsafe { NonNull::new_unchecked(items.as_mut_ptr()) };
    if len == 0 {
        // SAFETY: as below, with no element; no call (an empty input needs no executor).
        return unsafe { Vec::from_raw_parts(ptr.cast::<U>().as_ptr(), 0, capacity) };
    }
    // Frees the buffer on the way out of a panic, once the items and results in it are gone.
    let allocation = Allocation { ptr, capacity };
    // SAFETY: the `len` items are initialised, and the vector, taken apart above, gives them up.
    let source = unsafe { InPlaceItems::new(ptr, len) };
    // SAFETY: `U` has the size of `T`, so the `len` slots lie inside the buffer; slot `k` is
    // written only after the source moved item `k` out (module docs), and nothing else reads
    // or writes them.
    let target = unsafe { CollectConsumer::from_raw(ptr.cast::<U>(), len) };
    let result = watched(source.map(f)).drive(target);
    assert_eq!(
        result.len(),
        len,
        "filch: a map in place ended without a result for every item"
    );
    let written = result.release();
    std::mem::forget(allocation);
    // SAFETY: the buffer came from a `Vec<T>` of `capacity`, whose layout is that of
    // `capacity` `U`s (same size and alignment); its first `written == len` slots hold
    // results, which the released collect result handed over.
    unsafe { Vec::from_raw_parts(ptr.cast::<U>().as_ptr(), written, capacity) }
}

/// The buffer of a `Vec<T>` taken apart, freed (without dropping any element) when dropped.
struct Allocation<T> {
    ptr: NonNull<T>,
    capacity: usize,
}

impl<T> Drop for Allocation<T> {
    fn drop(&mut self) {
        // SAFETY: the parts of a `Vec<T>` nobody else frees; length 0, so no element is read.
        drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), 0, self.capacity) });
    }
}

/// The items of a buffer, as a parallel iterator that moves them out. Owns them until it
/// makes its producer; dropped before, it drops them.
struct InPlaceItems<T> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: it owns `T`s (and reaches them only through its pointer), so sending it sends them.
unsafe impl<T: Send> Send for InPlaceItems<T> {}

impl<T> InPlaceItems<T> {
    /// # Safety
    ///
    /// The `len` elements from `ptr` are initialised, and the caller gives up their ownership.
    unsafe fn new(ptr: NonNull<T>, len: usize) -> Self {
        InPlaceItems { ptr, len }
    }
}

impl<T> Drop for InPlaceItems<T> {
    fn drop(&mut self) {
        // SAFETY: it owns the items (never made its producer, which forgets it).
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) };
    }
}

impl<T: Send> ParallelIterator for InPlaceItems<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl<T: Send> IndexedParallelIterator for InPlaceItems<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let this = ManuallyDrop::new(self);
        // The producer takes the items over.
        callback.callback(RawDrain {
            ptr: this.ptr,
            len: this.len,
            _owns: PhantomData,
        })
    }
}

/// A producer that owns the `len` items from `ptr` and moves them out; drops those it still
/// owns when dropped.
struct RawDrain<T> {
    ptr: NonNull<T>,
    len: usize,
    _owns: PhantomData<T>,
}

// SAFETY: as for `InPlaceItems`.
unsafe impl<T: Send> Send for RawDrain<T> {}

impl<T> Drop for RawDrain<T> {
    fn drop(&mut self) {
        // SAFETY: the producer owns its items (the type's invariant) and gives them up here.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) };
    }
}

impl<T: Send> Producer for RawDrain<T> {
    type Item = T;
    type IntoIter = RawDrainIter<T>;

    fn into_iter(self) -> RawDrainIter<T> {
        let this = ManuallyDrop::new(self);
        // The iterator takes the items over.
        RawDrainIter {
            ptr: this.ptr,
            len: this.len,
            _owns: PhantomData,
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        assert!(index <= self.len, "filch: a drain split past its items");
        let this = ManuallyDrop::new(self);
        // SAFETY: `index <= len`: within the run, or one past its end.
        let right = unsafe { this.ptr.add(index) };
        // The halves take this producer's items over.
        (
            RawDrain {
                ptr: this.ptr,
                len: index,
                _owns: PhantomData,
            },
            RawDrain {
                ptr: right,
                len: this.len - index,
                _owns: PhantomData,
            },
        )
    }
}

/// The sequential iterator of a [`RawDrain`]: moves the items out one by one, from either
/// end, and drops those left when dropped.
struct RawDrainIter<T> {
    ptr: NonNull<T>,
    len: usize,
    _owns: PhantomData<T>,
}

impl<T> Iterator for RawDrainIter<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: the iterator owns the `len` items from `ptr`; moving past the first hands it
        // over to the caller.
        let item = unsafe { self.ptr.read() };
        // SAFETY: within the run, or one past its end.
        self.ptr = unsafe { self.ptr.add(1) };
        self.len -= 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<T> DoubleEndedIterator for RawDrainIter<T> {
    fn next_back(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: as in `next`, for the last item.
        Some(unsafe { self.ptr.add(self.len).read() })
    }
}

impl<T> ExactSizeIterator for RawDrainIter<T> {}

impl<T> Drop for RawDrainIter<T> {
    fn drop(&mut self) {
        // SAFETY: the iterator owns the items it has not handed out, and gives them up here.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) };
    }
}
