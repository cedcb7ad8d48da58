//! The lock-free work-stealing index range behind filch's data-parallel loops.
//!
//! This module owns the hand-out of the indices of one `Range<usize>` to `W`
//! workers, and the detection of the moment the whole loop has finished. It
//! follows D. Huba's "Load-balancing partitioner with work stealing" (2011):
//! the range is split statically into one contiguous slice per worker; the
//! owner of a slice takes items from its low end, idle workers (thieves)
//! steal a chunk from its high end, a thief makes what it stole its own slice
//! (so it can be stolen from in turn, which is how the load keeps
//! rebalancing), and a shared count of unfinished items tells when to stop.
//!
//! It departs from the seed in three ways:
//!
//! * **One word per slice.** A slice is two `u32` offsets `(lo, hi)` packed in
//!   one [`AtomicU64`], so every transition (owner claims, thief steals, owner
//!   installs a stolen chunk, [`Partition::stop`] sweeps) is a single
//!   compare-and-swap or swap on that word. The seed's separate `low` and
//!   steal-range fields need a careful store/load ordering between them; here
//!   exactly-once follows from the modification order of one location.
//! * **Grains.** Offsets count *grains* of `Grains::grain` consecutive
//!   indices from the start of the loop's range. The grain is 1 whenever the
//!   range has at most `u32::MAX` items (all realistic loops); a longer range
//!   (only possible on 64-bit targets) uses the smallest grain that makes the
//!   grain count fit in `u32`. Index arithmetic saturates at the range's
//!   length, so no range inside `0..=usize::MAX` can overflow or underflow
//!   (the seed's `(low + 3 * high) / 4` and `low - 1` do, at the ends).
//! * **Adaptive owner batches.** The seed's owner pays one atomic
//!   read-modify-write per item, too much for a nanosecond body. Here the
//!   owner claims a batch per compare-and-swap: it doubles from
//!   [`INITIAL_BATCH`] up to [`MAX_BATCH`] grains while no thief comes, is
//!   never more than a [`OWNER_SHARE`]th of what is left in the slice (so
//!   batches shrink toward the end), and is cut to a [`SHRINK`]th each time
//!   the owner notices that a thief has stolen from it. A trivial body pays a
//!   few nanoseconds per batch, not per item, while a slow slice is still
//!   split finely once thieves arrive. A caller that knows what an item costs
//!   also caps each batch ([`Partition::next_batch_at_most`]), so that a batch,
//!   which no thief can take once claimed, stays short in time.
//!
//! Thieves take a [`STEAL_DIVISOR`]th of the victim's slice, rounded up (so the
//! last item can be stolen). Half was measured against a quarter; see
//! [`STEAL_DIVISOR`].
//!
//! # Invariants
//!
//! * **Invariant:** every index of the range is handed out exactly once, or,
//!   after [`Partition::stop`], at most once. At any moment each unfinished
//!   index is in exactly one place: unclaimed in exactly one slice word, or
//!   held by exactly one caller (a batch it was handed, or a chunk a thief is
//!   moving into its own slice). Each transition is one atomic
//!   read-modify-write that moves indices from a word to its caller, or (an
//!   install) from its caller into an empty word.
//! * **Invariant:** a slice word is `lo <= hi`, or the `Word::STOPPED`
//!   marker (`lo > hi`), which reads as empty and is never left again. Only a
//!   slice's owner turns an empty word non-empty (install); everyone else only
//!   removes from a word. The word is the slice's whole state (the index
//!   mapping is fixed for the loop), so a compare-and-swap that succeeds acts
//!   on the word's current value whatever happened in between: no ABA hazard
//!   (unlike pairing a separately stored slice base with the offsets).
//! * **Invariant:** completion is observed exactly once: `remaining` starts at
//!   the number of indices and is decreased only by the number of indices
//!   finished (by [`Partition::complete`]) or swept unstarted (by a stop), each
//!   counted once; the one decrement that reaches zero returns `true`.
//! * **Invariant:** no index arithmetic overflows or underflows, for any range
//!   inside `0..=usize::MAX`.
//!
//! # Caller protocol
//!
//! Each worker `me` in `0..workers` loops on [`Partition::next_batch`] until it
//! returns `None`. Every batch it gets is its to finish: it runs the body on
//! each index (skipping the rest once [`Partition::is_stopped`] says so), then
//! calls [`Partition::complete`] with the batch's full length, whether the
//! items ran or were skipped. The call that returns `true` (from `complete` or
//! from `stop`) is the one that observed the end of the loop: every body that
//! started has returned, and every index is accounted for. An empty range
//! starts complete ([`Partition::is_done`]) and nobody observes a `true`.
//!
//! `next_batch` returns `None` once every slice looked empty in one pass. At
//! that moment some indices may still be held by another worker (running, or a
//! chunk in flight into its slice); that worker finishes them, so a worker that
//! saw `None` may leave. Only workers that called `next_batch` refill their
//! slices, so the initial slice of a worker that never shows up is stolen by
//! the others: the loop finishes with any non-empty subset of workers.
//!
//! # Stopping
//!
//! [`Partition::stop`] (on a panic in a body, or when the loop's future is
//! dropped) raises a flag and swaps every slice word to `Word::STOPPED`,
//! subtracting the unclaimed indices it swept from `remaining`. From then on
//! claims and steals on that word return `None`. A thief whose install finds
//! its own word stopped subtracts the chunk it was moving, keeping the one
//! batch it returns; a claim that raced just ahead of the sweep keeps its
//! batch. Those batches are completed by their holders as usual. So
//! `remaining` reaches zero exactly when all bodies that started have
//! returned, and the caller that sees it reach zero (maybe `stop` itself)
//! learns that.
//!
//! # Memory ordering
//!
//! Exactly-once needs nothing but atomicity: every transition of a slice word
//! is a read-modify-write on that one word, so the transitions are totally
//! ordered by its modification order and each reads the latest value. The
//! words publish no other memory (a batch is a pair of numbers). Still, their
//! read-modify-writes are `AcqRel` and their loads `Acquire`, each pairing
//! with the word's previous transition: the transitions of a word then form
//! one happens-before chain. No correctness argument relies on that chain, but
//! it is free on x86 (a read-modify-write is a locked instruction whatever the
//! ordering, a load a plain move), nearly so elsewhere (one per batch), and it
//! lets loom prune stale reads: the loom models run about 5x faster than with
//! `Relaxed` words. The owner's batch hint is private to the owner (`Relaxed`).
//!
//! `remaining` carries the bodies' effects: each [`Partition::complete`] is an
//! `AcqRel` decrement, so the caller that sees zero has acquired every
//! decrement before it (a release sequence on `remaining`) and with them the
//! writes of every body. The stop flag is a hint (correctness rests on the
//! stopped words), so it is `Relaxed`.

