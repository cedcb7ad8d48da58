//! The hold word of each worker (`mod.rs`): which poll runs there and whether it is held;
//! `hand_over.rs` holds the epoch ticker's scan of it, and what a claim and a poll's end do.
//!
//! A worker brackets each task poll and each fork-join piece it runs from the board with
//! [`Hold::begin`] and [`Hold::end`]: the word's sequence number counts them, and its
//! `IN_POLL` bit is set between the two. Every tick (1 ms, while some worker is busy) the
//! ticker's thread reads each worker's word (`hand_over.rs`, `scan`); a word it saw unchanged, in a poll,
//! at its last tick too belongs to a poll that has held its worker for at least a tick:
//! the ticker *claims* it (sets `HELD` with a compare-and-swap, which fails if the poll
//! ended meanwhile) and activates the worker's stand-in, both under the stand-in slot's
//! lock. `task::block_in_place` claims its own poll at once (`hand_over_now`).
//!
//! The poll's end clears both bits with one read-modify-write, which returns them: if
//! `HELD` was set, the worker releases its stand-in before it does anything else (its
//! release takes the slot's lock, so it waits for a claim's activation to finish). While
//! `HELD` is set, the worker's schedule function sends what it wakes or spawns to the
//! injector (`worker/schedule.rs`, one relaxed load of the word).
//!
//! **Cost:** a plain store at a poll's start and one `fetch_and` at its end, on a cache line
//! that only its worker writes but for a claim; the ticker reads each word once a tick.
//!
//! **Orderings:** the ticker's claim (AcqRel compare-and-swap) and the worker's `fetch_and`
//! (AcqRel) are read-modify-writes of one word, so exactly one of them comes first: the
//! claim sees the poll still running and the end sees `HELD`, or the claim fails. The
//! activation it guards is ordered by the slot's lock, not by the word.

use crate::util::sync::{AtomicU64, Ordering};

/// A poll (or piece) runs.
const IN_POLL: u64 = 1;
/// The poll was claimed: the worker's stand-in serves in its place until the poll ends.
const HELD: u64 = 2;
/// One step of the sequence number (the bits above the two flags).
const SEQ_ONE: u64 = 4;

/// One worker's hold word, and what the ticker saw of it (module docs).
pub(crate) struct Hold {
    /// `sequence * SEQ_ONE | HELD | IN_POLL`. Written by the worker; the ticker sets `HELD`.
    word: AtomicU64,
    /// The word at the ticker's last scan (the ticker's own).
    seen: AtomicU64,
}

impl Hold {
    pub(crate) fn new() -> Hold {
        Hold {
            word: AtomicU64::new(0),
            seen: AtomicU64::new(0),
        }
    }

    /// The worker starts a poll or a piece. Only the worker writes the word while `IN_POLL`
    /// is clear (a claim needs it set), so a load and a store are enough.
    #[inline]
    pub(crate) fn begin(&self) {
        // Relaxed: the ticker only compares the value, and its claim is a compare-and-swap
        // against what it read (module docs).
        let word = self.word.load(Ordering::Relaxed);
        self.word
            .store((word & !(IN_POLL | HELD)) + SEQ_ONE + IN_POLL, Ordering::Relaxed);
    }

    /// The worker's poll or piece ended: whether it was held (the worker then releases its
    /// stand-in, `hand_over.rs`, `hand_back`).
    #[inline]
    pub(crate) fn end(&self) -> bool {
        // AcqRel: one read-modify-write against the claim's (module docs, "Orderings").
        self.word.fetch_and(!(IN_POLL | HELD), Ordering::AcqRel) & HELD != 0
    }

    /// Whether the worker's poll in flight is held: what it wakes or spawns goes to the
    /// injector (a hint: one relaxed load; a wake made before the claim that it misses goes
    /// where it would have gone anyway, `mod.rs`).
    #[inline]
    pub(crate) fn is_held(&self) -> bool {
        // Relaxed: a hint (see above).
        self.word.load(Ordering::Relaxed) & HELD != 0
    }

    /// The ticker's look at this word: `true` if it claimed the poll in flight (set `HELD`),
    /// which it did if it saw the same poll at its last look. Call it under the worker's
    /// stand-in slot's lock (`StandIns::hand_over`).
    pub(super) fn claim_if_held(&self, word: u64) -> bool {
        // AcqRel: module docs, "Orderings". Fails if the poll ended (or another began).
        self.word
            .compare_exchange(word, word | HELD, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// The ticker's first look: the word if a poll runs, not held, that the ticker also saw
    /// at its last look (then it should claim it); records what it saw for the next look.
    pub(super) fn held_since_last_look(&self) -> Option<u64> {
        // Relaxed: a first look; the claim's compare-and-swap decides.
        let word = self.word.load(Ordering::Relaxed);
        // Relaxed: only the ticker's thread reads and writes `seen`.
        let before = self.seen.swap(word, Ordering::Relaxed);
        (word & (IN_POLL | HELD) == IN_POLL && before == word).then_some(word)
    }

    /// Claims the poll in flight unconditionally (`block_in_place`, on the worker's own
    /// thread, inside the poll): under the slot's lock.
    pub(super) fn claim_now(&self) {
        // AcqRel: as the ticker's claim (module docs, "Orderings").
        self.word.fetch_or(HELD, Ordering::AcqRel);
    }
}
