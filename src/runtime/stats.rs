//! Per-worker counters and the public snapshot types [`Stats`] and [`WorkerStats`].
//!
//! Each worker owns one [`Counters`] block on its own cache line and is its only writer, so
//! an increment is a plain load and store (no read-modify-write, no shared cache line). A
//! reader on any thread loads the counters without stopping the worker; a snapshot is not
//! atomic across counters.
//!
//! What each costs the worker: `steal_attempts`, `steals` one add per search; `parks` one
//! per sleep; `busy` two clock reads per stretch of polls (from the first poll after finding
//! work to the moment the worker runs out of it) plus one every
//! [`crate::runtime::scheduler::worker`] fairness interval (61 polls), so that a worker that never
//! runs out of work still reports its busy time without lagging; `polls` are counted in the
//! worker's loop and added with the busy time, so a poll is counted once its stretch ended or its
//! fairness interval passed. The executor-wide fields are read at snapshot time and cost the
//! workers nothing; so is [`TokioStats`] (feature `tokio-context`), from tokio's stable
//! `RuntimeMetrics` of the runtime beside the executor (`runtime/tokio_context/`).

use crate::util::sync::{add_single_writer, AtomicU64, Ordering};

/// A snapshot of an executor's counters, one entry per worker in worker index order.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// ex.block_on(ex.spawn(async { 1 + 1 })).unwrap();
/// // A poll is counted once it has returned, a moment after the task's output is out.
/// while ex.stats().total().polls == 0 {
///     std::thread::yield_now();
/// }
/// assert_eq!(ex.stats().workers.len(), 2);
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Stats {
    /// One entry per worker, in worker index order.
    pub workers: Vec<WorkerStats>,
    /// Tasks spawned (including blocking jobs) and not yet dropped, at the snapshot. Read
    /// from the live-task count without stopping the workers, so it may be off by the tasks
    /// being created or dropped at that moment.
    pub alive_tasks: usize,
    /// Tasks waiting in the global injector at the snapshot.
    pub injector_depth: usize,
    /// Threads of the blocking pool, idle or busy, at the snapshot.
    pub blocking_threads: usize,
    /// IO objects (sockets, listeners) registered with the executor's IO driver at the
    /// snapshot: made and not yet dropped.
    pub io_sources: usize,
    /// Timers (`filch::time::Sleep`, and those inside `Interval` and `Timeout`) that the
    /// driver's wheel holds at the snapshot: polled at least once and not yet dropped. A
    /// timer costs nothing until its first poll.
    pub timers: usize,
    /// The tokio runtime beside the executor (cargo feature `tokio-context`): what runs there
    /// runs on none of [`Stats::workers`] (see [`TokioStats`]).
    #[cfg(feature = "tokio-context")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio-context")))]
    pub tokio: TokioStats,
}

impl Stats {
    /// The sum of every worker's counters (`longest_poll`: the longest of any worker).
    ///
    /// ```
    /// let stats = filch::Executor::builder().worker_threads(1).build().unwrap().stats();
    /// assert_eq!(stats.total().parks, stats.workers[0].parks);
    /// ```
    pub fn total(&self) -> WorkerStats {
        self.workers
            .iter()
            .fold(WorkerStats::default(), |acc, w| WorkerStats {
                polls: acc.polls + w.polls,
                steal_attempts: acc.steal_attempts + w.steal_attempts,
                steals: acc.steals + w.steals,
                parks: acc.parks + w.parks,
                busy: acc.busy + w.busy,
                slow_polls: acc.slow_polls + w.slow_polls,
                longest_poll: acc.longest_poll.max(w.longest_poll),
            })
    }
}

/// The cumulative counters of one worker since the executor started.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let w: filch::WorkerStats = ex.stats().workers[0];
/// assert!(w.steals <= w.steal_attempts);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkerStats {
    /// Task polls run on this worker, and by its stand-in in its place while a poll held it
    /// (README, "Threads filch starts"). Counted per stretch of polls, as `busy`: it lags
    /// the polls of a worker that is busy now by less than one fairness interval (61 polls),
    /// and is exact once the worker has run out of work.
    pub polls: u64,
    /// Attempts to take work from another worker's deque or inbox.
    pub steal_attempts: u64,
    /// Steal attempts that got at least one task.
    pub steals: u64,
    /// Times the worker went to sleep.
    pub parks: u64,
    /// Time spent polling tasks: the basis of a utilisation figure (`busy` over the wall
    /// time between two snapshots). Counted per stretch of polls (module docs), so it lags
    /// the polls in flight by at most one fairness interval.
    pub busy: std::time::Duration,
    /// Polls that ran longer than `Builder::slow_poll_threshold` (0 without one), counted
    /// when they return.
    pub slow_polls: u64,
    /// The longest of those polls (zero without any): exact for polls past the threshold;
    /// shorter polls are not timed.
    pub longest_poll: std::time::Duration,
}

