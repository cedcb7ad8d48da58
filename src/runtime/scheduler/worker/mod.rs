//! The worker loop: find a task, run it, and park when there is none; and (in
//! `schedule.rs`) where the tasks it runs go when they are woken.
//!
//! A worker looks for work in this order (Duffy's local → global → steal, with tokio's
//! fairness fixes):
//! 1. every [`FAIRNESS_INTERVAL`] polls, first one task of the injector or of its inbox,
//!    alternately (of the other if that one is empty), so that neither starves behind
//!    local work that never ends; not of the queue that step 3's last batch came from while
//!    tasks of that batch wait on the deque, since that queue is being served and its next
//!    task would overtake them (timers that fired in one turn run in deadline order);
//! 2. its LIFO slot (the task the last poll woke or spawned), at most
//!    [`MAX_LIFO_HANDOFFS`] times in a row between tasks that stay alive (a fork-join
//!    continuation, woken by a poll that completed its task, and a task spawned and not
//!    run yet are not counted); then the slot's task goes to the back of its inbox, so two
//!    tasks that wake each other cannot starve a third;
//! 3. its own deque (LIFO: its newest task, so that fork-join by spawning runs depth-first
//!    and the tasks outstanding stay few), then its pinned queue (the tasks pinned to it,
//!    FIFO, never stolen: `pinned/worker_side.rs`), then its inbox, then the injector (in
//!    batches, popped oldest first); a batch taken from a shared queue onto the deque is
//!    announced to the idle workers (`Idle::notify_work`), since it was out of their sight
//!    while it moved;
//! 4. if tasks that yielded wait in its deferred list: a turn of the driver that does not
//!    block (if no other worker holds it), then the deferred tasks move onto the deque, and
//!    the first that yielded runs (tokio's `Defer`). Also before step 3 pops a task that
//!    has yielded (as one an earlier turn moved onto the deque has), if a task that yielded
//!    in its first poll (a fork that awaited before it forks) waits in the list: that one is
//!    newer in depth-first order, and goes on top of it;
//! 5. as a searcher (at most about half the workers search at once): the other workers'
//!    deques and inboxes, starting from a random victim, in batches; a searcher that finds
//!    nothing keeps looking for up to [`SPIN_BEFORE_PARK`], as long as such spins pay off
//!    (see [`SPIN_PROBE_INTERVAL`]) or right after it ran a call made from outside the
//!    executor (its caller is likely to make the next one at once); then a piece of
//!    fork-join work: one addressed to this
//!    worker (a broadcast's part, `forkjoin/mail.rs`), else the board's oldest;
//! 6. a turn of the driver that does not block (if no other worker holds it), and if that
//!    woke nothing, park (see `park/README.md`).
//!
//! The loop is a plain loop ([`WorkerLoop`]): run, search, park. A parked worker sleeps on
//! its [`Parker`] (`runtime/park/parker.rs`): in the OS poll of its executor's IO driver if no
//! other worker holds it, else on the parker's condition variable; the notifier's wake-up unparks
//! it wherever it waits. A busy worker also takes a turn of the driver that does not block
//! every [`FAIRNESS_INTERVAL`] polls, if nobody holds it, so that IO events and timers are
//! handled while every worker is busy: a paced turn (the driver's one pacing rule,
//! `runtime/driver/mod.rs`), or one now while tasks wait in its deferred list. A worker
//! whose poll (or fork-join piece) holds it for a tick, whatever the poll does (a CPU loop,
//! a blocking call, a `join`, a parallel iterator), has a stand-in thread poll its tasks and
//! turn the driver in its place until the poll returns (`runtime/scheduler/standin/`): the
//! epoch ticker sees the poll's start in the worker's hold word.
//!
//! A task that yielded (`yield_now`, or a spent budget) thus runs again only after its
//! worker's next non-blocking driver turn, or its try at one when another worker holds the
//! driver (and then delivers its events): the turn of step 4, of step 6 or of a busy worker,
//! whichever comes first. Every one of them releases the deferred list. A worker that has
//! other work releases it after at most [`FAIRNESS_INTERVAL`] polls; one that has none, at
//! once.
//!
//! Every task poll runs with a fresh cooperative budget (`runtime/coop.rs`).
//!
//! # How long a runnable task waits
//!
//! Where a task waits decides how long (the placements are `schedule.rs`'s):
//! - **the LIFO slot**: it runs right after the current poll, unless the slot has handed
//!   over [`MAX_LIFO_HANDOFFS`] times in a row, when it goes to the back of the inbox;
//! - **the inbox and the injector** (FIFO): a task with `k` tasks ahead of it in one of
//!   them runs within `2 × FAIRNESS_INTERVAL × (k + 1)` polls of its worker (one fairness
//!   check in two takes that queue's oldest task), sooner if another worker steals it. This
//!   is where tasks woken by IO events, timers and other threads wait, and the requests of a
//!   generator. While pinned tasks wait in the worker's pinned queue, the rotation has three
//!   queues, and the bound is `3 × FAIRNESS_INTERVAL × (k + 1)` for each of the three. A
//!   worker that runs out of local work takes a batch of the queue onto its deque (step 3):
//!   a task of that batch then runs after the batch's tasks ahead of it and what they fork,
//!   depth-first, unless a thief takes it first (thieves take a deque's oldest tasks);
//! - **the deque** (LIFO for its owner): a fork, a task spawned by the first poll of its
//!   spawner that spawns anything (fork-join: the spawner goes on to await it, whatever it
//!   awaited before), runs after the tasks its worker spawns after it, depth-first, or when
//!   a thief takes it (thieves take the oldest). No number of polls bounds that wait: it is
//!   the price of depth-first order, which keeps the tasks outstanding near 2 × depth ×
//!   workers (the bench's binary spawn tree of 131,071 tasks peaks at 48-57 on 2 workers,
//!   and a tree on one worker at exactly 2 × depth, whether its nodes fork in their first
//!   poll or after a yield; were the fairness rotation to take the deque's oldest task, they
//!   would reach about 27,000).
//!   A task that yielded waits here too once a turn released it, below the forks that
//!   yielded after it (step 4). A task spawned by a *later* poll of its spawner (an accept
//!   loop, an HTTP/2 connection spawning a task per stream: a generator of requests, not a
//!   fork) goes to the back of the inbox instead, never to the LIFO slot, so a generator that
//!   keeps spawning cannot bury its earlier requests: they run in the order they were
//!   spawned, FIFO.
//!
//! **Invariants:**
//! - a worker never blocks inside a poll; it only sleeps in step 6, after a re-check of
//!   every queue, its deferred list included (a host-name lookup in `filch::net` runs on the
//!   blocking pool); its deferred list is empty by then (step 4 released it), so no task
//!   waits in a private queue while its worker sleeps;
//! - a worker whose loop unwinds (a panic outside any task: a panicking waker run by the
//!   driver it waits in) gives back its booking in the notifier (`WorkerLoop`'s drop), and
//!   starts its loop again: the searching and unparked counts stay exact, and the executor
//!   keeps its number of workers;
//! - a worker that exits drops what is left in its private queues and every pinned task of
//!   it, on its own thread (`pinned/worker_side.rs`), and only then stops counting tasks locally and
//!   gives up its hold on the state (`runtime/task/task_count.rs`).

