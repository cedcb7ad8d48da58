//! [`State`]: what every worker, handle and task of one executor shares (the injector, what
//! the other threads see of each worker, the notifier, the driver stack, the registry, the
//! task count, the shutdown flag, the blocking pool), the [`Runnable`] type its queues
//! hold, and the post-shutdown drain of the shared queues. `State`'s trait impls, what its
//! tasks need from it, are in `state/home.rs`.
//!
//! Where a task goes when it is scheduled is decided by the schedule function, which lives
//! with the worker loop (`runtime/scheduler/worker/schedule.rs`); this module only holds the
//! queues.
//!
//! Shutdown is `State::shutdown` (`shutdown.rs`), whose doc states the protocol; this
//! module holds the flag it sets and the drain it and the schedule function run.
//!
//! **Invariant:** a runnable in the injector or an inbox after shutdown is dropped by exactly
//! one drainer, never while a filch lock is held, and never from inside another task's drop
//! (drops are serialised through the `draining` flag, so a destructor that wakes a task only
//! queues it).

use crossbeam_deque::{Injector, Steal, Stealer};
use crossbeam_utils::CachePadded;

use std::sync::Arc;
use std::time::Duration;

use crate::runtime::driver::Driver;
use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::park::Idle;
use crate::runtime::scheduler::blocking::BlockingPool;
use crate::runtime::scheduler::forkjoin::exposed::Exposed;
use crate::runtime::scheduler::forkjoin::shared::ForkJoin;
use crate::runtime::scheduler::pinned::queue::PinnedQueue;
use crate::runtime::scheduler::standin::hold::Hold;
use crate::runtime::scheduler::standin::StandIns;
use crate::runtime::stats::{Counters, Stats};
use crate::runtime::task::live_tasks::LiveTasks;
use crate::runtime::task::task_count::TaskCount;
use crate::runtime::task::{Payload, TaskMeta};
use crate::runtime::threads::ThreadConfig;
use crate::runtime::wake_policy::WakePolicy;
use crate::util::sync::{fence, AtomicBool, Mutex, Ordering};

/// The runnable type every queue of filch holds.
pub(crate) type Runnable = async_task::Runnable<TaskMeta<State>>;

/// What the other threads see of one worker.
pub(crate) struct WorkerPublic {
    /// The thief end of the worker's deque.
    pub(crate) stealer: Stealer<Runnable>,
    /// Tasks placed for this worker by other threads (`LastWorker`), and tasks woken while
    /// they ran here by someone other than themselves. Any worker may steal from it.
    pub(crate) inbox: Injector<Runnable>,
    /// Written only by this worker.
    pub(crate) counters: CachePadded<Counters>,
    /// This worker's pinned tasks: their queue, which only this worker pops, their count,
    /// and whether the worker exited (`runtime/scheduler/pinned/worker_side.rs`).
    pub(crate) pinned: PinnedQueue<Runnable>,
    /// Which poll runs on this worker, and whether it is held (`standin/hold.rs`): written
    /// by this worker around each poll, on a line of its own.
    pub(crate) hold: CachePadded<Hold>,
    /// This worker's oldest unpublished join frame, for the ticker to publish when the
    /// worker's thread stalls in a join (`forkjoin/exposed.rs`).
    pub(crate) exposed: CachePadded<Exposed>,
}

/// The state of one executor.
pub(crate) struct State {
    pub(crate) injector: Injector<Runnable>,
    pub(crate) workers: Box<[CachePadded<WorkerPublic>]>,
    pub(crate) idle: Idle,
    /// The driver stack (IO and timers); IO objects and timers hold their own `Arc` of it,
    /// so that it outlives them, and they do not keep the executor's state alive.
    pub(crate) driver: Arc<Driver>,
    pub(crate) live_tasks: LiveTasks,
    /// The live tasks and holders, which keep this state alive through one anchor reference.
    pub(crate) tasks: TaskCount,
    /// Set once by `State::shutdown` (SeqCst; its doc, step 1, gives the pairings).
    pub(crate) shutdown: AtomicBool,
    /// Held by the one thread dropping runnables after shutdown.
    draining: AtomicBool,
    pub(crate) policy: WakePolicy,
    /// Names, stack size and hooks of the executor's threads.
    pub(crate) threads: ThreadConfig,
    /// The threads of `spawn_blocking` (see `runtime/scheduler/blocking/`).
    pub(crate) blocking: BlockingPool<Runnable>,
    /// Panics of futures' destructors dropped outside a poll (at shutdown), by task tag, until
    /// their `JoinHandle` or their task's end takes them (`TaskHome::keep_drop_panic`).
    pub(crate) drop_panics: Mutex<Vec<(usize, Payload)>>,
    /// The slow-poll watch, if `Builder::slow_poll_threshold` was set
    /// (`runtime/observe/poll_watch.rs`).
    pub(crate) poll_watch: Option<Arc<PollWatch>>,
    /// The fork-join pieces on offer, and who waits for them (`forkjoin/`).
    pub(crate) forkjoin: ForkJoin,
    /// The workers' stand-ins (`standin/`).
    pub(crate) standins: StandIns,
    /// How long a poll holds its worker, in nanoseconds, before the ticker hands it over to
    /// the worker's stand-in (`Builder::hand_over_after`, `standin/hold.rs`).
    pub(crate) hand_over_after_ns: u64,
    /// Whether there are more workers than the machine has CPUs: a searching worker then
    /// yields its CPU between two looks instead of spinning (`worker/mod.rs`), since the
    /// thread with the work may be waiting for that CPU.
    pub(crate) oversubscribed: bool,
}

