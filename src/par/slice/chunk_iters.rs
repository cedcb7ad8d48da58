//! The chunk iterators: [`Chunks`], [`ChunksExact`], [`ChunksMut`], [`ChunksExactMut`] and
//! the reverse ones, [`RChunks`], [`RChunksExact`], [`RChunksMut`], [`RChunksExactMut`]:
//! indexed parallel iterators whose producers are the slice itself, split at a multiple of
//! the chunk size (counted from the end for the reverse ones), each piece walked by std's
//! matching sequential iterator.
//!
//! An exact iterator keeps the slice without its remainder (the last `len % size` elements,
//! or the first ones for the reverse kind), which its `remainder` methods give.

use super::parts::SlicePart;
use crate::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{IndexedParallelIterator, ParallelIterator};

/// Defines a chunk iterator type's `ParallelIterator`, `IndexedParallelIterator` and
/// producer. `$std` is the std method that walks a piece, `$reverse` whether the chunks
/// are counted from the end.
macro_rules! chunk_iter {
    ($name:ident, $producer:ident, $slice:ty, $bound:ident, $std:ident, $std_iter:ty, $reverse:expr) => {
        impl<'data, T: $bound + 'data> ParallelIterator for $name<'data, T> {
            type Item = $slice;

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<'data, T: $bound + 'data> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn len(&self) -> usize {
                self.slice.len().div_ceil(self.chunk_size)
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                callback.callback($producer {
                    chunk_size: self.chunk_size,
                    slice: self.slice,
                })
            }
        }

        struct $producer<'data, T> {
            chunk_size: usize,
            slice: $slice,
        }

        impl<'data, T: $bound + 'data> Producer for $producer<'data, T> {
            type Item = $slice;
            type IntoIter = $std_iter;

            fn into_iter(self) -> Self::IntoIter {
                self.slice.$std(self.chunk_size)
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let elements = index.saturating_mul(self.chunk_size);
                let chunk_size = self.chunk_size;
                if $reverse {
                    // The first `index` chunks are the last `elements` elements.
                    let at = self.slice.len().saturating_sub(elements);
                    let (rest, first) = SlicePart::cut(self.slice, at);
                    let first = $producer {
                        chunk_size,
                        slice: first,
                    };
                    (
                        first,
                        $producer {
                            chunk_size,
                            slice: rest,
                        },
                    )
                } else {
                    let at = elements.min(self.slice.len());
                    let (first, rest) = SlicePart::cut(self.slice, at);
                    let first = $producer {
                        chunk_size,
                        slice: first,
                    };
                    (
                        first,
                        $producer {
                            chunk_size,
                            slice: rest,
                        },
                    )
                }
            }
        }
    };
}

/// A parallel iterator over the chunks of a slice, `chunk_size` elements each but the last,
/// which may be shorter: `slice.par_chunks(chunk_size)`, as std's `chunks`.
#[derive(Debug)]
pub struct Chunks<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
}

/// A parallel iterator over the chunks of exactly `chunk_size` elements of a slice, the
/// remainder left out: `slice.par_chunks_exact(chunk_size)`, as std's `chunks_exact`.
#[derive(Debug)]
pub struct ChunksExact<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
    remainder: &'data [T],
}

/// A parallel iterator over the mutable chunks of a slice, `chunk_size` elements each but
/// the last: `slice.par_chunks_mut(chunk_size)`, as std's `chunks_mut`.
#[derive(Debug)]
pub struct ChunksMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
}

/// A parallel iterator over the mutable chunks of exactly `chunk_size` elements of a slice,
/// the remainder left out: `slice.par_chunks_exact_mut(chunk_size)`, as std's
/// `chunks_exact_mut`.
#[derive(Debug)]
pub struct ChunksExactMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
    remainder: &'data mut [T],
}

/// A parallel iterator over the chunks of a slice counted from its end, `chunk_size`
/// elements each but the last (the slice's first elements), which may be shorter:
/// `slice.par_rchunks(chunk_size)`, as std's `rchunks`.
#[derive(Debug)]
pub struct RChunks<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
}

/// A parallel iterator over the chunks of exactly `chunk_size` elements of a slice counted
/// from its end, the remainder (at the start) left out: `slice.par_rchunks_exact(n)`, as
/// std's `rchunks_exact`.
#[derive(Debug)]
pub struct RChunksExact<'data, T> {
    chunk_size: usize,
    slice: &'data [T],
    remainder: &'data [T],
}

/// A parallel iterator over the mutable chunks of a slice counted from its end:
/// `slice.par_rchunks_mut(chunk_size)`, as std's `rchunks_mut`.
#[derive(Debug)]
pub struct RChunksMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
}

/// A parallel iterator over the mutable chunks of exactly `chunk_size` elements of a slice
/// counted from its end, the remainder (at the start) left out:
/// `slice.par_rchunks_exact_mut(n)`, as std's `rchunks_exact_mut`.
#[derive(Debug)]
pub struct RChunksExactMut<'data, T> {
    chunk_size: usize,
    slice: &'data mut [T],
    remainder: &'data mut [T],
}

