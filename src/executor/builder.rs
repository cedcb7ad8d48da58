//! [`Builder`]: the settings of an executor and [`Builder::build`], which checks them,
//! makes the shared state and starts one thread per worker.
//!
//! **Invariant:** `build` returns either an [`Executor`] whose every worker thread runs, or
//! an error with nothing left behind: the workers started before a failing start are
//! stopped and joined (by the drop of the half-built `Executor`, which runs
//! [`State::shutdown`]), and the holds of the workers that never started are given up, so
//! the state is freed.

use std::io;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_deque::Worker;

use super::{Executor, Handle};
use crate::runtime::driver::Driver;
use crate::runtime::scheduler::blocking::BlockingPool;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::task::poll_watch::PollWatch;
use crate::runtime::task::task_count::{self, new_anchored};
use crate::runtime::threads::ThreadConfig;
use crate::runtime::wake_policy::WakePolicy;

/// The most worker threads an executor has (rayon's limit too): far more than any machine
/// runs usefully, and few enough that the per-worker tables `build` makes before it starts
/// the threads stay small.
const MAX_WORKER_THREADS: usize = 0xFFFF;

/// Configures and starts an [`Executor`].
///
/// ```
/// let ex = filch::Builder::new()
///     .worker_threads(2)
///     .thread_name("app")
///     .wake_policy(filch::WakePolicy::LastWorker)
///     .build()
///     .unwrap();
/// assert_eq!(ex.worker_threads(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    worker_threads: Option<usize>,
    threads: ThreadConfig,
    wake_policy: WakePolicy,
    max_blocking_threads: usize,
    thread_keep_alive: Duration,
    slow_polls: crate::runtime::task::poll_watch::Settings,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// A builder with the defaults: one worker per available CPU, threads named
    /// `filch-{index}`, [`WakePolicy::LastWorker`].
    ///
    /// ```
    /// let ex = filch::Builder::new().build().unwrap();
    /// assert!(ex.worker_threads() >= 1);
    /// ```
    pub fn new() -> Builder {
        Builder {
            worker_threads: None,
            threads: ThreadConfig::new(),
            wake_policy: WakePolicy::default(),
            max_blocking_threads: crate::runtime::scheduler::blocking::MAX_BLOCKING_THREADS,
            thread_keep_alive: crate::runtime::scheduler::blocking::IDLE_TIMEOUT,
            slow_polls: crate::runtime::task::poll_watch::Settings::default(),
        }
    }

    /// The number of worker threads (default: [`std::thread::available_parallelism`]).
    /// Zero, or more than 65,535 (rayon's limit too), makes [`Builder::build`] fail with
    /// [`io::ErrorKind::InvalidInput`].
    ///
    /// ```
    /// let err = filch::Builder::new().worker_threads(0).build().unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// let err = filch::Builder::new().worker_threads(usize::MAX).build().unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// ```
    pub fn worker_threads(mut self, n: usize) -> Builder {
        self.worker_threads = Some(n);
        self
    }

    /// The prefix of the threads' names: workers are `{prefix}-{index}`, blocking-pool
    /// threads `{prefix}-blocking-{n}`. Default `"filch"`.
    ///
    /// ```
    /// let ex = filch::Builder::new().worker_threads(1).thread_name("app").build().unwrap();
    /// let name = ex.block_on(ex.spawn(async {
    ///     std::thread::current().name().map(str::to_owned)
    /// }));
    /// assert_eq!(name.unwrap().as_deref(), Some("app-0"));
    /// ```
    pub fn thread_name(mut self, prefix: impl Into<String>) -> Builder {
        self.threads.prefix = prefix.into();
        self
    }

    /// Names the workers one by one (rayon's `ThreadPoolBuilder::thread_name`); the
    /// blocking-pool threads keep `{prefix}-blocking-{n}`.
    pub(crate) fn worker_names(mut self, names: Vec<String>) -> Builder {
        self.threads.worker_names = Some(names.into());
        self
    }

    /// Hooks run on each worker with its index, as it starts and as it exits (rayon's
    /// `start_handler` and `exit_handler`).
    pub(crate) fn worker_hooks(
        mut self,
        start: Option<crate::runtime::threads::WorkerHook>,
        stop: Option<crate::runtime::threads::WorkerHook>,
    ) -> Builder {
        self.threads.worker_start = start;
        self.threads.worker_stop = stop;
        self
    }

    /// Runs `f` on every worker and blocking-pool thread of the executor, on that thread,
    /// before it runs anything (tokio's `on_thread_start`). A panic in `f` is caught; the
    /// thread goes on.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&started);
    /// let ex = filch::Builder::new()
    ///     .worker_threads(2)
    ///     .on_thread_start(move || {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(ex); // joins the workers
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn on_thread_start(mut self, f: impl Fn() + Send + Sync + 'static) -> Builder {
        self.threads.on_start = Some(Arc::new(f));
        self
    }

    /// Runs `f` on every worker and blocking-pool thread of the executor, on that thread, as
    /// it exits (workers exit when the executor is dropped; blocking-pool threads when idle
    /// for a while, or at shutdown once their job returns). A panic in `f` is caught.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let stopped = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&stopped);
    /// let ex = filch::Builder::new()
    ///     .worker_threads(2)
    ///     .on_thread_stop(move || {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(ex);
    /// assert_eq!(stopped.load(Ordering::SeqCst), 2);
    /// ```
    pub fn on_thread_stop(mut self, f: impl Fn() + Send + Sync + 'static) -> Builder {
        self.threads.on_stop = Some(Arc::new(f));
        self
    }

    /// The stack size, in bytes, of the worker and blocking-pool threads (default: std's,
    /// 2 MiB unless `RUST_MIN_STACK` says otherwise). A size the system cannot give makes
    /// [`Builder::build`] fail (or, for a blocking thread, `spawn_blocking` panic).
    ///
    /// ```
    /// let ex = filch::Builder::new().thread_stack_size(4 << 20).build().unwrap();
    /// ex.block_on(ex.spawn(async {
    ///     // Deep recursion needs the bigger stack.
    /// }))
    /// .unwrap();
    /// ```
    pub fn thread_stack_size(mut self, bytes: usize) -> Builder {
        self.threads.stack_size = Some(bytes);
        self
    }

    /// The most threads the blocking pool runs at once (default 512, as tokio's): jobs of
    /// [`spawn_blocking`](crate::spawn_blocking) beyond it wait, in the order they came,
    /// for a thread to finish its job. Zero makes [`Builder::build`] fail with
    /// [`io::ErrorKind::InvalidInput`].
    ///
    /// ```
    /// let ex = filch::Builder::new().max_blocking_threads(4).build().unwrap();
    /// let jobs: Vec<_> = (0..32).map(|i| ex.spawn_blocking(move || i)).collect();
    /// for (i, job) in jobs.into_iter().enumerate() {
    ///     assert_eq!(ex.block_on(job).unwrap(), i);
    /// }
    /// assert!(ex.stats().blocking_threads <= 4);
    /// ```
    pub fn max_blocking_threads(mut self, n: usize) -> Builder {
        self.max_blocking_threads = n;
        self
    }

    /// How long an idle blocking-pool thread waits for a job before it exits (default
    /// 10 s, as tokio's). Any `Duration` works: one too long for the clock to hold
    /// (`Duration::MAX`) keeps idle threads until shutdown.
    ///
    /// ```
    /// let ex = filch::Builder::new()
    ///     .thread_keep_alive(std::time::Duration::from_millis(10))
    ///     .build()
    ///     .unwrap();
    /// ex.block_on(ex.spawn_blocking(|| ())).unwrap();
    /// while ex.stats().blocking_threads > 0 {
    ///     std::thread::sleep(std::time::Duration::from_millis(1)); // it exits soon
    /// }
    /// ```
    pub fn thread_keep_alive(mut self, idle: Duration) -> Builder {
        self.thread_keep_alive = idle;
        self
    }

    /// Where woken tasks go (default [`WakePolicy::LastWorker`]).
    ///
    /// ```
    /// let ex = filch::Builder::new()
    ///     .wake_policy(filch::WakePolicy::CurrentWorker)
    ///     .build()
    ///     .unwrap();
    /// # drop(ex);
    /// ```
    pub fn wake_policy(mut self, policy: WakePolicy) -> Builder {
        self.wake_policy = policy;
        self
    }

    /// The tokio runtime whose context this executor's threads are inside (cargo feature
    /// `tokio-context`): its workers and blocking-pool threads for their whole life, and a
    /// thread inside its `block_on` while it blocks. Without it, one runtime per process,
    /// started by the first executor built with the feature (one worker, threads named
    /// `filch-tokio-{n}`), or the executor's own of [`Builder::tokio_worker_threads`].
    /// Crates that need tokio's reactor or timers (reqwest, sqlx, tonic's client, redis)
    /// then work unchanged in filch tasks; what they `tokio::spawn` runs on that runtime,
    /// not on filch's workers. [`Stats::tokio`](crate::Stats::tokio) reports it; filch
    /// watches only the runtimes it starts.
    ///
    /// The runtime must be a multi-thread one: [`Builder::build`] refuses a current-thread
    /// runtime's handle (`InvalidInput`), whose IO and timers run only inside its own
    /// `block_on`; and so it does when [`Builder::tokio_worker_threads`] is given too.
    ///
    /// ```
    /// let tokio_rt = tokio::runtime::Builder::new_multi_thread()
    ///     .worker_threads(1)
    ///     .enable_all()
    ///     .build()
    ///     .unwrap();
    /// let ex = filch::Builder::new()
    ///     .worker_threads(2)
    ///     .tokio_handle(tokio_rt.handle().clone())
    ///     .build()
    ///     .unwrap();
    /// // A task sees tokio's context (tokio's own timer works in it).
    /// let slept = ex.block_on(ex.spawn(async {
    ///     tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    ///     tokio::runtime::Handle::try_current().is_ok()
    /// }));
    /// assert!(slept.unwrap());
    /// ```
    #[cfg(feature = "tokio-context")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio-context")))]
    pub fn tokio_handle(mut self, handle: tokio::runtime::Handle) -> Builder {
        self.threads.tokio = self.threads.tokio.given(handle);
        self
    }

    /// The number of worker threads of the tokio runtime beside this executor (cargo
    /// feature `tokio-context`; default: the process's runtime, shared by every executor,
    /// with 1 worker). With it, the executor gets a runtime of its own with `n` workers,
    /// threads named `{prefix}-tokio-{i}` (see [`Builder::thread_name`]), shut down once the
    /// executor and its handles and tasks are gone.
    ///
    /// That runtime runs what filch's workers do not: what `tokio::spawn` starts (tokio-bound
    /// crates' background tasks, such as a database client's connection), and the IO and
    /// timers of tokio's own types (`tokio::net`, `tokio::time`). More workers there help a
    /// program whose load runs there; the way to run that load on filch's workers instead is
    /// `filch::net`, `filch::axum::serve` and `filch::spawn` (README, "Coming from tokio").
    /// filch warns once when work piles up on a runtime it started (more than half of its
    /// workers' time over a second); [`Stats::tokio`](crate::Stats::tokio) reports it.
    ///
    /// Zero, or a [`Builder::tokio_handle`] beside it, makes [`Builder::build`] fail with
    /// [`io::ErrorKind::InvalidInput`].
    ///
    /// ```
    /// let ex = filch::Builder::new()
    ///     .worker_threads(2)
    ///     .thread_name("app")
    ///     .tokio_worker_threads(2)
    ///     .build()
    ///     .unwrap();
    /// // What `tokio::spawn` starts runs on the executor's own tokio runtime.
    /// let name = ex.block_on(async {
    ///     tokio::spawn(async { std::thread::current().name().map(str::to_owned) })
    ///         .await
    ///         .unwrap()
    /// });
    /// assert!(name.unwrap().starts_with("app-tokio-"));
    /// assert_eq!(ex.stats().tokio.workers, 2);
    /// ```
    #[cfg(feature = "tokio-context")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio-context")))]
    pub fn tokio_worker_threads(mut self, n: usize) -> Builder {
        self.threads.tokio = self.threads.tokio.with_workers(n);
        self
    }

    /// Reports task polls that hold their worker longer than `threshold` (off by default):
    /// once while the poll still runs (`SlowPoll::still_running`, within about a
    /// millisecond of crossing the threshold, from filch's loop-ticker thread, never from
    /// the stuck worker) and once when it returns (from the worker, before the task's output
    /// is out), and counts them in
    /// [`WorkerStats::slow_polls`](crate::WorkerStats::slow_polls) and
    /// [`longest_poll`](crate::WorkerStats::longest_poll). Without
    /// [`Builder::on_slow_poll`], each report is printed to stderr as one line (the
    /// [`SlowPoll`](crate::SlowPoll)'s `Display`). The threshold counts the time the
    /// worker's thread runs the poll or is blocked inside it (a sleep, a lock, a read), not
    /// the time it waits for a CPU: on Linux, a worker preempted in the middle of a short
    /// poll on a busy machine is not reported (elsewhere the wall clock counts). A report's
    /// `duration` is the poll's time on the wall clock.
    ///
    /// Cost: with a threshold, each task poll reads the clock twice (about 40 ns in all),
    /// and the ticker reads two `/proc` files per tick for each poll older than a
    /// millisecond; without one, nothing. A zero threshold makes [`Builder::build`] fail
    /// with [`io::ErrorKind::InvalidInput`]; `Duration::MAX` never reports. Blocking-pool
    /// jobs are not watched: blocking is what they are for.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let ex = filch::Builder::new()
    ///     .worker_threads(1)
    ///     .slow_poll_threshold(Duration::from_millis(10))
    ///     .on_slow_poll(|_| {})
    ///     .build()
    ///     .unwrap();
    /// ex.block_on(ex.spawn(async { std::thread::sleep(Duration::from_millis(30)) })).unwrap();
    /// assert_eq!(ex.stats().total().slow_polls, 1);
    /// ```
    pub fn slow_poll_threshold(mut self, threshold: Duration) -> Builder {
        self.slow_polls.threshold = Some(threshold);
        self
    }

    /// What to do with each slow-poll report (see [`Builder::slow_poll_threshold`]; without
    /// a threshold it is never called). Called on filch's loop-ticker thread for a poll that
    /// still runs, and on the worker for one that returned: keep it short, and do not
    /// block in it.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use std::time::Duration;
    ///
    /// let stuck = Arc::new(AtomicUsize::new(0));
    /// let seen = Arc::clone(&stuck);
    /// let ex = filch::Builder::new()
    ///     .worker_threads(1)
    ///     .slow_poll_threshold(Duration::from_millis(10))
    ///     .on_slow_poll(move |report| {
    ///         if report.still_running {
    ///             seen.fetch_add(1, Ordering::SeqCst);
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// ex.block_on(ex.spawn(async { std::thread::sleep(Duration::from_millis(200)) })).unwrap();
    /// assert_eq!(stuck.load(Ordering::SeqCst), 1);
    /// ```
    pub fn on_slow_poll(mut self, f: impl Fn(&crate::SlowPoll) + Send + Sync + 'static) -> Builder {
        self.slow_polls.callback = Some(Arc::new(f));
        self
    }

    /// Starts the worker threads.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] if the number of workers or of blocking threads is
    /// zero, the number of workers above 65,535, the slow-poll threshold zero, or the
    /// thread name holds a NUL byte (with `tokio-context`: for the tokio runtime's settings
    /// too, see [`Builder::tokio_worker_threads`]); the operating system's error if a thread
    /// cannot be started (the threads already started are stopped and joined).
    ///
    /// ```
    /// let ex = filch::Builder::new().worker_threads(3).build()?;
    /// assert_eq!(ex.stats().workers.len(), 3);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn build(self) -> io::Result<Executor> {
        let n = match self.worker_threads {
            Some(n) => n,
            None => thread::available_parallelism().map_or(1, |n| n.get()),
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "filch: an executor needs at least one worker thread (worker_threads(0) was given)",
            ));
        }
        if n > MAX_WORKER_THREADS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "filch: an executor has at most {MAX_WORKER_THREADS} worker threads \
                     (worker_threads({n}) was given)"
                ),
            ));
        }
        if self.max_blocking_threads == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "filch: the blocking pool needs at least one thread (max_blocking_threads(0) \
                 was given)",
            ));
        }
        if self.slow_polls.threshold == Some(Duration::ZERO) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "filch: a slow-poll threshold must be longer than zero",
            ));
        }
        if let Some(name) = std::iter::once(&self.threads.prefix)
            .chain(
                self.threads
                    .worker_names
                    .iter()
                    .flat_map(|names| names.iter()),
            )
            .find(|name| name.contains('\0'))
        {
            // std's thread builder would panic on it, for the workers and the blocking pool.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("filch: a thread name cannot hold a NUL byte ({name:?} was given)"),
            ));
        }
        // With `tokio-context`: the runtime given, else one of the executor's own, else the
        // process's (`runtime/tokio_context/`).
        let threads = ThreadConfig {
            tokio: self.threads.tokio.clone().resolved(&self.threads.prefix)?,
            ..self.threads.clone()
        };
        let driver = Driver::new()?;
        let deques: Vec<Worker<Runnable>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let watch = self.slow_polls.threshold.map(|threshold| {
            Arc::new(PollWatch::new(
                n,
                threshold,
                self.slow_polls.callback.clone(),
            ))
        });
        // The loop ticker: the fork-join heartbeat, the coarse clock of the task dump, and the
        // slow-poll watch.
        crate::runtime::time::tick::try_start()?;
        let state = new_anchored(
            State::new(
                deques.iter().map(Worker::stealer).collect(),
                self.wake_policy,
                threads.clone(),
                driver,
                BlockingPool::new(self.max_blocking_threads, self.thread_keep_alive),
            )
            .with_poll_watch(watch.clone()),
        );
        if let Some(watch) = &watch {
            let weak = Arc::downgrade(&state);
            watch.set_name_of(Box::new(move |id| {
                weak.upgrade()
                    .and_then(|state| crate::runtime::scheduler::dump::name_of(&state, id))
            }));
            crate::runtime::task::poll_watch::register(watch);
        }
        // The paused clock's auto-advance (`runtime/scheduler/auto_advance.rs`).
        #[cfg(feature = "test-util")]
        crate::runtime::scheduler::auto_advance::install(&state);
        let mut executor = Executor {
            handle: Handle::from_state(Arc::clone(&state)),
            threads: Vec::with_capacity(n),
            shut_down: false,
        };
        for (index, deque) in deques.into_iter().enumerate() {
            let worker_state = Arc::clone(&state);
            let body = move || crate::runtime::scheduler::worker::run(worker_state, index, deque);
            match threads.spawn_worker(index, body) {
                Ok(thread) => executor.threads.push(thread),
                Err(e) => {
                    // The workers that will never run give up their holds (they counted
                    // nothing); dropping `executor` stops and joins the started ones and
                    // gives up the executor's hold, which frees the state.
                    for never in index..n {
                        task_count::holder_left(&state, Some(never));
                    }
                    return Err(e);
                }
            }
        }
        Ok(executor)
    }
}
