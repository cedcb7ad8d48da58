//! The parallel unstable sort (`par_sort_unstable*`): a pattern-defeating quicksort (Orson
//! Peters, "Pattern-defeating Quicksort", 2021; <https://github.com/orlp/pdqsort>) whose two
//! sides are sorted in parallel through [`join`].
//!
//! A piece is partitioned around a median of three (from 50 elements on, a pseudo-median of
//! nine: Tukey's ninther) without branches on the comparisons: elements of up to 16 bytes
//! by a Lomuto partition, larger ones by a block partition, and any element by the block
//! partition when the pivot's samples were in order (a nearly sorted piece: the block
//! partition moves only the few misplaced elements, where Lomuto's moves every one). When the piece is longer than
//! [`SEQUENTIAL_LEN`], its two sides are sorted as the two halves of a `join`, else one
//! after the other; pieces of at most 20 elements are sorted by insertion.
//!
//! The patterns that break plain quicksort are defeated as pdqsort does: a sample that is
//! already in order (or in reverse order, which is reversed first) makes it try a bounded
//! insertion sort that ends the piece if it was sorted; a pivot equal to the one its parent
//! used (a piece of many equal elements) puts every element equal to it aside in one pass;
//! a badly unbalanced partition shuffles a few elements and spends one unit of the budget of
//! ⌊log₂ n⌋ + 1, after which the piece is heapsorted, so the whole sort is O(n log n) in the
//! worst case. A piece's two sides inherit what its partition found (balance, order), so
//! the budget holds across the parallel halves too.
//!
//! A comparison that is no total order leaves the elements in some order, and never makes
//! the sort panic (std's sorts may).
//!
//! **Invariant:** every step moves elements by swapping them (the insertion sort by a hole
//! that a guard fills, `insertion.rs`), so the slice is a permutation of its input at every
//! instant, also when the comparison panics: nothing is duplicated, lost or dropped twice,
//! and every element compared is the one that stays in the slice (a comparison that updates
//! an element through interior mutability is observed in the result). The slice is only
//! ever split into disjoint parts, so `T: Send` is all the parallel halves need.

use std::cmp::Ordering;
use std::mem;
use std::ptr;

use super::insertion::insertion_sort;
use crate::par::join;

/// Pieces of at most this many elements are sorted sequentially.
pub(crate) const SEQUENTIAL_LEN: usize = 2048;

/// Pieces of at most this many elements are sorted by insertion.
const INSERTION_LEN: usize = 20;

/// Sorts `v` by `compare`, in parallel, without preserving the order of equal elements.
pub(crate) fn par_quicksort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    // Elements of a zero-sized type are all alike: any order is sorted.
    if size_of::<T>() == 0 {
        return;
    }
    let budget = usize::BITS - v.len().leading_zeros();
    par_quicksort_with_budget(v, compare, budget);
}

/// [`par_quicksort`] with `budget` badly unbalanced partitions allowed before heapsort takes
/// over (tests start it at 0).
pub(super) fn par_quicksort_with_budget<T, F>(v: &mut [T], compare: &F, budget: u32)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let shape = PieceShape {
        budget,
        balanced: true,
        partitioned: true,
    };
    recurse(v, compare, None, shape);
}

/// What a piece knows from the partition that made it.
#[derive(Clone, Copy)]
struct PieceShape {
    /// Badly unbalanced partitions still allowed before the piece is heapsorted.
    budget: u32,
    /// The partition was balanced (its shorter side held at least an eighth).
    balanced: bool,
    /// The partition moved nothing: the piece may be (nearly) sorted.
    partitioned: bool,
}