// In filch this module is crate-private and re-exported only under `cfg(loom)`
// (`filch::__loom`), so outside loom its `pub` items are unreachable by design.

use core::fmt;
use core::ops::Range;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Offsets are `u32` converted to `usize`; filch supports no 16-bit target.
const _: () = assert!(usize::BITS >= 32);

/// The first batch (in grains) an owner claims from a fresh slice.
pub(crate) const INITIAL_BATCH: u32 = 1;

/// The largest batch (in grains) an owner claims with one compare-and-swap.
///
/// At 16384 a half-nanosecond body spends well under 1% of its time on claims
/// (at 1024 the claims cost a 0.5 ns hash sum about 4%). Callers with slower
/// items cap their batches by time ([`Partition::next_batch_at_most`]).
pub(crate) const MAX_BATCH: u32 = 1 << 14;

/// An owner's batch is at most a `OWNER_SHARE`th (rounded up) of what is left
/// in its slice, so batches shrink toward the end and thieves always find most
/// of a slice still stealable.
pub(crate) const OWNER_SHARE: u32 = 4;

/// When an owner sees that a thief stole from its slice, its batch is divided
/// by `SHRINK` (down to 1), so a slow slice that others are waiting on is
/// handed out in small pieces.
pub(crate) const SHRINK: u32 = 4;

/// A thief takes a `STEAL_DIVISOR`th (rounded up) of the victim's slice.
///
/// Huba's prose says half, his code a quarter. Half was chosen by measurement:
/// a deterministic event simulation of this module (virtual time, so free of
/// scheduling noise; 5 ns per claim, 40 ns per victim probed; `0..100_000`
/// with 1 ns items, the first or last eighth 100x as costly; mean of 32
/// victim seeds) gave makespan/ideal of 1.001 with half against 1.002 with a
/// quarter at 2 threads, with 6 steals against 20; half needs 2.5x fewer
/// steals at 4 threads and 1.4x at 8 and 16, at the same balance (within 0.01;
/// a quarter is better only for the 16-thread head-skewed loop, 1.082 against
/// 1.097; the `steal_bench sim` example of the scratch crate). Uniform loops
/// never steal before the end, so they do not tell the two apart. A thief
/// installs what it stole as its own slice, so a big steal is itself stolen
/// from when needed: halving does not strand work.
pub(crate) const STEAL_DIVISOR: u32 = 2;

/// How indices map to grain offsets for one loop.
///
/// Grain offset `o` stands for the index `start + min(o * grain, len)`, so
/// grains `lo..hi` are the indices `index(lo)..index(hi)`; the last grain may
/// be short. Copied into every [`StealRange`] so each can answer in indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Grains {
    /// The first index of the loop.
    start: usize,
    /// The number of indices in the loop (`end - start`, or 0 if reversed).
    len: usize,
    /// Indices per grain: 1 unless `len > u32::MAX`.
    grain: usize,
    /// Grains in the loop: `len.div_ceil(grain)`, at most `u32::MAX`.
    count: u32,
}

impl Grains {
    fn new(range: Range<usize>) -> Grains {
        // A reversed range is empty (never `end - start` underflowing).
        let len = range.end.saturating_sub(range.start);
        let max = u32::MAX as usize;
        // grain * u32::MAX >= len, hence len.div_ceil(grain) <= u32::MAX.
        let grain = if len <= max { 1 } else { len.div_ceil(max) };
        let count = u32::try_from(len.div_ceil(grain)).unwrap_or(u32::MAX);
        Grains {
            start: range.start,
            len,
            grain,
            count,
        }
    }

    /// The index at grain offset `off`, saturating at the loop's end.
    fn index(self, off: u32) -> usize {
        // `off * grain` saturates and is capped at `len`, so the sum is at most
        // `start + len == end`: no overflow anywhere in `0..=usize::MAX`.
        self.start + (off as usize).saturating_mul(self.grain).min(self.len)
    }

    /// The indices of grains `lo..hi`.
    fn indices(self, lo: u32, hi: u32) -> Range<usize> {
        self.index(lo)..self.index(hi)
    }
}

