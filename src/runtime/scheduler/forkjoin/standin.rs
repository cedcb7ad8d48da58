//! Stand-ins: a thread that takes an occupied worker's place, as tokio's `block_in_place`
//! hands its worker's core to another thread.
//!
//! A worker's thread occupied by fork-join work polls no task (`occupy.rs`). Its queues are
//! open to the other workers, but when every worker is occupied nobody would poll a task
//! or turn the driver. So a worker that has been occupied for a whole tick of the loop
//! ticker (seen at a heartbeat check, or by a waiting thread that wakes each tick), or that
//! entered `block_in_place`, *activates* its stand-in: a thread of the executor's, started on
//! first need and kept for the executor's life, that serves the worker's slot until the
//! occupancy ends (*release*):
//! - it takes tasks from the worker's inbox, the injector, and every worker's deque and
//!   inbox (its own slot's included), one at a time, and polls them with a fresh budget;
//! - it turns the driver without blocking when it finds none, and parks *as the worker*
//!   (booked in the notifier under the worker's index, in the driver's OS poll if nobody
//!   holds it), so a wake-up aimed at the worker reaches it;
//! - it runs no fork-join piece (the pool stays the workers' size) and none of the worker's
//!   pinned tasks (bound to the worker's own thread: they wait for the occupancy to end);
//!   tasks it wakes or spawns go to the injector.
//!
//! **Invariants:** a slot's stand-in is booked in the notifier only while the slot is
//! `Active`: a release marks the slot, then wakes the stand-in if it is booked and waits
//! until it left its park (`parking` clear), so the worker never finds its booking taken when
//! it parks again. The release and the stand-in's re-check pair through SeqCst (the
//! `active` flag, then the notifier's fences): either the re-check sees the release, or the
//! release sees the booking. At most one stand-in thread per worker, so at most `workers`
//! such threads per executor.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread;

use crossbeam_deque::Steal;

use crate::runtime::driver::{Driver, Pace};
use crate::runtime::park::{Parked, Parker};
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::util::sync::{AtomicBool, Condvar, Mutex, Ordering};
use crate::util::wake_all::drop_quietly;

/// Where a slot's stand-in is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Not serving (its thread, if started, waits to be activated).
    Dormant,
    /// Serving the worker's slot.
    Active,
    /// Told to stop serving; goes dormant at its next look.
    Releasing,
}

struct SlotState {
    phase: Phase,
    /// Set while the stand-in is inside its park (booked, or about to be, in the notifier).
    parking: bool,
    /// The stand-in's thread, once started.
    thread: Option<thread::JoinHandle<()>>,
    /// Set at shutdown: the thread exits.
    exit: bool,
}

/// One worker's stand-in.
struct Slot {
    state: Mutex<SlotState>,
    changed: Condvar,
    /// `phase == Active`, readable without the lock (SeqCst: module invariants).
    active: AtomicBool,
}

/// The stand-ins of one executor, one slot per worker.
pub(crate) struct StandIns {
    slots: Box<[Slot]>,
}

impl StandIns {
    pub(crate) fn new(workers: usize) -> StandIns {
        StandIns {
            slots: (0..workers)
                .map(|_| Slot {
                    state: Mutex::new(SlotState {
                        phase: Phase::Dormant,
                        parking: false,
                        thread: None,
                        exit: false,
                    }),
                    changed: Condvar::new(),
                    active: AtomicBool::new(false),
                })
                .collect(),
        }
    }

    /// Whether worker `index`'s stand-in serves its slot now.
    pub(crate) fn is_active(&self, index: usize) -> bool {
        // SeqCst: module invariants.
        self.slots[index].active.load(Ordering::SeqCst)
    }