pub(crate) mod context;
pub(crate) mod local;
pub(crate) mod schedule;
pub(crate) mod search;
#[cfg(all(test, not(loom)))]
mod tests;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_deque::Worker;

use event_listener::EventListener;

use crate::runtime::driver::{Driver, Pace};
use crate::runtime::park::{Parked, Parker};
use crate::runtime::scheduler::standin::hand_over::hand_back;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::task::{task_count, YIELDED};
use crate::util::wake_all::drop_quietly;
use local::WorkerLocal;
use search::Search;

/// Every this many polls a worker takes one task of the injector or of its inbox (the two
/// alternately, step 1 of the module docs) before its LIFO slot and deque. 61 as in tokio and Go:
/// prime, so it does not beat with periodic workloads.
pub(crate) const FAIRNESS_INTERVAL: u32 = 61;

/// How many hand-offs in a row through the LIFO slot between tasks that stay alive a
/// worker makes before the slot's task goes to the back of its inbox and the deque's
/// newest task runs (step 2 of the module docs: a fork-join continuation, woken by a poll
/// that completed its task, and a task spawned and not run yet are not counted, so more
/// LIFO-slot runs than this may follow each other). 3 as in tokio.
pub(crate) const MAX_LIFO_HANDOFFS: u32 = 3;

