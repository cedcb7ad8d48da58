//! The insertion sort that both sorts use for their shortest pieces: stable, in place, and
//! panic-safe.
//!
//! **Invariant:** the element being inserted is read out of the slice only after it was
//! compared in place, and from then on it is the read-out copy that is compared and written
//! back; a guard writes it into the hole if a comparison panics. So the slice is always a
//! permutation of its input once the call ends (returning or unwinding), holding each
//! element's latest version.

use std::mem::ManuallyDrop;
use std::ptr;

/// Sorts `v` by insertion: O(n²) comparisons, stable (an element moves left only past
/// elements strictly greater), never panics on a comparison that is no total order.
pub(super) fn insertion_sort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        // SAFETY: `1 <= i < v.len()`.
        unsafe { insert_tail(v, i, is_less) };
    }
}

/// Inserts `v[i]` into the sorted `v[..i]`.
///
/// # Safety
/// `1 <= i < v.len()`.
unsafe fn insert_tail<T>(v: &mut [T], i: usize, is_less: &impl Fn(&T, &T) -> bool) {
    let base = v.as_mut_ptr();
    // SAFETY: `i` and `i - 1` are inside `v` (the caller's contract). Elements move by
    // bitwise copies between slots of `v`; at any time exactly one slot (the hole) holds a
    // stale copy, and `Hole`'s drop fills it with the read-out element, on return and on
    // unwind alike.
    unsafe {
        let current = base.add(i);
        if !is_less(&*current, &*current.sub(1)) {
            return;
        }
        let element = ManuallyDrop::new(ptr::read(current));
        let mut hole = Hole {
            element: &*element,
            at: current.sub(1),
        };
        ptr::copy_nonoverlapping(hole.at, current, 1);
        for j in (0..i - 1).rev() {
            let next = base.add(j);
            if !is_less(&*element, &*next) {
                break;
            }
            ptr::copy_nonoverlapping(next, hole.at, 1);
            hole.at = next;
        }
    }
}

/// The slot of an insertion that no element fills yet; dropping it writes the inserted
/// element there.
struct Hole<T> {
    element: *const T,
    at: *mut T,
}

impl<T> Drop for Hole<T> {
    fn drop(&mut self) {
        // SAFETY: `element` is the read-out copy (alive in the caller's frame until after
        // this drop) and `at` the one slot holding a stale copy; they do not overlap.
        unsafe { ptr::copy_nonoverlapping(self.element, self.at, 1) };
    }
}
