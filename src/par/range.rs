//! Parallel iterators over ranges (rayon's `rayon::range`): `(a..b).into_par_iter()` for
//! every integer type and `char`.
//!
//! Ranges of `u8`, `u16`, `u32`, `usize`, `i8`, `i16`, `i32` and `isize` are indexed (their
//! length always fits a `usize`); ranges of `u64`, `i64`, `u128` and `i128` are not, as in
//! rayon, but run indexed whenever their length fits (`opt_len`), else by halving. `char`
//! ranges are indexed and skip the surrogate code points.

use std::ops::Range;

use crate::par::iter::plumbing::{bridge, bridge_unindexed, Consumer, Folder, Producer};
use crate::par::iter::plumbing::{ProducerCallback, UnindexedConsumer, UnindexedProducer};
use crate::par::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over a range: `(a..b).into_par_iter()`.
#[derive(Debug, Clone)]
pub struct Iter<T> {
    range: Range<T>,
}

impl<T> IntoParallelIterator for Range<T>
where
    Iter<T>: ParallelIterator,
{
    type Item = <Iter<T> as ParallelIterator>::Item;
    type Iter = Iter<T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter { range: self }
    }
}

/// The per-type behaviour of range iterators; private, so the set of types is closed.
mod private {
    use super::*;

    /// An integer type whose ranges are parallel iterators.
    pub trait RangeInteger: Sized + Send {
        fn drive_unindexed<C: UnindexedConsumer<Self>>(iter: Iter<Self>, consumer: C) -> C::Result;
        fn opt_len(iter: &Iter<Self>) -> Option<usize>;
    }

    /// An integer type whose ranges are indexed parallel iterators.
    pub trait IndexedRangeInteger: RangeInteger {
        fn len(iter: &Iter<Self>) -> usize;
        fn with_producer<CB: ProducerCallback<Self>>(iter: Iter<Self>, callback: CB) -> CB::Output;
    }
}

use private::{IndexedRangeInteger, RangeInteger};

impl<T: RangeInteger> ParallelIterator for Iter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        T::drive_unindexed(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        T::opt_len(self)
    }
}

impl<T: IndexedRangeInteger> IndexedParallelIterator for Iter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        T::len(self)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        T::with_producer(self, callback)
    }
}

/// A range as a producer.
struct RangeProducer<T> {
    range: Range<T>,
}

macro_rules! indexed_range {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }

            fn opt_len(iter: &Iter<$t>) -> Option<usize> {
                Some(iter.range.len())
            }
        }

        impl IndexedRangeInteger for $t {
            fn len(iter: &Iter<$t>) -> usize {
                iter.range.len()
            }

            fn with_producer<CB: ProducerCallback<$t>>(iter: Iter<$t>, callback: CB) -> CB::Output {
                callback.callback(RangeProducer { range: iter.range })
            }
        }

        impl Producer for RangeProducer<$t> {
            type Item = $t;
            type IntoIter = Range<$t>;

            // Inlined across crates (the impls are not generic): a watched loop splits a
            // block of four items off its producer between two looks at the epoch.
            #[inline]
            fn into_iter(self) -> Range<$t> {
                self.range
            }

            #[inline]
            fn split_at(self, index: usize) -> (Self, Self) {
                assert!(index <= self.range.len(), "range split past its end");
                // Wrapping: the index may exceed the type's positive range (-100i8 + 150).
                let mid = self.range.start.wrapping_add(index as $t);
                (RangeProducer { range: self.range.start..mid }, RangeProducer { range: mid..self.range.end })
            }
        }
    )*};
}

indexed_range!(u8, u16, u32, usize, i8, i16, i32, isize);

/// The length of a range of a wide type, in the unsigned type of the same width.
trait WideLen<L> {
    fn wide_len(&self) -> L;
}