impl WorkerStats {
    /// These counters with the polls the worker's stand-in made in its place added.
    pub(crate) fn with_standin_polls(self, polls: u64) -> WorkerStats {
        WorkerStats {
            polls: self.polls + polls,
            ..self
        }
    }

    /// These counters with the slow-poll ones (`runtime/observe/poll_watch.rs` keeps those).
    pub(crate) fn with_slow_polls(
        self,
        slow_polls: u64,
        longest_poll: std::time::Duration,
    ) -> WorkerStats {
        WorkerStats {
            slow_polls,
            longest_poll,
            ..self
        }
    }
}

/// The live counters of one worker. Written only by that worker's thread.
pub(crate) struct Counters {
    polls: AtomicU64,
    steal_attempts: AtomicU64,
    steals: AtomicU64,
    parks: AtomicU64,
    /// Nanoseconds.
    busy: AtomicU64,
}

impl Counters {
    pub(crate) fn new() -> Counters {
        Counters {
            polls: AtomicU64::new(0),
            steal_attempts: AtomicU64::new(0),
            steals: AtomicU64::new(0),
            parks: AtomicU64::new(0),
            busy: AtomicU64::new(0),
        }
    }
    pub(crate) fn add_polls(&self, n: u64) {
        add_single_writer(&self.polls, n);
    }
    pub(crate) fn add_steal_attempts(&self, n: u64) {
        add_single_writer(&self.steal_attempts, n);
    }
    pub(crate) fn add_steals(&self, n: u64) {
        add_single_writer(&self.steals, n);
    }
    pub(crate) fn add_park(&self) {
        add_single_writer(&self.parks, 1);
    }
    pub(crate) fn add_busy(&self, time: std::time::Duration) {
        // 2^64 ns is 584 years: the conversion saturates only on a broken clock.
        add_single_writer(
            &self.busy,
            u64::try_from(time.as_nanos()).unwrap_or(u64::MAX),
        );
    }

    /// Reads the counters (Relaxed: statistics; they pair with nothing and may lag the
    /// writer by a moment).
    pub(crate) fn snapshot(&self) -> WorkerStats {
        WorkerStats {
            polls: self.polls.load(Ordering::Relaxed),
            steal_attempts: self.steal_attempts.load(Ordering::Relaxed),
            steals: self.steals.load(Ordering::Relaxed),
            parks: self.parks.load(Ordering::Relaxed),
            busy: std::time::Duration::from_nanos(self.busy.load(Ordering::Relaxed)),
            slow_polls: 0,
            longest_poll: std::time::Duration::ZERO,
        }
    }
}

/// A snapshot of the tokio runtime beside an executor (cargo feature `tokio-context`), from
/// tokio's stable `RuntimeMetrics`: the process's runtime (shared by every executor that did
/// not ask for another), the executor's own ([`Builder::tokio_worker_threads`]) or the
/// user's ([`Builder::tokio_handle`]).
///
/// What runs there runs on none of filch's workers: what `tokio::spawn` starts, and the IO
/// and timers of tokio's own types (`tokio::net`, `tokio::time`, `axum::serve` on a tokio
/// listener). A `busy` that grows by most of a second each second while filch's workers
/// are idle is a program whose work runs there (README, "Coming from tokio"); filch warns
/// once per process when that happens on a runtime it started.
///
/// ```
/// let ex = filch::Builder::new().worker_threads(1).tokio_worker_threads(1).build().unwrap();
/// ex.block_on(async {
///     // Runs on the tokio runtime: its busy time shows there, not in `workers`.
///     tokio::spawn(async { std::thread::sleep(std::time::Duration::from_millis(20)) })
///         .await
///         .unwrap();
/// });
/// let tokio = ex.stats().tokio;
/// assert_eq!(tokio.workers, 1);
/// // tokio adds a worker's busy time up when it parks: a moment after the task ended.
/// while ex.stats().tokio.busy < std::time::Duration::from_millis(20) {
///     std::thread::yield_now();
/// }
/// ```
///
/// [`Builder::tokio_worker_threads`]: crate::Builder::tokio_worker_threads
/// [`Builder::tokio_handle`]: crate::Builder::tokio_handle
#[cfg(feature = "tokio-context")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio-context")))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokioStats {
    /// The runtime's worker threads.
    pub workers: usize,
    /// Its tasks alive at the snapshot: spawned and not yet completed (filch's watch of a
    /// runtime it started is one of them until it has warned).
    pub alive_tasks: usize,
    /// Tasks waiting in its global queue at the snapshot.
    pub global_queue_depth: usize,
    /// The time its workers spent running tasks since it started, summed over them (tokio
    /// adds a worker's share up every few dozen polls and when it parks).
    pub busy: std::time::Duration,
}

#[cfg(feature = "tokio-context")]
impl TokioStats {
    pub(crate) fn new(
        workers: usize,
        alive_tasks: usize,
        global_queue_depth: usize,
        busy: std::time::Duration,
    ) -> TokioStats {
        TokioStats {
            workers,
            alive_tasks,
            global_queue_depth,
            busy,
        }
    }
}
