//! The live-task registry: a waker for every task that has not completed, so that shutdown
//! can reach tasks that sit in no queue because they wait for a wake-up.
//!
//! Sharded by the spawning thread (one shard per worker, one for every other thread), each
//! shard a mutex-guarded slab. A task is registered when it is spawned and removed when its
//! future is dropped (completion, cancellation or shutdown).
//!
//! Invariants:
//! - After [`Registry::close`] no task is registered again: `register` reports the shard
//!   closed and the caller drops the new task at once. `close` leaves the entries in place,
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
    /// The slot of a task that was never registered (spawned after shutdown).
    pub(crate) const NONE: Slot = Slot {
        shard: u32::MAX,
        key: u32::MAX,
    };
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

    /// Registers a new task in `shard`: calls `make` with the slot the task will have and
    /// stores the waker it returns. If the registry is closed, `make` gets [`Slot::NONE`],
    /// its waker is dropped, and the result comes back as `Err` for the caller to discard.
    ///
    /// `make` runs under the shard lock; it must only build the task (no user code).
    pub(crate) fn register<R>(
        &self,
        shard: usize,
        make: impl FnOnce(Slot) -> (R, Waker),
    ) -> Result<R, R> {
        let shard_index = shard % self.shards.len();
        let mut guard = lock(&self.shards[shard_index]);
        if guard.closed {
            drop(guard);
            let (made, _waker) = make(Slot::NONE);
            return Err(made);
        }
        let entry = guard.tasks.vacant_entry();
        let slot = Slot {
            shard: shard_index as u32,
            // A shard holding 2^32 live tasks would need terabytes; the conversion is checked.
            key: u32::try_from(entry.key())
                .expect("filch: more than 2^32 live tasks in one registry shard"),
        };
        let (made, waker) = make(slot);
        entry.insert(waker);
        Ok(made)
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
