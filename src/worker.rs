//! The worker loop: find a task, run it, and park when there is none.
//!
//! A worker looks for work in this order (Duffy's local → global → steal, with tokio's
//! fairness fixes):
//! 1. every [`FAIRNESS_INTERVAL`] polls, the injector or its inbox first (alternately), then
//!    its yielded tasks, so that none of them starves behind a deque that never empties;
//! 2. its LIFO slot (the task the last poll woke or spawned), at most
//!    [`MAX_LIFO_HANDOFFS`] times in a row; then the slot's task goes onto the deque and the
//!    oldest task of the deque runs, so two tasks that wake each other cannot starve a third;
//! 3. its own deque (LIFO end), then its inbox, then the injector (in batches), then the
//!    tasks that yielded during its earlier polls;
//! 4. as a searcher (at most about half the workers search at once): the other workers'
//!    deques and inboxes, starting from a random victim, in batches;
//! 5. park (see `park/README.md`).
//!
//! **Invariant:** a worker never blocks inside a poll; it only sleeps in step 5, after a
//! re-check of every queue.
//!
//! The worker's private state lives in a [`WorkerContext`] on the worker thread's stack; a
//! thread-local pointer to it lets the schedule function push to the LIFO slot and deque.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use crossbeam_deque::{Steal, Worker};

use crate::context;
use crate::executor::Handle;
use crate::park::Parked;
use crate::shared::Shared;
use crate::sync::Ordering;
use crate::task::Runnable;

/// Every this many polls a worker looks at the injector (or its inbox) before its own
/// deque. 61 as in tokio and Go: prime, so it does not beat with periodic workloads.
pub(crate) const FAIRNESS_INTERVAL: u32 = 61;

/// How many times in a row a worker runs the task its previous poll woke (the LIFO slot)
/// before it gives the oldest task of its deque a turn. 3 as in tokio.
pub(crate) const MAX_LIFO_HANDOFFS: u32 = 3;

/// How many times a worker sweeps all victims before it parks.
const STEAL_ROUNDS: usize = 2;

thread_local! {
    /// The context of the worker running on this thread, or null. Set by [`run`] for the
    /// thread's whole life as a worker.
    static WORKER: Cell<*const WorkerContext> = const { Cell::new(ptr::null()) };
}

/// Calls `f` with the current thread's worker context, if this thread is a filch worker.
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&WorkerContext>) -> R) -> R {
    let ptr = WORKER.with(Cell::get);
    // SAFETY: a non-null pointer was stored by `run` on this thread and points to the
    // `WorkerContext` on `run`'s stack; `run` resets it to null (through `ResetWorker`)
    // before that context is dropped, including on unwind. The reference does not outlive
    // `f`, which runs on this thread inside `run`'s lifetime. Only shared references to the
    // context are ever made; its mutable parts are cells and crossbeam's `Worker`, which
    // takes `&self`.
    let worker = unsafe { ptr.as_ref() };
    f(worker)
}

/// Whether the current thread is a worker of any filch executor.
pub(crate) fn is_worker_thread() -> bool {
    !WORKER.with(Cell::get).is_null()
}

/// The part of a worker that tasks scheduled on its thread can reach.
pub(crate) struct WorkerContext {
    shared: Arc<Shared>,
    index: usize,
    /// The owner end of this worker's deque (LIFO).
    local: Worker<Runnable>,
    /// The task the current poll woke or spawned here; it runs next. Not stealable.
    lifo: Cell<Option<Runnable>>,
    /// Tasks that woke themselves while running (`yield_now`), oldest first. They run once
    /// the deque, the inbox and the injector are empty; they move to the deque then, where
    /// other workers can steal them. Private, so a yield costs no atomic operation.
    yielded: RefCell<Vec<Runnable>>,
}

impl WorkerContext {
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// Puts `runnable` in the LIFO slot, returning the task it displaces.
    pub(crate) fn put_lifo(&self, runnable: Runnable) -> Option<Runnable> {
        self.lifo.replace(Some(runnable))
    }

    pub(crate) fn push_local(&self, runnable: Runnable) {
        self.local.push(runnable);
    }