chunk_iter!(
    Chunks,
    ChunksProducer,
    &'data [T],
    Sync,
    chunks,
    std::slice::Chunks<'data, T>,
    false
);
chunk_iter!(
    ChunksExact,
    ChunksExactProducer,
    &'data [T],
    Sync,
    chunks_exact,
    std::slice::ChunksExact<'data, T>,
    false
);
chunk_iter!(
    ChunksMut,
    ChunksMutProducer,
    &'data mut [T],
    Send,
    chunks_mut,
    std::slice::ChunksMut<'data, T>,
    false
);
chunk_iter!(
    ChunksExactMut,
    ChunksExactMutProducer,
    &'data mut [T],
    Send,
    chunks_exact_mut,
    std::slice::ChunksExactMut<'data, T>,
    false
);
chunk_iter!(
    RChunks,
    RChunksProducer,
    &'data [T],
    Sync,
    rchunks,
    std::slice::RChunks<'data, T>,
    true
);
chunk_iter!(
    RChunksExact,
    RChunksExactProducer,
    &'data [T],
    Sync,
    rchunks_exact,
    std::slice::RChunksExact<'data, T>,
    true
);
chunk_iter!(
    RChunksMut,
    RChunksMutProducer,
    &'data mut [T],
    Send,
    rchunks_mut,
    std::slice::RChunksMut<'data, T>,
    true
);
chunk_iter!(
    RChunksExactMut,
    RChunksExactMutProducer,
    &'data mut [T],
    Send,
    rchunks_exact_mut,
    std::slice::RChunksExactMut<'data, T>,
    true
);

impl<'data, T> Chunks<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        Chunks { chunk_size, slice }
    }
}

impl<'data, T> ChunksMut<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        ChunksMut { chunk_size, slice }
    }
}

impl<'data, T> RChunks<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        RChunks { chunk_size, slice }
    }
}

impl<'data, T> RChunksMut<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        RChunksMut { chunk_size, slice }
    }
}

impl<'data, T> ChunksExact<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        let (slice, remainder) = slice.split_at(slice.len() - slice.len() % chunk_size);
        ChunksExact {
            chunk_size,
            slice,
            remainder,
        }
    }

    /// The elements after the last whole chunk (fewer than `chunk_size`), which the
    /// iterator does not yield.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks = [0, 1, 2, 3, 4].par_chunks_exact(2);
    /// assert_eq!(chunks.remainder(), &[4]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.remainder
    }
}

impl<'data, T> RChunksExact<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data [T]) -> Self {
        let (remainder, slice) = slice.split_at(slice.len() % chunk_size);
        RChunksExact {
            chunk_size,
            slice,
            remainder,
        }
    }

    /// The elements before the first whole chunk counted from the end (fewer than
    /// `chunk_size`), which the iterator does not yield.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks = [0, 1, 2, 3, 4].par_rchunks_exact(2);
    /// assert_eq!(chunks.remainder(), &[0]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.remainder
    }
}

impl<'data, T> ChunksExactMut<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        let at = slice.len() - slice.len() % chunk_size;
        let (slice, remainder) = slice.split_at_mut(at);
        ChunksExactMut {
            chunk_size,
            slice,
            remainder,
        }
    }

    /// The elements after the last whole chunk (fewer than `chunk_size`), which the
    /// iterator does not yield, for the slice's lifetime; this consumes the iterator (see
    /// [`take_remainder`](Self::take_remainder) to keep it).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let chunks = v.par_chunks_exact_mut(2);
    /// assert_eq!(chunks.into_remainder(), &mut [4]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.remainder
    }

    /// The elements after the last whole chunk, borrowed from the iterator.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// chunks.remainder()[0] = 40;
    /// chunks.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [1, 0, 3, 2, 40]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.remainder
    }

    /// The elements after the last whole chunk, for the slice's lifetime; later calls give
    /// an empty slice.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// let rest = chunks.take_remainder();
    /// assert!(chunks.take_remainder().is_empty());
    /// chunks.for_each(|c| c.swap(0, 1));
    /// rest[0] = 40;
    /// assert_eq!(v, [1, 0, 3, 2, 40]);
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.remainder)
    }
}

impl<'data, T> RChunksExactMut<'data, T> {
    pub(super) fn new(chunk_size: usize, slice: &'data mut [T]) -> Self {
        let at = slice.len() % chunk_size;
        let (remainder, slice) = slice.split_at_mut(at);
        RChunksExactMut {
            chunk_size,
            slice,
            remainder,
        }
    }

    /// The elements before the first whole chunk counted from the end (fewer than
    /// `chunk_size`), which the iterator does not yield, for the slice's lifetime; this
    /// consumes the iterator (see [`take_remainder`](Self::take_remainder) to keep it).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let chunks = v.par_rchunks_exact_mut(2);
    /// assert_eq!(chunks.into_remainder(), &mut [0]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.remainder
    }

    /// The elements before the first whole chunk counted from the end, borrowed from the
    /// iterator.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// chunks.remainder()[0] = 10;
    /// chunks.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [10, 2, 1, 4, 3]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.remainder
    }

    /// The elements before the first whole chunk counted from the end, for the slice's
    /// lifetime; later calls give an empty slice.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [0, 1, 2, 3, 4];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// assert_eq!(chunks.take_remainder(), &mut [0]);
    /// assert!(chunks.take_remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.remainder)
    }
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact { ..*self }
    }
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact { ..*self }
    }
}
