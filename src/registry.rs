//! The live-task registry: a waker for every task that has not completed, so that shutdown
//! can reach tasks that sit in no queue because they wait for a wake-up.
//!
//! Sharded by the registering thread (one shard per worker, one for every other thread),
//! each shard a mutex-guarded slab. A task is registered the first time a poll of it returns
//! `Pending` (until then it is always in a queue, which shutdown drains) and removed when its
//! future is dropped (completion, cancellation or shutdown).
//!
//! Invariants:
//! - After [`Registry::close`] no task is registered again: `register` reports the shard
//!   closed, and the task wakes itself so that the schedule function drops it. `close` leaves the entries in place,
//!   so that [`Registry::take_all`] can reach the tasks still alive after the workers stop.
//! - Removal of a key that `take_all` took out is a no-op (the slab it lived in is gone,
//!   and the closed shard never inserts again, so no key is reused).
//! - No waker is called while a shard lock is held, so a task whose destructor spawns,
//!   wakes or completes another task cannot deadlock on the registry.

use std::task::Waker;

use crossbeam_utils::CachePadded;
use slab::Slab;

use crate::sync::{lock, Mutex};

/// Where a task is registered: its shard and its key in that shard's slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    shard: u32,
    key: u32,
}

impl Slot {
    /// The slot of a task that is not registered (it has not waited for a wake-up yet).
    pub(crate) const NONE: Slot = Slot {
        shard: u32::MAX,
        key: u32::MAX,
    };

    /// The slot packed in one word, to keep in an atomic.
    pub(crate) fn to_bits(self) -> u64 {
        (u64::from(self.shard) << 32) | u64::from(self.key)
    }

    /// The inverse of [`Slot::to_bits`].
    pub(crate) fn from_bits(bits: u64) -> Slot {
        Slot {
            shard: (bits >> 32) as u32,
            key: bits as u32,
        }
    }
}

#[derive(Default)]
struct Shard {
    tasks: Slab<Waker>,
    closed: bool,
}

pub(crate) struct Registry {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
}

impl Registry {
    pub(crate) fn new(shards: usize) -> Registry {
        Registry {
            shards: (0..shards)
                .map(|_| CachePadded::new(Mutex::new(Shard::default())))
                .collect(),
        }
    }

    /// Registers a task that is about to wait for a wake-up, in `shard`, with its waker.
    /// `None` if the registry is closed (the executor is shutting down).
    pub(crate) fn register(&self, shard: usize, waker: Waker) -> Option<Slot> {
        let shard_index = shard % self.shards.len();
        let mut guard = lock(&self.shards[shard_index]);
        if guard.closed {
            drop(guard);
            // Dropped outside the lock: dropping a waker may free the task.
            drop(waker);
            return None;
        }
        let key = guard.tasks.insert(waker);
        Some(Slot {
            shard: shard_index as u32,
            // A shard holding 2^32 live tasks would need terabytes; the conversion is checked.
            key: u32::try_from(key)
                .expect("filch: more than 2^32 live tasks in one registry shard"),
        })
    }

    /// Wakes the task in `slot`, if it is still registered (for `JoinHandle::abort`). The
    /// waker is called with no lock held.
    pub(crate) fn wake(&self, slot: Slot) {
        if slot == Slot::NONE {
            return;
        }
        let waker = lock(&self.shards[slot.shard as usize])
            .tasks
            .get(slot.key as usize)
            .cloned();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Forgets the task in `slot` (its future is being dropped).
    pub(crate) fn remove(&self, slot: Slot) {
        if slot == Slot::NONE {
            return;
        }
        let waker = lock(&self.shards[slot.shard as usize])
            .tasks
            .try_remove(slot.key as usize);
        // Dropped outside the lock: dropping a waker may free the task.
        drop(waker);
    }

    /// Closes every shard and returns a clone of the waker of every task still registered.
    /// The entries stay until the tasks are dropped or [`Registry::take_all`] takes them.
    pub(crate) fn close(&self) -> Vec<Waker> {
        let mut wakers = Vec::new();
        for shard in self.shards.iter() {
            let mut guard = lock(shard);
            guard.closed = true;
            // Cloning a waker only bumps the task's reference count (no user code).
            wakers.extend(guard.tasks.iter().map(|(_, waker)| waker.clone()));
        }
        wakers
    }

    /// Takes the wakers of all tasks still registered (after [`Registry::close`]).
    pub(crate) fn take_all(&self) -> Vec<Waker> {
        let mut wakers = Vec::new();
        for shard in self.shards.iter() {
            let tasks = std::mem::take(&mut lock(shard).tasks);
            wakers.extend(tasks.into_iter().map(|(_, waker)| waker));
        }
        wakers
    }

    /// The number of registered tasks (for tests and debugging).
    #[allow(dead_code)]
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| lock(s).tasks.len()).sum()
    }
}
