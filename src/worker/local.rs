//! [`WorkerLocal`]: the part of a worker that only its own thread touches (the owner end of
//! its deque, its LIFO slot, the tasks that yielded), together with its index and its
//! executor's state.
//!
//! The LIFO slot and the yielded list are private: no other worker can steal from them.
//!
//! It lives on the worker thread's stack for the thread's whole life as a worker; the
//! thread-local pointer to it (`context.rs`) lets the schedule function reach it. Every
//! method takes `&self`: the mutable parts are cells and crossbeam's `Worker`, and all of
//! them are used by the owning thread only (`WorkerLocal` is not `Sync`).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crossbeam_deque::Worker;

use crate::state::{Runnable, State};

/// The private part of one worker (module docs).
pub(crate) struct WorkerLocal {
    pub(crate) state: Arc<State>,
    pub(crate) index: usize,
    /// The owner end of this worker's deque: FIFO, so the owner takes its oldest task, as
    /// thieves do (the LIFO slot is where the newest task runs first). A LIFO deque let a
    /// backlog's oldest tasks wait behind every newer wake-up: the HTTP benchmark's p99 at
    /// 1000 connections was 2-3x tokio's.
    pub(crate) deque: Worker<Runnable>,
    /// The task the current poll woke or spawned; it runs next. Not stealable.
    lifo: Cell<Option<Runnable>>,
    /// Set while the worker sleeps in its park: tasks woken on this thread then (by the
    /// reactor that a parked worker drives) go through the inboxes, which wake it.
    parked: Cell<bool>,
    /// Set by `yield_now` during the current poll (cleared before each poll): the task
    /// that wakes itself now is held back behind the other ready work.
    yielding: Cell<bool>,
    /// Tasks that yielded, oldest first. They run once the deque, the inbox and the
    /// injector are empty; they move to the deque then, where other workers can steal them.
    /// Private, so a yield costs no atomic operation.
    yielded: RefCell<Vec<Runnable>>,
}

impl WorkerLocal {
    pub(crate) fn new(state: Arc<State>, index: usize, deque: Worker<Runnable>) -> WorkerLocal {
        WorkerLocal {
            state,
            index,
            deque,
            lifo: Cell::new(None),
            parked: Cell::new(false),
            yielding: Cell::new(false),
            yielded: RefCell::new(Vec::new()),
        }
    }

    /// Whether the worker is sleeping in its park (see the field).
    pub(crate) fn is_parked(&self) -> bool {
        self.parked.get()
    }

    pub(crate) fn set_parked(&self, parked: bool) {
        self.parked.set(parked);
    }

    /// `yield_now` was polled by the task running now.
    pub(crate) fn note_yield(&self) {
        self.yielding.set(true);
    }

    /// Whether the task running now yielded; clears the mark.
    pub(crate) fn take_yield(&self) -> bool {
        self.yielding.replace(false)
    }

    /// Puts `runnable` in the LIFO slot, returning the task it displaces.
    pub(crate) fn put_lifo(&self, runnable: Runnable) -> Option<Runnable> {
        self.lifo.replace(Some(runnable))
    }

    /// Takes the task in the LIFO slot.
    pub(crate) fn take_lifo(&self) -> Option<Runnable> {
        self.lifo.take()
    }

    /// Queues a task that yielded behind all other ready work here.
    pub(crate) fn push_yielded(&self, runnable: Runnable) {
        self.yielded.borrow_mut().push(runnable);
    }

    /// Moves the yielded tasks onto the (empty) deque, oldest first, and takes the oldest.
    /// Returns whether more than one moved (the caller lets the other workers know).
    pub(crate) fn take_yielded(&self) -> Option<(Runnable, bool)> {
        let mut yielded = self.yielded.borrow_mut();
        let count = yielded.len();
        let mut drained = yielded.drain(..);
        let first = drained.next()?;
        for task in drained {
            self.deque.push(task);
        }
        Some((first, count > 1))
    }

    /// Takes any task left in the private queues (at exit).
    pub(crate) fn pop_any_private(&self) -> Option<Runnable> {
        self.lifo
            .take()
            .or_else(|| self.deque.pop())
            .or_else(|| self.yielded.borrow_mut().pop())
    }
}
