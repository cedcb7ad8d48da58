//! `par_sort_by_cached_key`: each element's key computed once, in parallel, into a `Vec` of
//! `(key, index)` pairs; the pairs sorted by the parallel unstable sort (the indices are
//! unique, so the order is the stable one); then the elements moved to their places in one
//! sequential pass of swaps (std's `sort_by_cached_key` does the same).
//!
//! The index is the smallest of `u8`, `u16`, `u32` and `usize` that holds every index and
//! makes the pair smaller (std's trick, which rayon keeps).
//!
//! **Invariant:** the slice is only ever changed by swaps, after every key is computed and
//! sorted; a panic of the key function or of the keys' comparison leaves it as it was (keys
//! already computed are dropped once, by the [`Written`] that holds them), a panic later
//! cannot happen.

use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr;

use super::quicksort::par_quicksort;
use crate::par::join;

/// Pieces of at most this many elements have their keys computed sequentially.
const KEYS_LEN: usize = 1024;

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
    let mut keys: Vec<(K, I)> = Vec::with_capacity(len);
    let written = compute_keys(v, &mut keys.spare_capacity_mut()[..len], 0, f);
    assert_eq!(written.release(), len, "every key is computed");
    // SAFETY: the `Written` just released held the first `len` slots of `keys`' capacity,
    // each initialised once; `keys` now owns them.
    unsafe { keys.set_len(len) };
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

/// Writes `(f(&items[k]), first + k)` into `out[k]` for each `k`, in parallel; returns the
/// written pairs.
fn compute_keys<'a, T, K, F, I>(
    items: &mut [T],
    out: &'a mut [MaybeUninit<(K, I)>],
    first: usize,
    f: &F,
) -> Written<'a, (K, I)>
where
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
    I: Index,
{
    debug_assert_eq!(items.len(), out.len());
    if items.len() <= KEYS_LEN {
        let mut written = Written::new(out);
        for (k, item) in items.iter().enumerate() {
            written.push((f(item), I::from_usize(first + k)));
        }
        return written;
    }
    let mid = items.len() / 2;
    let (items_l, items_r) = items.split_at_mut(mid);
    let (out_l, out_r) = out.split_at_mut(mid);
    let (left, right) = join(
        || compute_keys(items_l, out_l, first, f),
        || compute_keys(items_r, out_r, first + mid, f),
    );
    left.append(right)
}

/// The initialised front of a run of slots: dropping it drops those elements (a panic on
/// the way loses none and drops none twice).
struct Written<'a, X> {
    start: *mut X,
    /// Slots in the run.
    slots: usize,
    /// Initialised slots, from `start`.
    len: usize,
    _slots: PhantomData<&'a mut [MaybeUninit<X>]>,
}

// SAFETY: a `Written` owns its initialised elements and borrows its slots mutably, as a
// `&mut [MaybeUninit<X>]` would: sending it sends the elements, which `X: Send` allows.
unsafe impl<X: Send> Send for Written<'_, X> {}

impl<'a, X> Written<'a, X> {
    fn new(slots: &'a mut [MaybeUninit<X>]) -> Self {
        Written {
            start: slots.as_mut_ptr().cast(),
            slots: slots.len(),
            len: 0,
            _slots: PhantomData,
        }
    }

    fn push(&mut self, x: X) {
        assert!(self.len < self.slots, "a slot is left");
        // SAFETY: `len < slots`, so the slot is inside the borrowed run, and not yet written.
        unsafe { self.start.add(self.len).write(x) };
        self.len += 1;
    }

    /// `self` followed by `next`: `self` must be full and `next`'s run must start where
    /// `self`'s ends (the two halves of one run).
    fn append(mut self, next: Self) -> Self {
        assert!(
            self.len == self.slots && self.start.wrapping_add(self.slots) == next.start,
            "the two runs are adjacent, the first full"
        );
        self.slots += next.slots;
        self.len += next.len;
        mem::forget(next);
        self
    }

    /// Gives up the elements (someone else now owns them); returns how many there are.
    fn release(self) -> usize {
        let len = self.len;
        mem::forget(self);
        len
    }
}

impl<X> Drop for Written<'_, X> {
    fn drop(&mut self) {
        // SAFETY: the first `len` slots hold initialised elements that this `Written` owns.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.len)) };
    }
}
