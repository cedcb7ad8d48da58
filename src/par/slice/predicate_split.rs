//! `par_split`, `par_split_inclusive` and their `_mut` forms: the pieces of a slice between
//! the elements that match a predicate, as unindexed parallel iterators on
//! [`CutProducer`]. Also the slices' kinds of cut ([`ExclusiveCut`], [`InclusiveCut`],
//! [`Boundary`]), which `chunk_by.rs` shares.

use std::fmt;
use std::marker::PhantomData;

use super::cuts::{CutProducer, Cuttable};
use super::parts::SlicePart;
use crate::par::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer};
use crate::par::iter::ParallelIterator;

/// Cuts around each element that matches (the element belongs to no piece): `par_split`.
pub(super) struct ExclusiveCut<T, P> {
    pub(super) matches: P,
    _elements: PhantomData<fn(&T)>,
}

/// Cuts after each element that matches (the element ends its piece):
/// `par_split_inclusive`.
pub(super) struct InclusiveCut<T, P> {
    pub(super) matches: P,
    _elements: PhantomData<fn(&T)>,
}

/// Cuts between two neighbours for which `same` is false: `par_chunk_by`.
pub(super) struct Boundary<T, P> {
    pub(super) same: P,
    _elements: PhantomData<fn(&T)>,
}

macro_rules! kind {
    ($kind:ident, $field:ident) => {
        impl<T, P> $kind<T, P> {
            pub(super) fn new($field: P) -> Self {
                $kind {
                    $field,
                    _elements: PhantomData,
                }
            }
        }

        impl<T, P: Clone> Clone for $kind<T, P> {
            fn clone(&self) -> Self {
                $kind::new(self.$field.clone())
            }
        }
    };
}

kind!(ExclusiveCut, matches);
kind!(InclusiveCut, matches);
kind!(Boundary, same);

impl<T, S, P> Cuttable<ExclusiveCut<T, P>> for S
where
    S: SlicePart<T>,
    P: Fn(&T) -> bool,
{
    fn len(&self) -> usize {
        self.elements().len()
    }

    fn find(&self, kind: &ExclusiveCut<T, P>, start: usize, end: usize) -> Option<usize> {
        let found = self.elements()[start..end].iter().position(&kind.matches);
        found.map(|i| start + i)
    }

    fn rfind(&self, kind: &ExclusiveCut<T, P>, end: usize) -> Option<usize> {
        self.elements()[..end].iter().rposition(&kind.matches)
    }

    fn cut(self, _: &ExclusiveCut<T, P>, at: usize) -> (Self, Self) {
        let (before, rest) = self.cut(at);
        (before, rest.cut(1).1)
    }

    fn fold_pieces<F: Folder<Self>>(
        self,
        kind: &ExclusiveCut<T, P>,
        folder: F,
        skip_last: bool,
    ) -> F {
        let mut pieces = self.std_split(&kind.matches);
        if skip_last {
            pieces.next_back();
        }
        folder.consume_iter(pieces)
    }
}

impl<T, S, P> Cuttable<InclusiveCut<T, P>> for S
where
    S: SlicePart<T>,
    P: Fn(&T) -> bool,
{
    fn len(&self) -> usize {
        self.elements().len()
    }

    fn find(&self, kind: &InclusiveCut<T, P>, start: usize, end: usize) -> Option<usize> {
        let found = self.elements()[start..end].iter().position(&kind.matches);
        found.map(|i| start + i)
    }

    fn rfind(&self, kind: &InclusiveCut<T, P>, end: usize) -> Option<usize> {
        self.elements()[..end].iter().rposition(&kind.matches)
    }

    fn cut(self, _: &InclusiveCut<T, P>, at: usize) -> (Self, Self) {
        self.cut(at + 1)
    }

    fn fold_pieces<F: Folder<Self>>(
        self,
        kind: &InclusiveCut<T, P>,
        folder: F,
        skip_last: bool,
    ) -> F {
        debug_assert!(!skip_last, "no slice iterator skips its last piece");
        folder.consume_iter(self.std_split_inclusive(&kind.matches))
    }
}