/// How many times a worker sweeps all victims in one search.
const STEAL_ROUNDS: usize = 2;

/// How long a searcher keeps looking before it parks. Waking a parked worker costs a
/// futex round trip (several µs, more when the wakee's core must be woken too); a
/// fine-grained workload that leaves a worker idle for a moment between bursts (the
/// scatter-gather barrier) paid that on every burst. Only searchers (at most about half
/// the workers) spin, and only this long, so an idle pool still goes quiet at once. On an
/// executor with more workers than CPUs a spinning worker yields its CPU between two looks
/// instead (`State::oversubscribed`).
const SPIN_BEFORE_PARK: std::time::Duration = std::time::Duration::from_micros(25);

/// A worker whose last spin found nothing skips the spin, except on every this many
/// fruitless searches, when it spins again to see whether spinning pays off now. Spinning
/// pays off for fine-grained compute (the scatter-gather barrier); under IO load the next
/// task comes from the driver, not from a peer, and a spinning worker takes the CPU that
/// the client or a peer needs. The price is paid by a thread outside the pool that hands
/// work over in bursts (it finds a worker parked more often). `docs/http.md` has the
/// measured trade.
const SPIN_PROBE_INTERVAL: u32 = 16;

/// The loop's private state, kept across restarts of the loop.
struct LoopState {
    /// Polls left until the next maintenance ([`FAIRNESS_INTERVAL`]): the fairness check,
    /// the busy worker's driver turn, the report of the counters.
    until_maintenance: u32,
    /// Set by the maintenance: the next search for a task starts with the fairness check.
    fairness_due: bool,
    /// Fairness checks so far (wrapping): which queue the next one looks at first.
    fairness_round: u32,
    /// Consecutive LIFO-slot runs that count against [`MAX_LIFO_HANDOFFS`].
    handoffs: u32,
    /// Whether the task polled last is still alive (its poll did not complete it).
    last_pending: bool,
    /// Whether this worker counts as a searcher in the notifier.
    searching: bool,
    /// xorshift state for picking the first victim.
    rng: u64,
    /// When the current stretch of polls began (`WorkerStats::busy`), if one is going on.
    busy_since: Option<Instant>,
    /// Held from the start of a stretch of polls until the worker parks: keeps the epoch
    /// ticker awake (`runtime/time/epoch.rs`), and with it the observer's tick (the coarse
    /// clock of task stamps and the slow-poll scan, `runtime/observe/`). One shared add and one fence per wake from a park, none per
    /// poll or per dry search.
    ticking: Option<crate::runtime::time::epoch::Active<'static>>,
    /// Polls not yet added to the worker's counters: reported with the busy time, at the
    /// end of each stretch and every [`FAIRNESS_INTERVAL`] polls, rather than one shared
    /// atomic add per poll.
    unreported_polls: u32,
    /// Fruitless searches since the last spin that found work (0: the last spin paid off).
    dry_searches: u32,
    /// The shared queue the last batch of step 3 came from, the tasks it left on the deque,
    /// and the polls left until the maintenance when it was taken: the maintenance tells
    /// from them whether tasks of the batch still wait (fewer polls than it left ran since,
    /// each taking one), and if so the fairness check after it skips that queue
    /// (`serving`, [`WorkerLocal::fairness_pick`]). No count per poll.
    batch_from: BatchFrom,
    batch_left: u32,
    batch_at: u32,
    serving: Option<BatchFrom>,
}

/// The shared queue a batch on the deque came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BatchFrom {
    Inbox,
    Injector,
}

