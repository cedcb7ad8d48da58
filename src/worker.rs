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
//!    deques and inboxes, starting from a random victim, in batches; a searcher that finds
//!    nothing keeps looking for up to [`SPIN_BEFORE_PARK`];
//! 5. park (see `park/README.md`). With the `async-io` feature the loop runs inside
//!    `async_io::block_on` (module `reactor` below), so a parked worker waits in async-io's
//!    reactor and a busy one lets it handle ready events now and then.
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

/// How many times a worker sweeps all victims in one search.
const STEAL_ROUNDS: usize = 2;

/// How long a searcher keeps looking before it parks. Waking a parked worker costs a
/// futex round trip (several µs, more when the wakee's core must be woken too); a
/// fine-grained workload that leaves a worker idle for a moment between bursts (the
/// scatter-gather barrier) paid that on every burst. Only searchers (at most about half
/// the workers) spin, and only this long, so an idle pool still goes quiet at once.
const SPIN_BEFORE_PARK: std::time::Duration = std::time::Duration::from_micros(25);

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
    /// Set while the worker sleeps in `park`: tasks woken on this thread then (by async-io's
    /// reactor, which a parked worker drives) go through the inboxes, which wake it.
    parked: Cell<bool>,
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

    /// Whether the worker is sleeping in `park` (see the field).
    pub(crate) fn is_parked(&self) -> bool {
        self.parked.get()
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
        parked: Cell::new(false),
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
    #[cfg(all(feature = "async-io", not(loom)))]
    async_io::block_on(reactor::Driven {
        worker: &worker,
        st: &mut state,
        listener: None,
        last_yield: std::time::Instant::now(),
    });
    #[cfg(not(all(feature = "async-io", not(loom))))]
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

    /// Finds the next task (steps 1–4), or `None` if there is none to be had now.
    fn find_task(&self, st: &mut LoopState) -> Option<Runnable> {
        let task = self.next_task(st).or_else(|| self.search(st))?;
        self.end_search(st);
        Some(task)
    }

    /// Before parking, a searcher looks again for up to [`SPIN_BEFORE_PARK`].
    fn spin_for_task(&self, st: &mut LoopState) -> Option<Runnable> {
        if !st.searching {
            return None;
        }
        let started = std::time::Instant::now();
        while started.elapsed() < SPIN_BEFORE_PARK && !self.shared.is_shut_down() {
            for _ in 0..32 {
                std::hint::spin_loop();
            }
            if let Some(task) = self.find_task(st) {
                return Some(task);
            }
        }
        None
    }

    /// Finds a task, spinning briefly before giving up (see [`SPIN_BEFORE_PARK`]).
    fn find_task_or_spin(&self, st: &mut LoopState) -> Option<Runnable> {
        self.find_task(st).or_else(|| self.spin_for_task(st))
    }

    /// The loop, blocking the thread in `park` when there is no work.
    #[cfg_attr(all(feature = "async-io", not(loom)), allow(dead_code))]
    fn main_loop(&self, st: &mut LoopState) {
        loop {
            match self.find_task_or_spin(st) {
                Some(task) => {
                    self.run_task(st, task);
                    if self.shared.is_shut_down() {
                        return;
                    }
                }
                None if self.shared.is_shut_down() => return,
                None => self.park(st),
            }
        }
    }

    /// Step 5, blocking.
    #[cfg_attr(all(feature = "async-io", not(loom)), allow(dead_code))]
    fn park(&self, st: &mut LoopState) {
        let shared = &self.shared;
        self.parked.set(true);
        let parked = shared
            .sleep
            .park(self.index, st.searching, || shared.has_work());
        self.parked.set(false);
        self.after_park(st, parked);
    }

    fn after_park(&self, st: &mut LoopState, parked: Parked) {
        st.searching = parked.searching();
        if parked.slept() {
            self.counters().add_park();
        }
        if parked == Parked::Woken {
            st.handoffs = 0;
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

/// The worker loop as a future that `async_io::block_on` drives (the `async-io` feature),
/// as smol's executors run: while the worker sleeps, its thread waits in async-io's reactor
/// (if no other thread does), so IO events and timers wake tasks right on an idle worker;
/// while it is busy, it returns to `block_on` every [`FAIRNESS_INTERVAL`] polls (at most
/// once per [`REACTOR_INTERVAL`]) so that ready IO events are handled without waiting for
/// async-io's own thread.
#[cfg(all(feature = "async-io", not(loom)))]
mod reactor {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::{Duration, Instant};

    use event_listener::EventListener;

    use super::{LoopState, WorkerContext, FAIRNESS_INTERVAL};
    use crate::park::Prepared;

    /// The least time between two returns to the reactor of a busy worker: a zero-timeout
    /// poll of the reactor costs a system call, too much to pay every few microseconds.
    const REACTOR_INTERVAL: Duration = Duration::from_micros(100);

    pub(super) struct Driven<'a> {
        pub(super) worker: &'a WorkerContext,
        pub(super) st: &'a mut LoopState,
        /// Set while the worker sleeps (step 4 of `park`, as a future).
        pub(super) listener: Option<EventListener>,
        pub(super) last_yield: Instant,
    }

    impl Future for Driven<'_> {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            let this = &mut *self;
            let worker = this.worker;
            let shared = &worker.shared;
            if let Some(listener) = this.listener.as_mut() {
                if Pin::new(listener).poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.listener = None;
                worker.parked.set(false);
                worker.after_park(this.st, shared.sleep.woken(worker.index));
            }
            let mut polls = 0u32;
            loop {
                match worker.find_task_or_spin(this.st) {
                    Some(task) => {
                        worker.run_task(this.st, task);
                        if shared.is_shut_down() {
                            return Poll::Ready(());
                        }
                        polls += 1;
                        if polls % FAIRNESS_INTERVAL == 0
                            && this.last_yield.elapsed() >= REACTOR_INTERVAL
                        {
                            // Let `block_on` process ready IO events, then poll us again.
                            this.last_yield = Instant::now();
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                    }
                    None if shared.is_shut_down() => return Poll::Ready(()),
                    None => {
                        worker.parked.set(true);
                        let prepared =
                            shared
                                .sleep
                                .prepare_park(worker.index, this.st.searching, || {
                                    shared.has_work()
                                });
                        match prepared {
                            Prepared::Skipped(parked) => {
                                worker.parked.set(false);
                                worker.after_park(this.st, parked);
                            }
                            Prepared::Sleep(mut listener) => {
                                if Pin::new(&mut listener).poll(cx).is_pending() {
                                    // Asleep: `block_on` waits in the reactor or on its parker
                                    // until the listener is notified.
                                    this.listener = Some(listener);
                                    this.last_yield = Instant::now();
                                    return Poll::Pending;
                                }
                                worker.parked.set(false);
                                worker.after_park(this.st, shared.sleep.woken(worker.index));
                            }
                        }
                    }
                }
            }
        }
    }
}
