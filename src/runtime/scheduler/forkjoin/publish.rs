//! [`offer`]: putting a piece on its executor's board and letting the threads that may take
//! it know; [`post`]: the same for a piece addressed to one worker (`mail.rs`); [`frame`]:
//! making a join frame's half such a piece, by its own thread or by the ticker in its place
//! ([`stalled_frames`], `exposed.rs`).

use std::ptr;
use std::sync::Arc;

use super::frame::FrameLinks;
use super::node::{Piece, Root};
use crate::runtime::scheduler::state::State;

/// Puts `piece` on `state`'s board (on the calling thread's own shard), which wakes the
/// waiters it may be for (its ancestors', `Board::publish_on`), and wakes an idle worker.
pub(crate) fn offer(state: &State, piece: Piece) {
    offer_on(state, None, piece);
}

/// As [`offer`], on worker `shard`'s shard of the board if given: a join frame's half goes
/// to the shard of the worker whose frame it is, whoever publishes it (that thread, or the
/// ticker in its place), so that each shard holds one thread's frames in the order they
/// were published, oldest (biggest) first (`board.rs`).
fn offer_on(state: &State, shard: Option<usize>, piece: Piece) {
    let is_call = piece.is_call();
    match shard {
        Some(shard) => state.forkjoin.board.publish_on(shard, piece),
        None => state.forkjoin.board.publish(piece),
    }
    if is_call {
        // A whole call: a stand-in may take it too, while every worker is in a poll
        // (`runtime/scheduler/standin/serve.rs`).
        state.idle.notify_work();
    } else {
        wake_for_piece(state);
    }
    // After shutdown no worker takes a whole call: the drain drops it.
    crate::runtime::scheduler::worker::schedule::after_shared_push(state);
}

/// Wakes a sleeping worker for a piece on the board, unless a worker searches. A sleeper
/// booked under an occupied worker's index is that worker's stand-in, which runs no other
/// piece: it is not woken.
pub(crate) fn wake_for_piece(state: &State) {
    let standins = &state.standins;
    state
        .idle
        .notify_work_for(|index| !standins.is_active(index));
}

/// Puts `piece` in worker `index`'s mailbox of `state` (`mail.rs`), wakes the waiters it may
/// be for (its ancestors') and that worker if it sleeps.
pub(crate) fn post(state: &State, index: usize, piece: Piece) {
    state.forkjoin.mail.post(index, piece.clone());
    state.forkjoin.board.wake_waiters_above(&piece);
    // Its SeqCst fence pairs with the parking worker's, whose re-check counts its mailbox
    // (`worker/mod.rs`), as after a push to its pinned queue.
    state.idle.notify_worker(index);
    // After shutdown no worker takes a whole call: the drain drops it.
    crate::runtime::scheduler::worker::schedule::after_shared_push(state);
}

/// Publishes `frame`'s half as a node of call `root` on `state`'s board, on the shard of
/// `worker`, the worker whose fork-join state linked the frame (`offer_on`): its
/// `published` holds the node (one count, which the frame's join takes back) and the node
/// is offered.
///
/// # Safety
///
/// `frame` is linked and unpublished, and the caller is the one thread that publishes it:
/// its owner, or the ticker holding its claim (`exposed.rs`).
pub(crate) unsafe fn frame(state: &State, worker: usize, root: &Arc<Root>, frame: &FrameLinks) {
    let half = super::node::Half {
        frame: ptr::from_ref(frame).cast(),
        run: frame.run,
    };
    let parent = frame.lineage.get();
    let parent = (!parent.is_null()).then(|| {
        // SAFETY: `parent` came from `Arc::as_ptr` of the lineage the frame was linked
        // under, which lives until the frame is unlinked (module invariants), and the
        // frame is linked; the count taken here is the new node's.
        unsafe {
            Arc::increment_strong_count(parent);
            Arc::from_raw(parent)
        }
    });
    let piece = Piece::half(parent, Arc::clone(root), half);
    frame.published.set(piece.clone().into_raw());
    offer_on(state, Some(worker), piece);
}

/// The ticker's look at each worker of `state` (`runtime/scheduler/standin/hand_over.rs`'s
/// scan): publishes each frame exposed since the last tick, in its stalled thread's place
/// (`exposed.rs`).
pub(crate) fn stalled_frames(state: &State) {
    for (index, worker) in state.workers.iter().enumerate() {
        worker.exposed.publish_if_stalled(|frame, root| {
            // SAFETY: the ticker holds the frame's claim: it is linked and unpublished, and
            // nothing else publishes it.
            unsafe { self::frame(state, index, &root, frame) }
        });
    }
}
