//! How many indices a helper claims from its own slice at a time: the one batch controller
//! of the data-parallel loops.
//!
//! A claim is one compare-and-swap on the slice (`steal_range.rs`), and a claimed batch can
//! no longer be stolen. So a batch should be large enough for the claims to cost little
//! beside the items, and small enough that the indices a helper holds cannot unbalance the
//! end of the loop. Each helper keeps one [`BatchSize`]; the range asks it before every
//! claim from the helper's own slice, and the batch is the least of:
//!
//! - **growth**: one index on a fresh slice, doubled after each claim that no thief preceded
//!   (up to [`MAX_BATCH`]), divided by [`SHRINK`] each time the slice's end has moved down
//!   since the last claim (a thief came, so others are idle), back to one index when the
//!   helper makes a stolen chunk its slice (it was stolen because helpers were idle);
//! - **share**: a [`OWNER_SHARE`]th (rounded up) of what is left in the slice, so batches
//!   shrink toward its end and a thief always finds most of it;
//! - **time**: about [`BATCH_TIME`] of items at the cost the helper measured at its last
//!   look-up (`run.rs`), so that a slow item does not make a long batch (unlimited before
//!   the first measurement).
//!
//! The range rounds the answer down to whole grains, and never below one grain. The
//! controller decides only how many indices go at a time, never which: exactly-once is the
//! range's alone.
//!
//! Invariant: the limit is at least 1 and at most [`MAX_BATCH`].

use std::ops::Range;
use std::time::Duration;

/// The batch (in indices) on a fresh slice.
const INITIAL_BATCH: usize = 1;

/// The largest batch (in indices) claimed with one compare-and-swap: large enough that a
/// nanosecond body spends a small share of its time on claims.
pub(crate) const MAX_BATCH: usize = 1 << 14;

/// A batch is at most a `OWNER_SHARE`th (rounded up) of what is left in the slice.
pub(crate) const OWNER_SHARE: usize = 4;

/// When a thief has taken from the slice, the batch is divided by `SHRINK` (down to 1), so a
/// slow slice that others are waiting on is handed out in small pieces.
pub(crate) const SHRINK: usize = 4;

/// The time a batch should take at the measured cost of an item: it bounds the imbalance a
/// claimed batch can cause at the end of a loop, while a claim costs a small part of it.
const BATCH_TIME: Duration = Duration::from_micros(20);

/// One helper's batch sizing, kept across its claims (and across yields).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchSize {
    /// The growth limit: doubles after a claim no thief preceded, shrinks after a theft.
    grow: usize,
    /// The end of the own slice's unclaimed indices at the last claim or install; `None`
    /// before the first claim.
    seen_end: Option<usize>,
    /// Whether a theft was seen since the last claim (then the claim does not grow).
    stolen_from: bool,
    /// The time cap, in items; `usize::MAX` until the first measurement.
    time_cap: usize,
}

impl Default for BatchSize {
    fn default() -> BatchSize {
        BatchSize {
            grow: INITIAL_BATCH,
            seen_end: None,
            stolen_from: false,
            time_cap: usize::MAX,
        }
    }
}

impl BatchSize {
    /// The most indices to claim from the own slice, whose unclaimed indices are now
    /// `unclaimed` (not empty). A lower end than at the last claim means a thief took from
    /// the slice: the batch shrinks.
    pub(crate) fn limit(&mut self, unclaimed: &Range<usize>) -> usize {
        if self.seen_end.is_some_and(|seen| unclaimed.end < seen) {
            self.grow = (self.grow / SHRINK).max(1);
            self.stolen_from = true;
        }
        self.seen_end = Some(unclaimed.end);
        let share = unclaimed.len().div_ceil(OWNER_SHARE);
        self.grow.min(share).min(self.time_cap).max(1)
    }

    /// The claim sized by the last [`limit`](Self::limit) succeeded: the batch grows unless
    /// a thief came since the claim before.
    pub(crate) fn claimed(&mut self) {
        if !std::mem::take(&mut self.stolen_from) {
            self.grow = self.grow.saturating_mul(2).min(MAX_BATCH);
        }
    }

    /// A stolen chunk whose indices end at `end` became the own slice: start small again.
    pub(crate) fn installed(&mut self, end: usize) {
        self.grow = INITIAL_BATCH;
        self.seen_end = Some(end);
        self.stolen_from = false;
    }

    /// At a look-up: `ran` items finished in `window`. Later batches are capped at about
    /// [`BATCH_TIME`] of such items (one, if none finished).
    pub(crate) fn measured(&mut self, ran: usize, window: Duration) {
        let window = window.as_nanos().max(1);
        let cap = ran as u128 * BATCH_TIME.as_nanos() / window;
        self.time_cap = usize::try_from(cap).unwrap_or(usize::MAX).max(1);
    }
}

#[cfg(test)]
mod tests;
