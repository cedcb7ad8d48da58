//! `find_first` and `find_last` (and through them `find_map_first`, `position_first`,
//! `cmp` …): the leftmost or rightmost match, in order.
//!
//! Each consumer covers a range of positions `[lo, hi)`, ordered as its items are; a piece
//! with a match publishes its `lo` in `best` (the least one for `find_first`, the greatest
//! for `find_last`), and every piece whose positions are all worse stops. When the
//! iterator's length is known, positions are the items' indices (split exactly at each
//! `split_at`); otherwise a split gives each side part of the range (a left part of
//! `index × UNINDEXED_STRIDE` positions, at most half), and a range worn down to one
//! position is shared by the pieces that follow, which then cannot stop each other early.
//! Results are always right: the reducer keeps the left (or right) match whatever the
//! positions.

use std::sync::atomic::{AtomicU64, Ordering};

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;

/// Positions per item when the length is unknown: a piece can be split by index this many
/// times fewer than its range's width before the range wears out.
const UNINDEXED_STRIDE: u64 = 1 << 20;

/// The leftmost item of `pi` for which `predicate` holds.
pub(super) fn find_first<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find(pi, predicate, Side::First)
}

/// The rightmost item of `pi` for which `predicate` holds.
pub(super) fn find_last<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find(pi, predicate, Side::Last)
}

fn find<I, P>(pi: I, predicate: P, side: Side) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let (hi, stride) = match pi.opt_len() {
        Some(len) => (len as u64, 1),
        None => (u64::MAX, UNINDEXED_STRIDE),
    };
    let best = AtomicU64::new(match side {
        Side::First => u64::MAX,
        Side::Last => 0,
    });
    let consumer = FindConsumer {
        predicate: &predicate,
        best: &best,
        side,
        stride,
        lo: std::cell::Cell::new(0),
        hi,
    };
    pi.drive_unindexed(consumer)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    First,
    Last,
}

impl Side {
    /// Whether a match at position `a` beats one at `b`.
    fn better(self, a: u64, b: u64) -> bool {
        match self {
            Side::First => a < b,
            Side::Last => a > b,
        }
    }
}

/// The consumer: its positions `[lo, hi)` (`lo` in a cell, as `split_off_left` moves it
/// through `&self`), and `best`, the best position with a match so far (Relaxed: it only
/// stops work early; the items travel in the results).
struct FindConsumer<'p, P> {
    predicate: &'p P,
    best: &'p AtomicU64,
    side: Side,
    stride: u64,
    lo: std::cell::Cell<u64>,
    hi: u64,
}

impl<'p, P> FindConsumer<'p, P> {
    fn with_range(&self, lo: u64, hi: u64) -> Self {
        FindConsumer {
            predicate: self.predicate,
            best: self.best,
            side: self.side,
            stride: self.stride,
            lo: std::cell::Cell::new(lo),
            hi,
        }
    }

    /// Whether a match found elsewhere beats anything this consumer can find.
    fn beaten(&self) -> bool {
        self.side
            .better(self.best.load(Ordering::Relaxed), self.lo.get())
    }
}

impl<'p, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindConsumer<'p, P> {
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, index: usize) -> (Self, Self, FindReducer) {
        let (lo, hi) = (self.lo.get(), self.hi);
        let width = hi - lo;
        let left = if self.stride == 1 {
            (index as u64).min(width)
        } else {
            (index as u64).saturating_mul(self.stride).min(width / 2)
        };
        let reducer = FindReducer(self.side);
        (
            self.with_range(lo, lo + left),
            self.with_range(lo + left, hi),
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FindFolder {
            position: self.lo.get(),
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.beaten()
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindConsumer<'_, P> {
    fn split_off_left(&self) -> Self {
        let lo = self.lo.get();
        let mid = lo + (self.hi - lo) / 2;
        self.lo.set(mid);
        self.with_range(lo, mid)
    }

    fn to_reducer(&self) -> FindReducer {
        FindReducer(self.side)
    }
}

struct FindFolder<'p, T, P> {
    consumer: FindConsumer<'p, P>,
    position: u64,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindFolder<'_, T, P> {
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        // A first match of this piece is its best; a last match may be beaten by a later
        // item of the same piece, so `find_last` keeps looking.
        let done = self.consumer.side == Side::First && self.item.is_some();
        if !done && (self.consumer.predicate)(&item) {
            let (side, position) = (self.consumer.side, self.position);
            let published =
                self.consumer
                    .best
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |best| {
                        side.better(position, best).then_some(position)
                    });
            // Keep the item unless a better piece already has a match.
            if published.is_ok() || published == Err(position) {
                self.item = Some(item);
            }
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        (self.consumer.side == Side::First && self.item.is_some())
            || self
                .consumer
                .side
                .better(self.consumer.best.load(Ordering::Relaxed), self.position)
    }
}

/// Keeps the left match for `find_first`, the right one for `find_last`.
struct FindReducer(Side);

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Side::First => left.or(right),
            Side::Last => right.or(left),
        }
    }
}

#[cfg(test)]
mod tests;
