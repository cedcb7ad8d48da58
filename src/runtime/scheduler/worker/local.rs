//! [`WorkerLocal`]: the part of a worker that only its own thread touches (the owner end of
//! its deque, its LIFO slot, the deferred list of tasks that yielded), together with its
//! index and its executor's state.
//!
//! The deque is LIFO for its owner (it pops the task it pushed last) and FIFO for thieves
//! (they take the oldest), so fork-join by spawning runs depth-first on each worker. The
//! LIFO slot and the deferred list are private: no other worker can steal from them. A
//! task in the deferred list is released onto the deque (where it can be stolen) by the
//! worker's next driver turn, or its next try at one (`mod.rs`); nothing stays
//! deferred while the worker sleeps (the re-check before a park counts the list as work).
//! Around each poll the worker keeps what the schedule function asks about the polled task:
//! whether the tasks it spawns are forks or a generator's requests, and whether this is its
//! first poll.
//! While the worker delivers the events of a driver turn (`delivering`), the tasks they
//! wake go to the FIFO inboxes instead (`schedule.rs`): they are served in event order.
//!
//! It lives on the worker thread's stack for the thread's whole life as a worker; the
//! thread-local pointer to it (`context.rs`) lets the schedule function reach it. Every
//! method takes `&self`: the mutable parts are cells and crossbeam's `Worker`, and all of
//! them are used by the owning thread only (`WorkerLocal` is not `Sync`).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crossbeam_deque::Worker;

use crate::runtime::coop::ThreadCoop;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::task::{TaskMeta, SPAWNED, YIELDED};

/// What the worker knows of the poll in flight, as bits ([`WorkerLocal::begin_poll`]).
mod poll_bits {
    /// A poll runs (`polling` points to its task's metadata).
    pub(super) const IN_POLL: u8 = 1;
    /// It is its task's first poll.
    pub(super) const FIRST: u8 = 2;
    /// The tasks it spawns are forks: it is its task's first poll that spawns (depth-first,
    /// onto the deque).
    pub(super) const FORKS: u8 = 4;
    /// The tasks it spawns are a generator's requests: its task spawned in an earlier poll
    /// (FIFO, through the inbox).
    pub(super) const GENERATED: u8 = 8;
}

/// The private part of one worker (module docs).
pub(crate) struct WorkerLocal {
    pub(crate) state: Arc<State>,
    pub(crate) index: usize,
    /// The owner end of this worker's deque: LIFO, so the owner takes its newest task
    /// (depth-first), while thieves take the oldest.
    pub(crate) deque: Worker<Runnable>,
    /// The task the current poll woke or spawned; it runs next. Not stealable.
    lifo: Cell<Option<Runnable>>,
    /// Set while the worker sleeps in its park: tasks woken on this thread then (by the
    /// reactor that a parked worker drives) go through the inboxes, which wake it.
    parked: Cell<bool>,
    /// Set while this thread takes a driver turn (a busy worker's, between two polls): the
    /// tasks that the turn's events and timers wake go through the inboxes the wake policy
    /// picks, in event order, rather than the LIFO slot and deque, which would run the last
    /// woken first.
    delivering: Cell<bool>,
    /// The metadata of the task being polled now: the spawner of the tasks this poll
    /// spawns. Valid while `poll` has [`poll_bits::IN_POLL`]: async-task keeps the task
    /// alive for the whole of `Runnable::run`, which that bit is set around.
    polling: Cell<*const TaskMeta<State>>,
    /// [`poll_bits`]: whether a poll runs, whether it is its task's first, and what the
    /// tasks it spawns are (decided by its first spawn,
    /// [`WorkerLocal::spawn_is_generated`]).
    poll: Cell<u8>,
    /// Set by the poll that completes its task (cleared before each poll): tells a hand-off
    /// through the LIFO slot from a task that ended (a child waking its parent, fork-join's
    /// continuation) from one between tasks that stay (two tasks waking each other).
    completed: Cell<bool>,
    /// Tasks that yielded, oldest first, waiting for the worker's next driver turn (or try
    /// at one), which moves them onto the deque in that order (tokio's `Defer`). Private,
    /// so a yield costs no atomic operation.
    deferred: RefCell<Vec<Runnable>>,
    /// Set while the deferred list holds a task that yielded in its first poll (a fork that
    /// awaited before it forks): newer, in depth-first order, than the yielded tasks an
    /// earlier turn moved onto the deque (`mod.rs`, step 4).
    fresh_deferred: Cell<bool>,
    /// This thread's cooperative budget and yield mark, set at each poll and read when a
    /// task wakes itself (`runtime/coop.rs`). Its raw pointer also keeps `WorkerLocal` on its
    /// thread (neither `Send` nor `Sync`).
    pub(crate) coop: ThreadCoop,
    /// Set while the thread does fork-join work (`runtime/scheduler/forkjoin/occupy.rs`): it
    /// runs no task meanwhile, so the tasks it wakes or spawns go to the injector, where
    /// others take them, rather than to its private queues.
    occupied: Cell<bool>,
    /// Set while the thread is inside `task::block_in_place` (`forkjoin/occupy.rs`,
    /// `Blocking`): the worker's place is taken, so the thread may block, in `block_on` too.
    blocking: Cell<bool>,
    /// Set while the thread counts in `ForkJoin::is_busy` (`forkjoin/occupy.rs`): occupied,
    /// and neither in `block_in_place` nor waiting for a call into another executor, so it
    /// comes back to the board when its work ends.
    counted: Cell<bool>,
    /// The epoch when fork-join work last started here.
    forkjoin_epoch: Cell<u64>,
    /// Set when this worker ends a fork-join call that a thread outside the executor made
    /// and waits for (`forkjoin/inject.rs`): that thread most likely makes another as soon
    /// as it wakes (a loop of `install` or `par_iter` calls from `main`), so the worker's
    /// next search spins before it parks, whatever the spin's probe policy says.
    another_call_soon: Cell<bool>,
}

