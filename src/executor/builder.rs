//! [`Builder`]: the settings of an executor, each a setter over the runtime's `Config`,
//! and [`Builder::build`], which hands them to `Runtime::start`
//! (`runtime/scheduler/runtime.rs`: the checks, the start, and the invariant that a failed
//! start leaves nothing behind).

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use super::Executor;
use crate::runtime::scheduler::runtime::{Config, Runtime, WorkerHook};
use crate::WakePolicy;

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
#[derive(Clone)]
pub struct Builder {
    config: Config,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config;
        f.debug_struct("Builder")
            .field("worker_threads", &config.worker_threads)
            .field("threads", &config.threads)
            .field("wake_policy", &config.wake_policy)
            .field("max_blocking_threads", &config.max_blocking_threads)
            .field("thread_keep_alive", &config.thread_keep_alive)
            .field("slow_polls", &config.slow_polls)
            .field("hand_over_after", &config.hand_over_after)
            .finish()
    }
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
            config: Config::new(),
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
        self.config.worker_threads = Some(n);
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
        self.config.threads.prefix = prefix.into();
        self
    }

    /// Names the workers one by one (rayon's `ThreadPoolBuilder::thread_name`); the
    /// blocking-pool threads keep `{prefix}-blocking-{n}`.
    pub(crate) fn worker_names(mut self, names: Vec<String>) -> Builder {
        self.config.threads.worker_names = Some(names.into());
        self
    }

    /// Hooks run on each worker with its index, as it starts and as it exits (rayon's
    /// `start_handler` and `exit_handler`).
    pub(crate) fn worker_hooks(
        mut self,
        start: Option<WorkerHook>,
        stop: Option<WorkerHook>,
    ) -> Builder {
        self.config.threads.worker_start = start;
        self.config.threads.worker_stop = stop;
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
        self.config.threads.on_start = Some(Arc::new(f));
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
        self.config.threads.on_stop = Some(Arc::new(f));
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
        self.config.threads.stack_size = Some(bytes);
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
        self.config.max_blocking_threads = n;
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
        self.config.thread_keep_alive = idle;
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
        self.config.wake_policy = policy;
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
        self.config.threads.tokio = self.config.threads.tokio.given(handle);
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
        self.config.threads.tokio = self.config.threads.tokio.with_workers(n);
        self
    }

    /// Reports task polls that hold their worker longer than `threshold` (off by default):
    /// once while the poll still runs (`SlowPoll::still_running`, within about a
    /// millisecond of crossing the threshold, from filch's epoch-ticker thread, never from
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
        self.config.slow_polls.threshold = Some(threshold);
        self
    }

    /// How long a task's poll may hold its worker (running or blocked, as the kernel reports
    /// the thread; time spent waiting for a CPU does not count) before a stand-in thread takes
    /// the worker's place: polls its other tasks and turns its sockets and timers until the
    /// poll returns. The default is 1 ms, so whatever a poll does (a CPU loop, a blocking
    /// call, a `join` or parallel iterator, many short ones back to back) the worker's duties
    /// wait about a millisecond at most. While a stand-in serves, the worker's tasks may run
    /// in another order than its own loop's (two threads take from its queues); a test that
    /// asserts one worker's order while its polls run long may set a longer delay.
    /// `Duration::MAX` never hands a poll over (as tokio, where a poll that blocks keeps its
    /// worker's tasks waiting), except `task::block_in_place`, which always does at once.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let ex = filch::Builder::new()
    ///     .worker_threads(1)
    ///     .hand_over_after(Duration::from_millis(5))
    ///     .build()
    ///     .unwrap();
    /// let tick = ex.spawn(filch::time::sleep(Duration::from_millis(1)));
    /// // The only worker blocks for 50 ms; its stand-in fires the timer meanwhile.
    /// ex.block_on(ex.spawn(async { std::thread::sleep(Duration::from_millis(50)) })).unwrap();
    /// ex.block_on(tick).unwrap();
    /// ```
    pub fn hand_over_after(mut self, after: Duration) -> Builder {
        self.config.hand_over_after = after;
        self
    }

    /// What to do with each slow-poll report (see [`Builder::slow_poll_threshold`]; without
    /// a threshold it is never called). Called on filch's epoch-ticker thread for a poll that
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
        self.config.slow_polls.callback = Some(Arc::new(f));
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
        Runtime::start(self.config).map(Executor::from_runtime)
    }
}
