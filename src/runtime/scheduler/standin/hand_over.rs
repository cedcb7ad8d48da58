//! What the epoch ticker and a held poll's worker do with the hold words (`hold.rs`): the
//! ticker's scan of an executor's workers every tick ([`scan`], the executor's tick hook),
//! `block_in_place`'s hand-over of its own poll ([`hand_over_now`]), and the release at a
//! held poll's end ([`hand_back`]).

use std::sync::Arc;

use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::local::WorkerLocal;
use crate::runtime::time::epoch::TickHook;

impl TickHook for State {
    fn on_tick(self: Arc<Self>) {
        scan(&self);
        if !self.is_shut_down() {
            crate::runtime::scheduler::forkjoin::publish::stalled_frames(&self);
        }
    }
}

/// The ticker's scan of `state`'s workers (module docs): hands each poll that has held its
/// worker since the last tick over to the worker's stand-in, and the slot of each stand-in
/// whose poll has held it since the last tick to a new server (`slots.rs`).
pub(crate) fn scan(state: &Arc<State>) {
    if state.is_shut_down() {
        return;
    }
    for (index, worker) in state.workers.iter().enumerate() {
        let start = || super::serve::start(state, index);
        if let Some(word) = worker.hold.held_since_last_look(state.hand_over_after_ns) {
            state
                .standins
                .hand_over(index, || worker.hold.claim_if_held(word), &start);
        }
        if state.standins.is_active(index) {
            state
                .standins
                .hand_off_if_held(index, state.hand_over_after_ns, &start);
        }
    }
}

/// Hands the poll in flight on `worker` (this thread's) over to its stand-in now
/// (`block_in_place`); its end releases the stand-in, as for a poll the ticker claimed.
pub(crate) fn hand_over_now(worker: &WorkerLocal) {
    let state = &worker.state;
    if state.is_shut_down() {
        return;
    }
    let hold = &state.workers[worker.index].hold;
    let start = || super::serve::start(state, worker.index);
    state.standins.hand_over(
        worker.index,
        || {
            hold.claim_now();
            true
        },
        &start,
    );
}

/// The end of a held poll on `worker` (this thread's): releases its stand-in, which then
/// leaves its park and goes dormant (`slots.rs`).
#[cold]
#[inline(never)]
pub(crate) fn hand_back(worker: &WorkerLocal) {
    let state = &worker.state;
    state.standins.release(&state.idle, worker.index);
}