/// The body of worker thread `index`.
pub(crate) fn run(state: Arc<State>, index: usize, deque: Worker<Runnable>) {
    let _enter = context::enter(Arc::clone(&state));
    if let Some(watch) = &state.poll_watch {
        watch.worker_started(index);
    }
    state.workers[index].hold.set_thread();
    // Its pieces go to its own shard of the fork-join board.
    crate::runtime::scheduler::forkjoin::board::set_home(index);
    let parker = Parker::with_reactor(Arc::clone(&state.driver));
    let worker = WorkerLocal::new(state, index, deque);
    let mut st = LoopState {
        until_maintenance: FAIRNESS_INTERVAL,
        fairness_due: false,
        fairness_round: 0,
        handoffs: 0,
        last_pending: false,
        searching: false,
        rng: 0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1) << 17),
        busy_since: None,
        ticking: None,
        unreported_polls: 0,
        dry_searches: 0,
        batch_from: BatchFrom::Inbox,
        batch_left: 0,
        batch_at: 0,
        serving: None,
    };
    {
        let _installed = context::enter_worker(&worker);
        loop {
            let turn = catch_unwind(AssertUnwindSafe(|| {
                WorkerLoop::new(&worker, &mut st, &parker).run();
            }));
            match turn {
                Ok(()) => break,
                // The loop's drop gave back its booking in the notifier; start it again.
                Err(payload) => drop_quietly(payload),
            }
        }
        worker.drain_on_exit();
    }
    // From here on this thread is no worker: tasks it drops are counted globally.
    task_count::holder_left(&worker.state, Some(index));
}

/// The worker loop (module docs): run, search, park, until the executor shuts down.
struct WorkerLoop<'a> {
    worker: &'a WorkerLocal,
    st: &'a mut LoopState,
    /// Where this worker sleeps: the IO driver's OS poll when it gets it, else its
    /// condition variable. The notifier's notification unparks it.
    parker: &'a Parker<Driver>,
    /// Set while the worker is booked as sleeping in the notifier (between
    /// its booking in `Idle::park` and the end of its sleep): what its drop gives back.
    listener: Option<EventListener>,
}

impl<'a> WorkerLoop<'a> {
    fn new(
        worker: &'a WorkerLocal,
        st: &'a mut LoopState,
        parker: &'a Parker<Driver>,
    ) -> WorkerLoop<'a> {
        WorkerLoop {
            worker,
            st,
            parker,
            listener: None,
        }
    }

    /// Runs until the executor shuts down.
    fn run(&mut self) {
        let worker = self.worker;
        let state = &*worker.state;
        loop {
            match worker.find_task_or_spin(self.st) {
                Some(task) => {
                    worker.run_task(self.st, task);
                    if state.is_shut_down() {
                        worker.end_busy(self.st);
                        return;
                    }
                    if self.st.until_maintenance == 0 {
                        worker.maintenance(self.st);
                    }
                }
                None if state.is_shut_down() => return,
                // Out of tasks: a piece of fork-join work on offer (step 5's end).
                None if worker.run_piece(self.st) => {
                    if state.is_shut_down() {
                        return;
                    }
                }
                // Out of tasks (step 6): first what the OS has ready (without blocking, and
                // only if no other worker holds the driver), then park. The tasks the turn
                // wakes are placed as from a running worker.
                None if worker.turn_driver(Pace::Now).woke => {}
                // Work in sight (another worker's deque, the injector) that this worker
                // could not take now (the searcher cap): look again rather than book a park
                // only to take it back at once. A shortcut only: `Idle::park`'s re-check
                // is what rules out a lost wake-up.
                None if state.has_work() || state.forkjoin.mail.has(worker.index) => {
                    std::hint::spin_loop()
                }
                None => self.park(),
            }
        }
    }

    /// Step 6's park: book the worker as sleeping, re-check, and sleep until a notifier
    /// wakes it (`park/README.md`).
    fn park(&mut self) {
        let worker = self.worker;
        let state = &*worker.state;
        let parker = self.parker;
        // The worker stops keeping the ticker up only here, not at each dry search: a worker
        // that finds work again before it parks pays no enter and leave (two read-modify-writes
        // of a counter every worker shares).
        self.st.ticking = None;
        // Tasks woken on this thread from here on (by the IO events it delivers while it
        // waits in the driver) go through the inboxes, whose push wakes it.
        worker.set_parked(true);
        // The re-check, once the worker is booked as sleeping. The deferred list counts as
        // work: a task held there has no one to release it while its worker sleeps. (Step
        // 4 emptied it before `find_task` came back empty, and no task has run since.)
        // On a paused clock (`test-util`), the last worker to park jumps the clock to the
        // next timer and looks again (`runtime/scheduler/auto_advance.rs`).
        // This worker's pinned queue counts too: no other worker may take its tasks; and so
        // does its mail (`forkjoin/mail.rs`), for the same reason.
        let recheck = || {
            state.has_work()
                || worker.has_deferred()
                || worker.has_pinned()
                || state.forkjoin.mail.has(worker.index)
                || crate::runtime::scheduler::auto_advance::on_park(state)
        };
        let parked = state.idle.park(
            worker.index,
            self.st.searching,
            parker,
            recheck,
            &mut self.listener,
        );
        worker.set_parked(false);
        worker.after_park(self.st, parked);
    }
}

