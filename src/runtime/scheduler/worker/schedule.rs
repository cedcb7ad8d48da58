//! The schedule function of the tasks that run on the workers' queues, and the placement
//! decisions behind it: where a spawned or woken task goes (see `WakePolicy`). The two other
//! schedule functions are a pinned task's (`runtime/scheduler/pinned/worker_side.rs`: only to its worker's pinned queue)
//! and a blocking job's (`runtime/scheduler/blocking/jobs.rs`: to the blocking pool). Which
//! sleeper a push wakes is `Idle`'s rule (`runtime/park/README.md`, "A push").
//!
//! - A task that yielded (`yield_now`, or a spent budget, during the poll that just ended,
//!   then woke itself) goes to its worker's private deferred list: it runs again only after
//!   that worker's next driver turn (or try at one), which moves it onto the deque
//!   (`mod.rs`).
//! - Any other task woken while it ran (by another thread, or another task) goes to the
//!   inbox of the worker that ran it: behind that worker's own deque, and where an idle
//!   worker can steal it. Holding it back privately would strand it behind whatever that
//!   worker runs next.
//! - Otherwise, on a worker of the task's executor: `CurrentWorker` puts the task in this
//!   worker's LIFO slot (the task it displaces goes onto the deque, where others may steal
//!   it); `LastWorker` does the same if the task last ran here or never ran, and otherwise
//!   pushes it onto the inbox of the worker it last ran on, waking that worker if it sleeps.
//! - A task spawned by a poll of its spawner after the first that spawned anything (a
//!   generator's request: an accept loop's connection, an HTTP/2 connection's stream) goes
//!   to the back of this worker's inbox at once, never to the LIFO slot, so a generator's
//!   requests run in the order it made them; such a task, displaced from the LIFO slot
//!   later (woken), goes back there too. Depth-first order is for forks: the tasks of the
//!   spawner's first poll that spawns (which then awaits them, whatever it awaited before:
//!   a yield, a spent budget, IO), while a generator that keeps spawning would bury its
//!   earlier requests under the deque's LIFO end (`mod.rs`, "How long a runnable task
//!   waits").
//! - A worker that delivers the events of a driver turn (asleep in the OS poll, or busy and
//!   between two polls) places through the inboxes, FIFO, so that tasks woken by IO events
//!   and timers run in the order their events came; the inbox is the one the policy picks,
//!   and the push wakes its worker if it sleeps.
//! - On a worker that does fork-join work (`runtime/scheduler/forkjoin/occupy.rs`) or whose
//!   poll holds it (`runtime/scheduler/standin/`: its private queues move onto its deque
//!   too), and on any other thread: the global injector.
//!
//! Shutdown (the protocol is `State::shutdown`'s doc, `runtime/scheduler/shutdown.rs`): this
//! module's part is to drop instead of queue a task scheduled once the flag is set, and the
//! pusher's half of push-then-check ([`after_shared_push`]).

use async_task::ScheduleInfo;

use super::local::WorkerLocal;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::runtime::task::GENERATED;
use crate::runtime::wake_policy::WakePolicy;
use crate::util::sync::{fence, Ordering};

/// The schedule function of every task spawned onto the workers but pinned tasks.
pub(crate) fn schedule(runnable: Runnable, info: ScheduleInfo) {
    // The dump's wake stamp (`runtime/observe/record.rs`): tasks that never waited have no
    // record. Inside the closure, which `with_worker` inlines: no frame of its own.
    context::with_worker(|worker| {
        if let Some(record) = runnable.metadata().record() {
            record.scheduled(crate::runtime::observe::coarse_clock::coarse_now());
        }
        match worker {
            // On one of the task's own workers: that worker's state reference keeps the executor
            // alive for the whole call, even if the runnable (and with it the task's reference
            // to the executor) is dropped inside it.
            Some(worker) if std::ptr::eq(&*worker.state, runnable.metadata().home()) => {
                schedule_on_worker(worker, runnable, info)
            }
            // Elsewhere: hold our own reference for the same reason.
            _ => {
                let state = runnable.metadata().home_arc();
                schedule_remote(&state, runnable)
            }
        }
    })
}

