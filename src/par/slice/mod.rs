//! Parallel slices (rayon's `rayon::slice`): [`ParallelSlice`] and [`ParallelSliceMut`], the
//! parallel sorts, and the slices' parallel iterator types.
//!
//! The sorts live in `mergesort.rs` (stable: a parallel merge sort) and `quicksort.rs`
//! (unstable: a parallel pattern-defeating quicksort), with `insertion.rs` for their shortest
//! pieces; `cached_key.rs` sorts by cached keys;
//! each sorts a `&mut [T]` with an `Ordering` comparator, `T: Send` being all the parallel
//! halves need (they only ever get disjoint parts of the slice). Both are panic-safe: if the
//! comparison panics, the slice is left a permutation of its input, nothing dropped twice or
//! lost, and the panic goes on to the caller.

mod cached_key;
mod insertion;
mod mergesort;
mod plain;
mod quicksort;
#[cfg(test)]
mod tests;

pub use plain::{Iter, IterMut};

use std::cmp::Ordering;

/// Parallel methods on mutable slices: sorts, and iterators over mutable chunks.
///
/// Implemented for `[T]`, so every `Vec<T>`, array and `&mut [T]` has them.
pub trait ParallelSliceMut<T: Send> {
    /// The plain mutable slice that the other methods work on.
    ///
    /// ```
    /// use filch::par::slice::ParallelSliceMut;
    ///
    /// let mut v = vec![3, 1, 2];
    /// assert_eq!(v.as_parallel_slice_mut(), &mut [3, 1, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Sorts the slice in parallel, keeping equal elements in their order (a stable sort).
    ///
    /// O(n log n) comparisons in the worst case; it allocates a buffer as long as the slice
    /// (not for the shortest slices, which an insertion sort sorts in place). The slice is halved, the halves sorted in parallel, and the sorted halves
    /// merged in parallel; a slice that is already sorted, or strictly descending, takes one
    /// pass. If `T::cmp` panics, the slice is left a permutation of its input and the panic
    /// goes on.
    ///
    /// ```
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
    /// use filch::par::slice::ParallelSliceMut;
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
