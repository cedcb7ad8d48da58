//! Parallel slices (rayon's `rayon::slice`): [`ParallelSlice`] and [`ParallelSliceMut`], the
//! parallel sorts, and the slices' parallel iterator types.
//!
//! The iterators: [`Iter`] and [`IterMut`] (`plain.rs`), the chunks and reverse chunks
//! (`chunk_iters.rs`), the windows (`windows.rs`), the pieces between separators (`predicate_split.rs`)
//! and the runs of `par_chunk_by` (`chunk_by.rs`); the last two are unindexed, on the
//! searching producer of `cuts.rs` that `filch::par::str` shares. `parts.rs` puts `&[T]` and
//! `&mut [T]` behind one trait.
//!
//! The sorts live in `mergesort.rs` (stable: a parallel merge sort) and `quicksort.rs`
//! (unstable: a parallel pattern-defeating quicksort), with `insertion.rs` for their shortest
//! pieces; `cached_key.rs` sorts by cached keys. Each sorts a `&mut [T]` with an `Ordering`
//! comparator, `T: Send` being all the parallel halves need (they only ever get disjoint
//! parts of the slice). Both are panic-safe: if the comparison panics, the slice is left a
//! permutation of its input, nothing dropped twice or lost, and the panic goes on to the
//! caller; a comparison that is no total order never makes them panic.

mod cached_key;
mod chunk_by;
mod chunk_iters;
pub(crate) mod cuts;
mod insertion;
mod mergesort;
mod parts;
mod plain;
mod predicate_split;
mod quicksort;
#[cfg(test)]
mod tests;
mod windows;

pub use chunk_by::{ChunkBy, ChunkByMut};
pub use chunk_iters::{Chunks, ChunksExact, ChunksExactMut, ChunksMut};
pub use chunk_iters::{RChunks, RChunksExact, RChunksExactMut, RChunksMut};
pub use plain::{Iter, IterMut};
pub use predicate_split::{Split, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use windows::{ArrayWindows, Windows};

use std::cmp::Ordering;

/// Parallel methods on shared slices: iterators over chunks, windows and pieces.
///
/// Implemented for `[T]`, so every `Vec<T>`, array and `&[T]` has them. (`par_iter()` comes
/// from [`IntoParallelRefIterator`](crate::par::iter::IntoParallelRefIterator).)
pub trait ParallelSlice<T: Sync> {
    /// The plain slice that the other methods work on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v = vec![3, 1, 2];
    /// assert_eq!(v.as_parallel_slice(), &[3, 1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// A parallel iterator over the pieces of the slice between the elements for which
    /// `separator` is true (those elements belong to no piece), as std's `split`: `n`
    /// separators make `n + 1` pieces, some maybe empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let products: Vec<i32> = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9]
    ///     .par_split(|x| *x == 0)
    ///     .map(|piece| piece.iter().product())
    ///     .collect();
    /// assert_eq!(products, [6, 64, 162]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// A parallel iterator over the pieces of the slice, each ending with an element for
    /// which `separator` is true (but the last, which may not), as std's `split_inclusive`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let lengths: Vec<usize> = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9]
    ///     .par_split_inclusive(|x| *x == 0)
    ///     .map(|piece| piece.len())
    ///     .collect();
    /// assert_eq!(lengths, [4, 4, 3]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// A parallel iterator over every window of `window_size` consecutive elements (they
    /// overlap), as std's `windows`. Panics if `window_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let windows: Vec<&[i32]> = [1, 2, 3].par_windows(2).collect();
    /// assert_eq!(windows, [[1, 2], [2, 3]]);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(window_size, self.as_parallel_slice())
    }

    /// A parallel iterator over every window of `N` consecutive elements, as arrays (they
    /// overlap), as std's `array_windows`. Panics if `N` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sums: Vec<i32> = [1, 2, 3, 4].par_array_windows().map(|[a, b]| a + b).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// A parallel iterator over the slice in chunks of `chunk_size` elements (they do not
    /// overlap; the last may be shorter), as std's `chunks`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks: Vec<&[i32]> = [1, 2, 3, 4, 5].par_chunks(2).collect();
    /// assert_eq!(chunks, [&[1, 2][..], &[3, 4], &[5]]);
    /// ```
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks::new(chunk_size, self.as_parallel_slice())
    }

    /// A parallel iterator over the slice in chunks of exactly `chunk_size` elements, as
    /// std's `chunks_exact`; the last `len % chunk_size` elements are left out (see
    /// [`ChunksExact::remainder`]). Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks: Vec<&[i32]> = [1, 2, 3, 4, 5].par_chunks_exact(2).collect();
    /// assert_eq!(chunks, [&[1, 2][..], &[3, 4]]);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// A parallel iterator over the slice in chunks of `chunk_size` elements counted from
    /// the end (the last chunk, at the start of the slice, may be shorter), as std's
    /// `rchunks`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks: Vec<&[i32]> = [1, 2, 3, 4, 5].par_rchunks(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunks::new(chunk_size, self.as_parallel_slice())
    }

    /// A parallel iterator over the slice in chunks of exactly `chunk_size` elements
    /// counted from the end, as std's `rchunks_exact`; the first `len % chunk_size` elements
    /// are left out (see [`RChunksExact::remainder`]). Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let chunks: Vec<&[i32]> = [1, 2, 3, 4, 5].par_rchunks_exact(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3]]);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// A parallel iterator over the runs of the slice in which `same` holds for each pair
    /// of neighbours, as std's `chunk_by`; `same` is called once for each pair.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let runs: Vec<&[i32]> = [1, 2, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1][..], &[2, 2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, same: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), same)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel methods on mutable slices: sorts, and iterators over mutable chunks and pieces.
