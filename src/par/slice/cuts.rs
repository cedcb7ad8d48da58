//! The unindexed producer of the iterators that cut their data where a pattern matches:
//! the slices' `par_split`, `par_split_inclusive`, `par_chunk_by` (and their `_mut` forms)
//! and the strings' `par_split`, `par_split_inclusive`, `par_split_terminator`, `par_lines`,
//! `par_split_whitespace`.
//!
//! The number of pieces is unknown until the data is searched, so the producer splits by
//! searching: from a point near the middle it looks forward for a cut, else backward, and
//! cuts there, so the two halves hold whole pieces. A sequential piece (`fold_with`) is
//! walked by std's own splitting iterator.
//!
//! **Invariant:** no cut lies at or after [`CutProducer`]'s `tail` (a position of its data):
//! the searches already made found none there, so neither a later split nor the fold
//! searches that stretch again, and every position is searched O(log n) times at most.

use crate::par::iter::plumbing::{Folder, UnindexedProducer};

/// Data that can be cut where a pattern `P` matches (a slice or a string, with the kind of
/// cut in `P`: before the separator, after it, or between two elements).
///
/// A cut is a position `at` that `find`/`rfind` return; `cut` splits the data there into
/// the data before the cut and the data after it.
pub(crate) trait Cuttable<P>: Sized + Send {
    /// The length in positions (elements, or bytes of a string).
    fn len(&self) -> usize;

    /// A position near the middle of `..end` where a search may start (a char boundary of
    /// a string).
    fn middle(&self, end: usize) -> usize {
        end / 2
    }

    /// The first cut in `start..end`.
    fn find(&self, pattern: &P, start: usize, end: usize) -> Option<usize>;

    /// The last cut in `..end`.
    fn rfind(&self, pattern: &P, end: usize) -> Option<usize>;

    /// The data before the cut at `at`, and after it.
    fn cut(self, pattern: &P, at: usize) -> (Self, Self);

    /// Feeds every piece of the data to `folder` (std's splitting iterator), but the last
    /// one if `skip_last`.
    fn fold_pieces<F>(self, pattern: &P, folder: F, skip_last: bool) -> F
    where
        F: Folder<Self>;
}

/// The pieces of `data` between the cuts of `pattern`, as an unindexed producer.
pub(crate) struct CutProducer<'p, V, P> {
    data: V,
    pattern: &'p P,
    /// No cut lies at or after this position (module docs).
    tail: usize,
    /// The last piece is left out (`par_split_terminator` on data that ends with the
    /// terminator); only the producer holding the end of the data has it set.
    skip_last: bool,
}

impl<'p, V, P> CutProducer<'p, V, P>
where
    V: Cuttable<P>,
{
    /// The pieces of the whole of `data`.
    pub(crate) fn new(data: V, pattern: &'p P) -> Self {
        Self::new_skipping_last(data, pattern, false)
    }

    /// The pieces of the whole of `data`, the last one left out if `skip_last`.
    pub(crate) fn new_skipping_last(data: V, pattern: &'p P, skip_last: bool) -> Self {
        CutProducer {
            tail: data.len(),
            data,
            pattern,
            skip_last,
        }
    }
}

impl<V, P> UnindexedProducer for CutProducer<'_, V, P>
where
    V: Cuttable<P>,
    P: Sync,
{
    type Item = V;

    fn split(self) -> (Self, Option<Self>) {
        let mid = self.data.middle(self.tail);
        let (at, forward) = match self.data.find(self.pattern, mid, self.tail) {
            Some(at) => (at, true),
            None => match self.data.rfind(self.pattern, mid) {
                Some(at) => (at, false),
                None => return (CutProducer { tail: 0, ..self }, None),
            },
        };
        let len = self.data.len();
        let (left, right) = self.data.cut(self.pattern, at);
        let right_start = len - right.len();
        let (left_tail, right_tail) = if forward {
            // `mid..at` was searched: nothing there.
            (mid, self.tail.saturating_sub(right_start))
        } else {
            // `mid..tail` and everything after the cut was searched.
            (at, 0)
        };
        let left = CutProducer {
            data: left,
            pattern: self.pattern,
            tail: left_tail,
            skip_last: false,
        };
        let right = CutProducer {
            data: right,
            pattern: self.pattern,
            tail: right_tail,
            skip_last: self.skip_last,
        };
        (left, Some(right))
    }

    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<V>,
    {
        let CutProducer {
            data,
            pattern,
            tail,
            skip_last,
        } = self;
        if tail == data.len() {
            return data.fold_pieces(pattern, folder, skip_last);
        }
        // Past the last cut before `tail`, the data is one piece.
        let (pieces, last) = match data.rfind(pattern, tail) {
            Some(at) => {
                let (before, after) = data.cut(pattern, at);
                (Some(before), after)
            }
            None => (None, data),
        };
        let mut folder = folder;
        if let Some(pieces) = pieces {
            folder = pieces.fold_pieces(pattern, folder, false);
        }
        if skip_last || folder.full() {
            folder
        } else {
            folder.consume(last)
        }
    }
}