/// Sorts `v`. `pred`, if any, is the pivot of the partition that made `v`: no element of `v`
/// is less than it.
fn recurse<'a, T, F>(
    mut v: &'a mut [T],
    compare: &F,
    mut pred: Option<&'a mut T>,
    mut shape: PieceShape,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    loop {
        let len = v.len();
        if len <= INSERTION_LEN {
            insertion_sort(v, &is_less);
            return;
        }
        if shape.budget == 0 {
            heapsort(v, &is_less);
            return;
        }
        if !shape.balanced {
            break_patterns(v);
            shape.budget -= 1;
        }
        let (pivot, likely_sorted) = choose_pivot(v, &is_less);
        if shape.balanced
            && shape.partitioned
            && likely_sorted
            && partial_insertion_sort(v, &is_less)
        {
            return;
        }
        // Every element of `v` is at least `pred`; if the pivot is not greater, it equals
        // `pred`, and so do all the elements not greater than it: set them aside, go on
        // with the rest.
        if let Some(pred) = pred.as_deref() {
            if !is_less(pred, &v[pivot]) {
                let equal = partition_equal(v, pivot, &is_less);
                v = &mut mem::take(&mut v)[equal..];
                continue;
            }
        }
        let (mid, partitioned) = partition(v, pivot, &is_less, likely_sorted);
        shape.balanced = mid.min(len - mid) >= len / 8;
        shape.partitioned = partitioned;
        let (left, rest) = mem::take(&mut v).split_at_mut(mid);
        let (pivot, right) = rest.split_first_mut().expect("the pivot is in the slice");
        if len > SEQUENTIAL_LEN {
            join(
                || recurse(left, compare, pred, shape),
                || recurse(right, compare, Some(pivot), shape),
            );
            return;
        }
        // Sequentially: the shorter side by recursion, the longer in this loop (so the
        // stack grows by O(log n) frames at most).
        if left.len() < right.len() {
            recurse(left, compare, pred, shape);
            v = right;
            pred = Some(pivot);
        } else {
            recurse(right, compare, Some(pivot), shape);
            v = left;
        }
    }
}

/// Moves the elements less than `v[pivot]` before it and the others after it; returns the
/// pivot's new index and whether the slice was already partitioned (nothing had to move but
/// the pivot).
///
/// `likely_sorted`: the pivot's samples were in order ([`choose_pivot`]), so few elements
/// are on the wrong side, and [`block_partition`], which moves only those, partitions any
/// size of element.
pub(super) fn partition<T>(
    v: &mut [T],
    pivot: usize,
    is_less: &impl Fn(&T, &T) -> bool,
    likely_sorted: bool,
) -> (usize, bool) {
    v.swap(0, pivot);
    let (head, rest) = v.split_first_mut().expect("the pivot is in the slice");
    let pivot = &*head;
    // The elements already on their side at either end stay where they are.
    let mut l = 0;
    while l < rest.len() && is_less(&rest[l], pivot) {
        l += 1;
    }
    let mut r = rest.len();
    while r > l && !is_less(&rest[r - 1], pivot) {
        r -= 1;
    }
    let rest = &mut rest[l..r];
    let less = if size_of::<T>() <= LOMUTO_MAX_SIZE && !likely_sorted {
        lomuto(rest, |x| is_less(x, pivot))
    } else {
        block_partition(rest, pivot, is_less)
    };
    let mid = l + less;
    v.swap(0, mid);
    (mid, l >= r)
}

/// The largest elements (in bytes) that [`partition`] moves by [`lomuto`], which swaps every
/// element; larger ones go to [`block_partition`], which moves only the misplaced ones. (On
/// the development machine, for `u64` Lomuto took about 8 % less time, for `String` block
/// partitioning about 12 % less.)
const LOMUTO_MAX_SIZE: usize = 16;

/// Elements a block of [`block_partition`] holds (its offsets fit a `u8`).
const BLOCK: usize = 128;

