//! [`offer`]: putting a piece on its executor's board and letting the threads that may take
//! it know.

use std::sync::Arc;

use super::node::Node;
use crate::runtime::scheduler::state::State;

/// Puts `node` on `state`'s board, wakes the waiters it may be for (its ancestors') and an
/// idle worker.
pub(crate) fn offer(state: &State, node: Arc<Node>) {
    state.forkjoin.board.publish(Arc::clone(&node));
    node.wake_ancestors();
    if node.is_call() {
        // A whole call: a stand-in may take it too, while every worker is in a poll
        // (`runtime/scheduler/standin/serve.rs`).
        state.idle.notify_work();
    } else {
        // A sleeper booked under an occupied worker's index is that worker's stand-in, which
        // runs no other piece: wake a worker.
        let standins = &state.standins;
        state
            .idle
            .notify_work_for(|index| !standins.is_active(index));
    }
    // After shutdown no worker takes a whole call: the drain drops it.
    crate::runtime::scheduler::worker::schedule::after_shared_push(state);
}
