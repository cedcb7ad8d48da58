//! [`Board`]: the pieces of fork-join work that an executor's threads offer for stealing.
//!
//! One board per executor. Pieces are published by the sharing triggers of `thread.rs` (a
//! worker wants work, a heartbeat, sleepers, a stalled thread) and by whole calls
//! (`inject.rs`), so the board holds few pieces and is touched rarely; a lock around a queue
//! is enough. Pieces are kept in the order they were published:
//! - an idle worker takes the *oldest* available piece (`take_oldest`): the biggest one, since
//!   each thread publishes its oldest unpublished frame first (Cilk's steal-the-top);
//! - a thread waiting for a node takes a piece that *descends* from it (`take_descendant`):
//!   the oldest for a join's owner (it acts as a thief of its own thief's work), the newest
//!   for a scope's owner (its own closures, last spawned first: rayon's order on one thread);
//! - an owner that takes its piece back removes it (`remove`);
//! - a stand-in whose workers are all in polls takes the oldest whole call
//!   (`take_oldest_call`: `par::run`, a call from outside the workers), so such a call never
//!   waits for a worker that a blocking poll holds.
//!
//! **Invariants:** `available` is the number of pieces on the board whose claim word is still
//! `AVAILABLE`, changed only under the lock: incremented by `publish`, decremented by whoever
//! moves a piece out of `AVAILABLE` (a claim in `take_*`, or the owner's reclaim through
//! `remove_reclaimed`). A piece leaves the queue when it is claimed or reclaimed; a piece whose
//! claim lost a race is dropped from the queue by whoever finds it.

use std::collections::VecDeque;
use std::sync::Arc;

use super::node::{Node, Piece};
use crate::util::sync::{AtomicUsize, Mutex, Ordering};

/// The pieces on offer (module docs).
#[derive(Default)]
pub(crate) struct Board {
    pieces: Mutex<VecDeque<Piece>>,
    /// Pieces still `AVAILABLE` (module invariants); read without the lock as a hint.
    available: AtomicUsize,
}

impl Board {
    /// How many pieces are on offer (a hint: one relaxed load).
    #[inline]
    pub(crate) fn available(&self) -> usize {
        // Relaxed: a hint. The worker's re-check before a park reads it after its SeqCst
        // fence, and the publisher fences before it looks for sleepers (`publish`'s caller
        // notifies), so a publication is never missed by a worker about to sleep.
        self.available.load(Ordering::Relaxed)
    }

    /// Offers `piece`; the caller then wakes its ancestors' waiters and an idle worker.
    pub(crate) fn publish(&self, piece: Piece) {
        let mut pieces = self.pieces.lock();
        pieces.push_back(piece);
        // Relaxed: under the lock (module invariants); see `available` for the readers.
        self.available.fetch_add(1, Ordering::Relaxed);
    }

    /// Claims the oldest piece on offer, for a worker with nothing else to do.
    pub(crate) fn take_oldest(&self) -> Option<Piece> {
        if self.available() == 0 {
            return None;
        }
        let mut pieces = self.pieces.lock();
        while let Some(piece) = pieces.pop_front() {
            if piece.try_claim() {
                // Relaxed: under the lock.
                self.available.fetch_sub(1, Ordering::Relaxed);
                return Some(piece);
            }
        }
        None
    }

    /// Claims the oldest whole call on offer (`Piece::call`), for a stand-in whose workers are
    /// all in polls (`runtime/scheduler/standin/serve.rs`).
    pub(crate) fn take_oldest_call(&self) -> Option<Piece> {
        if self.available() == 0 {
            return None;
        }
        let mut pieces = self.pieces.lock();
        loop {
            let found = pieces
                .iter()
                .position(|p| p.is_call() && p.is_available())?;
            let piece = pieces.remove(found)?;
            if piece.try_claim() {
                // Relaxed: under the lock.
                self.available.fetch_sub(1, Ordering::Relaxed);
                return Some(piece);
            }
        }
    }

    /// Whether a whole call is on offer (a stand-in's re-check before it parks: it takes the
    /// lock, which orders it against a publication).
    pub(crate) fn has_call(&self) -> bool {
        self.available() != 0
            && self
                .pieces
                .lock()
                .iter()
                .any(|p| p.is_call() && p.is_available())
    }

    /// Claims a piece on offer that descends from `ancestor`: the newest if `newest`, else
    /// the oldest.
    pub(crate) fn take_descendant(&self, ancestor: &Node, newest: bool) -> Option<Piece> {
        if self.available() == 0 {
            return None;
        }
        let mut pieces = self.pieces.lock();
        loop {
            let found = if newest {
                pieces
                    .iter()
                    .rposition(|p| p.is_available() && p.descends_from(ancestor))
            } else {
                pieces
                    .iter()
                    .position(|p| p.is_available() && p.descends_from(ancestor))
            }?;
            let piece = pieces.remove(found)?;
            if piece.try_claim() {
                // Relaxed: under the lock.
                self.available.fetch_sub(1, Ordering::Relaxed);
                return Some(piece);
            }
        }
    }

    /// Whether a piece that descends from `ancestor` is on offer (a waiter's re-check: it
    /// takes the lock, which orders it against a publication; `node.rs`).
    pub(crate) fn has_descendant(&self, ancestor: &Node) -> bool {
        self.pieces
            .lock()
            .iter()
            .any(|p| p.is_available() && p.descends_from(ancestor))
    }

    /// Removes `piece`, which its owner just reclaimed.
    pub(crate) fn remove_reclaimed(&self, piece: &Piece) {
        let mut pieces = self.pieces.lock();
        // Relaxed: under the lock; the reclaim moved it out of `AVAILABLE`.
        self.available.fetch_sub(1, Ordering::Relaxed);
        if let Some(at) = pieces.iter().rposition(|p| Arc::ptr_eq(p, piece)) {
            pieces.remove(at);
        }
    }

    /// Takes every whole call still on offer (after shutdown: no worker will run them); the
    /// caller drops them, which tells their callers. Pieces of calls in progress stay: their
    /// owners settle them.
    pub(crate) fn take_calls(&self) -> Vec<Piece> {
        let mut pieces = self.pieces.lock();
        let mut calls = Vec::new();
        claim_calls(&mut pieces, &mut calls);
        // Relaxed: under the lock.
        self.available.fetch_sub(calls.len(), Ordering::Relaxed);
        calls
    }
}

/// Claims every whole call among `pieces` and moves it to `calls` (shutdown's drain of the
/// board and of the mailboxes); the other pieces stay, in order.
pub(crate) fn claim_calls(pieces: &mut VecDeque<Piece>, calls: &mut Vec<Piece>) {
    pieces.retain(|piece| {
        if piece.is_call() && piece.try_claim() {
            calls.push(piece.clone());
            false
        } else {
            true
        }
    });
}
