//! The live-task registry: a waker for every task that has not completed, so that shutdown
//! can reach tasks that sit in no queue because they wait for a wake-up.
//!
//! Sharded by the registering thread (one shard per worker, one for every other thread),
//! each shard a mutex-guarded slab. A task is registered the first time a poll of it returns
//! `Pending` (until then it is always in a queue, which shutdown drains) and removed when its
//! future is dropped (completion, cancellation or shutdown).
//!
//! Each entry carries its owner's *tag* (the address of the task's metadata, unique among
//! live tasks): a key read from a task's metadata can be stale (the task was removed and its
//! slab key reused by another task between the read and the use), so [`LiveTasks::wake`]
//! wakes an entry only if the tag matches. A `JoinHandle` keeps its task's metadata alive, so
//! no other live task can have the same tag: the tag works as a generation that never wraps.
//!
//! Invariants:
//! - After [`LiveTasks::close`] no task is registered again: `register` reports the shard
//!   closed, and the task wakes itself so that the schedule function drops it. `close` leaves the
//!   entries in place, so that [`LiveTasks::take_all`] can reach the tasks still alive after the
//!   workers stop.
//! - Removal of a key that `take_all` took out is a no-op (the slab it lived in is gone,
//!   and the closed shard never inserts again, so no key is reused).
//! - No waker is called while a shard lock is held, so a task whose destructor spawns,
//!   wakes or completes another task cannot deadlock on the registry.

use std::task::Waker;

use crossbeam_utils::CachePadded;
use slab::Slab;

use crate::util::sync::Mutex;

/// Where a task is registered: its shard and its key in that shard's slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    shard: u32,
    key: u32,
}

impl Key {
    /// The slot of a task that is not registered (it has not waited for a wake-up yet).
    pub(crate) const NONE: Key = Key {
        shard: u32::MAX,
        key: u32::MAX,
    };

    /// The slot packed in one word, to keep in an atomic.
    pub(crate) fn to_bits(self) -> u64 {
        (u64::from(self.shard) << 32) | u64::from(self.key)
    }

    /// The inverse of [`Key::to_bits`].
    pub(crate) fn from_bits(bits: u64) -> Key {
        Key {
            shard: (bits >> 32) as u32,
            key: bits as u32,
        }
    }
}

/// A registered task: its tag (module docs) and its waker.
struct LiveTask {
    tag: usize,
    waker: Waker,
}

#[derive(Default)]
struct Shard {
    tasks: Slab<LiveTask>,
    closed: bool,
}

pub(crate) struct LiveTasks {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
}

impl LiveTasks {
    pub(crate) fn new(shards: usize) -> LiveTasks {
        LiveTasks {
            shards: (0..shards)
                .map(|_| CachePadded::new(Mutex::new(Shard::default())))
                .collect(),
        }
    }

    /// Registers a task that is about to wait for a wake-up, in `shard`, with its tag and
    /// waker. `None` if the registry is closed (the executor is shutting down).
    pub(crate) fn register(&self, shard: usize, tag: usize, waker: Waker) -> Option<Key> {
        let shard_index = shard % self.shards.len();
        let mut guard = self.shards[shard_index].lock();
        if guard.closed {
            drop(guard);
            // Dropped outside the lock: dropping a waker may free the task.
            drop(waker);
            return None;
        }
        let key = guard.tasks.insert(LiveTask { tag, waker });
        Some(Key {
            shard: shard_index as u32,
            // A shard holding 2^32 live tasks would need terabytes; the conversion is checked.
            key: u32::try_from(key)
                .expect("filch: more than 2^32 live tasks in one registry shard"),
        })
    }

    /// Wakes the task `tag` in `slot`, if it is still registered there (for
    /// `JoinHandle::abort`); an entry of another task that reused the key is left alone. The
    /// waker is called with no lock held.
    pub(crate) fn wake(&self, slot: Key, tag: usize) {
        if let Some(waker) = self.waker(slot, tag) {
            waker.wake();
        }
    }

    /// A clone of the waker of the task `tag` in `slot`, if it is still registered there.
    pub(crate) fn waker(&self, slot: Key, tag: usize) -> Option<Waker> {
        if slot == Key::NONE {
            return None;
        }
        self.shards[slot.shard as usize]
            .lock()
            .tasks
            .get(slot.key as usize)
            .filter(|entry| entry.tag == tag)
            .map(|entry| entry.waker.clone())
    }

    /// Forgets the task in `slot` (its future is being dropped).
    pub(crate) fn remove(&self, slot: Key) {
        if slot == Key::NONE {
            return;
        }
        let waker = self.shards[slot.shard as usize]
            .lock()
            .tasks
            .try_remove(slot.key as usize);
        // Dropped outside the lock: dropping a waker may free the task.
        drop(waker);
    }

    /// Whether no task is registered (a task waiting for a wake-up), each shard read under
    /// its lock: exact for the tasks whose registration or removal happened before the call.
    /// The paused clock's auto-advance asks (`runtime/scheduler/auto_advance.rs`).
    #[cfg(feature = "test-util")]
    pub(crate) fn is_empty(&self) -> bool {
        self.shards
            .iter()
            .all(|shard| shard.lock().tasks.is_empty())
    }

    /// Closes every shard and returns a clone of the waker of every task still registered.
    /// The entries stay until the tasks are dropped or [`LiveTasks::take_all`] takes them.
    pub(crate) fn close(&self) -> Vec<Waker> {
        let mut wakers = Vec::new();
        for shard in self.shards.iter() {
            let mut guard = shard.lock();
            guard.closed = true;
            // Cloning a waker only bumps the task's reference count (no user code).
            wakers.extend(guard.tasks.iter().map(|(_, entry)| entry.waker.clone()));
        }
        wakers
    }

    /// Takes the wakers of all tasks still registered (after [`LiveTasks::close`]).
    pub(crate) fn take_all(&self) -> Vec<Waker> {
        let mut wakers = Vec::new();
        for shard in self.shards.iter() {
            let tasks = std::mem::take(&mut shard.lock().tasks);
            wakers.extend(tasks.into_iter().map(|(_, entry)| entry.waker));
        }
        wakers
    }

    /// Takes the wakers of the tasks registered in `shard` (an exiting worker's own, for
    /// its pinned tasks: `runtime/scheduler/pinned/worker_side.rs`). Only that worker registers there,
    /// and it polls no more, so no key of the shard is reused and a later removal is a no-op.
    pub(crate) fn take_shard(&self, shard: usize) -> Vec<Waker> {
        let tasks = std::mem::take(&mut self.shards[shard % self.shards.len()].lock().tasks);
        tasks.into_iter().map(|(_, entry)| entry.waker).collect()
    }

    /// Calls `visit` with the tag of every registered task, one shard at a time, under the
    /// shard's lock (the task dump: an entry's waker keeps its task alive while the lock is
    /// held). `visit` must not call or drop a waker, nor take a registry lock.
    pub(crate) fn visit(&self, mut visit: impl FnMut(usize)) {
        for shard in self.shards.iter() {
            let guard = shard.lock();
            for (_, entry) in guard.tasks.iter() {
                visit(entry.tag);
            }
        }
    }

    /// The number of registered tasks (for tests and debugging).
    #[allow(dead_code)]
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().tasks.len()).sum()
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
