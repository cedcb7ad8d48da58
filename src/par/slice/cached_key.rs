//! `par_sort_by_cached_key`: each element's key computed once, in parallel (a parallel
//! iterator collected into a `Vec` of `(key, index)` pairs); the pairs sorted by the parallel
//! unstable sort (the indices are unique, so the order is the stable one); then the elements
//! moved to their places in one sequential pass of swaps (std's `sort_by_cached_key` does the
//! same).
//!
//! The index is the smallest of `u8`, `u16`, `u32` and `usize` that holds every index and
//! makes the pair smaller (std's trick, which rayon keeps).
//!
//! **Invariant:** the slice is only ever changed by swaps, after every key is computed and
//! sorted; a panic of the key function or of the keys' comparison leaves it as it was (the
//! keys already computed are dropped once, by `collect` or by the `Vec`), and nothing after
//! that can panic.

use super::quicksort::par_quicksort;
use crate::par::iter::{IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator};

/// Sorts `v` by the keys `f` gives, computing each once.
pub(crate) fn par_sort_by_cached_key<T, K, F>(v: &mut [T], f: &F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let len = v.len();
    if len < 2 {
        return;
    }
    if size_of::<(K, u8)>() < size_of::<(K, u16)>() && len <= usize::from(u8::MAX) {
        return sort_with_index::<T, K, F, u8>(v, f);
    }
    if size_of::<(K, u16)>() < size_of::<(K, u32)>() && len <= usize::from(u16::MAX) {
        return sort_with_index::<T, K, F, u16>(v, f);
    }
    if size_of::<(K, u32)>() < size_of::<(K, usize)>() && len <= u32::MAX as usize {
        return sort_with_index::<T, K, F, u32>(v, f);
    }
    sort_with_index::<T, K, F, usize>(v, f)
}

/// An index type of the key pairs.
trait Index: Copy + Ord + Send {
    /// `i`, which the caller knows fits.
    fn from_usize(i: usize) -> Self;
    fn to_usize(self) -> usize;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl Index for $t {
            #[inline]
            fn from_usize(i: usize) -> Self {
                i as $t
            }
            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }
        }
    )*};
}

index!(u8, u16, u32, usize);

fn sort_with_index<T, K, F, I>(v: &mut [T], f: &F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
    I: Index,
{
    let len = v.len();
    let mut keys: Vec<(K, I)> = v
        .par_iter_mut()
        .enumerate()
        .map(|(i, x)| (f(&*x), I::from_usize(i)))
        .collect();
    par_quicksort(&mut keys, &<(K, I)>::cmp);
    // keys[i].1 is the index of the element that belongs at `i`; elements before `i` are
    // in their places, and one that was swapped away from `j < i` is found by following
    // the indices from `j`, which each swap records.
    for i in 0..len {
        let mut index = keys[i].1.to_usize();
        while index < i {
            index = keys[index].1.to_usize();
        }
        keys[i].1 = I::from_usize(index);
        v.swap(i, index);
    }
}
