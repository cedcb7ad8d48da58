//! The bridge's policy: how long its chunks are and when it splits eagerly. The one place to
//! tune; the driving itself is in `bridge.rs`.
//!
//! A piece of an indexed iterator folds its items in chunks. The first chunk holds
//! [`FIRST_CHUNK`] items (at least `min_len`), and each chunk doubles the next, up to a cap
//! of about [`CHUNK_TARGET`] of work. The cap comes from timing a chunk (from
//! [`TIMED_FROM`] items on): its time per item gives the items per target. A chunk is timed
//! once the piece has none yet, and then every [`RETIME_EVERY`] chunks, so that a cost that
//! changes along the items moves the cap; reading the clock costs about as much as folding
//! a few dozen cheap items, so it is not read for every chunk, nor for a piece's last one
//! (nothing is left to size). On one worker no other thread can take a split, so the short
//! first chunks, which are there to keep a piece shareable early, would only add their
//! per-chunk cost: there the first chunk holds [`FIRST_CHUNK_ALONE`] items, so a call of
//! that many folds in one chunk (rayon's one-thread call is two folds), and that chunk is
//! not timed. Chunks never hold fewer than
//! `min_len` items (but the last) nor more than `max_len`. Between two chunks the bridge
//! may split the rest in half for another worker, so a short chunk keeps a piece shareable
//! and a long one keeps the per-chunk cost (a split of producer and consumer, a reduction)
//! small against the work.
//!
//! A call also splits at once, before any chunk, when there are several workers and it is
//! long: it is cut into parts of a `1 / (EAGER_PIECES_PER_THREAD × workers)` share of the
//! call (at least [`EAGER_MIN_PIECE`] items each), handed out through a work-stealing range
//! (`parts.rs`), so every worker can take a share without waiting for a chunk boundary.
//! Unindexed iterators, whose length is unknown, are halved [`eager_depth`] times instead.

use std::time::{Duration, Instant};

/// The length of a piece's first chunk, in items (raised to `min_len`).
pub(super) const FIRST_CHUNK: usize = 1;

/// The length of a piece's first chunk when the call runs on one worker (module docs).
/// That chunk is not timed (its clock reads would double the cost of a call of that many
/// cheap items, or of one whose first item ends it, as a `find_first` at position 0); the
/// next one, twice as long, is.
pub(super) const FIRST_CHUNK_ALONE: usize = TIMED_FROM;

/// The work a chunk aims at: the cap on chunk lengths is this much work, as last timed.
pub(super) const CHUNK_TARGET: Duration = Duration::from_micros(16);

/// Chunks shorter than this many items are not timed (they double blindly): the clock's
/// own cost would swamp their time.
pub(super) const TIMED_FROM: usize = 16;

/// Once a piece has its cap, one chunk in this many is timed again.
pub(super) const RETIME_EVERY: u32 = 8;

/// After this many chunks at the cap (about this many [`CHUNK_TARGET`]s of work) with no
/// worker awake to want its rest, a piece offers the rest to a sleeping worker, waking it:
/// a call that lasts a few dozen microseconds pays for one wake-up and runs on two workers,
/// while a shorter one never wakes anybody.
pub(super) const WAKE_AFTER_CHUNKS: u32 = 2;

/// A call whose items, at the cost its first timed chunk measured, add up to at least this
/// many [`CHUNK_TARGET`]s of work offers work to a sleeping worker as soon as that chunk is
/// timed, without waiting for [`WAKE_AFTER_CHUNKS`] chunks at the cap: the wake-up then
/// overlaps the call's first chunks instead of following them.
pub(super) const WAKE_FOR_CALL_TARGETS: usize = 3;

/// A long indexed call on `n` workers is split at once into about
/// `EAGER_PIECES_PER_THREAD × n` parts.
pub(super) const EAGER_PIECES_PER_THREAD: usize = 4;

/// No piece is split eagerly below this many items (splitting later, on demand, still is).
pub(super) const EAGER_MIN_PIECE: usize = 1024;

/// The most parts a piece is cut into up front (`parts.rs`).
pub(super) const MAX_PARTS: usize = 4096;