/// One decoded slice word: grain offsets `lo` (low 32 bits) and `hi` (high 32
/// bits), meaning the unclaimed grains `lo..hi`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Word(u64);

impl Word {
    /// The stopped marker, `lo = u32::MAX, hi = 0`: the only value with
    /// `lo > hi`. It reads as empty; [`Partition::stop`] swaps it in and no
    /// transition leaves it.
    const STOPPED: Word = Word(u32::MAX as u64);

    fn new(lo: u32, hi: u32) -> Word {
        debug_assert!(lo <= hi, "slice word {lo}..{hi} is reversed");
        Word((u64::from(hi) << 32) | u64::from(lo))
    }

    fn lo(self) -> u32 {
        // Truncation intended: the low half.
        self.0 as u32
    }

    fn hi(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// Unclaimed grains; 0 for an empty or stopped word.
    fn len(self) -> u32 {
        self.hi().saturating_sub(self.lo())
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Word::STOPPED {
            f.write_str("stopped")
        } else {
            write!(f, "{}..{}", self.lo(), self.hi())
        }
    }
}

/// The owner's private batch-sizing state, packed as `(batch, seen_hi)`: the
/// next batch size and the slice's `hi` when the owner last claimed, so it can
/// tell a thief came (a lower `hi`).
#[derive(Clone, Copy)]
struct Hint {
    batch: u32,
    seen_hi: u32,
}

impl Hint {
    fn pack(self) -> u64 {
        (u64::from(self.seen_hi) << 32) | u64::from(self.batch)
    }

    fn unpack(v: u64) -> Hint {
        Hint {
            batch: v as u32,
            seen_hi: (v >> 32) as u32,
        }
    }
}

/// Why a thief could not install a stolen chunk as its own slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InstallError {
    /// The loop was stopped: the word is `Word::STOPPED`.
    Stopped,
    /// The word is not empty: another caller used the same worker index.
    Occupied,
}

/// One worker's slice of a loop's index range: the owner claims batches from
/// its low end with [`claim_owned`](Self::claim_owned), thieves take chunks
/// from its high end with [`steal`](Self::steal).
///
/// All transitions are single atomic operations on one word, so any number of
/// threads may call either method concurrently and every index is returned by
/// exactly one call. `claim_owned` is meant for one owner at a time: a second
/// concurrent caller stays correct, but the batch sizing degrades.
///
/// # Memory ordering
///
/// Every transition of the slice is `AcqRel` and happens after the previous
/// one, but the protocol publishes only the slice's bounds (see the module
/// docs): publish the loop's data before sharing the range, and collect
/// results through [`Partition::complete`].
pub(crate) struct StealRange {
    /// The packed [`Word`]. Only this slice's owner turns an empty value
    /// non-empty (by installing a stolen chunk); everyone else only removes
    /// grains, or stops it.
    word: AtomicU64,
    /// The owner's [`Hint`]. Only [`claim_owned`](Self::claim_owned) and the
    /// owner's install touch it; it never affects which indices are handed out.
    hint: AtomicU64,
    /// The loop's index mapping (the same in every slice of a partition).
    grains: Grains,
}

impl StealRange {
    /// A standalone slice covering all of `range` (empty if reversed).
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn new(range: Range<usize>) -> StealRange {
        let grains = Grains::new(range);
        StealRange::with_slice(grains, 0, grains.count)
    }

    fn with_slice(grains: Grains, lo: u32, hi: u32) -> StealRange {
        StealRange {
            word: AtomicU64::new(Word::new(lo, hi).0),
            hint: AtomicU64::new(
                Hint {
                    batch: INITIAL_BATCH,
                    seen_hi: hi,
                }
                .pack(),
            ),
            grains,
        }
    }

