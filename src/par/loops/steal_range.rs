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
//! * **Owner batches.** The seed's owner pays one atomic read-modify-write
//!   per item, too much for a nanosecond body. Here the owner claims a batch
//!   per compare-and-swap, of the size its caller's [`BatchSize`] gives for
//!   the slice as the claim finds it (`batch.rs`: growing while no thief
//!   comes, shrinking when one has and toward the end of the slice, capped in
//!   time). A trivial body pays a few nanoseconds per batch, not per item,
//!   while a slow slice is still split finely once thieves arrive.
//!
//! Thieves take a [`STEAL_DIVISOR`]th of the victim's slice, rounded up (so the
//! last item can be stolen).
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
//! Each worker `me` in `0..workers` loops on [`Partition::next_batch`], with a
//! [`BatchSize`] of its own, until it returns `None`. Every batch it gets is its to finish: it runs
//! the body on each index (skipping the rest once [`Partition::is_stopped`] says so), then
//! calls [`Partition::complete`] with the batch's full length, whether the
//! items ran or were skipped. The call that returns `true` (from `complete` or
//! from `stop`) is the one that observed the end of the loop: every body that
//! started has returned, and every index is accounted for. An empty range
//! starts complete and nobody observes a `true`.
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
//! lets loom prune stale reads, which makes the models much faster.
//!
//! `remaining` carries the bodies' effects: each [`Partition::complete`] is an
//! `AcqRel` decrement, so the caller that sees zero has acquired every
//! decrement before it (a release sequence on `remaining`) and with them the
//! writes of every body. The stop flag is a hint (correctness rests on the
//! stopped words), so it is `Relaxed`.

use core::fmt;
use core::ops::Range;

use crossbeam_utils::CachePadded;

use super::batch::BatchSize;
use crate::util::sync::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Offsets are `u32` converted to `usize`; filch supports no 16-bit target.
const _: () = assert!(usize::BITS >= 32);

/// A thief takes a `STEAL_DIVISOR`th (rounded up) of the victim's slice.
///
/// Huba's prose says half, his code a quarter. Half balances as well with
/// fewer steals (docs/par.md, "The steal divisor"); since a thief installs what
/// it stole as its own slice, a big steal is itself stolen from when needed.
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

/// Why a thief could not install a stolen chunk as its own slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InstallError {
    /// The loop was stopped: the word is `Word::STOPPED`.
    Stopped,
    /// The word is not empty: another caller used the same worker index.
    Occupied,
}

/// One worker's slice of a loop's index range: the owner claims batches from
/// its low end with [`claim`](Self::claim), thieves take chunks from its high
/// end with [`steal_grains`](Self::steal_grains).
///
/// All transitions are single atomic operations on one word, so any number of
/// threads may call either method concurrently and every index is returned by
/// exactly one call.
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
    /// The loop's index mapping (the same in every slice of a partition).
    grains: Grains,
}

impl StealRange {
    fn with_slice(grains: Grains, lo: u32, hi: u32) -> StealRange {
        StealRange {
            word: AtomicU64::new(Word::new(lo, hi).0),
            grains,
        }
    }

    /// The owner's claim of the next batch from the low end, of the size
    /// `batch` gives for the slice as the claim finds it (in whole grains, at
    /// least one). `None` when the slice is empty (or stopped).
    fn claim(&self, batch: &mut BatchSize) -> Option<Range<usize>> {
        // Acquire: pairs with the word's last transition (AcqRel). The value
        // is only a guess for the CAS below, which checks it.
        let mut cur = Word(self.word.load(Ordering::Acquire));
        loop {
            let len = cur.len();
            if len == 0 {
                // Empty or stopped. Only our own install refills it.
                return None;
            }
            let (lo, hi) = (cur.lo(), cur.hi());
            // Asked on every attempt: a failed CAS may have been a theft,
            // which the controller sees as a lower end and shrinks for.
            let limit = batch.limit(&self.grains.indices(lo, hi)) / self.grains.grain;
            // At least one grain, at most what is left.
            let take = u32::try_from(limit).unwrap_or(u32::MAX).clamp(1, len);
            // The CAS's atomicity (one modification order) makes the claim
            // exclusive. AcqRel/Acquire: pairs with the word's previous and
            // next transitions (see "Memory ordering"); not needed for that.
            match self.word.compare_exchange(
                cur.0,
                Word::new(lo + take, hi).0,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    batch.claimed();
                    return Some(self.grains.indices(lo, lo + take));
                }
                // A thief or a stop changed the word: retry on what is there.
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
                Ok(_) => return Ok(()),
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
    #[must_use]
    pub(crate) fn workers(&self) -> usize {
        self.ranges.len()
    }

    /// The next batch for worker `me`: claimed from its own slice, of the size
    /// `batch` (the worker's own controller) gives, else stolen from another
    /// slice, trying victims in order from a random one (`rng` is the caller's
    /// xorshift state; any value works).
    ///
    /// A thief keeps the first grain of what it stole and installs the rest as
    /// its own (empty) slice, where others can steal it again. `None` means
    /// every slice looked empty (or the loop is stopped): the caller may leave.
    /// A `me` outside `0..workers` has no slice: it keeps its whole chunk.
    ///
    /// The caller must pass every batch it gets to [`complete`](Self::complete)
    /// once done with it (including after a concurrent [`stop`](Self::stop),
    /// which a batch may race with).
    #[must_use]
    pub(crate) fn next_batch(
        &self,
        me: usize,
        rng: &mut u64,
        batch: &mut BatchSize,
    ) -> Option<Range<usize>> {
        if self.is_stopped() {
            return None;
        }
        let own = self.ranges.get(me).map(|r| &**r);
        if let Some(claimed) = own.and_then(|own| own.claim(batch)) {
            return Some(claimed);
        }
        let n = self.ranges.len();
        // `n >= 1`; the remainder is `< n`, so it fits in usize.
        let first = (crate::util::rng::next(rng) % n as u64) as usize;
        for k in 0..n {
            // `first + k < 2 * n`, which cannot overflow (n is a slice length).
            let victim = (first + k) % n;
            if victim == me {
                continue;
            }
            if let Some((lo, hi)) = self.ranges[victim].steal_grains() {
                return Some(self.keep_and_install(own, batch, lo, hi));
            }
        }
        None
    }

    /// A thief holds grains `lo..hi` (not empty): returns the batch it keeps
    /// (one grain) and installs the rest into its own slice `own` (empty, since
    /// its claim just failed), telling its controller `batch` so.
    fn keep_and_install(
        &self,
        own: Option<&StealRange>,
        batch: &mut BatchSize,
        lo: u32,
        hi: u32,
    ) -> Range<usize> {
        let keep = lo + 1;
        let Some(own) = own else {
            // A pure thief has no slice to install into.
            return self.grains.indices(lo, hi);
        };
        if keep == hi {
            return self.grains.indices(lo, hi);
        }
        match own.install(keep, hi) {
            Ok(()) => {
                batch.installed(self.grains.index(hi));
                self.grains.indices(lo, keep)
            }
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
mod tests;