/// How one indexed piece folds: its chunk length and its bounds. Copied into both halves of
/// a split.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// The length of the next chunk.
    next: usize,
    /// The producer's `min_len` (at least 1).
    min: usize,
    /// The producer's `max_len` (at least `min`).
    max: usize,
    /// Pieces longer than this split at once.
    eager_above: usize,
    /// The most items a chunk holds to stay near [`CHUNK_TARGET`], once a chunk was timed.
    cap: Option<usize>,
    /// Chunks folded since the last timed one.
    untimed: u32,
    /// The next chunk is the first one of a call on one worker, which is not timed.
    first_alone: bool,
    /// Chunks folded at the cap by this piece (not copied into the halves of a split).
    long: u32,
    /// The length of the whole call.
    call_len: usize,
}

impl Plan {
    /// The plan of a call over `len` items whose producer asks for pieces of `min..=max`.
    pub(super) fn new(len: usize, min: usize, max: usize) -> Plan {
        let min = min.max(1);
        let max = max.max(min);
        let workers = crate::par::current_num_threads();
        let eager_above = if workers > 1 {
            let share = len / EAGER_PIECES_PER_THREAD.saturating_mul(workers);
            share.max(EAGER_MIN_PIECE)
        } else {
            usize::MAX
        };
        let alone = workers <= 1;
        let first = if alone {
            FIRST_CHUNK_ALONE
        } else {
            FIRST_CHUNK
        };
        Plan {
            next: first.clamp(min, max),
            min,
            max,
            eager_above,
            cap: None,
            untimed: 0,
            first_alone: alone,
            long: 0,
            call_len: len,
        }
    }

    /// The plan of each half of a split of this piece.
    #[inline]
    pub(super) fn for_half(&self) -> Plan {
        Plan { long: 0, ..*self }
    }

    /// How many parts a piece of `len` items that splits eagerly is cut into (`parts.rs`):
    /// about one per eager share, each at least `min_len` long, at least two.
    #[inline]
    pub(super) fn parts(&self, len: usize) -> usize {
        let share = self.eager_above.max(self.min);
        (len / share).clamp(2, MAX_PARTS).min(len / self.min).max(2)
    }

    /// The least number of items a piece folds (`with_min_len`).
    #[inline]
    pub(super) fn min_len(&self) -> usize {
        self.min
    }

    /// The plan of one part of a piece cut into parts: it folds in chunks and splits on
    /// demand, never eagerly (the parts are the eager split).
    #[inline]
    pub(super) fn for_part(&self) -> Plan {
        Plan {
            long: 0,
            eager_above: usize::MAX,
            ..*self
        }
    }

    /// Whether this piece is worth waking a sleeping worker for: it has folded
    /// [`WAKE_AFTER_CHUNKS`] chunks at the cap, or its call, at the cost per item last timed,
    /// is at least [`WAKE_FOR_CALL_TARGETS`] chunk targets of work.
    #[inline]
    pub(super) fn is_long(&self) -> bool {
        self.long >= WAKE_AFTER_CHUNKS
            || self
                .cap
                .is_some_and(|cap| self.call_len / cap >= WAKE_FOR_CALL_TARGETS)
    }

    /// Whether a piece of `len` items should split before folding anything.
    #[inline]
    pub(super) fn split_eagerly(&self, len: usize) -> bool {
        len > self.eager_above && self.may_split(len)
    }

    /// Whether a piece of `len` items may split: each half keeps at least `min_len` items.
    #[inline]
    pub(super) fn may_split(&self, len: usize) -> bool {
        len / 2 >= self.min
    }

    /// The length of the next chunk of a piece with `len` items left, and a timer for it.
    #[inline]
    pub(super) fn chunk(&self, len: usize) -> (usize, Option<Instant>) {
        let mut n = self.next.min(len);
        if len - n < self.min {
            // A rest shorter than `min_len` does not go alone: it joins this chunk when the
            // two fit in `max_len` (or in `2 × min_len - 1`, when `max_len` is smaller, as
            // no split can do better), else this chunk leaves exactly `min_len` behind.
            let widest = self.max.max(self.min.saturating_mul(2) - 1);
            n = if len <= widest { len } else { len - self.min };
        }
        // The last chunk is not timed: nothing is left to size.
        let due = n < len
            && match self.cap {
                None => n >= TIMED_FROM && !self.first_alone,
                Some(_) => self.untimed + 1 >= RETIME_EVERY,
            };
        (n, due.then(Instant::now))
    }