impl WorkerLocal {
    /// The private part of a worker whose thread calls this.
    pub(crate) fn new(state: Arc<State>, index: usize, deque: Worker<Runnable>) -> WorkerLocal {
        WorkerLocal {
            state,
            index,
            deque,
            lifo: Cell::new(None),
            parked: Cell::new(false),
            delivering: Cell::new(false),
            polling: Cell::new(std::ptr::null()),
            poll: Cell::new(0),
            completed: Cell::new(false),
            deferred: RefCell::new(Vec::new()),
            fresh_deferred: Cell::new(false),
            coop: ThreadCoop::current(),
            occupied: Cell::new(false),
            blocking: Cell::new(false),
            counted: Cell::new(false),
            forkjoin_epoch: Cell::new(u64::MAX),
            another_call_soon: Cell::new(false),
        }
    }

    /// Tells the worker loop that a call from outside the executor just ended here
    /// (`another_call_soon`).
    pub(crate) fn expect_another_call(&self) {
        self.another_call_soon.set(true);
    }

    /// Whether a call from outside ended here since the last look, clearing it.
    pub(crate) fn take_another_call_soon(&self) -> bool {
        self.another_call_soon.replace(false)
    }

    /// Whether fork-join work starting now is the first to start on this worker since the
    /// epoch ticker's last tick (`forkjoin/thread.rs`, `FjThread::new`).
    pub(crate) fn first_forkjoin_this_tick(&self) -> bool {
        let now = crate::runtime::time::epoch::now();
        self.forkjoin_epoch.replace(now) != now
    }

    /// Whether the thread does fork-join work now (see `occupied`).
    #[inline]
    pub(crate) fn is_occupied(&self) -> bool {
        self.occupied.get()
    }

    /// Marks the start or the end of fork-join work (`forkjoin/occupy.rs`); returns the
    /// previous value.
    pub(crate) fn set_occupied(&self, occupied: bool) -> bool {
        self.occupied.replace(occupied)
    }

    /// Whether the thread is inside `task::block_in_place` (see `blocking`).
    pub(crate) fn is_blocking(&self) -> bool {
        self.blocking.get()
    }

    /// Marks the start or the end of a `block_in_place` call; returns the previous value.
    pub(crate) fn set_blocking(&self, blocking: bool) -> bool {
        self.blocking.replace(blocking)
    }

    /// Marks whether the thread counts in `ForkJoin::is_busy` (see `counted`); returns the
    /// previous value.
    pub(crate) fn set_counted(&self, counted: bool) -> bool {
        self.counted.replace(counted)
    }

    pub(crate) fn set_parked(&self, parked: bool) {
        self.parked.set(parked);
    }

    /// Whether the tasks woken now must go through the inboxes: the worker delivers the
    /// events of a driver turn, or it sleeps.
    #[inline]
    pub(crate) fn wakes_go_to_inbox(&self) -> bool {
        self.delivering.get() || self.parked.get()
    }

