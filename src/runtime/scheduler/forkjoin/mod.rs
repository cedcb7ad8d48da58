//! Fork-join on the workers: `join`'s halves and `scope`'s closures, run by the same workers
//! as the async tasks, over data borrowed from the caller's stack.
//!
//! The parts:
//! - `thread.rs`: a worker thread's fork-join state ([`FjThread`]), its frames, and the
//!   heartbeat and demand rule that publishes them;
//! - `exposed.rs`: a worker's oldest unpublished frame, which the epoch ticker publishes in
//!   the thread's place when the thread makes no check for a tick (a `join` whose first half
//!   waits for its second);
//! - `join_frame.rs`: the join protocol; `scope_core.rs`: a scope's spawns and wait;
//! - `node.rs`: a published piece or a scope ([`Node`]), its claim word, lineage and wait;
//! - `board.rs`: the pieces on offer ([`Board`]); `publish.rs`: putting a piece there and
//!   waking who may take it;
//! - `wait.rs`: waiting for a node, running only what descends from it;
//! - `occupy.rs`: a worker while its thread does fork-join work, and a worker's turn at the
//!   board (`run_from_board`);
//! - `inject.rs`: calls that start outside the workers, and whole calls.
//!
//! A worker whose fork-join work holds it for a tick (inside a task's poll, or a piece it
//! took from the board) has its stand-in take its place, as for any poll that holds its
//! worker (`runtime/scheduler/standin/`).
//!
//! What the executor's state holds (`ForkJoin`: the board and its counts) imports nothing
//! that imports the state.
//!
//! A worker finds pieces on the board after its own queues, the injector and the other
//! workers' queues (step 5 of the worker loop's search, `worker/mod.rs`); the board is part
//! of the re-check before it parks, so a publication wakes a sleeper as a task push does.
//!
//! **Invariants:** a thread that waits in a `join` or `scope` runs only pieces that descend
//! from what it waits for, and never an async task (`wait.rs`); no pointer into a caller's
//! frame is reachable by another thread once that frame is left (`join_frame.rs`, `node.rs`,
//! `inject.rs`).

pub(crate) mod board;
pub(crate) mod exposed;
pub(crate) mod inject;
pub(crate) mod join_frame;
#[cfg(all(test, loom))]
mod loom_model;
pub(crate) mod node;
pub(crate) mod occupy;
pub(crate) mod publish;
pub(crate) mod scope_core;
pub(crate) mod thread;
pub(crate) mod wait;

use crate::util::sync::{AtomicUsize, Ordering};
use board::Board;

/// What an executor's threads share for fork-join.
pub(crate) struct ForkJoin {
    pub(crate) board: Board,
    /// Threads waiting for a node with nothing of it to run (`wait.rs`): demand for pieces.
    waiting: AtomicUsize,
    /// Workers asleep in their park (not their stand-ins): who a heartbeat splits for
    /// (`thread.rs`).
    sleeping: AtomicUsize,
    /// Workers occupied by fork-join work now (`occupy.rs`): while there are some, an idle
    /// worker keeps searching a moment before it parks, since they publish pieces for
    /// searchers (`thread.rs`, demand).
    occupied: AtomicUsize,
}

impl ForkJoin {
    pub(crate) fn new() -> ForkJoin {
        ForkJoin {
            board: Board::default(),
            waiting: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
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

impl ForkJoin {
    /// Workers asleep now (a hint: one relaxed load).
    #[inline]
    pub(crate) fn sleeping(&self) -> usize {
        // Relaxed: a hint for a heartbeat; a split made for a worker that woke meanwhile is
        // reclaimed by its owner.
        self.sleeping.load(Ordering::Relaxed)
    }

    /// Counts the calling worker as asleep until the guard drops (the worker loop's park).
    pub(crate) fn start_sleeping(&self) -> Sleeping<'_> {
        // Relaxed: a hint (see `sleeping`).
        self.sleeping.fetch_add(1, Ordering::Relaxed);
        Sleeping(self)
    }
}

/// A worker counted as asleep ([`ForkJoin::start_sleeping`]).
pub(crate) struct Sleeping<'a>(&'a ForkJoin);

impl Drop for Sleeping<'_> {
    fn drop(&mut self) {
        // Relaxed: a hint (see `sleeping`).
        self.0.sleeping.fetch_sub(1, Ordering::Relaxed);
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
