//! `par_drain` on a `String` (rayon's `rayon::string`): the characters of a range,
//! removed from the string.

use std::ops::{Range, RangeBounds};

use crate::par::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::par::iter::{ParallelDrainRange, ParallelIterator};

/// A parallel iterator over the characters of a range of a string, which is removed when
/// the iterator is dropped (run or not): `string.par_drain(range)`.
#[derive(Debug)]
pub struct Drain<'a> {
    string: &'a mut String,
    range: Range<usize>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = Drain<'a>;
    type Item = char;

    /// Panics if the range's ends are not on character boundaries, as `String::drain` does.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a> {
        let range = crate::par::math::simplify_range(range, self.len());
        assert!(
            self.is_char_boundary(range.start),
            "range start is not a char boundary"
        );
        assert!(
            self.is_char_boundary(range.end),
            "range end is not a char boundary"
        );
        Drain {
            string: self,
            range,
        }
    }
}

impl ParallelIterator for Drain<'_> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            CharsProducer {
                chars: &self.string[self.range.clone()],
            },
            consumer,
        )
        // `self` drops here: the range is removed.
    }
}

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}

/// The characters of a `str`, split in half at a character boundary.
struct CharsProducer<'a> {
    chars: &'a str,
}

impl UnindexedProducer for CharsProducer<'_> {
    type Item = char;

    fn split(self) -> (Self, Option<Self>) {
        let mut mid = self.chars.len() / 2;
        while !self.chars.is_char_boundary(mid) {
            mid += 1;
        }
        if mid == 0 || mid == self.chars.len() {
            return (self, None);
        }
        let (left, right) = self.chars.split_at(mid);
        (
            CharsProducer { chars: left },
            Some(CharsProducer { chars: right }),
        )
    }

    fn fold_with<F: Folder<char>>(self, folder: F) -> F {
        folder.consume_iter(self.chars.chars())
    }
}
