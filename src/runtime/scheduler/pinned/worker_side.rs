//! The worker's side of pinned tasks (`runtime/scheduler/pinned/spawn.rs` makes them): their
//! schedule function, their placement on the least loaded worker, the worker's pops from
//! its pinned queue, and what a worker does with its pinned tasks as it exits.
//!
//! A pinned task's runnable only ever goes to its worker's pinned queue
//! (`runtime/scheduler/pinned/queue.rs`), which that worker alone pops: never to the LIFO slot, the
//! deque, the deferred list, an inbox or the injector, where another worker could take it. The
//! worker looks at the queue after its deque and before its inbox, and in the fairness
//! rotation (`worker/mod.rs`), and its re-check before a park counts it (`park/README.md`,
//! "Pinned tasks"): a push is followed by `notify_worker`, as an inbox push is.
//!
//! **Invariants:**
//! - a pinned task's runnable is run and dropped only on its worker's thread while that
//!   worker lives: the push is the schedule function's only action, on any thread;
//! - a worker exits only once none of its pinned tasks' futures is alive: it drops what
//!   its queue holds, wakes the pinned tasks that wait for a wake-up (they are registered in
//!   its own shard of the live-task registry, since it ran all their polls) so that they come
//!   to its queue, and repeats until their count is zero ([`WorkerLocal::drain_pinned_on_exit`]).
//!   Only then does it mark itself exited, after which what still reaches its queue (the
//!   closure of a task spawned as it exited, a complete task's runnable) is dropped by the
//!   post-shutdown drain, on any thread.

use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::runtime::scheduler::worker::local::WorkerLocal;
use crate::runtime::scheduler::worker::schedule::after_shared_push;
use crate::util::sync::{fence, Ordering};
use crate::util::wake_all::wake_all_quietly;

/// The schedule function of a task pinned to worker `index`: onto that worker's pinned
/// queue, from any thread, whether or not the executor is shutting down (module docs).
pub(crate) fn schedule_pinned(index: usize, runnable: Runnable) {
    // The dump's wake stamp, as `schedule.rs` stamps every other task's.
    if let Some(record) = runnable.metadata().record() {
        record.scheduled(crate::runtime::observe::coarse_clock::coarse_now());
    }
    context::with_worker(|worker| match worker {
        // On a worker of the task's executor: its state reference keeps the executor alive
        // for the whole call.
        Some(worker) if std::ptr::eq(&*worker.state, runnable.metadata().home()) => {
            push_pinned(&worker.state, index, runnable)
        }
        // Elsewhere: hold our own reference for the same reason.
        _ => {
            let state = runnable.metadata().home_arc();
            push_pinned(&state, index, runnable)
        }
    })
}

/// Queues `runnable` on worker `index`'s pinned queue and wakes that worker if it sleeps.
/// After shutdown, a worker that exited leaves the queue to the drain (push-then-check, as
/// for an inbox: `State::shutdown`, step 1).
pub(crate) fn push_pinned(state: &State, index: usize, runnable: Runnable) {
    state.workers[index].pinned.push(runnable);
    // Its SeqCst fence pairs with the parking worker's (`park/README.md`) and with the one
    // after `State::shutdown`'s flag, as after an inbox push.
    state.idle.notify_worker(index);
    after_shared_push(state);
}

/// The worker a new pinned task goes to: the least loaded, the first of them on a tie.
/// A worker's load is its pinned tasks (spawned and not yet dropped: running, queued or
/// waiting) plus the tasks in its deque and its inbox, read without synchronisation (a
/// hint: concurrent spawns may pick the same worker).
pub(crate) fn least_loaded(state: &State) -> usize {
    state
        .workers
        .iter()
        .enumerate()
        .min_by_key(|(_, w)| w.pinned.tasks() + w.stealer.len() + w.inbox.len())
        .map_or(0, |(index, _)| index)
}

impl WorkerLocal {
    /// Takes the oldest runnable of this worker's pinned queue.
    pub(crate) fn pop_pinned(&self) -> Option<Runnable> {
        self.state.workers[self.index].pinned.pop()
    }

    /// Whether runnables wait in this worker's pinned queue (the re-check before a park).
    pub(crate) fn has_pinned(&self) -> bool {
        !self.state.workers[self.index].pinned.is_empty()
    }

    /// At exit (after shutdown, once the worker polls no more): drops every pinned task of
    /// this worker on this thread, then marks the worker exited (module invariants).
    pub(crate) fn drain_pinned_on_exit(&self) {
        let state = &*self.state;
        let pinned = &state.workers[self.index].pinned;
        loop {
            while let Some(runnable) = pinned.pop() {
                drop(runnable);
            }
            if pinned.tasks() == 0 {
                break;
            }
            // The pinned tasks still alive wait for a wake-up (registered in this worker's
            // shard: their polls ran here), or their runnable is on its way here from a
            // thread inside their schedule function, or a spawner on another thread is
            // about to drop an unrun one. Wake the first kind (their schedule function
            // queues them here); let the others finish.
            let wakers = state.live_tasks.take_shard(self.index);
            if wakers.is_empty() && pinned.is_empty() {
                std::thread::yield_now();
            }
            wake_all_quietly(wakers);
        }
        pinned.set_exited();
        // Pairs with the pushers' fence: a push this thread's look missed is drained by
        // its pusher (`after_shared_push`), or by the drain that follows here.
        fence(Ordering::SeqCst);
    }
}
