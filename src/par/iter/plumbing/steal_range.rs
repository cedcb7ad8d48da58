//! [`StealRange`]: D. Huba's work-stealing range (the project's seed document
//! "work stealing range") over the parts of one indexed call (`parts.rs`): its owner takes one
//! index at a time from the low end, and a thief takes the upper half of what is left in
//! one step, without the owner noticing and without anybody waiting for anybody.
//!
//! Both ends live in one word (`low` in the high 32 bits, `high` in the low 32 bits), and
//! both the owner's take and a thief's steal are one compare-and-swap of that word. The seed
//! keeps the ends in two words so that the owner's take is an exchange and a load, and pays
//! for it with a subtle order ("the order is really important") and a race for the last
//! item; with one word the owner's path is the same single locked instruction (its swap
//! fails only when a thief stole in between, and then it retries with what is left), and
//! the argument fits in a sentence: an index leaves the range only by a successful
//! compare-and-swap that moves one end past it, and the ends only move towards each other,
//! so every index leaves exactly once. The seed's thieves take a quarter ("ideally half" in
//! its text); a thief here takes half of what is left, rounded up, since the owner holds one
//! more index than the range shows (the one it is working on: it takes an index before it
//! works on it), and nothing while one index is left (the owner takes it next: stealing it
//! would only move the wait). So a thief that comes while the owner works on index `i` of
//! `i + 1 + 2k` leaves the owner `i` and `k` more, and takes `k + 1`: a call cut into eight
//! parts that a thief reaches during the first splits four and four, not five and three.
//!
//! **Invariant:** `low <= high`; the indices `low..high` are the range's, each index below
//! `low` was taken by the owner, and each index from `high` up to the range's first `high`
//! was stolen, once.
//!
//! **Orderings:** every access is `Relaxed`. The word hands out indices and nothing else:
//! what an index stands for (a part of the call) sits in that part's slot, filled before
//! the join that offers the range and so visible to any thief that claimed the join's half,
//! and a part's result reaches the owner through its slot and the join that waits for the
//! thief (`parts.rs`). The
//! read-modify-writes of one word are totally ordered whatever their orderings, which is all
//! that the exactly-once argument uses. The loom model beside this file
//! (`steal_range/loom_model.rs`) checks it with an owner and two thieves.

use crate::util::sync::{AtomicU64, Ordering};

#[cfg(all(test, loom))]
#[path = "steal_range/loom_model.rs"]
mod loom_model;

/// The most indices a range holds (the ends are 32-bit halves of one word).
pub(super) const MAX_LEN: usize = u32::MAX as usize;

/// A work-stealing range of indices (module docs).
pub(super) struct StealRange {
    ends: AtomicU64,
}

fn pack(low: u32, high: u32) -> u64 {
    (u64::from(low) << 32) | u64::from(high)
}

fn unpack(word: u64) -> (u32, u32) {
    ((word >> 32) as u32, word as u32)
}

impl StealRange {
    /// The range `low..high`.
    ///
    /// # Panics
    ///
    /// If `low > high`.
    pub(super) fn new(low: u32, high: u32) -> StealRange {
        assert!(
            low <= high,
            "a steal range {low}..{high} ends before it starts"
        );
        StealRange {
            ends: AtomicU64::new(pack(low, high)),
        }
    }

    /// The owner's take: the lowest index left, or `None` once the range is empty.
    #[inline]
    pub(super) fn take(&self) -> Option<u32> {
        // Relaxed (here and below): module docs, "Orderings".
        let mut word = self.ends.load(Ordering::Relaxed);
        loop {
            let (low, high) = unpack(word);
            if low == high {
                return None;
            }
            match self.ends.compare_exchange_weak(
                word,
                pack(low + 1, high),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(low),
                Err(now) => word = now,
            }
        }
    }

    /// A thief's steal: the upper half (rounded up: module docs) of the indices left, as
    /// `start..end`, or `None` while fewer than two are left.
    pub(super) fn steal(&self) -> Option<(u32, u32)> {
        let mut word = self.ends.load(Ordering::Relaxed);
        loop {
            let (low, high) = unpack(word);
            let left = high - low;
            if left < 2 {
                return None;
            }
            let share = left - left / 2;
            let mid = high - share;
            match self.ends.compare_exchange_weak(
                word,
                pack(low, mid),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some((mid, high)),
                Err(now) => word = now,
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_owner_takes_in_order_and_a_thief_takes_the_upper_half() {
        let range = StealRange::new(3, 13);
        assert_eq!(range.take(), Some(3));
        // Nine left (4..13) besides the owner's 3: the thief takes five, the owner keeps
        // four and the one it works on.
        assert_eq!(range.steal(), Some((8, 13)));
        assert_eq!(range.steal(), Some((6, 8)));
        assert_eq!(range.steal(), Some((5, 6)));
        // One left (4): it is the owner's.
        assert_eq!(range.steal(), None);
        assert_eq!(range.take(), Some(4));
        assert_eq!(range.take(), None);
        assert_eq!(range.steal(), None);
    }

    #[test]
    fn every_index_leaves_exactly_once_under_contention() {
        const LEN: u32 = 20_000;
        let range = StealRange::new(0, LEN);
        let seen: Vec<AtomicU64> = (0..LEN).map(|_| AtomicU64::new(0)).collect();
        let hit = |i: u32| {
            seen[i as usize].fetch_add(1, Ordering::Relaxed);
        };
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    // A thief works through what it stole with a range of its own, which
                    // nobody else sees here.
                    while let Some((start, end)) = range.steal() {
                        let own = StealRange::new(start, end);
                        while let Some(i) = own.take() {
                            hit(i);
                        }
                    }
                });
            }
            while let Some(i) = range.take() {
                hit(i);
            }
        });
        // The owner stopped only once the range was empty, and the thieves only once fewer
        // than two were left, which the owner then took.
        for (i, count) in seen.iter().enumerate() {
            assert_eq!(count.load(Ordering::Relaxed), 1, "index {i}");
        }
    }

    #[test]
    #[should_panic(expected = "ends before it starts")]
    fn a_backwards_range_is_refused() {
        let _ = StealRange::new(2, 1);
    }
}
