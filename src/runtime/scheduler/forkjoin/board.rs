//! [`Board`]: the pieces of fork-join work that an executor's threads offer for stealing.
//!
//! One board per executor, cut into one *shard* per worker: a queue of pieces under a lock
//! of its own. A join frame's half goes onto the shard of the worker whose frame it is,
//! whoever publishes it (that worker's thread, or the ticker in its place, `publish.rs`);
//! any other piece onto the publishing thread's own worker's shard (shard 0 for a thread
//! that is no worker). A thread looks at its own shard first, then at the others in turn,
//! so that the workers of a call that publishes a piece for each closure it spawns (a
//! `scope` of many small closures) each mostly take their own lock, rather than all of
//! them one. Pieces are
//! published by the sharing triggers of `thread.rs` (a worker wants work, a heartbeat,
//! sleepers, a stalled thread), by scopes (each spawned closure, `scope_core.rs`) and by
//! whole calls (`inject.rs`). A shard keeps its pieces in the order they were published:
//! - an idle worker takes the *oldest* available piece of the first shard that has one
//!   (`take_oldest`): the biggest one there, since each worker's frames are published
//!   oldest first and all onto its shard (Cilk's steal-the-top). A frame the ticker
//!   published onto another shard than the worker's earlier ones would be taken before
//!   them by that shard's worker: a younger, smaller half, and for a search whose answer
//!   is in the oldest half (rayon's octillion tests), a search that never ends;
//! - a thread waiting for a node takes a piece that *descends* from it (`take_descendant`):
//!   the oldest for a join's owner (it acts as a thief of its own thief's work), the newest
//!   for a scope's owner (its own closures, last spawned first: rayon's order on one thread);
//! - an owner that takes its piece back removes it (`remove_reclaimed`);
//! - a stand-in whose workers are all in polls takes the oldest whole call
//!   (`take_oldest_call`: `par::run`, a call from outside the workers), so such a call never
//!   waits for a worker that a blocking poll holds.
//!
//! A look that spans shards takes one shard's lock at a time, never two, so the locks have
//! no order to keep; a re-check before a sleep (`has_descendant`, `has_call`) takes each
//! shard's lock in turn, which orders it against a publication on that shard as the one
//! lock did against any.
//!
//! **Invariants:** a piece leaves its shard when it is claimed or reclaimed: a claim in
//! `take_*` removes it under its shard's lock, an owner's reclaim is followed at once by
//! `remove_reclaimed`, and a piece whose claim lost a race is dropped from its shard by
//! whoever finds it first. So a shard's queue holds its available pieces, and for a moment
//! the pieces whose owners are removing them. Each shard's `queued` is its queue's length as
//! of its last unlock (stored under the lock), and [`Board::available`] is their sum: no
//! count that every worker writes, so that a publication or a take touches no line but its
//! shard's.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Arc;

use super::node::{Node, Piece, Root};
use crossbeam_utils::CachePadded;

use crate::util::sync::{fence, AtomicUsize, Mutex, MutexGuard, Ordering};

thread_local! {
    /// The calling thread's worker index, for its home shard ([`set_home`]); 0 on a thread
    /// that is no worker.
    static HOME: Cell<usize> = const { Cell::new(0) };
}

/// Makes shard `index` the calling thread's own on every board: a worker thread calls it
/// with its index when it starts.
pub(crate) fn set_home(index: usize) {
    HOME.with(|home| home.set(index));
}

/// The pieces on offer (module docs).
pub(crate) struct Board {
    /// One queue per worker, each under its own lock (module docs).
    shards: Box<[BoardShard]>,
    /// The threads asleep, or about to sleep, until a piece that descends from the node they
    /// wait for is published ([`Board::sleep_for_descendant`]): while there are none, a
    /// publication walks no lineage ([`Board::wake_waiters_above`]). On a line of its own:
    /// written at each such sleep, read at each publication.
    waiters: CachePadded<AtomicUsize>,
}

/// One worker's queue of pieces, on a cache line pair of its own so that two workers'
/// locks never share a line.
#[derive(Default)]
#[repr(align(128))]
struct BoardShard {
    pieces: Mutex<VecDeque<Piece>>,
    /// The queue's length when its lock was last released: a taker passes over a shard
    /// that had none without taking its lock (`Board::for_takers`), and the board's count
    /// of pieces on offer is the sum over its shards (`Board::available`).
    queued: AtomicUsize,
}

/// A shard's queue, locked; it records the queue's length in `queued` before it unlocks.
struct Locked<'a> {
    shard: &'a BoardShard,
    pieces: MutexGuard<'a, VecDeque<Piece>>,
}