    /// Claims the next batch from the low end, for the slice's owner.
    ///
    /// Returns `None` when the slice is empty (or stopped). Batches grow while
    /// no thief comes and shrink when one has; see the module docs.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn claim_owned(&self) -> Option<Range<usize>> {
        self.claim_owned_at_most(usize::MAX)
    }

    /// [`claim_owned`](Self::claim_owned), with a batch of at most `limit`
    /// indices (rounded down to whole grains, at least one grain).
    #[must_use]
    pub(crate) fn claim_owned_at_most(&self, limit: usize) -> Option<Range<usize>> {
        let limit = u32::try_from(limit / self.grains.grain).unwrap_or(u32::MAX);
        let (lo, hi) = self.claim_grains(limit)?;
        Some(self.grains.indices(lo, hi))
    }

    /// Steals a chunk of a [`STEAL_DIVISOR`]th (rounded up) of the slice from
    /// its high end.
    ///
    /// Returns `None` when the slice is empty (or stopped).
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn steal(&self) -> Option<Range<usize>> {
        let (lo, hi) = self.steal_grains()?;
        Some(self.grains.indices(lo, hi))
    }

    /// The number of unclaimed indices, as of some moment during the call.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        // Acquire: pairs with the word's last transition (AcqRel); a snapshot.
        let w = Word(self.word.load(Ordering::Acquire));
        if w.len() == 0 {
            0
        } else {
            self.grains.indices(w.lo(), w.hi()).len()
        }
    }

    /// Whether no index is left unclaimed, as of some moment during the call.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The owner's claim, in grains, of at most `limit` grains (and at least one).
    fn claim_grains(&self, limit: u32) -> Option<(u32, u32)> {
        // Relaxed: the hint is the owner's own state; it pairs with the
        // owner's earlier store in this method or in `install`.
        let mut hint = Hint::unpack(self.hint.load(Ordering::Relaxed));
        let mut stolen_from = false;
        // Acquire: pairs with the word's last transition (AcqRel). The value
        // is only a guess for the CAS below, which checks it.
        let mut cur = Word(self.word.load(Ordering::Acquire));
        loop {
            let len = cur.len();
            if len == 0 {
                // Empty or stopped. Only our own install refills it.
                return None;
            }
            if cur.hi() < hint.seen_hi {
                // A thief took from the high end since we last looked: others
                // are idle, so leave them smaller pieces.
                hint.batch = (hint.batch / SHRINK).max(1);
                hint.seen_hi = cur.hi();
                stolen_from = true;
            }
            // At most an OWNER_SHARE-th of what is left, at least one grain;
            // `len.div_ceil(OWNER_SHARE) <= len`, so the claim fits.
            let take = hint.batch.min(len.div_ceil(OWNER_SHARE)).min(limit).max(1);
            let lo = cur.lo();
            let next = Word::new(lo + take, cur.hi());
            // The CAS's atomicity (one modification order) makes the claim
            // exclusive. AcqRel/Acquire: pairs with the word's previous and
            // next transitions (see "Memory ordering"); not needed for that.
            match self
                .word
                .compare_exchange(cur.0, next.0, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    if !stolen_from {
                        // No thief since last time: grow toward MAX_BATCH.
                        hint.batch = hint.batch.saturating_mul(2).min(MAX_BATCH);
                    }
                    hint.seen_hi = cur.hi();
                    // Relaxed: owner-private; pairs with the load above.
                    self.hint.store(hint.pack(), Ordering::Relaxed);
                    return Some((lo, lo + take));
                }
                // A thief or a stop changed the word: retry on what is there
                // (the next round notices a lower `hi` as a theft).
                Err(actual) => cur = Word(actual),
            }
        }
    }

    /// A thief's steal, in grains.
    fn steal_grains(&self) -> Option<(u32, u32)> {
        // Acquire: pairs with the word's last transition (AcqRel). Only a
        // guess for the CAS below, which checks it.
        let mut cur = Word(self.word.load(Ordering::Acquire));
        loop {
            let len = cur.len();
            if len == 0 {
                // Empty or stopped: nothing to steal.
                return None;
            }
            // Rounded up, so a single last grain can be stolen (the owner
            // contends for it with the same CAS); 1 <= take <= len.
            let take = len.div_ceil(STEAL_DIVISOR);
            let mid = cur.hi() - take;
            // As in `claim_grains`, exclusivity comes from the CAS alone;
            // AcqRel/Acquire pairs with the word's other transitions.
            match self.word.compare_exchange(
                cur.0,
                Word::new(cur.lo(), mid).0,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some((mid, cur.hi())),
                // The owner claimed, another thief stole, or a stop swept:
                // recompute from what is there now.
                Err(actual) => cur = Word(actual),
            }
        }
    }

    /// Makes grains `lo..hi` (held by the caller) this slice's content, for
    /// the owner, whose slice must be empty.
    fn install(&self, lo: u32, hi: u32) -> Result<(), InstallError> {
        // Acquire: pairs with the word's last transition (AcqRel). Only a
        // guess for the CAS below, which checks it.
        let mut cur = Word(self.word.load(Ordering::Acquire));
        loop {
            if cur == Word::STOPPED {
                return Err(InstallError::Stopped);
            }
            if cur.len() != 0 {
                return Err(InstallError::Occupied);
            }
            // Replacing an empty word loses no index, whatever its history
            // (so no ABA concern). AcqRel/Acquire: pairs with the word's other
            // transitions, like every CAS on it.
            match self.word.compare_exchange(
                cur.0,
                Word::new(lo, hi).0,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    // A fresh slice starts small again: it was stolen because
                    // workers were idle. Relaxed: owner-private hint, pairs
                    // with the load in `claim_grains`.
                    let hint = Hint {
                        batch: INITIAL_BATCH,
                        seen_hi: hi,
                    };
                    self.hint.store(hint.pack(), Ordering::Relaxed);
                    return Ok(());
                }
                // Only a stop (or a misuse of the worker index) changes an
                // empty word: look again.
                Err(actual) => cur = Word(actual),
            }
        }
    }

    /// Stops the slice for good; returns how many unclaimed indices it held.
    fn sweep(&self) -> usize {
        // A single swap: what it returns is exactly what no one else can
        // claim any more (every later CAS sees STOPPED). AcqRel: pairs with
        // the word's other transitions.
        let prev = Word(self.word.swap(Word::STOPPED.0, Ordering::AcqRel));
        if prev.len() == 0 {
            0
        } else {
            self.grains.indices(prev.lo(), prev.hi()).len()
        }
    }
}

impl fmt::Debug for StealRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Acquire: pairs with the word's last transition; a display snapshot.
        let w = Word(self.word.load(Ordering::Acquire));
        let mut d = f.debug_struct("StealRange");
        d.field("grains", &w);
        if w.len() != 0 {
            d.field("indices", &self.grains.indices(w.lo(), w.hi()));
        }
        d.finish()
    }
}

