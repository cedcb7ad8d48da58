//! [`Mail`]: pieces of fork-join work addressed to one worker each (a broadcast's part for
//! that worker, `broadcast.rs`), which only that worker's own thread takes while it lives.
//!
//! One mailbox per worker, beside the board (`board.rs`): a piece on the board is for any
//! thread, a piece in a mailbox for its worker's thread alone, so that a broadcast runs its
//! closure on every worker. The worker takes its mail
//! - in its loop, before the board (`occupy::run_from_board`), oldest first;
//! - while it waits for a node, the pieces that descend from that node, as it takes them
//!   from the board (`wait.rs`): so a worker waiting for a broadcast, or a call between
//!   executors, runs its own part of a broadcast made inside that work (rayon's
//!   `broadcast_mutual`); and once it has waited a tick with nothing of its own to run,
//!   any piece of its box that a caller waits for (`take_awaited`), so that two broadcasts
//!   made on two workers at once finish;
//! - in `par::yield_now` and `par::yield_local` (`yield_one`, `broadcast.rs`).
//!
//! A post wakes the worker if it sleeps (`Idle::notify_worker`, as a push to its pinned
//! queue), and the ancestors' waiters of the piece (`publish.rs`); the worker's re-check
//! before it parks counts its mailbox, and so does a waiter's before it sleeps.
//!
//! **Invariants:** `len` is the number of pieces in the box, changed only under its lock; a
//! piece leaves its box only by a claim won under the lock, by the box's worker's thread
//! (`take`, `take_descendant`), or after shutdown by whoever drains it (`take_calls`, and a
//! scope's owner running its own closures, `take_descendant_any`): so it runs at most once,
//! and while its worker lives, on its worker's thread.

use std::collections::VecDeque;

use super::board::claim_calls;
use super::node::{Node, Piece};
use crate::util::sync::{AtomicUsize, Mutex, Ordering};

/// One worker's mailbox.
#[derive(Default)]
struct MailBox {
    pieces: Mutex<VecDeque<Piece>>,
    /// The pieces in the box (module invariants); read without the lock as a hint.
    len: AtomicUsize,
}

/// The mailboxes of an executor's workers (module docs).
pub(crate) struct Mail {
    boxes: Box<[MailBox]>,
}

impl Mail {
    /// Mailboxes for `workers` workers.
    pub(crate) fn new(workers: usize) -> Mail {
        Mail {
            boxes: (0..workers).map(|_| MailBox::default()).collect(),
        }
    }

    /// Whether worker `index` has mail (a hint: one relaxed load).
    #[inline]
    pub(crate) fn has(&self, index: usize) -> bool {
        // Relaxed: a hint. The worker's re-check before a park reads it after its SeqCst
        // fence (`Idle::park`), and the poster fences in `Idle::notify_worker` after its push
        // (`post`'s caller), so a post is never missed by a worker about to sleep.
        self.boxes
            .get(index)
            .is_some_and(|b| b.len.load(Ordering::Relaxed) != 0)
    }

    /// Puts `piece` in worker `index`'s box; the caller wakes the worker and the piece's
    /// ancestors' waiters (`publish::post`).
    pub(crate) fn post(&self, index: usize, piece: Piece) {
        let mailbox = &self.boxes[index];
        let mut pieces = mailbox.pieces.lock();
        pieces.push_back(piece);
        // Relaxed: under the lock (module invariants); see `has` for the readers.
        mailbox.len.fetch_add(1, Ordering::Relaxed);
    }

    /// Claims the oldest piece of worker `index`'s box. Only that worker's thread calls this.
    pub(crate) fn take(&self, index: usize) -> Option<Piece> {
        self.take_where(index, |_| true)
    }

    /// Claims the oldest piece of worker `index`'s box that descends from `ancestor`. Only
    /// that worker's thread calls this.
    pub(crate) fn take_descendant(&self, index: usize, ancestor: &Node) -> Option<Piece> {
        self.take_where(index, |p| p.descends_from(ancestor))
    }

    /// Claims the oldest piece of worker `index`'s box that a caller waits for
    /// ([`Piece::is_awaited`]), whatever it descends from. Only that worker's thread calls
    /// this (a wait that has lasted a tick, `wait.rs`).
    pub(crate) fn take_awaited(&self, index: usize) -> Option<Piece> {
        self.take_where(index, Piece::is_awaited)
    }

    /// Whether worker `index`'s box holds a piece that a caller waits for (a waiter's
    /// re-check, as [`Mail::has_descendant`]).
    pub(crate) fn has_awaited(&self, index: usize) -> bool {
        self.has(index)
            && self.boxes[index]
                .pieces
                .lock()
                .iter()
                .any(|p| p.is_awaited())
    }

    /// After shutdown (no worker takes its mail any more): claims a piece of any box that
    /// descends from `ancestor`, for a scope's owner that runs what is left of its closures
    /// itself (`scope_core.rs`).
    pub(crate) fn take_descendant_any(&self, ancestor: &Node) -> Option<Piece> {
        (0..self.boxes.len()).find_map(|index| self.take_descendant(index, ancestor))
    }

    /// Whether worker `index`'s box holds a piece that descends from `ancestor` (a waiter's
    /// re-check: it takes the lock, which orders it against a post).
    pub(crate) fn has_descendant(&self, index: usize, ancestor: &Node) -> bool {
        self.has(index)
            && self.boxes[index]
                .pieces
                .lock()
                .iter()
                .any(|p| p.descends_from(ancestor))
    }

    fn take_where(&self, index: usize, wanted: impl Fn(&Piece) -> bool) -> Option<Piece> {
        if !self.has(index) {
            return None;
        }
        let mailbox = &self.boxes[index];
        let mut pieces = mailbox.pieces.lock();
        loop {
            let found = pieces.iter().position(&wanted)?;
            let piece = pieces.remove(found)?;
            // Relaxed: under the lock.
            mailbox.len.fetch_sub(1, Ordering::Relaxed);
            if piece.try_claim() {
                return Some(piece);
            }
        }
    }

    /// Takes every whole call left in the boxes (after shutdown: no worker will run them);
    /// the caller drops them, which tells their callers (`State::drain_after_shutdown`).
    pub(crate) fn take_calls(&self) -> Vec<Piece> {
        let mut calls = Vec::new();
        for mailbox in self.boxes.iter() {
            let mut pieces = mailbox.pieces.lock();
            claim_calls(&mut pieces, &mut calls);
            // Relaxed: under the lock.
            mailbox.len.store(pieces.len(), Ordering::Relaxed);
        }
        calls
    }
}