impl<'a> Locked<'a> {
    fn new(shard: &'a BoardShard) -> Locked<'a> {
        Locked {
            shard,
            pieces: shard.pieces.lock(),
        }
    }
}

impl std::ops::Deref for Locked<'_> {
    type Target = VecDeque<Piece>;

    fn deref(&self) -> &VecDeque<Piece> {
        &self.pieces
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut VecDeque<Piece> {
        &mut self.pieces
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // Relaxed: a hint for takers, who lock the shard before they trust what they find;
        // stored under the lock (the guard field drops after this).
        self.shard
            .queued
            .store(self.pieces.len(), Ordering::Relaxed);
    }
}

impl Default for Board {
    /// A board of one shard.
    fn default() -> Board {
        Board::new(1)
    }
}

impl Board {
    /// A board for an executor of `workers` workers: a shard each (one at least).
    pub(crate) fn new(workers: usize) -> Board {
        Board {
            shards: (0..workers.max(1)).map(|_| BoardShard::default()).collect(),
            waiters: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// The calling thread's own shard: its worker's ([`set_home`]), if it is a worker (of
    /// any executor: the index only spreads the threads over the shards); shard 0 for any
    /// other thread.
    fn home(&self) -> usize {
        HOME.with(Cell::get) % self.shards.len()
    }

    /// The shards, the calling thread's own first, then the next ones in turn.
    fn shards_from_home(&self) -> impl Iterator<Item = &BoardShard> {
        let n = self.shards.len();
        let home = self.home();
        // `home + k` is below `2n`: one subtraction wraps it, no division per shard.
        (0..n).map(move |k| {
            let at = home + k;
            &self.shards[if at < n { at } else { at - n }]
        })
    }

    /// Every shard's queue, locked one at a time in `shards_from_home`'s order: for a
    /// re-check, which must see every publication made before it.
    fn every_shard(&self) -> impl Iterator<Item = Locked<'_>> {
        self.shards_from_home().map(Locked::new)
    }

    /// The queues of the shards that held pieces when last unlocked, locked one at a time in
    /// `shards_from_home`'s order: for a taker, which may miss a piece published a moment
    /// ago (it comes back, or the re-check before a sleep finds it), and so no taker locks
    /// the empty shards of a wide executor.
    fn for_takers(&self) -> impl Iterator<Item = Locked<'_>> {
        self.shards_from_home()
            // Relaxed: a hint (see `BoardShard::queued`).
            .filter(|shard| shard.queued.load(Ordering::Relaxed) != 0)
            .map(Locked::new)
    }

    /// How many pieces are on offer (a hint: one relaxed load per shard, module
    /// invariants).
    #[inline]
    pub(crate) fn available(&self) -> usize {
        // Relaxed: a hint. The worker's re-check before a park reads it after its SeqCst
        // fence, and the publisher stores its shard's length (at the unlock) before it
        // fences and looks for sleepers (`publish`'s caller notifies), so a publication is
        // never missed by a worker about to sleep.
        self.shards
            .iter()
            .map(|shard| shard.queued.load(Ordering::Relaxed))
            .sum()
    }

    /// Parks the calling thread, `node`'s waiter, as [`Node::sleep`] does, counted as a
    /// thread that a publication of a descendant of `node` must wake (`work_in_sight` looks
    /// for one on this board or in the mail, after the registration).
    pub(crate) fn sleep_for_descendant(&self, node: &Node, work_in_sight: impl FnOnce() -> bool) {
        // The count comes before the sleep's fence and re-check (`Node::sleep`), which takes
        // every shard's lock: either the re-check sees a publication on the board, or the
        // publisher, under the same lock after it, sees the count (`publish_on`). SeqCst:
        // for a publication into the mail, it pairs with the fence of `wake_waiters_above`.
        self.waiters.fetch_add(1, Ordering::SeqCst);
        node.sleep(work_in_sight);
        // Relaxed: a count left high for a moment only makes a publisher walk.
        self.waiters.fetch_sub(1, Ordering::Relaxed);
    }

    /// Wakes the sleeping waiters of `piece`'s ancestors, which the caller just posted in
    /// the mail of this board's executor (a publication on the board wakes them itself,
    /// `publish_on`): none to wake, and no walk, while no thread sleeps in
    /// [`Board::sleep_for_descendant`].
    pub(crate) fn wake_waiters_above(&self, piece: &Node) {
        // Pairs with the sleeper's registration (`sleep_for_descendant`).
        fence(Ordering::SeqCst);
        if self.waiters.load(Ordering::SeqCst) != 0 {
            piece.wake_ancestors();
        }
    }