impl<T, S, P> Cuttable<Boundary<T, P>> for S
where
    S: SlicePart<T>,
    P: Fn(&T, &T) -> bool,
{
    fn len(&self) -> usize {
        self.elements().len()
    }

    /// A cut at `at` lies between elements `at - 1` and `at`.
    fn find(&self, kind: &Boundary<T, P>, start: usize, end: usize) -> Option<usize> {
        let from = start.max(1);
        if from >= end {
            return None;
        }
        let mut pairs = self.elements()[from - 1..end].windows(2);
        let found = pairs.position(|w| !(kind.same)(&w[0], &w[1]));
        found.map(|i| from + i)
    }

    fn rfind(&self, kind: &Boundary<T, P>, end: usize) -> Option<usize> {
        if end < 2 {
            return None;
        }
        let mut pairs = self.elements()[..end].windows(2);
        let found = pairs.rposition(|w| !(kind.same)(&w[0], &w[1]));
        found.map(|i| i + 1)
    }

    fn cut(self, _: &Boundary<T, P>, at: usize) -> (Self, Self) {
        self.cut(at)
    }

    fn fold_pieces<F: Folder<Self>>(self, kind: &Boundary<T, P>, folder: F, skip_last: bool) -> F {
        debug_assert!(!skip_last, "no slice iterator skips its last piece");
        folder.consume_iter(self.std_chunk_by(&kind.same))
    }
}

/// Defines a split iterator type: its `Debug` (the slice) and its `ParallelIterator`.
macro_rules! split_iter {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $slice:ty, $bound:ident) => {
        $(#[$doc])*
        pub struct $name<'data, T, P> {
            slice: $slice,
            kind: $kind<T, P>,
        }

        impl<'data, T, P> $name<'data, T, P> {
            pub(super) fn new(slice: $slice, separator: P) -> Self {
                $name {
                    slice,
                    kind: $kind::new(separator),
                }
            }
        }

        impl<T: fmt::Debug, P> fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish()
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $bound,
            P: Fn(&T) -> bool + Sync + Send,
        {
            type Item = $slice;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                bridge_unindexed(CutProducer::new(self.slice, &self.kind), consumer)
            }
        }
    };
}

split_iter!(
    /// A parallel iterator over the pieces of a slice between the elements that match a
    /// predicate (which belong to no piece): `slice.par_split(pred)`, as std's `split`.
    Split,
    ExclusiveCut,
    &'data [T],
    Sync
);

split_iter!(
    /// A parallel iterator over the pieces of a slice, each ending with an element that
    /// matches a predicate (the last piece may not): `slice.par_split_inclusive(pred)`, as
    /// std's `split_inclusive`.
    SplitInclusive,
    InclusiveCut,
    &'data [T],
    Sync
);

split_iter!(
    /// A parallel iterator over the mutable pieces of a slice between the elements that
    /// match a predicate: `slice.par_split_mut(pred)`, as std's `split_mut`.
    SplitMut,
    ExclusiveCut,
    &'data mut [T],
    Send
);

split_iter!(
    /// A parallel iterator over the mutable pieces of a slice, each ending with an element
    /// that matches a predicate: `slice.par_split_inclusive_mut(pred)`, as std's
    /// `split_inclusive_mut`.
    SplitInclusiveMut,
    InclusiveCut,
    &'data mut [T],
    Send
);

impl<T, P: Clone> Clone for Split<'_, T, P> {
    fn clone(&self) -> Self {
        Split {
            slice: self.slice,
            kind: self.kind.clone(),
        }
    }
}

impl<T, P: Clone> Clone for SplitInclusive<'_, T, P> {
    fn clone(&self) -> Self {
        SplitInclusive {
            slice: self.slice,
            kind: self.kind.clone(),
        }
    }
}