impl State {
    pub(crate) fn new(
        stealers: Vec<Stealer<Runnable>>,
        policy: WakePolicy,
        threads: ThreadConfig,
        driver: Driver,
        blocking: BlockingPool<Runnable>,
    ) -> State {
        let n = stealers.len();
        State {
            injector: Injector::new(),
            workers: stealers
                .into_iter()
                .map(|stealer| {
                    CachePadded::new(WorkerPublic {
                        stealer,
                        inbox: Injector::new(),
                        counters: CachePadded::new(Counters::new()),
                        pinned: PinnedQueue::new(),
                        hold: CachePadded::new(Hold::new()),
                        exposed: CachePadded::new(Exposed::new()),
                    })
                })
                .collect(),
            idle: Idle::new(n),
            driver: Arc::new(driver),
            // One shard per worker, one for every other thread.
            live_tasks: LiveTasks::new(n + 1),
            tasks: TaskCount::new(n),
            shutdown: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            policy,
            threads,
            blocking,
            drop_panics: Mutex::new(Vec::new()),
            poll_watch: None,
            forkjoin: ForkJoin::new(n),
            standins: StandIns::new(n),
            hand_over_after_ns: 0,
            oversubscribed: std::thread::available_parallelism().is_ok_and(|cpus| n > cpus.get()),
        }
    }

    /// The state with the slow-poll watch `watch` (before it is shared).
    pub(crate) fn with_poll_watch(self, watch: Option<Arc<PollWatch>>) -> State {
        State {
            poll_watch: watch,
            ..self
        }
    }

    /// The state with the hand-over delay `after` (before it is shared).
    pub(crate) fn with_hand_over_after(self, after: Duration) -> State {
        State {
            hand_over_after_ns: u64::try_from(after.as_nanos()).unwrap_or(u64::MAX),
            ..self
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        // Acquire: pairs with the SeqCst store in `State::shutdown`.
        self.shutdown.load(Ordering::Acquire)
    }

    pub(crate) fn stats(&self) -> Stats {
        Stats {
            workers: self
                .workers
                .iter()
                .enumerate()
                .map(|(index, w)| {
                    let (slow_polls, longest_poll) = self
                        .poll_watch
                        .as_ref()
                        .map_or((0, Duration::ZERO), |watch| watch.stats(index));
                    w.counters
                        .snapshot()
                        .with_slow_polls(slow_polls, longest_poll)
                        .with_standin_polls(self.standins.polls(index))
                })
                .collect(),
            alive_tasks: self.tasks.alive(),
            injector_depth: self.injector.len(),
            blocking_threads: self.blocking.threads(),
            io_sources: self.driver.io().sources_len(),
            timers: self.driver.time().timers_len(),
            #[cfg(feature = "tokio-context")]
            tokio: self.threads.tokio.stats(),
        }
    }

    /// Whether any queue other than the workers' private ones holds work (a task, or a piece
    /// of fork-join work on the board), or shutdown is set. Used by a worker's re-check before
    /// it sleeps.
    pub(crate) fn has_work(&self) -> bool {
        // Relaxed: called after the SeqCst fence in `Idle::park`.
        self.has_tasks() || self.forkjoin.board.available() != 0
    }

    /// As [`State::has_work`], tasks only: the re-check of a worker's stand-in, which runs no
    /// fork-join piece (`standin/slots.rs`).
    pub(crate) fn has_tasks(&self) -> bool {
        // Relaxed: called after the SeqCst fence in `Idle::park`.
        self.shutdown.load(Ordering::Relaxed)
            || !self.injector.is_empty()
            || self
                .workers
                .iter()
                .any(|w| !w.stealer.is_empty() || !w.inbox.is_empty())
    }

    fn shared_queues_empty(&self) -> bool {
        self.injector.is_empty()
            && self
                .workers
                .iter()
                .all(|w| w.inbox.is_empty() && w.pinned.orphans().is_none_or(Injector::is_empty))
    }

    /// Cancels blocking-pool jobs that no thread will run (the pool refused them, the
    /// thread they waited for could not start, or the executor shut down): drops each (its
    /// handle reports cancelled) and ends its count on the paused clock, which counts a job
    /// as busy from its spawn to its end (`runtime/time/clock.rs`).
    pub(crate) fn cancel_blocking_jobs(&self, jobs: impl IntoIterator<Item = Runnable>) {
        for job in jobs {
            drop(job);
            self.driver.clock().job_ended();
        }
    }

    /// After shutdown: drops every runnable in the injector and the inboxes, and in the
    /// pinned queues of the workers that exited (`pinned/queue.rs`: what reaches those holds
    /// no pinned future). One thread drains at a time; the others only push, and the
    /// drainer re-checks after it lets go.
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
                let inboxes = self.workers.iter().map(|w| &w.inbox);
                let orphans = self.workers.iter().filter_map(|w| w.pinned.orphans());
                for queue in std::iter::once(&self.injector)
                    .chain(inboxes)
                    .chain(orphans)
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
            // Whole fork-join calls that no worker will run: dropping one tells its caller.
            for call in self.forkjoin.board.take_calls() {
                drop(call);
            }
            for call in self.forkjoin.mail.take_calls() {
                drop(call);
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

mod home;
#[cfg(all(test, not(loom)))]
mod tests;