/// Moves the elements less than `pivot` to the front; returns how many there are. A block
/// partition (Edelkamp and Weiß, "BlockQuicksort", 2016): a block at each end is scanned
/// without branches, noting the offsets of the elements on the wrong side, and those are
/// swapped in pairs, so each element is compared once and only misplaced ones move; the
/// last blocks' worth goes to [`lomuto`].
fn block_partition<T>(v: &mut [T], pivot: &T, is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let base = v.as_mut_ptr();
    let (mut l, mut r) = (0, v.len());
    // The offsets in the current left block (counted from `l`) of elements not less than the
    // pivot, and in the right block (counted back from `r - 1`) of elements less than it;
    // `start..end` are those not yet swapped.
    let mut offsets_l = [0u8; BLOCK];
    let mut offsets_r = [0u8; BLOCK];
    let (mut start_l, mut end_l) = (0, 0);
    let (mut start_r, mut end_r) = (0, 0);
    while r - l >= 2 * BLOCK {
        if start_l == end_l {
            (start_l, end_l) = (0, 0);
            for i in 0..BLOCK {
                // SAFETY: `l + i < l + BLOCK <= r <= v.len()`, and `end_l <= i < BLOCK`.
                unsafe {
                    let goes_right = !is_less(&*base.add(l + i), pivot);
                    *offsets_l.get_unchecked_mut(end_l) = i as u8;
                    end_l += usize::from(goes_right);
                }
            }
        }
        if start_r == end_r {
            (start_r, end_r) = (0, 0);
            for i in 0..BLOCK {
                // SAFETY: `r - 1 - i >= r - BLOCK >= l`, and `end_r <= i < BLOCK`.
                unsafe {
                    let goes_left = is_less(&*base.add(r - 1 - i), pivot);
                    *offsets_r.get_unchecked_mut(end_r) = i as u8;
                    end_r += usize::from(goes_left);
                }
            }
        }
        let pairs = (end_l - start_l).min(end_r - start_r);
        for k in 0..pairs {
            // SAFETY: the offsets are below `BLOCK`, so the left element lies in
            // `l..l + BLOCK` and the right one in `r - BLOCK..r`: both inside `v`, and
            // distinct since `l + BLOCK <= r - BLOCK`. Only swaps move elements, so a panic
            // of `is_less` leaves `v` a permutation of what it held.
            unsafe {
                let left = base.add(l + usize::from(offsets_l[start_l + k]));
                let right = base.add(r - 1 - usize::from(offsets_r[start_r + k]));
                ptr::swap_nonoverlapping(left, right, 1);
            }
        }
        start_l += pairs;
        start_r += pairs;
        // A block whose misplaced elements were all swapped is done.
        if start_l == end_l {
            l += BLOCK;
        }
        if start_r == end_r {
            r -= BLOCK;
        }
    }
    // `..l` is less than the pivot, `r..` is not; what is between (a block's leftovers
    // included) is partitioned plainly.
    l + lomuto(&mut v[l..r], |x| is_less(x, pivot))
}

/// Moves the elements equal to `v[pivot]` to the front, given that none is less than it;
/// returns how many there are (the pivot included).
pub(super) fn partition_equal<T>(
    v: &mut [T],
    pivot: usize,
    is_less: &impl Fn(&T, &T) -> bool,
) -> usize {
    v.swap(0, pivot);
    let (head, rest) = v.split_first_mut().expect("the pivot is in the slice");
    let pivot = &*head;
    1 + lomuto(rest, |x| !is_less(pivot, x))
}

/// Moves the elements for which `goes_left` holds to the front, keeping neither side's
/// order; returns how many there are. A branchless Lomuto partition: each element is tested
/// where it lies and then swapped with the first element of the right side (with itself
/// while the right side is empty), so the loop has no branch that depends on the data.
fn lomuto<T>(v: &mut [T], mut goes_left: impl FnMut(&T) -> bool) -> usize {
    let base = v.as_mut_ptr();
    let mut left = 0;
    for i in 0..v.len() {
        // SAFETY: `left <= i < v.len()`, so both pointers are inside `v`, which this function
        // borrows mutably; `ptr::swap` allows the two to be equal. Only swaps move elements,
        // so a panic of `goes_left` leaves `v` a permutation of what it held.
        unsafe {
            let current = base.add(i);
            let goes = goes_left(&*current);
            ptr::swap(base.add(left), current);
            left += usize::from(goes);
        }
    }
    left
}

