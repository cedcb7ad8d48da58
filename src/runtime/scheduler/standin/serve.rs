//! The body of a stand-in thread (`slots.rs`): it waits to be activated, serves its
//! worker's slot, and so on until shutdown, or until it handed the slot off.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::runtime::driver::{Driver, Pace};
use crate::runtime::park::{Parked, Parker};
use crate::runtime::scheduler::forkjoin::thread::FjThread;
use crate::runtime::scheduler::forkjoin::wait;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::runtime::scheduler::worker::search::Search;
use crate::util::wake_all::drop_quietly;

/// Starts a server for worker `index`'s slot, named `{worker's name}-standin`.
pub(crate) fn start(
    state: &Arc<State>,
    index: usize,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let name = format!("{}-standin", state.threads.worker_name(index));
    let owner = Arc::clone(state);
    state.threads.spawn(name, move || run(&owner, index))
}

thread_local! {
    /// The executor and the slot that the current thread serves as a stand-in, while it
    /// does (`serve`); cleared by a hand-off.
    static SERVING: Cell<Option<(*const Arc<State>, usize)>> = const { Cell::new(None) };
}

/// Runs `f`, a blocking call of the task that this thread polls (`task::block_in_place`, or
/// a fork-join call that waits for the workers); if the thread is a stand-in, it hands its
/// slot to a new thread first (`slots.rs`), and serves no more once that poll returned.
#[inline]
pub(crate) fn hand_off_while<R>(f: impl FnOnce() -> R) -> R {
    hand_off();
    f()
}

/// If this thread is a stand-in, hands its slot to a new thread and serves no more once the
/// poll it makes returned ([`hand_off_while`], compiled once for all its callers).
fn hand_off() {
    if let Some((state, index)) = SERVING.with(Cell::get) {
        // SAFETY: `serve` set the pointer to its `&Arc<State>` argument, and clears it before
        // it returns; this runs inside a poll that `serve` makes, on its thread.
        let state = unsafe { &*state };
        if !state.is_shut_down() && state.standins.hand_off(index, &|| start(state, index)) {
            SERVING.with(|serving| serving.set(None));
        }
    }
}

/// Marks the current thread as serving worker `index`'s slot of `state` until dropped.
struct ServingSlot;

impl ServingSlot {
    fn enter(state: &Arc<State>, index: usize) -> ServingSlot {
        SERVING.with(|serving| serving.set(Some((std::ptr::from_ref(state), index))));
        ServingSlot
    }

    /// Whether the thread still serves its slot (it did not hand it off).
    fn still(&self) -> bool {
        SERVING.with(Cell::get).is_some()
    }
}

impl Drop for ServingSlot {
    fn drop(&mut self) {
        SERVING.with(|serving| serving.set(None));
    }
}

/// The stand-in thread of worker `index`.
fn run(state: &Arc<State>, index: usize) {
    let _enter = context::enter(Arc::clone(state));
    let parker = Parker::with_reactor(Arc::clone(&state.driver));
    while state.standins.wait_until_active(index) {
        let serving = serve(state, index, &parker);
        // The driver's hand-off: a worker that parked while this stand-in held the driver
        // (its non-blocking turn, or its own park) sleeps on its condition variable, and this
        // thread will not park in the driver again. Wake a sleeper: it parks again and takes
        // the driver if nobody holds it (`runtime/park/README.md`, "The driver").
        state.idle.notify_work();
        if !serving {
            // It handed the slot off: the new server serves it.
            return;
        }
    }
}

