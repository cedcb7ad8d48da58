//! `split(data, splitter)`: a parallel iterator over pieces of `data` made by a
//! user-given splitting function, for sources that know how to halve themselves.

use std::fmt;

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;

/// A parallel iterator over the pieces of `data` that `splitter` makes: the bridge calls
/// `splitter(piece)` to split a piece in two (`(left, Some(right))`), which may refuse
/// (`(piece, None)`), and yields the pieces, in order. It splits as far as the work needs,
/// so a piece the splitter could still split may be yielded whole.
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::split;
///
/// // Ranges halved (not below 100 numbers), each summed sequentially.
/// let total: u64 = split(0..1000u64, |r| {
///     if r.end - r.start <= 100 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// })
/// .map(|r| r.sum::<u64>())
/// .sum();
/// assert_eq!(total, 499_500);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The iterator of [`split()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("data", &self.data).finish()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            SplitProducer {
                data: self.data,
                splitter: &self.splitter,
            },
            consumer,
        )
    }
}

struct SplitProducer<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for SplitProducer<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        (
            SplitProducer {
                data: left,
                splitter,
            },
            right.map(|data| SplitProducer { data, splitter }),
        )
    }

    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