    /// Records that a chunk of `n` items was folded (timed by `timer`, when it was).
    #[inline]
    pub(super) fn folded(&mut self, n: usize, timer: Option<Instant>) {
        self.first_alone = false;
        match timer {
            Some(start) => {
                let took = start.elapsed().as_nanos().max(1);
                let per_target = n as u128 * CHUNK_TARGET.as_nanos() / took;
                self.cap = Some(per_target.clamp(1, usize::MAX as u128) as usize);
                self.untimed = 0;
            }
            None => self.untimed = self.untimed.saturating_add(1),
        }
        if self.cap.is_some_and(|cap| n >= cap) {
            self.long = self.long.saturating_add(1);
        }
        let next = n.saturating_mul(2).min(self.cap.unwrap_or(usize::MAX));
        self.next = next.clamp(self.min, self.max);
    }
}

/// How many times an unindexed call halves its producer before folding (when several
/// workers can take the halves): `log2(workers) + 1` levels, rounded down, so 2 to 4 pieces
/// per worker, as rayon's splitter starts a call. More cost a join each on every call,
/// however short; a long piece offers more halves anyway, one per long fold.
pub(super) fn eager_depth() -> u32 {
    let workers = crate::par::current_num_threads();
    if workers > 1 {
        workers.ilog2() + 1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_respect_min_and_max_and_never_leave_a_short_rest() {
        let mut plan = Plan {
            next: 1,
            min: 4,
            max: 16,
            eager_above: usize::MAX,
            cap: None,
            untimed: 0,
            first_alone: false,
            long: 0,
            call_len: 100,
        };
        plan.next = plan.next.clamp(plan.min, plan.max);
        let mut left = 100;
        let mut lens = Vec::new();
        while left > 0 {
            let (n, _) = plan.chunk(left);
            assert!(n >= plan.min.min(left) && (n <= plan.max || n == left));
            lens.push(n);
            plan.folded(n, None);
            left -= n;
        }
        assert_eq!(lens.iter().sum::<usize>(), 100);
        assert_eq!(lens[0], 4);
        assert!(lens.iter().all(|&n| n >= 4));
    }

    #[test]
    fn chunks_double_up_to_the_timed_cap() {
        let mut plan = Plan {
            next: 1,
            min: 1,
            max: usize::MAX,
            eager_above: usize::MAX,
            cap: None,
            untimed: 0,
            first_alone: false,
            long: 0,
            call_len: 100,
        };
        plan.folded(1, None);
        assert_eq!(plan.next, 2);
        plan.folded(2, None);
        assert_eq!(plan.next, 4);
        // 64 items in four targets' time: the cap is 16 items, and chunks stay there. A
        // thread preempted between the two clock reads measures longer, so the cap can only
        // come out lower: the test holds the bound it has, not a window the machine's load
        // can break.
        let started = Instant::now() - 4 * CHUNK_TARGET;
        plan.folded(64, Some(started));
        let cap = plan.cap.unwrap();
        assert!((1..=16).contains(&cap), "cap {cap}");
        assert_eq!(plan.next, cap);
        plan.folded(cap, None);
        assert_eq!(plan.next, cap);
        // Timed again after RETIME_EVERY chunks.
        for _ in 2..RETIME_EVERY {
            assert!(plan.chunk(1 << 20).1.is_none());
            plan.folded(cap, None);
        }
        assert!(plan.chunk(1 << 20).1.is_some());
    }

    #[test]
    fn a_call_alone_starts_with_an_untimed_chunk_and_no_last_chunk_is_timed() {
        let mut plan = Plan {
            next: FIRST_CHUNK_ALONE,
            min: 1,
            max: usize::MAX,
            eager_above: usize::MAX,
            cap: None,
            untimed: 0,
            first_alone: true,
            long: 0,
            call_len: 1000,
        };
        // The first chunk of a call on one worker: its length, untimed.
        assert_eq!(plan.chunk(1000), (FIRST_CHUNK_ALONE, None));
        // A call of that many items is one chunk.
        assert_eq!(plan.chunk(FIRST_CHUNK_ALONE), (FIRST_CHUNK_ALONE, None));
        plan.folded(FIRST_CHUNK_ALONE, None);
        // The next one is twice as long, and timed.
        let (n, timer) = plan.chunk(1000 - FIRST_CHUNK_ALONE);
        assert_eq!(n, 2 * FIRST_CHUNK_ALONE);
        assert!(timer.is_some());
        // A chunk that is the rest of the piece is never timed.
        assert_eq!(plan.chunk(n), (n, None));
    }
}
