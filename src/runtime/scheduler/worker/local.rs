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
    /// Whether the task being polled now is in its first poll: the tasks it spawns are its
    /// forks (depth-first, onto the deque); those of a later poll are a generator's
    /// requests (FIFO, through the inbox; `schedule.rs`).
    first_poll: Cell<bool>,
    /// Set by the poll that completes its task (cleared before each poll): tells a hand-off
    /// through the LIFO slot from a task that ended (a child waking its parent, fork-join's
    /// continuation) from one between tasks that stay (two tasks waking each other).
    completed: Cell<bool>,
    /// Tasks that yielded, oldest first, waiting for the worker's next driver turn (or try
    /// at one), which moves them onto the deque in that order (tokio's `Defer`). Private,
    /// so a yield costs no atomic operation.
    deferred: RefCell<Vec<Runnable>>,
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
    /// The loop ticker's epoch when fork-join work last started here.
    forkjoin_epoch: Cell<u64>,
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
            first_poll: Cell::new(false),
            completed: Cell::new(false),
            deferred: RefCell::new(Vec::new()),
            coop: ThreadCoop::current(),
            occupied: Cell::new(false),
            blocking: Cell::new(false),
            forkjoin_epoch: Cell::new(u64::MAX),
        }
    }

    /// Whether fork-join work starting now is the first to start on this worker since the
    /// loop ticker's last tick (`forkjoin/thread.rs`, `FjThread::new`).
    pub(crate) fn first_forkjoin_this_tick(&self) -> bool {
        let now = crate::runtime::time::tick::now();
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

    /// Marks whether the task about to be polled is in its first poll.
    #[inline]
    pub(crate) fn set_first_poll(&self, first: bool) {
        self.first_poll.set(first);
    }

    /// Whether the task being polled is in its first poll.
    #[inline]
    pub(crate) fn in_first_poll(&self) -> bool {
        self.first_poll.get()
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
    pub(crate) fn take_lifo(&self) -> Option<Runnable> {
        self.lifo.take()
    }

    /// Holds back a task that yielded until the worker's next driver turn.
    pub(crate) fn push_deferred(&self, runnable: Runnable) {
        self.deferred.borrow_mut().push(runnable);
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
        for task in deferred.drain(..).rev() {
            self.deque.push(task);
        }
        count
    }

    /// Takes any task left in the private queues (at exit).
    pub(crate) fn pop_any_private(&self) -> Option<Runnable> {
        self.lifo
            .take()
            .or_else(|| self.deque.pop())
            .or_else(|| self.deferred.borrow_mut().pop())
    }
}
