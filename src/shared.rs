//! The state that every worker and handle of one executor shares, and the schedule
//! function's placement decisions (where a spawned or woken task goes).
//!
//! Placement (see `WakePolicy`):
//! - a task that woke itself while running, or yielded, goes to its worker's private
//!   yielded list, which runs after that worker's deque, inbox and the injector are empty;
//! - otherwise, on a worker of this executor: `CurrentWorker` puts the task in this worker's
//!   LIFO slot (the task it displaces goes onto the deque, where others may steal it);
//!   `LastWorker` does the same if the task last ran here or never ran, and otherwise pushes
//!   it onto the inbox of the worker it last ran on, waking that worker if it sleeps;
//! - on any other thread: the global injector.
//!
//! Shutdown: once `shutdown` is set, a task that is scheduled is dropped instead of queued.
//! A push that races with shutdown is caught by the push-then-check protocol of
//! [`Shared::after_shared_push`]: either the pusher sees the flag and drains, or the
//! shutting-down thread's final drain sees the task.
//!
//! Invariant: a runnable in the injector or an inbox after shutdown is dropped by exactly one
//! drainer, never while a filch lock is held, and never from inside another task's drop
//! (drops are serialised through the `draining` flag, so a destructor that wakes a task only
//! queues it).

use std::sync::Arc;

use crossbeam_deque::{Injector, Steal, Stealer};
use crossbeam_utils::CachePadded;

use async_task::ScheduleInfo;

use crate::blocking::BlockingPool;
use crate::executor::WakePolicy;
use crate::park::Sleep;
use crate::registry::Registry;
use crate::stats::{Counters, Stats};
use crate::sync::{fence, AtomicBool, Ordering};
use crate::task::{Runnable, NO_WORKER};
use crate::task_count::TaskCount;
use crate::worker::WorkerContext;

/// What the other threads see of one worker.
pub(crate) struct WorkerShared {
    /// The thief end of the worker's deque.
    pub(crate) stealer: Stealer<Runnable>,
    /// Tasks placed for this worker by other threads (`LastWorker`). Any worker may steal
    /// from it.
    pub(crate) inbox: Injector<Runnable>,
    /// Written only by this worker.
    pub(crate) counters: CachePadded<Counters>,
}

pub(crate) struct Shared {
    pub(crate) injector: Injector<Runnable>,
    pub(crate) workers: Box<[CachePadded<WorkerShared>]>,
    pub(crate) sleep: Sleep,
    pub(crate) registry: Registry,
    /// The live tasks, which keep this state alive through one anchor reference.
    pub(crate) tasks: TaskCount,
    /// Set once by `Executor::drop` (SeqCst; see the module docs for its pairings).
    pub(crate) shutdown: AtomicBool,
    /// Held by the one thread dropping runnables after shutdown.
    draining: AtomicBool,
    pub(crate) policy: WakePolicy,
    pub(crate) thread_prefix: String,
    /// The threads of `spawn_blocking` (see `blocking.rs`).
    pub(crate) blocking: BlockingPool,
}