/// A loop's index range split into one [`StealRange`] per worker, plus the
/// count of unfinished indices that detects the end of the loop (Huba's
/// `PartitionList`).
///
/// See the module docs for the caller protocol.
///
/// # Memory ordering
///
/// Every [`complete`](Self::complete) and [`stop`](Self::stop) decrements the
/// remaining count with `AcqRel`; the call that returns `true` happens after
/// every earlier decrement, hence after every body whose batch was completed.
/// [`is_done`](Self::is_done) loads with `Acquire`, to the same effect.
pub(crate) struct Partition {
    /// One slice per worker, each on its own cache line.
    ranges: Box<[CachePadded<StealRange>]>,
    /// Indices neither finished nor swept by a stop.
    remaining: CachePadded<AtomicUsize>,
    /// Set by [`stop`](Self::stop); a hint (the stopped words are the truth).
    stopped: CachePadded<AtomicBool>,
    /// The loop's index mapping.
    grains: Grains,
}

impl Partition {
    /// Splits `range` (empty if reversed) into `workers` contiguous slices of
    /// nearly equal length (`workers == 0` counts as 1).
    #[must_use]
    pub(crate) fn new(range: Range<usize>, workers: usize) -> Partition {
        let grains = Grains::new(range);
        let workers = workers.max(1);
        // The boundary before slice `i`: `count * i / workers`, in u128 so the
        // product cannot overflow; it is at most `count`, so it fits in u32.
        let bound = |i: usize| -> u32 {
            let b = u128::from(grains.count) * i as u128 / workers as u128;
            u32::try_from(b).unwrap_or(grains.count)
        };
        let ranges = (0..workers)
            .map(|i| CachePadded::new(StealRange::with_slice(grains, bound(i), bound(i + 1))))
            .collect();
        Partition {
            ranges,
            remaining: CachePadded::new(AtomicUsize::new(grains.len)),
            stopped: CachePadded::new(AtomicBool::new(false)),
            grains,
        }
    }

    /// The number of workers (slices).
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn workers(&self) -> usize {
        self.ranges.len()
    }

    /// The number of indices in the loop.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.grains.len
    }

    /// Whether the loop has no index at all (it starts done).
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.grains.len == 0
    }

    /// Worker `worker`'s slice, for tests that drive steals by hand.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn slice(&self, worker: usize) -> Option<&StealRange> {
        self.ranges.get(worker).map(|r| &**r)
    }

    /// The next batch for worker `me`: claimed from its own slice, else stolen
    /// from another slice, trying victims in order from a random one (`rng` is
    /// the caller's xorshift state; any value works).
    ///
    /// A thief keeps the first grain of what it stole and installs the rest as
    /// its own (empty) slice, where others can steal it again. `None` means
    /// every slice looked empty (or the loop is stopped): the caller may leave.
    /// A `me` outside `0..workers` is a pure thief and keeps its whole chunk.
    ///
    /// The caller must pass every batch it gets to [`complete`](Self::complete)
    /// once done with it (including after a concurrent [`stop`](Self::stop),
    /// which a batch may race with).
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn next_batch(&self, me: usize, rng: &mut u64) -> Option<Range<usize>> {
        self.next_batch_at_most(me, rng, usize::MAX)
    }

    /// [`next_batch`](Self::next_batch), where a batch claimed from the
    /// caller's own slice has at most `limit` indices (at least one grain). A
    /// stolen batch is one grain anyway. The limit does not change which
    /// indices are handed out, only how many at a time: the caller uses it to
    /// keep a batch short in time, since nobody can steal a claimed batch.
    #[must_use]
    pub(crate) fn next_batch_at_most(
        &self,
        me: usize,
        rng: &mut u64,
        limit: usize,
    ) -> Option<Range<usize>> {
        if self.is_stopped() {
            return None;
        }
        let own = self.ranges.get(me);
        if let Some(own) = own {
            if let Some(batch) = own.claim_owned_at_most(limit) {
                return Some(batch);
            }
        }
        let n = self.ranges.len();
        // `n >= 1`; the remainder is `< n`, so it fits in usize.
        let first = (crate::rng::next(rng) % n as u64) as usize;
        for k in 0..n {
            // `first + k < 2 * n`, which cannot overflow (n is a slice length).
            let victim = (first + k) % n;
            if victim == me {
                continue;
            }
            if let Some((lo, hi)) = self.ranges[victim].steal_grains() {
                return Some(self.keep_and_install(own.map(|r| &**r), lo, hi));
            }
        }
        None
    }

    /// A thief holds grains `lo..hi`: returns the batch it keeps and installs
    /// the rest into its own slice `own` (empty, since its claim just failed).
    fn keep_and_install(&self, own: Option<&StealRange>, lo: u32, hi: u32) -> Range<usize> {
        let keep = lo + INITIAL_BATCH.min(hi - lo);
        let Some(own) = own else {
            // A pure thief has no slice to install into.
            return self.grains.indices(lo, hi);
        };
        if keep == hi {
            return self.grains.indices(lo, hi);
        }
        match own.install(keep, hi) {
            Ok(()) => self.grains.indices(lo, keep),
            // Another caller is using our slice: keep the whole chunk.
            Err(InstallError::Occupied) => self.grains.indices(lo, hi),
            Err(InstallError::Stopped) => {
                // Sweep the rest ourselves, as `stop` would have. It cannot
                // bring `remaining` to zero: the kept batch is still counted.
                let skipped = self.grains.indices(keep, hi).len();
                // AcqRel: same as `complete`, part of the release sequence on
                // `remaining` that the final decrement acquires.
                let prev = self.remaining.fetch_sub(skipped, Ordering::AcqRel);
                debug_assert!(prev > skipped, "a held batch must keep the loop open");
                self.grains.indices(lo, keep)
            }
        }
    }

    /// Records that `n` indices handed out by this partition are finished
    /// (their bodies returned, or were skipped after a stop).
    ///
    /// Returns `true` for exactly one call: the one that brings the count of
    /// unfinished indices to zero. `n == 0` is a no-op returning `false`.
    #[must_use]
    pub(crate) fn complete(&self, n: usize) -> bool {
        if n == 0 {
            return false;
        }
        // AcqRel: releases this caller's bodies' writes to the decrement that
        // reaches zero, and that one acquires all earlier decrements.
        let prev = self.remaining.fetch_sub(n, Ordering::AcqRel);
        debug_assert!(prev >= n, "completed {n} indices but only {prev} were left");
        prev == n
    }

    /// Stops handing out indices: afterwards every claim and steal returns
    /// `None`. The unclaimed indices are subtracted from the remaining count
    /// here; batches already handed out are completed by their holders.
    ///
    /// Returns `true` if this call brought the count to zero (nothing was
    /// held at that moment), i.e. it observed the end of the loop. Idempotent.
    #[must_use]
    pub(crate) fn stop(&self) -> bool {
        // Relaxed: a hint that saves work in `next_batch`; pairs with its load.
        self.stopped.store(true, Ordering::Relaxed);
        let swept: usize = self.ranges.iter().map(|r| r.sweep()).sum();
        self.complete(swept)
    }

    /// Whether [`stop`](Self::stop) has been called. Callers check it before
    /// starting each index of a batch.
    #[must_use]
    pub(crate) fn is_stopped(&self) -> bool {
        // Relaxed: a hint; pairs with the store in `stop`. Correctness rests
        // on the stopped slice words, not on this flag.
        self.stopped.load(Ordering::Relaxed)
    }

    /// Whether every index is finished or swept: all bodies that started have
    /// returned. True from the start for an empty range.
    #[cfg_attr(any(not(test), loom), allow(dead_code))]
    #[must_use]
    pub(crate) fn is_done(&self) -> bool {
        // Acquire: pairs with the AcqRel decrements, so the caller sees the
        // bodies' writes.
        self.remaining.load(Ordering::Acquire) == 0
    }
}