    /// Queues a task that woke itself while running behind all other ready work here.
    pub(crate) fn push_yielded(&self, runnable: Runnable) {
        self.yielded.borrow_mut().push(runnable);
    }

    /// Moves the yielded tasks onto the (empty) deque, oldest on top, and pops the oldest.
    fn take_yielded(&self) -> Option<Runnable> {
        let mut yielded = self.yielded.borrow_mut();
        let count = yielded.len();
        if count == 0 {
            return None;
        }
        let mut drained = yielded.drain(..);
        let first = drained.next();
        for task in drained.rev() {
            self.local.push(task);
        }
        drop(yielded);
        if count > 1 {
            self.shared.sleep.notify_work();
        }
        first
    }
}

/// The loop's private state.
struct LoopState {
    /// Polls since the worker started (wrapping); drives the fairness interval.
    tick: u32,
    /// Consecutive LIFO-slot runs.
    handoffs: u32,
    /// Whether this worker counts as a searcher in the notifier.
    searching: bool,
    /// xorshift state for picking the first victim.
    rng: u64,
}

/// Resets the thread-local worker pointer when [`run`] ends, even by unwinding.
struct ResetWorker;

impl Drop for ResetWorker {
    fn drop(&mut self) {
        WORKER.with(|w| w.set(ptr::null()));
    }
}

/// The body of worker thread `index`.
pub(crate) fn run(shared: Arc<Shared>, index: usize, local: Worker<Runnable>) {
    let _enter = context::enter(Handle::from_shared(Arc::clone(&shared)));
    let worker = WorkerContext {
        shared,
        index,
        local,
        lifo: Cell::new(None),
        yielded: RefCell::new(Vec::new()),
    };
    WORKER.with(|w| w.set(&worker));
    let reset = ResetWorker;
    let mut state = LoopState {
        tick: 0,
        handoffs: 0,
        searching: false,
        rng: 0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1) << 17),
    };
    worker.main_loop(&mut state);
    worker.drain_on_exit();
    // From here on this thread is no worker: tasks it drops are counted globally.
    drop(reset);
    if worker.shared.tasks.worker_exited(index) {
        // SAFETY: the count reached zero here, once; `worker.shared` is our own reference.
        unsafe { Shared::release_anchor(Arc::as_ptr(&worker.shared)) };
    }
}

impl WorkerContext {
    fn counters(&self) -> &crate::stats::Counters {
        &self.shared.workers[self.index].counters
    }

    fn main_loop(&self, st: &mut LoopState) {
        loop {
            let task = match self.next_task(st) {
                Some(task) => task,
                None => match self.search(st) {
                    Some(task) => task,
                    None => {
                        if self.shared.is_shut_down() {
                            return;
                        }
                        self.park(st);
                        continue;
                    }
                },
            };
            self.end_search(st);
            self.run_task(st, task);
            if self.shared.is_shut_down() {
                return;
            }
        }
    }

    /// Steps 1–3 of the search order (module docs).
    fn next_task(&self, st: &mut LoopState) -> Option<Runnable> {
        if st.tick % FAIRNESS_INTERVAL == FAIRNESS_INTERVAL - 1 {
            st.tick = st.tick.wrapping_add(1);
            let global_first = (st.tick / FAIRNESS_INTERVAL) % 2 == 0;
            let found = if global_first {
                self.pop_injector().or_else(|| self.pop_inbox())
            } else {
                self.pop_inbox().or_else(|| self.pop_injector())
            }
            .or_else(|| self.take_yielded());
            if let Some(task) = found {
                if let Some(waiting) = self.lifo.take() {
                    self.local.push(waiting);
                    self.shared.sleep.notify_work();
                }
                st.handoffs = 0;
                return Some(task);
            }
        }
        match self.lifo.take() {
            Some(task) if st.handoffs < MAX_LIFO_HANDOFFS => {
                st.handoffs += 1;
                return Some(task);
            }
            Some(task) => {
                // Cap reached: the hand-off chain waits its turn; the oldest local task runs.
                st.handoffs = 0;
                self.local.push(task);
                self.shared.sleep.notify_work();
                if let Some(oldest) = self.pop_oldest_local() {
                    return Some(oldest);
                }
            }
            None => st.handoffs = 0,
        }
        self.local
            .pop()
            .or_else(|| self.pop_inbox())
            .or_else(|| self.pop_injector())
            .or_else(|| self.take_yielded())
    }