    /// Offers `piece` on the calling thread's own shard, as [`publish_on`](Board::publish_on).
    pub(crate) fn publish(&self, piece: Piece) {
        self.publish_on(self.home(), piece);
    }

    /// Offers `piece` on worker `shard`'s shard (module docs: a join frame's half goes to
    /// its worker's shard, whoever publishes it) and wakes the sleeping waiters of its
    /// ancestors; the caller then wakes an idle worker.
    ///
    /// The waiters are looked for under the shard's lock, with no fence: a waiter counts
    /// itself (`sleep_for_descendant`) before its re-check takes each shard's lock in turn.
    /// If that re-check holds this shard's lock after this publication, it sees the piece
    /// and does not sleep; if before, the count (and the waiter's `sleeping` flag, set
    /// before the re-check) happens-before this load, through the lock, and the walk wakes
    /// it.
    pub(crate) fn publish_on(&self, shard: usize, piece: Piece) {
        let to_wake = {
            let mut pieces = Locked::new(&self.shards[shard % self.shards.len()]);
            // Relaxed: pairs with the waiter's count through this shard's lock, which its
            // re-check takes after the count (above).
            let waiting = self.waiters.load(Ordering::Relaxed) != 0;
            let to_wake = waiting.then(|| piece.clone());
            pieces.push_back(piece);
            to_wake
        };
        if let Some(piece) = to_wake {
            piece.wake_ancestors();
        }
    }

    /// Claims the oldest piece of the first shard that has one, the calling thread's own
    /// first, for a worker with nothing else to do.
    pub(crate) fn take_oldest(&self) -> Option<Piece> {
        self.claim_first(|pieces| (!pieces.is_empty()).then_some(0))
    }

    /// Claims the oldest piece of call `root` of the first shard that has one, the calling
    /// thread's own first: for a worker that just ran a piece of that call and goes on with
    /// the same fork-join state (`occupy.rs`).
    pub(crate) fn take_oldest_of(&self, root: &Arc<Root>) -> Option<Piece> {
        self.claim_first(|pieces| {
            pieces
                .iter()
                .position(|p| p.is_available() && Arc::ptr_eq(p.root(), root))
        })
    }

    /// Claims the oldest whole call on offer (`Piece::call`) of the first shard that has
    /// one, for a stand-in whose workers are all in polls
    /// (`runtime/scheduler/standin/serve.rs`).
    pub(crate) fn take_oldest_call(&self) -> Option<Piece> {
        self.claim_first(|pieces| pieces.iter().position(|p| p.is_call() && p.is_available()))
    }

    /// Whether a whole call is on offer (a stand-in's re-check before it parks: it takes
    /// every shard's lock in turn, which orders it against a publication on that shard).
    pub(crate) fn has_call(&self) -> bool {
        self.available() != 0
            && self
                .every_shard()
                .any(|pieces| pieces.iter().any(|p| p.is_call() && p.is_available()))
    }

    /// Claims a piece on offer that descends from `ancestor`: the newest if `newest`, else
    /// the oldest, of the first shard that has one, the calling thread's own first.
    pub(crate) fn take_descendant(&self, ancestor: &Node, newest: bool) -> Option<Piece> {
        let wanted = |p: &Piece| p.is_available() && p.descends_from(ancestor);
        self.claim_first(|pieces| {
            if newest {
                pieces.iter().rposition(wanted)
            } else {
                pieces.iter().position(wanted)
            }
        })
    }

    /// Claims the piece that `find` picks in the first shard, the calling thread's own
    /// first, where it picks one whose claim succeeds: a picked piece leaves its shard
    /// either way (one whose claim lost a race is its claimer's, or its owner's reclaim).
    fn claim_first(
        &self,
        mut find: impl FnMut(&VecDeque<Piece>) -> Option<usize>,
    ) -> Option<Piece> {
        for mut pieces in self.for_takers() {
            while let Some(piece) = find(&pieces).and_then(|at| pieces.remove(at)) {
                if piece.try_claim() {
                    return Some(piece);
                }
            }
        }
        None
    }

    /// Whether a piece that descends from `ancestor` is on offer (a waiter's re-check: it
    /// takes every shard's lock in turn, which orders it against a publication on that
    /// shard; `node.rs`).
    pub(crate) fn has_descendant(&self, ancestor: &Node) -> bool {
        self.every_shard().any(|pieces| {
            pieces
                .iter()
                .any(|p| p.is_available() && p.descends_from(ancestor))
        })
    }