impl Drop for WorkerLoop<'_> {
    fn drop(&mut self) {
        // Unwinding out of a park: give back the booking as a wake-up would, so that the
        // notifier's counts stay exact (module invariants).
        let worker = self.worker;
        if let Some(parked) =
            worker
                .state
                .idle
                .unbook_unwound(worker.index, &mut self.listener, self.parker)
        {
            worker.set_parked(false);
            worker.after_park(self.st, parked);
        }
    }
}

impl WorkerLocal {
    fn counters(&self) -> &crate::runtime::stats::Counters {
        &self.state.workers[self.index].counters
    }

    /// Finds the next task (steps 1–5), or `None` if there is none to be had now.
    fn find_task(&self, st: &mut LoopState) -> Option<Runnable> {
        let task = self.next_task(st).or_else(|| self.search(st))?;
        self.end_search(st);
        Some(task)
    }

    /// Finds a task; a searcher that finds none keeps looking for up to
    /// [`SPIN_BEFORE_PARK`].
    #[inline]
    fn find_task_or_spin(&self, st: &mut LoopState) -> Option<Runnable> {
        if let Some(task) = self.find_task(st) {
            return Some(task);
        }
        self.end_busy(st);
        let another_call_soon = self.take_another_call_soon();
        if !st.searching {
            return None;
        }
        // Spin only while spinning pays off, probing now and then (SPIN_PROBE_INTERVAL), or
        // while a worker does fork-join work: it publishes a piece for a searcher at its next
        // join (`forkjoin/thread.rs`), while a sleeper would wait for its next heartbeat.
        // And after a call from outside the executor: its thread is likely to make the next
        // one at once, which a parked worker would wait a wake-up for.
        let probe = st.dry_searches % SPIN_PROBE_INTERVAL == 0
            || self.state.forkjoin.is_busy()
            || another_call_soon;
        st.dry_searches = st.dry_searches.wrapping_add(1);
        if !probe {
            return None;
        }
        let started = std::time::Instant::now();
        while started.elapsed() < SPIN_BEFORE_PARK && !self.state.is_shut_down() {
            if self.state.oversubscribed {
                std::thread::yield_now();
            } else {
                // A piece is looked for after each pause (one relaxed load or two), so that
                // a spinning thief starts on a fresh call's piece within a pause or so; a
                // task only after the whole round (a search of every queue).
                for _ in 0..32 {
                    std::hint::spin_loop();
                    if self.has_piece() {
                        break;
                    }
                }
            }
            if let Some(task) = self.find_task(st) {
                st.dry_searches = 0;
                return Some(task);
            }
            if self.has_piece() {
                // A piece on offer, or in this worker's mail: the loop takes it (`run_piece`).
                st.dry_searches = 0;
                return None;
            }
        }
        None
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

    /// Steps 1–4 of the search order (module docs).
    fn next_task(&self, st: &mut LoopState) -> Option<Runnable> {
        if st.fairness_due {
            st.fairness_due = false;
            st.fairness_round = st.fairness_round.wrapping_add(1);
            // A queue a batch was taken from, while tasks of that batch wait on the deque,
            // is being served: its next task would overtake them.
            if let Some(task) = self.fairness_pick(st.fairness_round, st.serving.take()) {
                if let Some(waiting) = self.take_lifo() {
                    self.deque.push(waiting);
                    self.state.idle.notify_work();
                }
                st.handoffs = 0;
                return Some(task);
            }
        }
        match self.take_lifo() {
            // Fork-join's continuations do not count: a task spawned and not run yet, or
            // one woken by a poll that completed its task (a child waking its parent).
            Some(task) if !st.last_pending || task.metadata().last_worker().is_none() => {
                return Some(task);
            }
            Some(task) if st.handoffs < MAX_LIFO_HANDOFFS => {
                st.handoffs += 1;
                return Some(task);
            }
            Some(task) => {
                // Cap reached: the hand-off chain goes to the back of this worker's inbox
                // (FIFO, and stealable); the deque's newest task runs.
                st.handoffs = 0;
                schedule::push_to_worker(&self.state, self.index, task);
            }
            None => st.handoffs = 0,
        }
        if let Some(task) = self.deque.pop() {
            if self.has_fresh_deferred() && task.metadata().hint(YIELDED) {
                // A task that has yielded (perhaps one an earlier turn moved here), while a
                // task newer in depth-first order (one that yielded in its first poll: a fork
                // that awaited before it forks) waits in the deferred list: that one goes on
                // top of it first, so a tree whose nodes yield before they fork stays
                // depth-first (step 4).
                self.deque.push(task);
                return self.pop_deferred();
            }
            return Some(task);
        }
        if let Some(task) = self.pop_pinned() {
            return Some(task);
        }
        // The deque is empty: what a batch leaves on it is that batch's.
        let (task, from) = match self.pop_inbox() {
            Some(task) => (Some(task), BatchFrom::Inbox),
            None => (self.pop_injector(), BatchFrom::Injector),
        };
        if task.is_some() {
            st.batch_from = from;
            st.batch_left = u32::try_from(self.deque.len()).unwrap_or(u32::MAX);
            st.batch_at = st.until_maintenance;
            return task;
        }
        self.pop_deferred()
    }

    /// Step 1: one task from the queue whose turn it is (`round`: fairness checks so far),
    /// the injector or the inbox, alternately (and the pinned queue, in a rotation of three,
    /// while pinned tasks wait in it: `pinned/worker_side.rs`); from another if it is empty. One
    /// task, not a batch: a batch would go onto the deque, above the tasks already there.
    /// The queue `serving` names is skipped: tasks of a batch taken from it wait on the
    /// deque, and its next task would overtake them (tasks woken by events, in event order).
    fn fairness_pick(&self, round: u32, serving: Option<BatchFrom>) -> Option<Runnable> {
        let one = Search::one_at_a_time(&self.state, self.index);
        let inbox = || {
            (serving != Some(BatchFrom::Inbox))
                .then(|| one.inbox())
                .flatten()
        };
        let injector = || {
            (serving != Some(BatchFrom::Injector))
                .then(|| one.injector())
                .flatten()
        };
        let pinned = || self.pop_pinned();
        let turns = if self.has_pinned() { 3 } else { 2 };
        match round % turns {
            0 => injector().or_else(inbox).or_else(pinned),
            1 => inbox().or_else(injector).or_else(pinned),
            _ => pinned().or_else(injector).or_else(inbox),
        }
    }

    /// This worker's search of the shared queues (`search.rs`): batches into its deque.
    #[inline]
    fn shared_queues(&self) -> Search<'_> {
        Search::batches(&self.state, self.index, &self.deque)
    }