macro_rules! unindexed_range {
    ($($t:ty => $len:ty),*) => {$(
        impl WideLen<$len> for Range<$t> {
            fn wide_len(&self) -> $len {
                if self.end > self.start { self.end.wrapping_sub(self.start) as $len } else { 0 }
            }
        }

        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                match Self::opt_len(&iter) {
                    Some(len) => {
                        let start = iter.range.start;
                        (0..len).into_par_iter().map(move |i| start.wrapping_add(i as $t)).drive(consumer)
                    }
                    None => bridge_unindexed(RangeProducer { range: iter.range }, consumer),
                }
            }

            fn opt_len(iter: &Iter<$t>) -> Option<usize> {
                usize::try_from(iter.range.wide_len()).ok()
            }
        }

        impl UnindexedProducer for RangeProducer<$t> {
            type Item = $t;

            fn split(self) -> (Self, Option<Self>) {
                let half = self.range.wide_len() / 2;
                if half == 0 {
                    return (self, None);
                }
                let mid = self.range.start.wrapping_add(half as $t);
                (RangeProducer { range: self.range.start..mid }, Some(RangeProducer { range: mid..self.range.end }))
            }

            fn fold_with<F: Folder<$t>>(self, folder: F) -> F {
                folder.consume_iter(self.range)
            }
        }
    )*};
}

unindexed_range!(u64 => u64, i64 => u64, u128 => u128, i128 => u128);

/// The first surrogate code point, and the count of them.
const SURROGATES: u32 = 0xD800;
const SURROGATE_COUNT: u32 = 0x800;

/// The code points of a `char` range as `u32`s, and whether it spans the surrogates.
fn char_bounds(range: &Range<char>) -> (u32, u32, bool) {
    let (start, end) = (range.start as u32, range.end as u32);
    (
        start,
        end,
        start < SURROGATES && SURROGATES + SURROGATE_COUNT <= end,
    )
}

/// The `k`-th char of a range starting at `start` that spans the surrogates when `skips`.
fn nth_char(start: u32, skips: bool, k: u32) -> char {
    let c = start + k;
    let c = if skips && c >= SURROGATES {
        c + SURROGATE_COUNT
    } else {
        c
    };
    char::from_u32(c).expect("a char range holds only scalar values")
}

impl Iter<char> {
    /// The range as an indexed iterator over offsets mapped to chars.
    fn as_offsets(&self) -> impl IndexedParallelIterator<Item = char> + use<> {
        let (start, _, skips) = char_bounds(&self.range);
        let len = self.len() as u32;
        (0..len)
            .into_par_iter()
            .map(move |k| nth_char(start, skips, k))
    }
}

impl ParallelIterator for Iter<char> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.as_offsets().drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Iter<char> {
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        self.as_offsets().drive(consumer)
    }

    fn len(&self) -> usize {
        let (start, end, skips) = char_bounds(&self.range);
        if start >= end {
            return 0;
        }
        let count = end - start;
        (if skips {
            count - SURROGATE_COUNT
        } else {
            count
        }) as usize
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        self.as_offsets().with_producer(callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_past_the_positive_range_wraps_to_the_right_value() {
        let (left, right) = RangeProducer { range: -100i8..100 }.split_at(150);
        assert_eq!(left.range.len(), 150);
        let sum: i32 = left.range.chain(right.range).map(i32::from).sum();
        assert_eq!(sum, -100);
    }

    #[test]
    fn wide_lengths_do_not_overflow() {
        let octillion: i128 = 10i128.pow(27);
        assert_eq!((0..octillion).wide_len(), octillion as u128);
        assert_eq!((-octillion..octillion).wide_len(), 2 * octillion as u128);
        assert_eq!((i128::MIN..i128::MAX).wide_len(), u128::MAX);
    }

    #[test]
    fn char_ranges_skip_the_surrogates() {
        let chars: Vec<char> = ('\u{D7FE}'..'\u{E002}').into_par_iter().collect();
        assert_eq!(chars, ['\u{D7FE}', '\u{D7FF}', '\u{E000}', '\u{E001}']);
        let chars: Vec<char> = ('\u{E000}'..'\u{E002}').into_par_iter().collect();
        assert_eq!(chars, ['\u{E000}', '\u{E001}']);
    }
}