///
/// Implemented for `[T]`, so every `Vec<T>`, array and `&mut [T]` has them.
/// (`par_iter_mut()` comes from
/// [`IntoParallelRefMutIterator`](crate::par::iter::IntoParallelRefMutIterator).)
pub trait ParallelSliceMut<T: Send> {
    /// The plain mutable slice that the other methods work on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = vec![3, 1, 2];
    /// assert_eq!(v.as_parallel_slice_mut(), &mut [3, 1, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// A parallel iterator over the mutable pieces of the slice between the elements for
    /// which `separator` is true, as std's `split_mut`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9];
    /// v.par_split_mut(|x| *x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [3, 2, 1, 0, 8, 4, 2, 0, 9, 6, 3]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// A parallel iterator over the mutable pieces of the slice, each ending with an
    /// element for which `separator` is true (but the last, which may not), as std's
    /// `split_inclusive_mut`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9];
    /// v.par_split_inclusive_mut(|x| *x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [0, 3, 2, 1, 0, 8, 4, 2, 9, 6, 3]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// A parallel iterator over the slice in mutable chunks of `chunk_size` elements (the
    /// last may be shorter), as std's `chunks_mut`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_mut(2).for_each(|chunk| chunk.reverse());
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// A parallel iterator over the slice in mutable chunks of exactly `chunk_size`
    /// elements, as std's `chunks_exact_mut`; the last `len % chunk_size` elements are left
    /// out (see [`ChunksExactMut::into_remainder`]). Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(3).for_each(|chunk| chunk.reverse());
    /// assert_eq!(v, [3, 2, 1, 4, 5]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// A parallel iterator over the slice in mutable chunks of `chunk_size` elements
    /// counted from the end (the last, at the start of the slice, may be shorter), as std's
    /// `rchunks_mut`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_mut(2).for_each(|chunk| chunk.reverse());
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// A parallel iterator over the slice in mutable chunks of exactly `chunk_size`
    /// elements counted from the end, as std's `rchunks_exact_mut`; the first
    /// `len % chunk_size` elements are left out (see [`RChunksExactMut::into_remainder`]).
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_exact_mut(3).for_each(|chunk| chunk.reverse());
    /// assert_eq!(v, [1, 2, 5, 4, 3]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// A parallel iterator over the mutable runs of the slice in which `same` holds for
    /// each pair of neighbours, as std's `chunk_by_mut`; `same` is called once for each
    /// pair.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [1, 2, 2, 3, 3, 3];
    /// let runs: Vec<&mut [i32]> = v.par_chunk_by_mut(|a, b| a == b).collect();
    /// assert_eq!(runs, [&mut [1][..], &mut [2, 2], &mut [3, 3, 3]]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, same: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), same)
    }

    /// Sorts the slice in parallel, keeping equal elements in their order (a stable sort).
    ///
    /// O(n log n) comparisons in the worst case; it allocates a buffer as long as the slice
    /// (not for the shortest slices, which an insertion sort sorts in place). The slice is halved, the halves sorted in parallel, and the sorted halves
    /// merged in parallel; a slice that is already sorted, or strictly descending, takes one
    /// pass. If `T::cmp` panics, the slice is left a permutation of its input and the panic
    /// goes on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort();
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel by a comparator, keeping equal elements in their order
    /// (a stable sort), as [`par_sort`](ParallelSliceMut::par_sort) does.
    ///
    /// `compare` must be a total order (std's `sort_by` states the rule); if it is not, the
    /// elements end in an unspecified order, still a permutation of the input, and the sort
    /// does not panic (std's may). If `compare` panics,
    /// the slice is left a permutation of its input and the panic goes on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut floats = [5f64, 4.0, 1.0, 3.0, 2.0];
    /// floats.par_sort_by(|a, b| a.partial_cmp(b).unwrap());
    /// assert_eq!(floats, [1.0, 2.0, 3.0, 4.0, 5.0]);
    ///
    /// // Descending, and stable: the equal keys keep their order.
    /// let mut pairs = [(1, 'a'), (2, 'b'), (1, 'c'), (2, 'd')];
    /// pairs.par_sort_by(|x, y| y.0.cmp(&x.0));
    /// assert_eq!(pairs, [(2, 'b'), (2, 'd'), (1, 'a'), (1, 'c')]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key, keeping elements of equal keys in their order
    /// (a stable sort), as [`par_sort`](ParallelSliceMut::par_sort) does.
    ///
    /// The key is computed at each comparison (twice per comparison); for a costly key,
    /// [`par_sort_by_cached_key`](ParallelSliceMut::par_sort_by_cached_key) computes each
    /// once.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_by_key(|k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            f(a).cmp(&f(b))
        });
    }

    /// Sorts the slice in parallel by a key computed once per element, keeping elements of
    /// equal keys in their order (a stable sort).
    ///
    /// The keys are computed in parallel (in no specified order), each exactly once, and kept
    /// in a `Vec` of `(key, index)` pairs that is sorted with
    /// [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable) (the indices are unique, so
    /// the result is stable); the elements are then moved to their places in one sequential
    /// pass. If `f` or the keys' `cmp` panics, the slice is left a permutation of its input.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 32, -3, 2];
    /// v.par_sort_by_cached_key(|k| k.to_string());
    /// assert_eq!(v, [-3, -5, 2, 32, 4]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        F: Fn(&T) -> K + Sync,
        K: Ord + Send,
    {
        cached_key::par_sort_by_cached_key(self.as_parallel_slice_mut(), &f);
    }

    /// Sorts the slice in parallel; equal elements may end in any order (an unstable sort).
    ///
    /// In place (no allocation), O(n log n) comparisons in the worst case: a parallel
    /// pattern-defeating quicksort. Each partition runs on one thread, and the two sides it
    /// makes are sorted in parallel; slices that are sorted, descending, or made of few
    /// distinct values take about linear time. If `T::cmp` panics, the slice is left a
    /// permutation of its input and the panic goes on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel by a comparator; equal elements may end in any order, as
    /// [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable).
    ///
    /// `compare` must be a total order; if it is not, the elements end in an unspecified
    /// order, still a permutation of the input, and the sort does not panic. If `compare`
    /// panics, the slice is left a permutation of its input and the panic goes on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [5, 4, 1, 3, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key; elements of equal keys may end in any order, as
    /// [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable). The key is computed at
    /// each comparison.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_unstable_by_key(|k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            f(a).cmp(&f(b))
        });
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