    /// Removes `piece`, which its owner just reclaimed: from its worker's shard, where it or
    /// the ticker published it, which is the owner's own shard unless the owner is a
    /// stand-in (the search starts at the calling thread's own shard and goes round).
    pub(crate) fn remove_reclaimed(&self, piece: &Piece) {
        // Not found: a taker whose claim lost the race dropped it.
        for mut pieces in self.every_shard() {
            if let Some(at) = pieces.iter().rposition(|p| Arc::ptr_eq(p, piece)) {
                pieces.remove(at);
                return;
            }
        }
    }

    /// Takes every whole call still on offer (after shutdown: no worker will run them); the
    /// caller drops them, which tells their callers. Pieces of calls in progress stay: their
    /// owners settle them.
    pub(crate) fn take_calls(&self) -> Vec<Piece> {
        let mut calls = Vec::new();
        for mut pieces in self.every_shard() {
            claim_calls(&mut pieces, &mut calls);
        }
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::scheduler::forkjoin::node::Root;

    /// A closure of `scope`, counted in it, that does nothing.
    fn closure(scope: &Arc<Node>) -> Piece {
        // SAFETY: the parent is the scope.
        unsafe { Piece::spawned(Arc::clone(scope), Box::new(|| {}), scope) }
    }

    #[test]
    fn a_piece_on_any_shard_is_found_from_every_shard() {
        let board = Board::new(3);
        let scope = Node::scope(None, Root::new());
        for publisher in 0..3 {
            for taker in 0..3 {
                set_home(publisher);
                board.publish(closure(&scope));
                set_home(taker);
                assert_eq!(board.available(), 1);
                assert!(board.has_descendant(&scope), "{publisher} -> {taker}");
                let piece = board
                    .take_descendant(&scope, taker % 2 == 0)
                    .unwrap_or_else(|| panic!("{publisher} -> {taker}: not found"));
                assert_eq!(board.available(), 0);
                assert!(!board.has_descendant(&scope));
                // SAFETY: `take_descendant` won the claim.
                unsafe { piece.run(false) };

                set_home(publisher);
                board.publish(closure(&scope));
                set_home(taker);
                let piece = board.take_oldest().expect("an idle worker finds it");
                assert_eq!(board.available(), 0);
                // SAFETY: `take_oldest` won the claim.
                unsafe { piece.run(false) };
            }
        }
        assert!(scope.is_finished());
        set_home(0);
    }

    #[test]
    fn a_worker_takes_from_its_own_shard_first_and_each_shard_oldest_first() {
        let board = Board::new(2);
        let scope = Node::scope(None, Root::new());
        set_home(1);
        let first_of_1 = closure(&scope);
        board.publish(first_of_1.clone());
        board.publish(closure(&scope));
        set_home(0);
        let first_of_0 = closure(&scope);
        board.publish(first_of_0.clone());
        board.publish(closure(&scope));
        // Its own shard's oldest first, then the other shard's oldest.
        let mut taken = Vec::new();
        while let Some(piece) = board.take_oldest() {
            taken.push(piece);
        }
        assert_eq!(taken.len(), 4);
        assert!(Arc::ptr_eq(&taken[0], &first_of_0));
        assert!(Arc::ptr_eq(&taken[2], &first_of_1));
        for piece in taken {
            // SAFETY: `take_oldest` won the claim.
            unsafe { piece.run(false) };
        }
        assert!(scope.is_finished());
    }

    #[test]
    fn a_worker_going_on_with_a_call_takes_only_that_calls_pieces_oldest_first() {
        let board = Board::new(2);
        let ours = Node::scope(None, Root::new());
        let theirs = Node::scope(None, Root::new());
        set_home(1);
        let their_first = closure(&theirs);
        board.publish(their_first.clone());
        let our_first = closure(&ours);
        board.publish(our_first.clone());
        set_home(0);
        board.publish(closure(&theirs));
        board.publish(closure(&ours));
        // Its own shard first: the one piece of its call there, then the other shard's.
        let root = Arc::clone(ours.root());
        let a = board.take_oldest_of(&root).expect("a piece of the call");
        assert!(Arc::ptr_eq(a.root(), &root));
        let b = board
            .take_oldest_of(&root)
            .expect("the other piece of the call");
        assert!(Arc::ptr_eq(&b, &our_first));
        assert!(board.take_oldest_of(&root).is_none());
        // The other call's pieces stay on offer, in order.
        assert_eq!(board.available(), 2);
        set_home(1);
        let c = board.take_oldest().expect("the other call's oldest");
        assert!(Arc::ptr_eq(&c, &their_first));
        let d = board.take_oldest().expect("the other call's other piece");
        for piece in [a, b, c, d] {
            // SAFETY: each was claimed by a take above.
            unsafe { piece.run(false) };
        }
        assert!(ours.is_finished() && theirs.is_finished());
        set_home(0);
    }
}