    fn pop_inbox(&self) -> Option<Runnable> {
        let task = self.shared_queues().inbox();
        self.announce_batch(task)
    }

    fn pop_injector(&self) -> Option<Runnable> {
        let task = self.shared_queues().injector();
        self.announce_batch(task)
    }

    /// After a batch moved onto this worker's deque (from a shared queue, or another
    /// worker's deque or inbox): if tasks of it wait there, tells the idle workers, as a
    /// push does. While the batch moved it was in neither queue (crossbeam takes it from
    /// the source before it publishes it in the deque), so a searcher that looked at both
    /// then may have found nothing and parked: the notification the batch's first push made
    /// was spent on it, and without this one the batch waits for this worker alone (two
    /// tasks that must run at once, on a barrier, would wait for each other for good).
    #[inline]
    fn announce_batch(&self, task: Option<Runnable>) -> Option<Runnable> {
        if task.is_some() && !self.deque.is_empty() {
            self.state.idle.notify_work();
        }
        task
    }

    /// Step 4: with nothing else of its own to run, a worker with deferred tasks takes (or
    /// tries) a driver turn, which moves them onto the deque, and runs the first that
    /// yielded; idle workers may steal the others (and are told so). The tasks the turn
    /// woke wait in the inbox, or run now if thieves took the deferred ones first.
    fn pop_deferred(&self) -> Option<Runnable> {
        if !self.has_deferred() {
            return None;
        }
        if self.turn_driver(Pace::Now).released > 1 {
            self.state.idle.notify_work();
        }
        self.deque.pop().or_else(|| self.pop_inbox())
    }

