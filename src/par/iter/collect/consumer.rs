//! The consumer that writes each item into its slot of a `Vec`'s spare capacity.
//!
//! A [`CollectConsumer`] owns a run of uninitialised slots; splitting it splits the run.
//! Its folder writes items one after the other from the run's start and is its own result,
//! a [`CollectResult`], which owns the items written so far (it drops them if dropped, so a
//! panic drops exactly the items written). The reducer merges a result with the one that
//! starts right where it ends; one that does not (a piece that wrote fewer items than its
//! slots) is dropped with its items, and the caller then sees fewer items than it expected.
//!
//! **Invariant:** the runs of the consumers of one call are disjoint, and a result owns
//! exactly the `written` items at the start of its run.

use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use super::super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Writes items into a run of `len` uninitialised slots starting at `start`.
pub(crate) struct CollectConsumer<'c, T: Send> {
    start: NonNull<T>,
    len: usize,
    /// The slots are borrowed mutably from the target for `'c`.
    target: PhantomData<&'c mut [T]>,
}

// SAFETY: the consumer is the only way to reach its slots (the runs are disjoint), and it
// moves `T`s into them, so sending it to another thread is sending `T`s.
unsafe impl<T: Send> Send for CollectConsumer<'_, T> {}

impl<'c, T: Send> CollectConsumer<'c, T> {
    /// A consumer of the `len` slots after `vec`'s items, which must be spare capacity.
    pub(crate) fn appender(vec: &'c mut Vec<T>, len: usize) -> Self {
        assert!(
            vec.capacity() - vec.len() >= len,
            "too little spare capacity to collect into"
        );
        let len_before = vec.len();
        // SAFETY: `len_before` is within the allocation (it is the vector's length).
        let start = unsafe { vec.as_mut_ptr().add(len_before) };
        CollectConsumer {
            // SAFETY: a vector's pointer is never null (dangling but non-null when empty).
            start: unsafe { NonNull::new_unchecked(start) },
            len,
            target: PhantomData,
        }
    }
}

impl<T: Send> CollectConsumer<'_, T> {
    /// A consumer of the `len` slots from `start`, reached only through that pointer
    /// (`par/loops/in_place.rs` aims one at the buffer whose items it moves out).
    ///
    /// # Safety
    ///
    /// The `len` slots from `start` lie inside one allocation, hold nothing to drop, and
    /// nothing else reads or writes a slot from the moment the consumer may write it until
    /// the consumer's result is dropped or released.
    pub(crate) unsafe fn from_raw(start: NonNull<T>, len: usize) -> Self {
        CollectConsumer {
            start,
            len,
            target: PhantomData,
        }
    }
}

/// The items a folder wrote: the first `written` of a run of `slots` slots from `start`. Owns
/// them: dropping it drops them.
#[must_use]
pub(crate) struct CollectResult<'c, T> {
    start: NonNull<T>,
    slots: usize,
    written: usize,
    /// Invariant in `'c`: a result may only be merged with another of the same call.
    target: PhantomData<&'c mut &'c mut [T]>,
}

// SAFETY: the result owns the `T`s it wrote and nothing else reaches them.
unsafe impl<T: Send> Send for CollectResult<'_, T> {}

impl<T> CollectResult<'_, T> {
    /// The number of items written.
    pub(crate) fn len(&self) -> usize {
        self.written
    }

    /// Gives up the items (the caller now owns them, usually by setting the vector's
    /// length over them), returning how many there are.
    pub(crate) fn release(mut self) -> usize {
        std::mem::replace(&mut self.written, 0)
    }
}

impl<T> Drop for CollectResult<'_, T> {
    fn drop(&mut self) {
        let written = ptr::slice_from_raw_parts_mut(self.start.as_ptr(), self.written);
        // SAFETY: the first `written` slots hold items this result owns (the invariant), and
        // nothing else drops them.
        unsafe { ptr::drop_in_place(written) };
    }
}

impl<'c, T: Send + 'c> Consumer<T> for CollectConsumer<'c, T> {
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        assert!(index <= self.len, "collect split past its slots");
        // SAFETY: `index <= len`, so the pointer stays within (or one past) the run.
        let right = unsafe { self.start.add(index) };
        (
            CollectConsumer {
                start: self.start,
                len: index,
                target: PhantomData,
            },
            CollectConsumer {
                start: right,
                len: self.len - index,
                target: PhantomData,
            },
            CollectReducer,
        )
    }

    fn into_folder(self) -> CollectResult<'c, T> {
        CollectResult {
            start: self.start,
            slots: self.len,
            written: 0,
            target: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<'c, T: Send + 'c> UnindexedConsumer<T> for CollectConsumer<'c, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("a collect consumer is only driven by indexed iterators")
    }

    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

impl<'c, T: 'c> Folder<T> for CollectResult<'c, T> {
    type Result = Self;

    fn consume(mut self, item: T) -> Self {
        assert!(
            self.written < self.slots,
            "too many items for the slots of a collect"
        );
        // SAFETY: slot `written` is within the run and uninitialised (the invariant).
        unsafe { self.start.add(self.written).write(item) };
        self.written += 1;
        self
    }

    fn complete(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

/// Merges adjacent results.
pub(crate) struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    fn reduce(
        self,
        mut left: CollectResult<'c, T>,
        right: CollectResult<'c, T>,
    ) -> CollectResult<'c, T> {
        // SAFETY: `written <= slots`, so the pointer stays within (or one past) the run.
        let left_end = unsafe { left.start.add(left.written) };
        if left_end == right.start {
            left.slots += right.slots;
            left.written += right.release();
        }
        left
    }
}
