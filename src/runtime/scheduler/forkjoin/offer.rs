//! Offering a piece on the board ([`ForkJoin::offer`]), and a worker's turn at the board
//! ([`run_from_board`]): the two places where the board meets the executor's workers. Apart
//! from `mod.rs`, which the executor's state holds, so that the imports form no cycle.

use std::sync::Arc;

use super::node::Node;
use super::{occupy, wait, ForkJoin};
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::local::WorkerLocal;

impl ForkJoin {
    /// Puts `node` on the board, wakes the waiters it may be for (its ancestors') and an idle
    /// worker.
    pub(crate) fn offer(&self, state: &State, node: Arc<Node>) {
        self.board.publish(Arc::clone(&node));
        node.wake_ancestors();
        state.idle.notify_work();
        // After shutdown no worker takes a whole call: the drain drops it.
        crate::runtime::scheduler::worker::schedule::after_shared_push(state);
    }
}

/// The worker loop's step: takes the oldest piece on the board, if any, and runs it on
/// `worker` (this thread's). Returns whether it ran one.
pub(crate) fn run_from_board(worker: &WorkerLocal) -> bool {
    let Some(piece) = worker.state.forkjoin.board.take_oldest() else {
        return false;
    };
    let root = Arc::clone(piece.root());
    occupy::on_worker(worker, root, |t| wait::run_claimed(t, piece));
    true
}
