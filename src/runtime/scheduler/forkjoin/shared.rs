//! [`ForkJoin`]: what an executor's threads share for fork-join, which the executor's state
//! holds: the board, the workers' mailboxes and the counts the sharing rules read (`thread.rs`). It imports nothing
//! that imports the state.
//!
//! **Invariant:** each count is a hint (relaxed); no wake-up depends on it (the board's and
//! the nodes' own protocols carry them: `board.rs`, `node.rs`).

use super::board::Board;
use super::mail::Mail;
use crate::util::sync::{AtomicUsize, Ordering};

/// What an executor's threads share for fork-join.
pub(crate) struct ForkJoin {
    pub(crate) board: Board,
    /// The pieces addressed to one worker each (`mail.rs`).
    pub(crate) mail: Mail,
    /// Threads waiting for a node with nothing of it to run (`wait.rs`): demand for pieces.
    waiting: AtomicUsize,
    /// Workers occupied by fork-join work now (`occupy.rs`): while there are some, an idle
    /// worker keeps searching a moment before it parks, since they publish pieces for
    /// searchers (`thread.rs`, demand).
    occupied: AtomicUsize,
}

impl ForkJoin {
    /// For an executor of `workers` workers.
    pub(crate) fn new(workers: usize) -> ForkJoin {
        ForkJoin {
            board: Board::new(workers),
            mail: Mail::new(workers),
            waiting: AtomicUsize::new(0),
            occupied: AtomicUsize::new(0),
        }
    }

    /// Whether some worker does fork-join work now (a hint: one relaxed load).
    #[inline]
    pub(crate) fn is_busy(&self) -> bool {
        // Relaxed: a hint for the worker loop's spin.
        self.occupied.load(Ordering::Relaxed) != 0
    }

    /// Counts a worker as occupied (`occupy.rs`), or no longer.
    pub(crate) fn set_occupied(&self, occupied: bool) {
        // Relaxed: a hint (see `is_busy`).
        if occupied {
            self.occupied.fetch_add(1, Ordering::Relaxed);
        } else {
            self.occupied.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Threads waiting with nothing to run (a hint: one relaxed load).
    #[inline]
    pub(crate) fn waiting(&self) -> usize {
        // Relaxed: a hint for publishers; a waiter sleeps only after its re-check (`node.rs`).
        self.waiting.load(Ordering::Relaxed)
    }

    /// Counts the calling thread as waiting until the guard drops.
    pub(crate) fn start_waiting(&self) -> Waiting<'_> {
        // Relaxed: a hint (see `waiting`).
        self.waiting.fetch_add(1, Ordering::Relaxed);
        Waiting(self)
    }
}

/// A thread counted as waiting ([`ForkJoin::start_waiting`]).
pub(crate) struct Waiting<'a>(&'a ForkJoin);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        // Relaxed: a hint (see `waiting`).
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}