    /// Runs `turn` (a driver turn) with wake-ups placed in event order, on the inboxes (see
    /// `delivering`).
    pub(crate) fn delivering<R>(&self, turn: impl FnOnce() -> R) -> R {
        /// Puts the earlier value back also when a waker run by the turn panics.
        struct Reset<'a>(&'a Cell<bool>, bool);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _reset = Reset(&self.delivering, self.delivering.replace(true));
        turn()
    }

    /// Marks the start of a poll of the task whose metadata is `meta` (`first`: its first
    /// poll).
    #[inline]
    pub(crate) fn begin_poll(&self, meta: &TaskMeta<State>, first: bool) {
        self.polling.set(meta);
        let first = if first { poll_bits::FIRST } else { 0 };
        self.poll.set(poll_bits::IN_POLL | first);
    }

    /// Marks the end of the poll that [`WorkerLocal::begin_poll`] began.
    #[inline]
    pub(crate) fn end_poll(&self) {
        self.poll.set(0);
    }

    /// Whether a task spawned now is a generator's request rather than a fork: whether the
    /// task being polled spawned in an earlier poll. A poll's first spawn decides for the
    /// whole poll and marks the spawner ([`SPAWNED`]): the tasks of the first poll that
    /// spawns anything are forks, whatever the polls before it awaited (`schedule.rs`). A
    /// spawn outside any task's poll (by a waker a driver turn runs) counts as a
    /// generator's.
    #[inline]
    pub(crate) fn spawn_is_generated(&self) -> bool {
        let poll = self.poll.get();
        if poll & poll_bits::FORKS != 0 {
            return false;
        }
        if poll & (poll_bits::GENERATED | poll_bits::IN_POLL) != poll_bits::IN_POLL {
            // Decided already, or no poll runs.
            return true;
        }
        self.decide_spawns(poll)
    }

    /// The first spawn of the poll in flight (`poll`: its bits) decides what its spawns are
    /// (see [`WorkerLocal::spawn_is_generated`]). Out of line: once per poll that spawns.
    #[inline(never)]
    fn decide_spawns(&self, poll: u8) -> bool {
        // SAFETY: `IN_POLL` is set (the caller checked), so `polling` is the metadata of the
        // task being polled, which async-task keeps alive until `end_poll` clears the bit
        // (see the field).
        let spawner = unsafe { &*self.polling.get() };
        let generated = spawner.hint(SPAWNED);
        if !generated {
            spawner.set_hint(SPAWNED, true);
        }
        let decided = if generated {
            poll_bits::GENERATED
        } else {
            poll_bits::FORKS
        };
        self.poll.set(poll | decided);
        generated
    }

    /// The task running now completed.
    pub(crate) fn note_completed(&self) {
        self.completed.set(true);
    }

    /// Whether the task that ran last completed; clears the mark.
    pub(crate) fn take_completed(&self) -> bool {
        self.completed.replace(false)
    }

    /// Puts `runnable` in the LIFO slot, returning the task it displaces.
    pub(crate) fn put_lifo(&self, runnable: Runnable) -> Option<Runnable> {
        self.lifo.replace(Some(runnable))
    }

    /// Takes the task in the LIFO slot.
    /// Whether a task waits in this worker's own deque or LIFO slot.
    pub(crate) fn has_own_tasks(&self) -> bool {
        let lifo = self.lifo.take();
        let some = lifo.is_some();
        self.lifo.set(lifo);
        some || !self.deque.is_empty()
    }

    pub(crate) fn take_lifo(&self) -> Option<Runnable> {
        self.lifo.take()
    }

    /// Holds back a task that yielded (the task being polled) until the worker's next driver
    /// turn, marking it [`YIELDED`].
    #[inline(always)]
    pub(crate) fn push_deferred(&self, runnable: Runnable) {
        runnable.metadata().set_hint(YIELDED, true);
        if self.poll.get() & poll_bits::FIRST != 0 {
            self.fresh_deferred.set(true);
        }
        self.deferred.borrow_mut().push(runnable);
    }

    /// Whether the deferred list holds a task that yielded in its first poll (see
    /// `fresh_deferred`).
    pub(crate) fn has_fresh_deferred(&self) -> bool {
        self.fresh_deferred.get()
    }

    /// Whether tasks wait for a driver turn.
    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.borrow().is_empty()
    }

    /// Moves the deferred tasks onto the deque, so that its owner pops them in the order
    /// they yielded (the first to yield is pushed last); returns how many moved (the caller
    /// lets the other workers know). Called after a driver turn, or a try at one.
    pub(crate) fn release_deferred(&self) -> usize {
        let mut deferred = self.deferred.borrow_mut();
        let count = deferred.len();
        self.fresh_deferred.set(false);
        for task in deferred.drain(..).rev() {
            self.deque.push(task);
        }
        count
    }

    /// Moves the private queues' tasks (the deferred list, then the LIFO slot) onto the
    /// deque, where other workers and the stand-in take them, and tells the idle workers:
    /// this thread will run no task for a while (fork-join work, a held poll).
    pub(crate) fn share_private_queues(&self) {
        let mut moved = self.release_deferred();
        if let Some(task) = self.take_lifo() {
            self.deque.push(task);
            moved += 1;
        }
        if moved > 0 {
            self.state.idle.notify_work();
        }
    }

    /// Takes any task left in the private queues (at exit).
    pub(crate) fn pop_any_private(&self) -> Option<Runnable> {
        self.lifo
            .take()
            .or_else(|| self.deque.pop())
            .or_else(|| self.deferred.borrow_mut().pop())
    }
}