/// Schedules `runnable` from `worker`, one of its executor's workers.
fn schedule_on_worker(worker: &WorkerLocal, runnable: Runnable, info: ScheduleInfo) {
    let state = &*worker.state;
    if state.is_shut_down() {
        return discard(state, runnable);
    }
    if worker.is_occupied() {
        // The thread does fork-join work and runs no task until it ends: the task goes where
        // every worker (and the worker's stand-in) looks.
        return schedule_remote(state, runnable);
    }
    let here = worker.index;
    let last = runnable.metadata().last_worker();
    if worker.wakes_go_to_inbox() {
        // Woken by a driver turn this worker takes (asleep in the OS poll, or busy): through
        // an inbox, FIFO, so that tasks woken by events run in the order the events came; it
        // wakes the target worker (this one, or the task's last under `LastWorker`) if it
        // sleeps.
        let target = match state.policy {
            WakePolicy::LastWorker => last.unwrap_or(here),
            WakePolicy::CurrentWorker => here,
        };
        return push_to_worker(state, target, runnable);
    }
    if info.woken_while_running {
        // Scheduled at the end of the poll that ran it here.
        if worker.coop.take_yield() {
            return worker.push_deferred(runnable);
        }
        return push_to_worker(state, here, runnable);
    }
    if state.workers[worker.index].hold.is_held() {
        // The poll in flight holds the worker and its stand-in serves in its place
        // (`runtime/scheduler/standin/`): the task goes where they look, and so do the tasks
        // of the worker's private queues. (The polled task itself, scheduled as its poll
        // ends, is placed as always, above.)
        worker.share_private_queues();
        return schedule_remote(state, runnable);
    }
    if last.is_none() && worker.spawn_is_generated() {
        // A generator's request: to the back of this worker's inbox, behind the requests it
        // made before (they run in spawn order), where idle workers may steal it; never the
        // LIFO slot, where the generator's next request would overtake it.
        runnable.metadata().set_hint(GENERATED, true);
        return push_to_worker(state, here, runnable);
    }
    let target = match state.policy {
        WakePolicy::LastWorker => last.unwrap_or(here),
        _ => here,
    };
    if target == here {
        if let Some(displaced) = worker.put_lifo(runnable) {
            if displaced.metadata().hint(GENERATED) {
                // A request of a generator: behind the ones it spawned before, FIFO (and
                // stealable), rather than above them on the deque, where a generator that
                // keeps spawning would bury them for good.
                push_to_worker(state, here, displaced);
            } else {
                // A fork: onto the deque, depth-first (the tasks outstanding stay few).
                worker.deque.push(displaced);
                state.idle.notify_work();
            }
        }
    } else {
        push_to_worker(state, target, runnable);
    }
}

/// Places `runnable` on worker `index`'s inbox, waking that worker if it sleeps.
pub(crate) fn push_to_worker(state: &State, index: usize, runnable: Runnable) {
    if state.is_shut_down() {
        return discard(state, runnable);
    }
    state.workers[index].inbox.push(runnable);
    state.idle.notify_worker(index);
    after_shared_push(state);
}

/// Schedules `runnable` from a thread that is no worker of its executor.
pub(crate) fn schedule_remote(state: &State, runnable: Runnable) {
    if state.is_shut_down() {
        return discard(state, runnable);
    }
    state.injector.push(runnable);
    state.idle.notify_work();
    after_shared_push(state);
}

/// The second half of push-then-check: called after a push to the injector, an inbox or a
/// pinned queue (`pinned/worker_side.rs`) and after the SeqCst fence in `notify_work` /
/// `notify_worker`. That fence pairs with the one in `State::shutdown` after it sets
/// `shutdown` (step 1): if we read `false`, the shutting-down thread's drain (step 7) sees
/// our push (a pinned queue's push: its worker, which exits only once its pinned tasks are
/// gone, or the drain once it exited).
pub(crate) fn after_shared_push(state: &State) {
    // Relaxed: ordered by the fence in `notify_*` (see above).
    if state.shutdown.load(Ordering::Relaxed) {
        state.drain_after_shutdown();
    }
}

/// Drops a runnable scheduled after shutdown (through the drain, so that its destructor
/// never runs nested inside another task's drop).
fn discard(state: &State, runnable: Runnable) {
    state.injector.push(runnable);
    fence(Ordering::SeqCst);
    state.drain_after_shutdown();
}