/// Picks a pivot: the median of the elements at the quarter, the half and the three quarters
/// of `v` (`v.len() >= 8`), and from 50 elements on, the median of three medians of three
/// taken around those places (Tukey's ninther). Returns its index, and whether the samples
/// were in order: if all twelve comparisons of a ninther swapped, the samples were in
/// reverse order, and `v` is reversed first (a descending slice becomes a sorted one).
pub(super) fn choose_pivot<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) -> (usize, bool) {
    const ALL_SWAPPED: usize = 4 * 3;
    const NINTHER_LEN: usize = 50;
    let len = v.len();
    debug_assert!(len >= 8);
    let mut swaps = 0;
    let mut median_of = |[mut a, mut b, mut c]: [usize; 3]| {
        let mut order = |x: &mut usize, y: &mut usize| {
            if is_less(&v[*y], &v[*x]) {
                mem::swap(x, y);
                swaps += 1;
            }
        };
        order(&mut a, &mut b);
        order(&mut b, &mut c);
        order(&mut a, &mut b);
        b
    };
    let q = len / 4;
    let pivot = if len < NINTHER_LEN {
        median_of([q, 2 * q, 3 * q])
    } else {
        let around = |i: usize| [i - 1, i, i + 1];
        let medians = [
            median_of(around(q)),
            median_of(around(2 * q)),
            median_of(around(3 * q)),
        ];
        median_of(medians)
    };
    if swaps < ALL_SWAPPED {
        (pivot, swaps == 0)
    } else {
        v.reverse();
        (len - 1 - pivot, true)
    }
}

/// Sorts `v` if it is sorted but for a few out-of-place elements: mends at most five
/// adjacent pairs that are out of order, shifting each element of a pair to its place
/// (only from 50 elements on: a shorter slice is sorted faster than mended). Returns whether
/// `v` is sorted; if not, the mended pairs stay mended.
pub(super) fn partial_insertion_sort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) -> bool {
    const MAX_MENDS: usize = 5;
    const SHORTEST_MENDED: usize = 50;
    let len = v.len();
    let mut i = 1;
    for _ in 0..MAX_MENDS {
        while i < len && !is_less(&v[i], &v[i - 1]) {
            i += 1;
        }
        if i == len {
            return true;
        }
        if len < SHORTEST_MENDED {
            return false;
        }
        v.swap(i - 1, i);
        // The smaller element moves left, the greater right.
        let mut j = i - 1;
        while j > 0 && is_less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
        let mut j = i;
        while j + 1 < len && is_less(&v[j + 1], &v[j]) {
            v.swap(j, j + 1);
            j += 1;
        }
    }
    false
}

/// Swaps three elements near the middle of `v` with pseudo-randomly chosen ones, to break a
/// pattern that unbalanced the last partition.
fn break_patterns<T>(v: &mut [T]) {
    let len = v.len();
    if len < 8 {
        return;
    }
    // A xorshift generator seeded with the length: deterministic, and enough to break patterns.
    let mut seed = len as u64 | 1;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mask = len.next_power_of_two() - 1;
    let mid = len / 2;
    for pos in mid - 1..=mid + 1 {
        let mut other = next() as usize & mask;
        if other >= len {
            other -= len;
        }
        v.swap(pos, other);
    }
}

/// Sorts `v` by heapsort: O(n log n) whatever the input, by swaps only.
pub(super) fn heapsort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    // Moves `v[node]` down the max-heap `v[..end]` until neither child is greater.
    let sift_down = |v: &mut [T], mut node: usize, end: usize| loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && is_less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !is_less(&v[node], &v[child]) {
            return;
        }
        v.swap(node, child);
        node = child;
    };
    let len = v.len();
    for node in (0..len / 2).rev() {
        sift_down(v, node, len);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}
