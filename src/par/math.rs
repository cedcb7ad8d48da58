//! Small arithmetic shared by the parallel iterators' sources.

use std::ops::{Bound, Range, RangeBounds};

/// The `Range` that `range` covers within `0..len`; panics, as slicing does, when it
/// starts after it ends or reaches past `len`.
#[track_caller]
pub(crate) fn simplify_range(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Unbounded => 0,
        Bound::Included(&i) => i,
        Bound::Excluded(&i) => i.checked_add(1).expect("range start overflows usize"),
    };
    let end = match range.end_bound() {
        Bound::Unbounded => len,
        Bound::Included(&i) => i.checked_add(1).expect("range end overflows usize"),
        Bound::Excluded(&i) => i,
    };
    assert!(
        start <= end,
        "range start index {start} out of range for slice of length {end}"
    );
    assert!(
        end <= len,
        "range end index {end} out of range for slice of length {len}"
    );
    start..end
}