    /// What a busy worker does every [`FAIRNESS_INTERVAL`] polls: it reports its busy time
    /// and polls (so that a worker that never runs out of work does not lag), marks the
    /// fairness check (step 1) due, and takes a turn of the driver if nobody holds it
    /// (module docs): a paced one ([`Pace::IfDue`]), or one now if tasks wait in the
    /// deferred list. The released tasks go onto the deque, where idle workers may steal
    /// them (and are told so).
    #[inline(never)]
    fn maintenance(&self, st: &mut LoopState) {
        // The last batch's tasks still wait if fewer polls than it left ran since it came
        // (each ran one task); a batch of an earlier interval is done (a batch is at most
        // 32 tasks, fewer than an interval's polls).
        st.serving = (st.batch_left > st.batch_at).then_some(st.batch_from);
        st.batch_left = 0;
        st.until_maintenance = FAIRNESS_INTERVAL;
        st.fairness_due = true;
        self.end_busy(st);
        let pace = if self.has_deferred() {
            Pace::Now
        } else {
            Pace::IfDue
        };
        if self.turn_driver(pace).released > 0 {
            self.state.idle.notify_work();
        }
    }

    /// A turn of the driver that does not block ([`Driver::turn_nonblocking`]), then, taken
    /// or not, the deferred tasks move onto the deque, to be popped in the order they
    /// yielded (when another worker holds the driver, that one is turning it and delivers
    /// the events). Tasks the turn wakes go through the inboxes, in event order, by the wake
    /// policy (`schedule.rs`).
    ///
    /// Out of line, as `maintenance`, and `run_task` and `find_task_or_spin` marked
    /// `#[inline]`: the turn comes once per dozens of polls, and the per-poll path stays
    /// inside the worker's loop (left to itself, the compiler calls the per-poll functions
    /// out of line, which costs time per yield in a `yield_many`-shaped loop).
    #[inline(never)]
    fn turn_driver(&self, pace: Pace) -> Turn {
        let woke = self.delivering(|| self.state.driver.turn_nonblocking(pace));
        Turn {
            woke,
            released: self.release_deferred(),
        }
    }