impl Shared {
    pub(crate) fn new(
        stealers: Vec<Stealer<Runnable>>,
        policy: WakePolicy,
        thread_prefix: String,
    ) -> Shared {
        let n = stealers.len();
        Shared {
            injector: Injector::new(),
            workers: stealers
                .into_iter()
                .map(|stealer| {
                    CachePadded::new(WorkerShared {
                        stealer,
                        inbox: Injector::new(),
                        counters: CachePadded::new(Counters::new()),
                    })
                })
                .collect(),
            sleep: Sleep::new(n),
            // One shard per worker, one for every other thread.
            registry: Registry::new(n + 1),
            tasks: TaskCount::new(n),
            shutdown: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            policy,
            thread_prefix,
            blocking: BlockingPool::new(),
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// The index of the current thread among this executor's workers, if it is one.
    pub(crate) fn current_worker(&self) -> Option<usize> {
        crate::worker::with_current(|worker| match worker {
            Some(w) if std::ptr::eq(&**w.shared(), self) => Some(w.index()),
            _ => None,
        })
    }

    /// The registry shard for a task registered by the current thread.
    pub(crate) fn registry_shard(&self) -> usize {
        self.current_worker().unwrap_or(self.num_workers())
    }

    /// Takes the reference that the tasks hold together (see `task_count.rs`).
    pub(crate) fn make_anchor(shared: &Arc<Shared>) {
        std::mem::forget(Arc::clone(shared));
    }

    /// Releases the tasks' reference, once the task count says nothing needs it.
    ///
    /// # Safety
    /// `shared` is the pointer of the `Arc<Shared>` given to [`Shared::make_anchor`], and the
    /// task count has just reached zero (so this runs once); the caller does not use the
    /// state after this call unless it holds a reference of its own.
    pub(crate) unsafe fn release_anchor(shared: *const Shared) {
        // SAFETY: by the caller's contract the anchor's strong count is still held and is
        // given up here exactly once.
        unsafe { Arc::decrement_strong_count(shared) };
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        // Acquire: pairs with the SeqCst store in `Executor::drop`.
        self.shutdown.load(Ordering::Acquire)
    }

    pub(crate) fn stats(&self) -> Stats {
        Stats {
            workers: self.workers.iter().map(|w| w.counters.snapshot()).collect(),
        }
    }

    /// Schedules `runnable` from worker `worker` of this executor.
    pub(crate) fn schedule_on_worker(
        &self,
        worker: &WorkerContext,
        runnable: Runnable,
        info: ScheduleInfo,
    ) {
        if self.is_shut_down() {
            return self.discard(runnable);
        }
        let here = worker.index();
        if worker.is_parked() {
            // Woken by the reactor this parked worker drives: through an inbox, which wakes
            // the target worker (this one, or the task's last under `LastWorker`).
            let last = runnable.metadata().last_worker.load(Ordering::Relaxed);
            let target = match self.policy {
                WakePolicy::LastWorker if last != NO_WORKER => last,
                _ => here,
            };
            return self.push_to_worker(target, runnable);
        }
        if info.woken_while_running {
            // A self-wake or yield: behind the other ready work of this worker.
            return worker.push_yielded(runnable);
        }
        let target = match self.policy {
            WakePolicy::CurrentWorker => here,
            WakePolicy::LastWorker => {
                // Relaxed: a placement hint (see `TaskMeta::last_worker`).
                match runnable.metadata().last_worker.load(Ordering::Relaxed) {
                    NO_WORKER => here,
                    last => last,
                }
            }
        };
        if target == here {
            if let Some(displaced) = worker.put_lifo(runnable) {
                worker.push_local(displaced);
                self.sleep.notify_work();
            }
        } else {
            self.push_to_worker(target, runnable);
        }
    }

    /// Places `runnable` on worker `index`'s inbox, waking that worker if it sleeps.
    pub(crate) fn push_to_worker(&self, index: usize, runnable: Runnable) {
        if self.is_shut_down() {
            return self.discard(runnable);
        }
        self.workers[index].inbox.push(runnable);
        self.sleep.notify_worker(index);
        self.after_shared_push();
    }

    /// Schedules `runnable` from a thread that is no worker of this executor.
    pub(crate) fn schedule_remote(&self, runnable: Runnable) {
        if self.is_shut_down() {
            return self.discard(runnable);
        }
        self.injector.push(runnable);
        self.sleep.notify_work();
        self.after_shared_push();
    }

    /// The second half of push-then-check: called after a push to the injector or an inbox
    /// and after the SeqCst fence in `notify_work` / `notify_worker`. That fence pairs with
    /// the one in `Executor::drop` after it sets `shutdown`: if we read `false`, the
    /// shutting-down thread's final drain sees our push.
    fn after_shared_push(&self) {
        // Relaxed: ordered by the fence in `notify_*` (see above).
        if self.shutdown.load(Ordering::Relaxed) {
            self.drain_after_shutdown();
        }
    }

    /// Drops a runnable scheduled after shutdown (through the drain, so that its
    /// destructor never runs nested inside another task's drop).
    fn discard(&self, runnable: Runnable) {
        self.injector.push(runnable);
        fence(Ordering::SeqCst);
        self.drain_after_shutdown();
    }

    /// Whether any queue other than the workers' private ones holds work, or shutdown is set.
    /// Used by a worker's re-check before it sleeps.
    pub(crate) fn has_work(&self) -> bool {
        // Relaxed: called after the SeqCst fence in `Sleep::park`.
        self.shutdown.load(Ordering::Relaxed)
            || !self.injector.is_empty()
            || self
                .workers
                .iter()
                .any(|w| !w.stealer.is_empty() || !w.inbox.is_empty())
    }

    fn shared_queues_empty(&self) -> bool {
        self.injector.is_empty() && self.workers.iter().all(|w| w.inbox.is_empty())
    }

    /// After shutdown: drops every runnable in the injector and the inboxes. One thread
    /// drains at a time; the others only push, and the drainer re-checks after it lets go.
    pub(crate) fn drain_after_shutdown(&self) {
        loop {
            // Acquire: pairs with the Release store below by the previous drainer.
            if self.draining.swap(true, Ordering::Acquire) {
                // Another thread drains; it re-checks the queues after letting go (below),
                // and our push came before our fence, so it will see it.
                return;
            }
            loop {
                let mut dropped = false;
                for queue in
                    std::iter::once(&self.injector).chain(self.workers.iter().map(|w| &w.inbox))
                {
                    loop {
                        match queue.steal() {
                            Steal::Success(runnable) => {
                                dropped = true;
                                drop(runnable);
                            }
                            Steal::Retry => continue,
                            Steal::Empty => break,
                        }
                    }
                }
                if !dropped {
                    break;
                }
            }
            // Release: pairs with the Acquire swap above of the next drainer.
            self.draining.store(false, Ordering::Release);
            // Pairs with the pusher's fence: a push whose pusher saw `draining` set is seen here.
            fence(Ordering::SeqCst);
            if self.shared_queues_empty() {
                return;
            }
        }
    }
}