/// Serves worker `index`'s slot until released or shut down (`slots.rs`); `false` if it
/// handed the slot off.
fn serve(state: &Arc<State>, index: usize, parker: &Parker<Driver>) -> bool {
    let standins = &state.standins;
    let serving = ServingSlot::enter(state, index);
    let Some(hold) = standins.server_hold(index) else {
        // Handed off before it began.
        return false;
    };
    hold.set_thread();
    let mut booked = None;
    let mut rng = 0x2545_F491_4F6C_DD1D ^ ((index as u64 + 1) << 17);
    // Whether a stretch of polls is going on: the first poll after an activation or a park
    // moves the coarse clock of task stamps to the real one, as a worker's does
    // (`runtime/observe/coarse_clock.rs`).
    let mut in_stretch = false;
    loop {
        if !standins.is_active(index) || state.is_shut_down() {
            return true;
        }
        // Busy for the paused clock until it parks: what it finds may outlast the slot's
        // release, and with it the booking it has in the notifier as the worker.
        #[cfg(feature = "test-util")]
        let busy = state.driver.clock().activity().busy();
        if let Some(task) = find_task(state, index, &mut rng) {
            if !in_stretch {
                in_stretch = true;
                crate::runtime::observe::coarse_clock::refresh(std::time::Instant::now());
            }
            hold.begin();
            poll(task);
            let held = hold.end();
            standins.count_poll(index);
            if !serving.still() || (held && !standins.is_server(index)) {
                // The task handed the slot off (`hand_off_while`), or the ticker did while
                // the poll held this thread (`slots.rs`).
                return false;
            }
            continue;
        }
        if run_a_call(state, index) {
            if !serving.still() {
                // It handed the slot off to run the call (`run_a_call`).
                return false;
            }
            continue;
        }
        let woke = catch_unwind(AssertUnwindSafe(|| {
            state.driver.turn_nonblocking(Pace::Now)
        }));
        if let Ok(true) = woke {
            continue;
        }
        #[cfg(feature = "test-util")]
        drop(busy);
        if !standins.begin_park(index) {
            return true;
        }
        in_stretch = false;
        // The re-check half of the release's pairing (`slots.rs`): tasks, and a whole call
        // it would take (`run_a_call`), the only fork-join work a stand-in runs.
        let recheck = || {
            !standins.is_active(index)
                || state.has_tasks()
                || (workers_in_polls(state) && state.forkjoin.board.has_call())
        };
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
                // A worker first: a piece on offer that this stand-in does not take is a
                // worker's.
                state
                    .idle
                    .notify_work_for(|index| !standins.is_active(index));
            }
        }
        standins.end_park(index);
    }
}

/// Whether a whole call on the board may wait for a long time if no stand-in takes it: every
/// worker of `state` is in a poll, and none does fork-join work (which brings a worker back
/// to the board when it ends; `block_in_place` and a wait for a call into another executor
/// do not count as such: `forkjoin/occupy.rs`).
fn workers_in_polls(state: &State) -> bool {
    !state.forkjoin.is_busy() && state.workers.iter().all(|worker| worker.hold.in_poll())
}

/// Runs a whole call on offer on the board (`par::run`, a fork-join call from outside the
/// workers) on this stand-in, if every worker is in a poll that is no fork-join work
/// ([`workers_in_polls`]): a worker held by a poll that blocks, or spins until something
/// else happens, would never take it. It hands the slot to
/// a new server first (`hand_off_while`), so the slot stays served, and runs the call as
/// fork-join work of its own, as a worker would (`forkjoin/occupy.rs`,
/// `run_from_board`). Returns whether it ran one. While some worker is not in a poll, the
/// call is left to the workers, which keeps the threads doing fork-join work to the workers
/// while they can take it.
fn run_a_call(state: &Arc<State>, index: usize) -> bool {
    if state.forkjoin.board.available() == 0 || !workers_in_polls(state) {
        return false;
    }
    let Some(call) = state.forkjoin.board.take_oldest_call() else {
        return false;
    };
    hand_off_while(|| {
        let t = FjThread::new(Arc::clone(state), index, Arc::clone(call.root()), false);
        let _installed = t.install();
        wait::run_claimed(&t, call);
    });
    true
}

/// A task for worker `index`'s stand-in: from its worker's inbox, the injector, or any
/// worker's deque or inbox (its own worker's included), from a random victim on
/// (`worker/search.rs`, the worker loop's search).
fn find_task(state: &State, index: usize, rng: &mut u64) -> Option<Runnable> {
    let search = Search::one_at_a_time(state, index);
    search.inbox().or_else(|| search.injector()).or_else(|| {
        let start = (crate::util::rng::next(rng) % state.num_workers() as u64) as usize;
        search.round(start, &mut 0)
    })
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