    /// Step 5: steal from the other workers, as a searcher.
    fn search(&self, st: &mut LoopState) -> Option<Runnable> {
        let n = self.state.num_workers();
        if !st.searching {
            if !self.state.idle.try_start_search() {
                return None;
            }
            st.searching = true;
        }
        if n == 1 {
            // Nobody to steal from; a searcher still, so that it spins for work handed
            // over from outside the pool (`find_task_or_spin`) as any searcher does.
            return None;
        }
        let mut attempts = 0;
        let mut found = None;
        let search = self.shared_queues();
        for _ in 0..STEAL_ROUNDS {
            let start = (crate::util::rng::next(&mut st.rng) % n as u64) as usize;
            if let Some(task) = search.round(start, &mut attempts) {
                found = self.announce_batch(Some(task));
                break;
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
        if self.state.idle.end_search() && (!self.deque.is_empty() || self.state.has_work()) {
            self.state.idle.notify_work();
        }
    }

    /// As [`end_search`](WorkerLocal::end_search), for a searcher about to take a piece of
    /// fork-join work (`run_piece`): the piece it takes is not work left over, so the last
    /// searcher wakes a worker for pieces only if more are on offer than the one it takes
    /// (from the board; one from its mail leaves the board's all to others), and for tasks
    /// as `end_search` does.
    fn end_search_for_piece(&self, st: &mut LoopState) {
        if !st.searching {
            return;
        }
        st.searching = false;
        if !self.state.idle.end_search() {
            return;
        }
        // Relaxed loads after `end_search`'s SeqCst RMW, as in `end_search`: a publication
        // this misses saw no searcher and woke a worker itself.
        let fj = &self.state.forkjoin;
        let tasks = !self.deque.is_empty() || self.state.has_tasks();
        match left_over(tasks, fj.board.available(), fj.mail.has(self.index)) {
            LeftOver::Tasks => self.state.idle.notify_work(),
            LeftOver::Pieces => {
                crate::runtime::scheduler::forkjoin::publish::wake_for_piece(&self.state)
            }
            LeftOver::Nothing => {}
        }
    }

    /// Ends the current stretch of polls, adding it to the busy time and its polls to the
    /// poll count.
    fn end_busy(&self, st: &mut LoopState) {
        if let Some(since) = st.busy_since.take() {
            let counters = self.counters();
            counters.add_busy(since.elapsed());
            counters.add_polls(u64::from(std::mem::take(&mut st.unreported_polls)));
        }
    }

    #[inline]
    fn run_task(&self, st: &mut LoopState, task: Runnable) {
        if st.busy_since.is_none() {
            let now = Instant::now();
            st.busy_since = Some(now);
            // The coarse clock of task stamps moves with this reading (`runtime/observe/coarse_clock.rs`).
            crate::runtime::observe::coarse_clock::refresh(now);
            if st.ticking.is_none() {
                st.ticking = Some(crate::runtime::time::epoch::Active::enter());
            }
        }
        let meta = task.metadata();
        self.begin_poll(meta, meta.last_worker().is_none());
        meta.set_last_worker(self.index);
        let hold = &self.state.workers[self.index].hold;
        hold.begin();
        // `with_budget` also drops a yield mark of an earlier poll that did not end in a
        // self-wake; the completion mark was taken after the last poll.
        // `TaskFuture` catches the task's panics, including its destructors'; this is a
        // second line for a panic from the runtime itself, so that the worker survives.
        if let Err(payload) =
            catch_unwind(AssertUnwindSafe(|| self.coop.with_budget(|| task.run())))
        {
            drop_quietly(payload);
        }
        if hold.end() {
            hand_back(self);
        }
        self.end_poll();
        st.last_pending = !self.take_completed();
        st.unreported_polls += 1;
        st.until_maintenance -= 1;
    }

    /// Whether a piece of fork-join work is on offer, or in this worker's mail (a hint).
    #[inline]
    fn has_piece(&self) -> bool {
        self.state.forkjoin.board.available() != 0 || self.state.forkjoin.mail.has(self.index)
    }

    /// Takes a piece of fork-join work from this worker's mail or the board and runs it, if
    /// one is there
    /// (`forkjoin/`); counted as busy time, not as a poll.
    #[inline(never)]
    fn run_piece(&self, st: &mut LoopState) -> bool {
        if !self.has_piece() {
            return false;
        }
        self.end_search_for_piece(st);
        let started = Instant::now();
        if st.ticking.is_none() {
            // The heartbeat of the piece's joins: the ticker's epoch moves while it runs.
            st.ticking = Some(crate::runtime::time::epoch::Active::enter());
        }
        // A piece is watched as a poll: one that holds the worker for a tick is handed over.
        let hold = &self.state.workers[self.index].hold;
        hold.begin();
        let ran = crate::runtime::scheduler::forkjoin::occupy::run_from_board(self);
        if hold.end() {
            hand_back(self);
        }
        if ran {
            self.counters().add_busy(started.elapsed());
            st.handoffs = 0;
        }
        ran
    }

    /// Drops every task left in this worker's private queues after shutdown, then helps
    /// drain the shared ones.
    fn drain_on_exit(&self) {
        while let Some(task) = self.pop_any_private() {
            drop(task);
        }
        self.drain_pinned_on_exit();
        self.state.drain_after_shutdown();
    }
}

/// What the last searcher to leave, about to take a piece, leaves to the other workers
/// ([`WorkerLocal::end_search_for_piece`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeftOver {
    /// Tasks in a queue any worker may take from: wake a worker as for a push.
    Tasks,
    /// Pieces beyond the one it takes: wake a worker that takes pieces.
    Pieces,
    /// Nothing: the piece it takes was the only work.
    Nothing,
}

/// What is left over when a searcher takes a piece: `tasks` in shared queues, `on_board`
/// pieces on the board, and whether the piece it takes comes from its mail (which it
/// takes first) rather than the board.
fn left_over(tasks: bool, on_board: usize, from_mail: bool) -> LeftOver {
    if tasks {
        LeftOver::Tasks
    } else if on_board > usize::from(!from_mail) {
        LeftOver::Pieces
    } else {
        LeftOver::Nothing
    }
}

/// What a non-blocking driver turn did ([`WorkerLocal::turn_driver`]).
struct Turn {
    /// Whether it woke a task (an IO event or a timer).
    woke: bool,
    /// How many deferred tasks moved onto the deque.
    released: usize,
}
