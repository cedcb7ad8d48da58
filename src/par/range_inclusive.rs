//! Parallel iterators over inclusive ranges (rayon's `rayon::range_inclusive`):
//! `(a..=b).into_par_iter()`.
//!
//! Each runs as the exclusive range `a..b+1`, or, when `b` is its type's maximum, as
//! `a..b` chained with `b`. Ranges of `u8`, `u16`, `i8`, `i16` and `char` are indexed;
//! the wider ones are not (their length may not fit a `usize`), as in rayon.

use std::ops::{Range, RangeInclusive};

use crate::par::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{once, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over an inclusive range: `(a..=b).into_par_iter()`.
#[derive(Debug, Clone)]
pub struct Iter<T> {
    range: RangeInclusive<T>,
}

impl<T> IntoParallelIterator for RangeInclusive<T>
where
    Iter<T>: ParallelIterator,
{
    type Item = <Iter<T> as ParallelIterator>::Item;
    type Iter = Iter<T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter { range: self }
    }
}

/// How an inclusive range runs: as an exclusive range, or one ending before the type's
/// maximum followed by the maximum; `None` when empty.
enum Shape<T> {
    Exclusive(Range<T>),
    ThroughMax(Range<T>, T),
}

macro_rules! inclusive_range {
    ($($t:ty: $indexed:tt),*) => {$(
        impl Iter<$t> {
            fn shape(&self) -> Option<Shape<$t>> {
                let (start, end) = (*self.range.start(), *self.range.end());
                if self.range.is_empty() {
                    None
                } else if end < <$t>::MAX {
                    Some(Shape::Exclusive(start..end + 1))
                } else {
                    Some(Shape::ThroughMax(start..end, end))
                }
            }
        }

        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                match self.shape() {
                    None => (0..0 as $t).into_par_iter().drive_unindexed(consumer),
                    Some(Shape::Exclusive(r)) => r.into_par_iter().drive_unindexed(consumer),
                    Some(Shape::ThroughMax(r, max)) => r.into_par_iter().chain(once(max)).drive_unindexed(consumer),
                }
            }

            fn opt_len(&self) -> Option<usize> {
                match self.shape() {
                    None => Some(0),
                    Some(Shape::Exclusive(r)) => r.into_par_iter().opt_len(),
                    Some(Shape::ThroughMax(r, _)) => r.into_par_iter().opt_len()?.checked_add(1),
                }
            }
        }

        inclusive_range!(@indexed $indexed $t);
    )*};
    (@indexed false $t:ty) => {};
    (@indexed true $t:ty) => {
        impl IndexedParallelIterator for Iter<$t> {
            fn drive<C: Consumer<$t>>(self, consumer: C) -> C::Result {
                match self.shape() {
                    None => (0..0 as $t).into_par_iter().drive(consumer),
                    Some(Shape::Exclusive(r)) => r.into_par_iter().drive(consumer),
                    Some(Shape::ThroughMax(r, max)) => r.into_par_iter().chain(once(max)).drive(consumer),
                }
            }

            fn len(&self) -> usize {
                match self.shape() {
                    None => 0,
                    Some(Shape::Exclusive(r)) => r.len(),
                    Some(Shape::ThroughMax(r, _)) => r.len() + 1,
                }
            }

            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                match self.shape() {
                    None => (0..0 as $t).into_par_iter().with_producer(callback),
                    Some(Shape::Exclusive(r)) => r.into_par_iter().with_producer(callback),
                    Some(Shape::ThroughMax(r, max)) => r.into_par_iter().chain(once(max)).with_producer(callback),
                }
            }
        }
    };
}

inclusive_range!(
    u8: true, u16: true, i8: true, i16: true,
    u32: false, i32: false, usize: false, isize: false,
    u64: false, i64: false, u128: false, i128: false
);

impl Iter<char> {
    fn exclusive(&self) -> Option<Range<char>> {
        let (start, end) = (*self.range.start(), *self.range.end());
        if self.range.is_empty() {
            return None;
        }
        // The char after `end` (skipping the surrogates), or `end` itself at char::MAX,
        // handled by the caller.
        let next = match end {
            char::MAX => return Some(start..end),
            '\u{D7FF}' => '\u{E000}',
            c => char::from_u32(c as u32 + 1)
                .expect("the char after a scalar value below D7FF or above DFFF"),
        };
        Some(start..next)
    }
}

impl ParallelIterator for Iter<char> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Iter<char> {
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        let at_max = *self.range.end() == char::MAX && !self.range.is_empty();
        match self.exclusive() {
            None => ('\0'..'\0').into_par_iter().drive(consumer),
            Some(r) if at_max => r.into_par_iter().chain(once(char::MAX)).drive(consumer),
            Some(r) => r.into_par_iter().drive(consumer),
        }
    }

    fn len(&self) -> usize {
        let exclusive = self.exclusive().map_or(0, |r| r.into_par_iter().len());
        let at_max = *self.range.end() == char::MAX && !self.range.is_empty();
        exclusive + at_max as usize
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        let at_max = *self.range.end() == char::MAX && !self.range.is_empty();
        match self.exclusive() {
            None => ('\0'..'\0').into_par_iter().with_producer(callback),
            Some(r) if at_max => r
                .into_par_iter()
                .chain(once(char::MAX))
                .with_producer(callback),
            Some(r) => r.into_par_iter().with_producer(callback),
        }
    }
}
