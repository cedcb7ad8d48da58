//! `find_first` and `find_last` (and through them `find_map_first`, `position_first`,
//! `cmp` …): the leftmost or rightmost match, in order.
//!
//! Every consumer has a [`Position`], ordered as the items are: a piece with a match
//! publishes its position in [`Best`] (the least one for `find_first`, the greatest for
//! `find_last`), and every piece whose items all come after (before) it stops. Positions
//! are sequences compared lexicographically, so they never wear out, however deep the
//! splits and nested calls go:
//!
//! - a position is a path of levels, each two numbers `(slot, offset)`; a consumer's own
//!   items start at its path, at `offset` of its last level;
//! - `split_at(i)` keeps the path for the left part and adds `i` to the last offset for the
//!   right part (exact: the offsets count items);
//! - `split_off_left` (no index) gives the left part the consumer's path and moves the
//!   consumer to the next slot of its last level `(slot + 1, 0)` when nothing to its right
//!   shares that level (`rightmost`); else it opens a level below: `(0, 0)` for the left
//!   part, `(1, 0)` for the consumer, which is then the rightmost of the new level.
//!
//! Results do not depend on the positions: the reducer keeps the left (right) match, and
//! the positions only let pieces stop early.

use std::cell::Cell;
use std::sync::Arc;

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use crate::util::sync::{AtomicU64, Mutex, Ordering};

/// Items a folder searches between two looks at [`Best`].
const FIND_BATCH: usize = 1024;

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
    let best = Best::new(side);
    let consumer = FindConsumer::new(&predicate, &best);
    pi.drive_unindexed(consumer)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    First,
    Last,
}

/// Where a consumer's items are in the order of all items: a path of `(slot, offset)`
/// levels, compared lexicographically (see the module docs). The last level is held
/// inline and the levels above it, which only unindexed splits make and never change, in a
/// shared slice: an indexed call's positions are all one level deep, and a split or a
/// copy of one is two words, with no allocation.
#[derive(Clone, Debug, Default)]
struct Position {
    /// The levels above the last one, two words each; `None` when the last is the first.
    above: Option<Arc<[u64]>>,
    /// The last level's slot.
    slot: u64,
    /// The last level's offset.
    offset: u64,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Position {}

impl PartialOrd for Position {
    fn partial_cmp(&self, other: &Position) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Position {
    fn cmp(&self, other: &Position) -> std::cmp::Ordering {
        match (&self.above, &other.above) {
            (None, None) => (self.slot, self.offset).cmp(&(other.slot, other.offset)),
            _ => self.words().cmp(other.words()),
        }
    }
}

impl Position {
    /// The words of the path, two a level.
    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        let above = self.above.as_deref().unwrap_or(&[]);
        above.iter().copied().chain([self.slot, self.offset])
    }

    /// The number of words of the path.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.words().count()
    }

    /// The same path, `by` items further at the last level.
    fn advanced(&self, by: usize) -> Position {
        Position {
            offset: self.offset.saturating_add(by as u64),
            ..self.clone()
        }
    }

    /// The next slot of the last level, at its start.
    fn next_slot(&self) -> Position {
        Position {
            above: self.above.clone(),
            slot: self.slot.saturating_add(1),
            offset: 0,
        }
    }

    /// A level below this one, at slot `slot`.
    fn below(&self, slot: u64) -> Position {
        Position {
            above: Some(self.words().collect()),
            slot,
            offset: 0,
        }
    }

    /// The position as one number that orders one-level positions as their paths do:
    /// `slot` in the top [`SLOT_BITS`] bits below the highest, `offset` in the low
    /// [`OFFSET_BITS`]; `None` for a deeper position or one whose numbers do not fit.
    fn key(&self) -> Option<u64> {
        (self.above.is_none() && self.slot < 1 << SLOT_BITS && self.offset < 1 << OFFSET_BITS)
            .then_some(self.slot << OFFSET_BITS | self.offset)
    }

    /// The one-level position of `key` (the inverse of [`Position::key`]).
    fn from_key(key: u64) -> Position {
        Position {
            above: None,
            slot: key >> OFFSET_BITS,
            offset: key & ((1 << OFFSET_BITS) - 1),
        }
    }
}

/// The bits of a key's offset ([`Position::key`]).
const OFFSET_BITS: u32 = 44;

/// The bits of a key's slot: the key's highest bit stays clear ([`Best::rank`]).
const SLOT_BITS: u32 = 63 - OFFSET_BITS;