    /// Makes worker `index`'s stand-in serve its slot, starting its thread if needed (if the
    /// thread cannot start, the slot stays dormant: the next heartbeat tries again).
    pub(crate) fn activate(&self, state: &Arc<State>, index: usize) {
        let slot = &self.slots[index];
        let mut st = slot.state.lock();
        if st.exit || state.is_shut_down() || st.phase == Phase::Active {
            return;
        }
        if st.thread.is_none() {
            let name = format!("{}-standin", state.threads.worker_name(index));
            let owner = Arc::clone(state);
            match state.threads.spawn(name, move || run(&owner, index)) {
                Ok(thread) => st.thread = Some(thread),
                Err(_) => return,
            }
        }
        st.phase = Phase::Active;
        // SeqCst: module invariants.
        slot.active.store(true, Ordering::SeqCst);
        drop(st);
        slot.changed.notify_all();
    }

    /// Ends the stand-in's service of worker `index`'s slot, if it serves it: once this
    /// returns, the stand-in is not booked in the notifier under `index` and will not be
    /// again until activated (module invariants). Called by the worker's own thread as its
    /// occupancy ends.
    pub(crate) fn release(&self, state: &State, index: usize) {
        let slot = &self.slots[index];
        // SeqCst: module invariants. A dormant slot is never activated by another thread
        // (only the worker's own thread activates it), so this read is exact.
        if !slot.active.load(Ordering::SeqCst) {
            return;
        }
        let mut st = slot.state.lock();
        st.phase = Phase::Releasing;
        // SeqCst: paired with the stand-in's re-check (module invariants).
        slot.active.store(false, Ordering::SeqCst);
        // Wakes the stand-in if it is booked under `index` (its fence pairs with the re-check).
        state.idle.notify_worker(index);
        while st.parking {
            st = slot.changed.wait(st);
        }
        drop(st);
        slot.changed.notify_all();
    }

    /// Stops every stand-in thread and joins those that are not the calling thread
    /// (shutdown, once the workers exited).
    pub(crate) fn shutdown(&self) {
        let me = thread::current().id();
        for slot in self.slots.iter() {
            let mut st = slot.state.lock();
            st.exit = true;
            st.phase = Phase::Dormant;
            // SeqCst: module invariants.
            slot.active.store(false, Ordering::SeqCst);
            let thread = st.thread.take();
            drop(st);
            slot.changed.notify_all();
            if let Some(thread) = thread {
                if thread.thread().id() != me {
                    // The thread catches the panics of what it runs; an error here could only
                    // come from a bug, with nothing to recover.
                    let _ = thread.join();
                }
            }
        }
    }
}

/// The body of worker `index`'s stand-in thread: waits to be activated, serves, and so on
/// until shutdown.
fn run(state: &Arc<State>, index: usize) {
    let _enter = context::enter(Arc::clone(state));
    let parker = Parker::with_reactor(Arc::clone(&state.driver));
    let slot = &state.forkjoin.standins.slots[index];
    loop {
        {
            let mut st = slot.state.lock();
            loop {
                if st.exit {
                    return;
                }
                match st.phase {
                    Phase::Active => break,
                    Phase::Releasing => st.phase = Phase::Dormant,
                    Phase::Dormant => {}
                }
                st = slot.changed.wait(st);
            }
        }
        serve(state, index, &parker, slot);
    }
}

/// Serves worker `index`'s slot until released or shut down (module docs).
fn serve(state: &Arc<State>, index: usize, parker: &Parker<Driver>, slot: &Slot) {
    let mut booked = None;
    loop {
        // SeqCst: module invariants.
        if !slot.active.load(Ordering::SeqCst) || state.is_shut_down() {
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
        {
            let mut st = slot.state.lock();
            if st.phase != Phase::Active || st.exit {
                return;
            }
            st.parking = true;
        }
        let recheck = || {
            // SeqCst: the re-check half of the release's pairing (module invariants).
            !slot.active.load(Ordering::SeqCst) || state.has_tasks()
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
            // the loop), then gives the role back, as a worker that found work does.
            if state.idle.end_search() && state.has_work() {
                state.idle.notify_work();
            }
        }
        let mut st = slot.state.lock();
        st.parking = false;
        drop(st);
        slot.changed.notify_all();
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