impl fmt::Debug for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partition")
            .field("len", &self.grains.len)
            .field("grain", &self.grains.grain)
            // Relaxed: snapshots for display; pair with nothing.
            .field("remaining", &self.remaining.load(Ordering::Relaxed))
            .field("stopped", &self.stopped.load(Ordering::Relaxed))
            .field(
                "slices",
                &self.ranges.iter().map(|r| &**r).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU8;
    use std::sync::Mutex;
    use std::thread;
    use std::time::Duration;

    /// Runs `threads` workers of a `workers`-slice partition of `range` to the
    /// end; checks every index ran exactly once and completion was seen once.
    fn hammer(range: Range<usize>, workers: usize, threads: usize) {
        let p = Partition::new(range.clone(), workers);
        let len = range.end.saturating_sub(range.start);
        assert_eq!(p.len(), len);
        let counts: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
        let trues = AtomicUsize::new(0);
        thread::scope(|s| {
            for me in 0..threads {
                let (p, counts, trues) = (&p, &counts, &trues);
                let start = range.start;
                s.spawn(move || {
                    let mut rng = me as u64 + 1;
                    while let Some(batch) = p.next_batch(me, &mut rng) {
                        assert!(!batch.is_empty());
                        for i in batch.clone() {
                            counts[i - start].fetch_add(1, Ordering::Relaxed);
                        }
                        if p.complete(batch.len()) {
                            trues.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        for (k, c) in counts.iter().enumerate() {
            assert_eq!(
                c.load(Ordering::Relaxed),
                1,
                "index {} of {range:?}",
                range.start + k
            );
        }
        assert_eq!(trues.load(Ordering::Relaxed), usize::from(len > 0));
        assert!(p.is_done());
    }

    #[test]
    fn every_index_exactly_once() {
        for &n in &[0, 1, 2, 3, 7, 64, 1000, 4099, 100_003] {
            for threads in 1..=4 {
                for _ in 0..if n < 5000 { 20 } else { 2 } {
                    hammer(0..n, threads, threads);
                }
            }
        }
    }

    #[test]
    fn absent_workers_are_stolen_from() {
        // Slices for 4 workers, but only 1 or 2 ever show up.
        for threads in 1..=2 {
            for &n in &[1, 5, 1000, 4099] {
                hammer(0..n, 4, threads);
            }
        }
    }

    #[test]
    fn ranges_at_both_ends_of_usize() {
        for threads in 1..=4 {
            hammer(usize::MAX - 1000..usize::MAX, threads, threads);
            hammer(usize::MAX - 5..usize::MAX, threads, threads);
            hammer(usize::MAX - 1..usize::MAX, threads, threads);
            hammer(0..10, threads, threads);
            hammer(0..3, threads, threads);
            hammer(1..4, threads, threads);
        }
    }

    #[test]
    fn empty_and_reversed_ranges_hand_out_nothing() {
        #[allow(clippy::reversed_empty_ranges)] // reversed on purpose
        let ranges = [0..0, 5..5, 10..3, usize::MAX..usize::MAX, usize::MAX..0];
        for r in ranges {
            for workers in [0, 1, 3] {
                let p = Partition::new(r.clone(), workers);
                assert!(p.is_empty() && p.is_done());
                let mut rng = 7;
                for me in 0..4 {
                    assert_eq!(p.next_batch(me, &mut rng), None);
                }
                assert!(!p.complete(0));
                assert!(!p.stop());
            }
            assert_eq!(StealRange::new(r.clone()).claim_owned(), None);
            assert_eq!(StealRange::new(r).steal(), None);
        }
    }

    #[test]
    fn grains_cover_huge_ranges_without_overflow() {
        let g = Grains::new(0..u32::MAX as usize);
        assert_eq!((g.grain, g.count), (1, u32::MAX));
        if usize::BITS == 64 {
            let g = Grains::new(0..u32::MAX as usize + 1);
            assert_eq!((g.grain, g.count), (2, (1 << 31)));
            let g = Grains::new(0..usize::MAX);
            assert_eq!(g.count, u32::MAX);
            assert_eq!(g.index(0), 0);
            assert_eq!(g.index(g.count), usize::MAX);
            assert_eq!(g.index(u32::MAX), usize::MAX);
            let g = Grains::new(1..usize::MAX);
            assert_eq!(g.index(g.count), usize::MAX);
        }
    }

    #[test]
    fn huge_range_batches_are_disjoint_and_accounted() {
        for range in [0..usize::MAX, usize::MAX / 3..usize::MAX, 1..usize::MAX - 1] {
            let p = Partition::new(range.clone(), 3);
            let mut held = Vec::new();
            let mut rng = 1;
            for round in 0..50 {
                held.extend(p.next_batch(round % 3, &mut rng));
                held.extend(p.slice(round % 3).and_then(StealRange::steal));
            }
            held.sort_by_key(|r| r.start);
            for pair in held.windows(2) {
                assert!(pair[0].end <= pair[1].start, "{pair:?} overlap");
            }
            assert!(held
                .iter()
                .all(|r| range.start <= r.start && r.end <= range.end));
            // Stop sweeps the rest; the held batches keep the loop open.
            assert!(!p.stop());
            assert_eq!(p.next_batch(0, &mut rng), None);
            let trues = held.iter().filter(|r| p.complete(r.len())).count();
            assert_eq!(trues, 1);
            assert!(p.is_done());
        }
    }

    #[test]
    fn owner_batches_grow_then_shrink_toward_the_end() {
        let r = StealRange::new(0..1_000_000);
        let mut next = 0;
        let mut sizes = Vec::new();
        while let Some(b) = r.claim_owned() {
            assert_eq!(b.start, next);
            next = b.end;
            sizes.push(b.len());
        }
        assert_eq!(next, 1_000_000);
        assert_eq!(&sizes[..4], &[1, 2, 4, 8]);
        assert!(sizes.iter().all(|&s| s <= MAX_BATCH as usize));
        assert!(
            sizes.len() < 1_000_000 / MAX_BATCH as usize + 100,
            "{}",
            sizes.len()
        );
        assert_eq!(sizes.last(), Some(&1));
    }

    #[test]
    fn a_limit_caps_owner_batches() {
        let r = StealRange::new(0..100_000);
        let mut sizes = Vec::new();
        while let Some(b) = r.claim_owned_at_most(3) {
            sizes.push(b.len());
        }
        assert_eq!(sizes.iter().sum::<usize>(), 100_000);
        assert_eq!(&sizes[..3], &[1, 2, 3]);
        assert!(sizes.iter().all(|&s| (1..=3).contains(&s)), "{sizes:?}");
        // A limit below one grain still hands out a grain.
        let huge = Partition::new(0..usize::MAX, 1);
        let mut rng = 1;
        let b = huge.next_batch_at_most(0, &mut rng, 1).unwrap_or(0..0);
        assert_eq!(b.len(), Grains::new(0..usize::MAX).grain);
        assert!(!huge.stop());
        assert!(huge.complete(b.len()));
    }

    #[test]
    fn owner_shrinks_after_a_theft() {
        let r = StealRange::new(0..100_000);
        let mut last = 0;
        for _ in 0..8 {
            last = r.claim_owned().map_or(0, |b| b.len());
        }
        assert_eq!(last, 128);
        assert!(r.steal().is_some());
        let after = r.claim_owned().map_or(0, |b| b.len());
        assert_eq!(after, 256 / SHRINK as usize);
    }

    #[test]
    fn thieves_take_a_fraction_from_the_high_end() {
        let r = StealRange::new(0..100);
        let d = STEAL_DIVISOR as usize;
        let first = r.steal();
        assert_eq!(first, Some(100 - 100usize.div_ceil(d)..100));
        let one = StealRange::new(0..1);
        assert_eq!(one.steal(), Some(0..1));
        assert_eq!(one.claim_owned(), None);
        assert_eq!(one.steal(), None);
        let two = StealRange::new(usize::MAX - 2..usize::MAX);
        assert_eq!(two.claim_owned(), Some(usize::MAX - 2..usize::MAX - 1));
        assert_eq!(two.steal(), Some(usize::MAX - 1..usize::MAX));
        assert!(two.is_empty());
    }

    #[test]
    fn stolen_chunk_becomes_stealable() {
        let p = Partition::new(0..1000, 2);
        let mut rng = 3;
        // Drain worker 1's slice so its next batch is a steal.
        let mut held = Vec::new();
        while p.slice(1).is_some_and(|s| !s.is_empty()) {
            held.extend(p.next_batch(1, &mut rng));
        }
        let stolen = p.next_batch(1, &mut rng);
        // It kept one index and installed the rest of the stolen top of 0..500.
        let from = 500 - 500usize.div_ceil(STEAL_DIVISOR as usize);
        assert_eq!(stolen, Some(from..from + 1));
        let rest = 500 - from - 1;
        assert_eq!(p.slice(1).map(StealRange::len), Some(rest));
        let again = 500 - rest.div_ceil(STEAL_DIVISOR as usize);
        let restolen = p.slice(1).and_then(StealRange::steal);
        assert_eq!(restolen, Some(again..500));
        held.extend(stolen);
        held.extend(restolen);
        assert!(!p.stop());
        let trues = held.iter().filter(|r| p.complete(r.len())).count();
        assert_eq!(trues, 1);
    }

    #[test]
    fn complete_is_true_exactly_once() {
        let p = Partition::new(0..10, 1);
        assert!(!p.complete(3));
        assert!(!p.complete(0));
        assert!(!p.complete(6));
        assert!(p.complete(1));
        assert!(!p.complete(0));
        assert!(p.is_done());
    }

    #[test]
    fn stop_sweeps_unclaimed_and_waits_for_held() {
        let p = Partition::new(0..1000, 2);
        let mut rng = 1;
        let b = p.next_batch(0, &mut rng).unwrap_or(0..0);
        assert_eq!(b, 0..1);
        assert!(!p.stop());
        assert!(p.is_stopped() && !p.is_done());
        assert_eq!(p.next_batch(0, &mut rng), None);
        assert_eq!(p.next_batch(1, &mut rng), None);
        assert_eq!(p.slice(0).and_then(StealRange::steal), None);
        assert_eq!(p.slice(1).and_then(StealRange::claim_owned), None);
        assert!(p.complete(b.len()));
        assert!(!p.stop());

        let idle = Partition::new(0..100, 3);
        assert!(idle.stop());
        assert!(!idle.stop());
        assert!(idle.is_done());
    }

    #[test]
    fn install_after_stop_subtracts_the_chunk() {
        let p = Partition::new(0..100, 2);
        let mut held = Vec::new();
        while let Some(b) = p.slice(1).and_then(StealRange::claim_owned) {
            held.push(b);
        }
        // Worker 1 steals from worker 0 ...
        let (lo, hi) = p.ranges[0].steal_grains().unwrap_or((0, 0));
        let mid = 50 - 50u32.div_ceil(STEAL_DIVISOR);
        assert_eq!((lo, hi), (mid, 50));
        // ... a stop sweeps everything in the words ...
        assert!(!p.stop());
        // ... and the install finds its own word stopped.
        let kept = p.keep_and_install(p.slice(1), lo, hi);
        assert_eq!(kept, mid as usize..mid as usize + 1);
        held.push(kept);
        let trues = held.iter().filter(|r| p.complete(r.len())).count();
        assert_eq!(trues, 1);
    }

    #[test]
    fn concurrent_stop_hands_out_each_index_at_most_once() {
        for threads in 1..=4 {
            for _ in 0..20 {
                let n = 20_000;
                let p = Partition::new(0..n, threads);
                let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                let trues = AtomicUsize::new(0);
                let ran = AtomicUsize::new(0);
                thread::scope(|s| {
                    for me in 0..threads {
                        let (p, counts, trues, ran) = (&p, &counts, &trues, &ran);
                        s.spawn(move || {
                            let mut rng = me as u64 + 11;
                            while let Some(batch) = p.next_batch(me, &mut rng) {
                                for i in batch.clone() {
                                    if p.is_stopped() {
                                        break;
                                    }
                                    counts[i].fetch_add(1, Ordering::Relaxed);
                                    if ran.fetch_add(1, Ordering::Relaxed) == n / 3 && p.stop() {
                                        trues.fetch_add(1, Ordering::Relaxed);
                                    }
                                }
                                if p.complete(batch.len()) {
                                    trues.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        });
                    }
                });
                assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) <= 1));
                assert_eq!(trues.load(Ordering::Relaxed), 1);
                assert!(p.is_done());
            }
        }
    }

    #[test]
    fn slow_worker_is_stolen_from() {
        let threads = 4;
        let n = 4000;
        let p = Partition::new(0..n, threads);
        let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
        let per_thread = Mutex::new(vec![0usize; threads]);
        thread::scope(|s| {
            for me in 0..threads {
                let (p, counts, per_thread) = (&p, &counts, &per_thread);
                s.spawn(move || {
                    let mut rng = me as u64 + 5;
                    let mut mine = 0;
                    while let Some(batch) = p.next_batch(me, &mut rng) {
                        for i in batch.clone() {
                            if me == 0 {
                                thread::sleep(Duration::from_micros(200));
                            }
                            counts[i].fetch_add(1, Ordering::Relaxed);
                        }
                        mine += batch.len();
                        let _ = p.complete(batch.len());
                    }
                    if let Ok(mut v) = per_thread.lock() {
                        v[me] = mine;
                    }
                });
            }
        });
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        let v = per_thread.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(v.iter().sum::<usize>(), n);
        // Alone, worker 0 would run its 1000; the others must take most of it.
        assert!(v[0] < 250, "slow worker ran {v:?}");
        assert!(p.is_done());
    }

    #[test]
    fn debug_output_decodes_words() {
        let p = Partition::new(10..20, 2);
        let s = format!("{p:?}");
        assert!(s.contains("0..5") && s.contains("10..15"), "{s}");
        assert!(p.stop());
        assert!(format!("{p:?}").contains("stopped"));
    }
}