    fn pop_oldest_local(&self) -> Option<Runnable> {
        retry_steal(|| self.shared.workers[self.index].stealer.steal())
    }

    fn pop_inbox(&self) -> Option<Runnable> {
        retry_steal(|| {
            self.shared.workers[self.index]
                .inbox
                .steal_batch_and_pop(&self.local)
        })
    }

    fn pop_injector(&self) -> Option<Runnable> {
        retry_steal(|| self.shared.injector.steal_batch_and_pop(&self.local))
    }

    /// Step 4: steal from the other workers, as a searcher.
    fn search(&self, st: &mut LoopState) -> Option<Runnable> {
        let n = self.shared.num_workers();
        if n == 1 {
            return None;
        }
        if !st.searching {
            if !self.shared.sleep.try_start_search() {
                return None;
            }
            st.searching = true;
        }
        let mut attempts = 0;
        let mut found = None;
        'rounds: for _ in 0..STEAL_ROUNDS {
            let start = (next_random(&mut st.rng) % n as u64) as usize;
            for k in 0..n {
                let victim = (start + k) % n;
                if victim == self.index {
                    continue;
                }
                let other = &self.shared.workers[victim];
                attempts += 1;
                if let Some(task) = retry_steal(|| other.stealer.steal_batch_and_pop(&self.local)) {
                    found = Some(task);
                    break 'rounds;
                }
                attempts += 1;
                if let Some(task) = retry_steal(|| other.inbox.steal_batch_and_pop(&self.local)) {
                    found = Some(task);
                    break 'rounds;
                }
            }
            if let Some(task) = self.pop_injector() {
                found = Some(task);
                break;
            }
            std::hint::spin_loop();
        }
        let counters = self.counters();
        counters.add_steal_attempts(attempts);
        if found.is_some() {
            counters.add_steals(1);
        }
        found
    }

    /// Leaves the searching state after finding work; the last searcher to leave wakes
    /// another worker if work is left over (pushes made while it searched did not notify).
    fn end_search(&self, st: &mut LoopState) {
        if !st.searching {
            return;
        }
        st.searching = false;
        if self.shared.sleep.end_search() && (!self.local.is_empty() || self.shared.has_work()) {
            self.shared.sleep.notify_work();
        }
    }

    /// Step 5.
    fn park(&self, st: &mut LoopState) {
        let shared = &self.shared;
        let parked = shared
            .sleep
            .park(self.index, st.searching, || shared.has_work());
        st.searching = parked.searching();
        if parked.slept() {
            self.counters().add_park();
        }
        if parked == Parked::Woken {
            st.handoffs = 0;
        }
    }

    fn run_task(&self, st: &mut LoopState, task: Runnable) {
        // Relaxed: a placement hint (see `TaskMeta::last_worker`).
        task.metadata()
            .last_worker
            .store(self.index, Ordering::Relaxed);
        // `TaskFuture` catches the user's panics; this catches one from a destructor that
        // runs when a completed future is dropped, so that the worker survives it too.
        let _ = catch_unwind(AssertUnwindSafe(|| task.run()));
        st.tick = st.tick.wrapping_add(1);
        self.counters().add_polls(1);
    }

    /// Drops every task left in this worker's private queues after shutdown, then helps
    /// drain the shared ones.
    fn drain_on_exit(&self) {
        loop {
            let task = self
                .lifo
                .take()
                .or_else(|| self.local.pop())
                .or_else(|| self.yielded.borrow_mut().pop());
            match task {
                Some(task) => drop(task),
                None => break,
            }
        }
        self.shared.drain_after_shutdown();
    }
}

/// Retries a steal while it reports contention.
fn retry_steal(mut steal: impl FnMut() -> Steal<Runnable>) -> Option<Runnable> {
    loop {
        match steal() {
            Steal::Success(task) => return Some(task),
            Steal::Retry => continue,
            Steal::Empty => return None,
        }
    }
}

/// xorshift64*: a cheap, good-enough generator for picking victims.
fn next_random(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}
