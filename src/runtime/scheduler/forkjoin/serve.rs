//! The body of a stand-in thread (`standin.rs`): it waits to be activated, serves its
//! worker's slot, and so on until shutdown.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crossbeam_deque::Steal;

use crate::runtime::driver::{Driver, Pace};
use crate::runtime::park::{Parked, Parker};
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::util::wake_all::drop_quietly;

/// Has worker `index`'s stand-in take its place (`standin.rs`), starting its thread, named
/// `{worker's name}-standin`, on first need. Called by the worker's own thread.
pub(crate) fn activate(state: &Arc<State>, index: usize) {
    if state.is_shut_down() {
        return;
    }
    state.forkjoin.standins.activate(index, || {
        let name = format!("{}-standin", state.threads.worker_name(index));
        let owner = Arc::clone(state);
        state.threads.spawn(name, move || run(&owner, index))
    });
}

/// The stand-in thread of worker `index`.
fn run(state: &Arc<State>, index: usize) {
    let _enter = context::enter(Arc::clone(state));
    let parker = Parker::with_reactor(Arc::clone(&state.driver));
    while state.forkjoin.standins.wait_until_active(index) {
        serve(state, index, &parker);
    }
}

/// Serves worker `index`'s slot until released or shut down (`standin.rs`).
fn serve(state: &Arc<State>, index: usize, parker: &Parker<Driver>) {
    let standins = &state.forkjoin.standins;
    let mut booked = None;
    loop {
        if !standins.is_active(index) || state.is_shut_down() {
            return;
        }
        if let Some(task) = find_task(state, index) {
            poll(task);
            continue;
        }
        let woke = catch_unwind(AssertUnwindSafe(|| {
            state.driver.turn_nonblocking(Pace::Now)
        }));
        if let Ok(true) = woke {
            continue;
        }
        if !standins.begin_park(index) {
            return;
        }
        // The re-check half of the release's pairing (`standin.rs`): tasks only, since the
        // stand-in runs no fork-join piece.
        let recheck = || !standins.is_active(index) || state.has_tasks();
        let parked = catch_unwind(AssertUnwindSafe(|| {
            state.idle.park(index, false, parker, recheck, &mut booked)
        }));
        let parked = match parked {
            Ok(parked) => Some(parked),
            // A waker run by the OS poll panicked: give the booking back.
            Err(_) => state.idle.unbook_unwound(index, &mut booked, parker),
        };
        if parked.is_some_and(Parked::searching) {
            // Woken as the searcher a push asked for: the stand-in looks (its next turn of
            // the loop), and gives the role back, as a worker that found work does.
            if state.idle.end_search() && state.has_work() {
                state.idle.notify_work();
            }
        }
        standins.end_park(index);
    }
}

/// A task for worker `index`'s stand-in: from its inbox, the injector, or any worker's
/// deque or inbox.
fn find_task(state: &State, index: usize) -> Option<Runnable> {
    let own = &state.workers[index];
    take(|| own.inbox.steal())
        .or_else(|| take(|| state.injector.steal()))
        .or_else(|| {
            state.workers.iter().find_map(|other| {
                take(|| other.stealer.steal()).or_else(|| take(|| other.inbox.steal()))
            })
        })
}

fn take(mut steal: impl FnMut() -> Steal<Runnable>) -> Option<Runnable> {
    loop {
        match steal() {
            Steal::Success(task) => return Some(task),
            Steal::Retry => continue,
            Steal::Empty => return None,
        }
    }
}

/// Polls `task` once with a fresh budget; a panic from the runtime itself is dropped (the
/// task's own are caught by the task).
fn poll(task: Runnable) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| {
        crate::runtime::coop::with_budget(|| task.run())
    })) {
        drop_quietly(payload);
    }
}