/// The best position with a match so far, shared by the pieces of one call.
///
/// One-level positions that fit a key ([`Position::key`], all of an indexed call's) are
/// kept in `flat` as a rank, lower for a better match, with one `fetch_min` to publish and
/// one load to look. Deeper ones are kept under the lock, with `epoch` counting its
/// improvements (0: none yet), so that a piece looks at it, under the lock, only when it
/// changed. The best match is the better of the two.
///
/// Relaxed throughout: no item travels through `Best` (the reducer carries them, through
/// the joins), only whether to stop; the lock orders the deep position, and a stale look
/// only delays a stop. A folder drops its match only when it saw a strictly better one
/// recorded, whose folder keeps its own: the best match recorded is always kept.
struct Best {
    side: Side,
    /// The rank of the best one-level match ([`Best::rank`]); [`NO_RANK`] while none.
    flat: AtomicU64,
    epoch: AtomicU64,
    position: Mutex<Option<Position>>,
}

/// `Best::flat` while it holds no match.
const NO_RANK: u64 = u64::MAX;

impl Best {
    fn new(side: Side) -> Best {
        Best {
            side,
            flat: AtomicU64::new(NO_RANK),
            epoch: AtomicU64::new(0),
            position: Mutex::new(None),
        }
    }

    /// The rank of a one-level position: its key for `find_first`, the key reversed for
    /// `find_last` (keys are below 2^63, so no rank is [`NO_RANK`]).
    #[inline]
    fn rank(&self, at: &Position) -> Option<u64> {
        let key = at.key()?;
        Some(match self.side {
            Side::First => key,
            Side::Last => NO_RANK - 1 - key,
        })
    }

    /// The position of rank `rank` (the inverse of [`Best::rank`]).
    fn at_rank(&self, rank: u64) -> Position {
        Position::from_key(match self.side {
            Side::First => rank,
            Side::Last => NO_RANK - 1 - rank,
        })
    }

    /// Whether a match at `a` beats one at `b`.
    fn better(&self, a: &Position, b: &Position) -> bool {
        match self.side {
            Side::First => a < b,
            Side::Last => a > b,
        }
    }

    /// Whether the best one-level match beats one at `at` (of rank `rank`, if it has one).
    #[inline]
    fn flat_beats(&self, at: &Position, rank: Option<u64>) -> bool {
        let flat = self.flat.load(Ordering::Relaxed);
        match rank {
            Some(rank) => flat < rank,
            None => flat != NO_RANK && self.better(&self.at_rank(flat), at),
        }
    }

    /// Records a match at `at`; whether it is (or ties) the best, so worth keeping.
    fn publish(&self, at: &Position) -> bool {
        let rank = self.rank(at);
        let beaten = match rank {
            Some(rank) => self.flat.fetch_min(rank, Ordering::Relaxed) < rank,
            None => self.flat_beats(at, None),
        };
        if beaten {
            return false;
        }
        if rank.is_some() && self.epoch.load(Ordering::Relaxed) == 0 {
            // No deep match recorded.
            return true;
        }
        let mut best = self.position.lock();
        match best.as_ref() {
            Some(current) if self.better(current, at) => false,
            _ if rank.is_some() => true,
            Some(current) if *current == *at => true,
            _ => {
                *best = Some(at.clone());
                self.epoch.fetch_add(1, Ordering::Relaxed);
                true
            }
        }
    }

    /// Whether a match elsewhere beats any match at or after (before) `at`. `seen` caches
    /// the deep match's answer for the epoch it was computed at. Inline: a search looks
    /// before each split and each batch of items, and an indexed call's look is two loads
    /// and a comparison; the look at a deep match is out of line.
    #[inline]
    fn beats(&self, at: &Position, seen: &Cell<(u64, bool)>) -> bool {
        if self.flat_beats(at, self.rank(at)) {
            return true;
        }
        let epoch = self.epoch.load(Ordering::Relaxed);
        if epoch == 0 {
            return false;
        }
        self.deep_beats(at, seen, epoch)
    }

    /// [`Best::beats`]' look at the deep match, recorded `epoch` times.
    #[inline(never)]
    fn deep_beats(&self, at: &Position, seen: &Cell<(u64, bool)>, epoch: u64) -> bool {
        let (seen_epoch, answer) = seen.get();
        if seen_epoch == epoch {
            return answer;
        }
        let answer = match self.position.lock().as_ref() {
            Some(best) => self.better(best, at),
            None => false,
        };
        seen.set((epoch, answer));
        answer
    }
}

/// The consumer: its position, whether it is the rightmost of its last level, and its
/// cached look at `best`. The position is in cells, as `split_off_left` moves it through
/// `&self`: the last level in a cell of its own, read by copy, so that a look at `best`
/// (`full`, before every split) stores nothing into a consumer that is moved on at once (a
/// narrow store under a wide load of the move stalls it), and the levels above it, which
/// only unindexed splits make, moved out and back only when there are some (`deep`).
struct FindConsumer<'p, P> {
    predicate: &'p P,
    best: &'p Best,
    /// The position's last level, `(slot, offset)`.
    level: Cell<(u64, u64)>,
    /// Whether the position has levels above its last one (`above` is `Some`).
    deep: Cell<bool>,
    /// The position's levels above its last one ([`Position::above`]).
    above: Cell<Option<Arc<[u64]>>>,
    rightmost: Cell<bool>,
    seen: Cell<(u64, bool)>,
}

impl<'p, P> FindConsumer<'p, P> {
    fn new(predicate: &'p P, best: &'p Best) -> Self {
        FindConsumer {
            predicate,
            best,
            level: Cell::new((0, 0)),
            deep: Cell::new(false),
            above: Cell::new(None),
            rightmost: Cell::new(true),
            seen: Cell::new((0, false)),
        }
    }

    /// A consumer of the same search at `position`.
    fn placed(predicate: &'p P, best: &'p Best, position: Position, rightmost: bool) -> Self {
        let consumer = FindConsumer::new(predicate, best);
        consumer.set_position(position);
        consumer.rightmost.set(rightmost);
        consumer
    }

    fn at(&self, position: Position, rightmost: bool) -> Self {
        FindConsumer::placed(self.predicate, self.best, position, rightmost)
    }

    /// The consumer's position, moved out of it.
    #[inline]
    fn into_position(self) -> Position {
        let (slot, offset) = self.level.get();
        Position {
            above: self.above.into_inner(),
            slot,
            offset,
        }
    }

    #[inline]
    fn position(&self) -> Position {
        let (slot, offset) = self.level.get();
        let above = if self.deep.get() {
            let above = self.above.take();
            self.above.set(above.clone());
            above
        } else {
            None
        };
        Position {
            above,
            slot,
            offset,
        }
    }

    fn set_position(&self, position: Position) {
        self.level.set((position.slot, position.offset));
        self.deep.set(position.above.is_some());
        self.above.set(position.above);
    }
}

impl<'p, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindConsumer<'p, P> {
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, index: usize) -> (Self, Self, FindReducer) {
        let (predicate, best, rightmost) = (self.predicate, self.best, self.rightmost.get());
        let position = self.into_position();
        let right = FindConsumer::placed(predicate, best, position.advanced(index), rightmost);
        let left = FindConsumer::placed(predicate, best, position, false);
        (left, right, FindReducer(best.side))
    }

    fn into_folder(self) -> Self::Folder {
        let (predicate, best, seen) = (self.predicate, self.best, self.seen.get());
        FindFolder {
            predicate,
            best,
            position: self.into_position(),
            seen: Cell::new(seen),
            item: None,
        }
    }

    fn full(&self) -> bool {
        if self.deep.get() {
            return self.best.beats(&self.position(), &self.seen);
        }
        let (slot, offset) = self.level.get();
        let position = Position {
            above: None,
            slot,
            offset,
        };
        self.best.beats(&position, &self.seen)
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindConsumer<'_, P> {
    fn split_off_left(&self) -> Self {
        let position = self.position();
        if self.rightmost.get() {
            self.set_position(position.next_slot());
            self.at(position, false)
        } else {
            self.set_position(position.below(1));
            self.rightmost.set(true);
            self.at(position.below(0), false)
        }
    }

    fn to_reducer(&self) -> FindReducer {
        FindReducer(self.best.side)
    }
}

struct FindFolder<'p, T, P> {
    predicate: &'p P,
    best: &'p Best,
    position: Position,
    seen: Cell<(u64, bool)>,
    item: Option<T>,
}

impl<T, P> FindFolder<'_, T, P> {
    /// Keeps `item`, a match, unless a better piece already has one.
    fn found(&mut self, item: T) {
        if self.best.publish(&self.position) {
            self.item = Some(item);
        }
    }
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindFolder<'_, T, P> {
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        // A first match of this piece is its best; a last match may be beaten by a later
        // item of the same piece, so `find_last` keeps looking.
        let done = self.best.side == Side::First && self.item.is_some();
        if !done && (self.predicate)(&item) {
            self.found(item);
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // In batches: the search within a batch is a plain `find` (or the last match of
        // it), and whether a better piece has a match is checked between batches.
        let mut iter = iter.into_iter();
        let predicate = self.predicate;
        loop {
            if self.full() {
                return self;
            }
            let mut taken = 0;
            let mut batch = iter.by_ref().take(FIND_BATCH).inspect(|_| taken += 1);
            let found = match self.best.side {
                Side::First => batch.find(|item| predicate(item)),
                Side::Last => batch.filter(|item| predicate(item)).last(),
            };
            if let Some(item) = found {
                self.found(item);
            }
            if taken < FIND_BATCH {
                return self;
            }
        }
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        (self.best.side == Side::First && self.item.is_some())
            || self.best.beats(&self.position, &self.seen)
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
