//! [`Executor`], [`Builder`] and [`Handle`]: every public method of the three (each a short
//! delegation to the module that does the work), starting the workers, and the shutdown
//! protocol.
//!
//! Shutdown (`Drop for Executor`), in order:
//! 1. set `shutdown` (SeqCst) and fence: from here on every task that is scheduled is
//!    dropped instead of queued, and a push that raced with the store is caught by the
//!    push-then-check protocol (`worker/schedule.rs`); then stop the blocking pool
//!    (idle threads exit, queued jobs are cancelled, running ones finish unawaited);
//! 2. close the live-task registry and wake every task still in it: a task waiting for a
//!    wake-up is scheduled, and so dropped; one in a queue stays there for step 6; one being
//!    polled is dropped when its poll ends;
//! 3. wake every parked worker; each finishes the task it is running, drops what is left in
//!    its own LIFO slot and deque, and exits;
//! 4. join the worker threads, except the current thread if the executor is dropped on one
//!    of its own workers (that worker exits once the task it is running returns);
//! 5. wake every task still registered once more: a task that was queued at step 2 (so that
//!    wake-up was a no-op) but that a worker took and polled before it saw the flag is now
//!    waiting for a wake-up that will never come; this one schedules, and so drops, it;
//! 6. drain the injector and the inboxes;
//! 7. shut the IO driver down: IO objects still alive return an error from now on, timers
//!    still alive are woken and panic when polled (`driver/mod.rs`), the OS poller closes.
//!
//! **Invariant:** after `Drop` returns, every task of the executor has completed or had its
//! future dropped. The one exception is a drop from inside a task: the worker running it
//! cannot be joined, so that task, and the tasks left in that worker's own LIFO slot, deque
//! and deferred list, are dropped when that task's poll ends and the worker exits.

use std::fmt;
use std::future::Future;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_deque::Worker;
use futures::task::{FutureObj, Spawn, SpawnError};

use crate::blocking::BlockingPool;
use crate::driver::Driver;
use crate::join::JoinHandle;
use crate::par::{self, On};
use crate::par::{ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
use crate::state::{Runnable, State};
use crate::stats::Stats;
use crate::sync::{fence, Ordering};
use crate::task_count::{self, new_anchored};
use crate::threads::ThreadConfig;
use crate::wake_policy::WakePolicy;
use crate::worker::context;
use crate::{block_on, spawn};

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
            max_blocking_threads: crate::blocking::MAX_BLOCKING_THREADS,
            thread_keep_alive: crate::blocking::IDLE_TIMEOUT,
        }
    }

    /// The number of worker threads (default: [`std::thread::available_parallelism`]).
    /// Zero makes [`Builder::build`] fail with [`io::ErrorKind::InvalidInput`].
    ///
    /// ```
    /// let err = filch::Builder::new().worker_threads(0).build().unwrap_err();
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
    /// 10 s, as tokio's).
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

    /// Starts the worker threads.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] if the number of workers or of blocking threads is
    /// zero, or the thread name holds a NUL byte; the operating system's error if a thread
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
        if self.max_blocking_threads == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "filch: the blocking pool needs at least one thread (max_blocking_threads(0) \
                 was given)",
            ));
        }
        if self.threads.prefix.contains('\0') {
            // std's thread builder would panic on it, for the workers and the blocking pool.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "filch: a thread name cannot hold a NUL byte (thread_name({:?}) was given)",
                    self.threads.prefix
                ),
            ));
        }
        let driver = Driver::new()?;
        let deques: Vec<Worker<Runnable>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let state = new_anchored(State::new(
            deques.iter().map(Worker::stealer).collect(),
            self.wake_policy,
            self.threads.clone(),
            driver,
            BlockingPool::new(self.max_blocking_threads, self.thread_keep_alive),
        ));
        #[cfg(all(test, not(loom)))]
        tests::built(&state);
        #[cfg(feature = "test-util")]
        {
            // The last busy thread that is no worker to go idle advances a paused clock
            // (`auto_advance.rs`). Weak: the clock belongs to the state.
            let weak = Arc::downgrade(&state);
            state
                .driver
                .clock()
                .activity()
                .set_on_idle(Box::new(move || {
                    if let Some(state) = weak.upgrade() {
                        crate::auto_advance::advance_if_idle(&state);
                    }
                }));
        }
        let mut executor = Executor {
            handle: Handle::from_state(Arc::clone(&state)),
            threads: Vec::with_capacity(n),
            shut_down: false,
        };
        for (index, deque) in deques.into_iter().enumerate() {
            let worker_state = Arc::clone(&state);
            let name = format!("{}-{index}", self.threads.prefix);
            let body = move || crate::worker::run(worker_state, index, deque);
            match start_thread(&self.threads, name, body) {
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

/// Starts a worker thread. Under `cfg(test)` a test can make the `k`-th start of the
/// current thread fail ([`tests::fail_thread_start_after`]).
fn start_thread(
    config: &ThreadConfig,
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> io::Result<thread::JoinHandle<()>> {
    #[cfg(all(test, not(loom)))]
    tests::injected_start_failure()?;
    config.spawn(name, body)
}

/// A pool of worker threads running spawned futures. Dropping it shuts the workers down
/// and drops every task that has not completed (their [`JoinHandle`]s resolve to a
/// cancelled [`crate::JoinError`]).
///
/// ```
/// let ex = filch::Executor::new();
/// let answer = ex.block_on(async {
///     let a = filch::spawn(async { 40 });
///     let b = filch::spawn(async { 2 });
///     a.await.unwrap() + b.await.unwrap()
/// });
/// assert_eq!(answer, 42);
/// ```
pub struct Executor {
    handle: Handle,
    threads: Vec<thread::JoinHandle<()>>,
    /// Set once the shutdown steps ran (by `shutdown_timeout`), so that the drop does not
    /// run them again.
    shut_down: bool,
}

impl Default for Executor {
    fn default() -> Executor {
        Executor::new()
    }
}

impl Executor {
    /// An executor with the default settings ([`Builder::new`]).
    ///
    /// # Panics
    /// If the worker threads cannot be started.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// assert_eq!(ex.block_on(async { 1 }), 1);
    /// ```
    pub fn new() -> Executor {
        Builder::new()
            .build()
            .unwrap_or_else(|e| panic!("filch: cannot start the executor's worker threads: {e}"))
    }

    /// A [`Builder`] to configure an executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// # drop(ex);
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// A handle that spawns onto this executor; it does not keep the threads alive.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let out = std::thread::spawn(move || handle.spawn(async { 5 })).join().unwrap();
    /// assert_eq!(ex.block_on(out).unwrap(), 5);
    /// ```
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Spawns `future` onto the workers; see [`Handle::spawn`].
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let h = ex.spawn(async { "done" });
    /// assert_eq!(ex.block_on(h).unwrap(), "done");
    /// ```
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Polls `future` to completion on the calling thread. Inside it, [`crate::spawn`],
    /// [`Handle::current`] and the `par_*` loops use this executor.
    ///
    /// # Panics
    /// On a worker thread of a filch executor (use `.await` there).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(async { filch::spawn(async { 3 }).await.unwrap() });
    /// assert_eq!(v, 3);
    /// ```
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// The counters of every worker.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// assert_eq!(ex.stats().workers.len(), 2);
    /// ```
    pub fn stats(&self) -> Stats {
        self.handle.stats()
    }

    /// The number of worker threads.
    ///
    /// ```
    /// assert_eq!(filch::Executor::builder().worker_threads(3).build().unwrap().worker_threads(), 3);
    /// ```
    pub fn worker_threads(&self) -> usize {
        self.handle.state.num_workers()
    }

    /// Makes this executor the current one on this thread until the guard is dropped:
    /// [`crate::spawn`], the loops, and the IO objects and timers made meanwhile go to it.
    /// Guards nest; drop them in the reverse order of their making.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = {
    ///     let _guard = ex.enter();
    ///     filch::spawn(async { 5 }) // on `ex`, not on the global executor
    /// };
    /// assert_eq!(ex.block_on(task).unwrap(), 5);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the executor down as dropping it does, then waits at most `timeout` for the
    /// blocking-pool jobs that are still running (those that take longer are left to
    /// finish on their threads, detached).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ex = filch::Executor::new();
    /// let job = ex.spawn_blocking(|| std::thread::sleep(Duration::from_millis(20)));
    /// # let _ = job;
    /// ex.shutdown_timeout(Duration::from_secs(5)); // returns once the job has finished
    /// ```
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.shut_down_now();
        self.handle.state.blocking.wait_for_threads(timeout);
    }

    /// Shuts the executor down as dropping it does (every task's future is dropped before
    /// it returns), without waiting for the blocking-pool jobs that are still running.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let (tx, rx) = std::sync::mpsc::channel::<()>();
    /// let job = ex.spawn_blocking(move || rx.recv());
    /// # let _ = job;
    /// ex.shutdown_background(); // does not wait for the job, which waits for `tx`
    /// drop(tx);
    /// ```
    pub fn shutdown_background(self) {
        drop(self);
    }

    /// Runs `f` on this executor's blocking pool, never on a worker; see
    /// [`crate::spawn_blocking`].
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let sum = ex.spawn_blocking(|| (1..=10u32).sum::<u32>());
    /// assert_eq!(ex.block_on(sum).unwrap(), 55);
    /// ```
    pub fn spawn_blocking<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// [`par_range`](crate::par_range) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// ex.block_on(ex.par_range(0..100, |i| assert!(i < 100)));
    /// ```
    pub fn par_range<F>(&self, range: Range<usize>, body: F) -> ParRange
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        self.handle.par_range(range, body)
    }

    /// [`par_map`](crate::par_map) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// assert_eq!(ex.block_on(ex.par_map(0..3, |i| i * 2)), vec![0, 2, 4]);
    /// ```
    pub fn par_map<T, F>(&self, range: Range<usize>, f: F) -> ParMap<T>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        self.handle.par_map(range, f)
    }

    /// [`par_reduce`](crate::par_reduce) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let n = ex.block_on(ex.par_reduce(0..10, || 0usize, |c, _| c + 1, |a, b| a + b));
    /// assert_eq!(n, 10);
    /// ```
    pub fn par_reduce<T, I, F, R>(
        &self,
        range: Range<usize>,
        identity: I,
        fold: F,
        reduce: R,
    ) -> ParReduce<T>
    where
        T: Send + 'static,
        I: Fn() -> T + Send + Sync + 'static,
        F: Fn(T, usize) -> T + Send + Sync + 'static,
        R: Fn(T, T) -> T + Send + Sync + 'static,
    {
        self.handle.par_reduce(range, identity, fold, reduce)
    }

    /// [`par_map_vec`](crate::par_map_vec) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let lens = ex.block_on(ex.par_map_vec(vec!["ab".to_string(), "c".to_string()], |s| s.len()));
    /// assert_eq!(lens, vec![2, 1]);
    /// ```
    pub fn par_map_vec<T, U, F>(&self, items: Vec<T>, f: F) -> ParMapVec<U>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: Fn(T) -> U + Send + Sync + 'static,
    {
        self.handle.par_map_vec(items, f)
    }

    /// [`par_for_each_mut`](crate::par_for_each_mut) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(ex.par_for_each_mut(vec![1, 2, 3], |_, x| *x = -*x));
    /// assert_eq!(v, vec![-1, -2, -3]);
    /// ```
    pub fn par_for_each_mut<T, F>(&self, items: Vec<T>, f: F) -> ParForEachMut<T>
    where
        T: Send + 'static,
        F: Fn(usize, &mut T) + Send + Sync + 'static,
    {
        self.handle.par_for_each_mut(items, f)
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        if !self.shut_down {
            self.shut_down_now();
        }
    }
}

impl Executor {
    /// The shutdown steps (see `Drop for Executor` and the module docs); run once.
    fn shut_down_now(&mut self) {
        self.shut_down = true;
        let state = Arc::clone(&self.handle.state);
        // Step 1.
        state.shutdown.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // Step 1b: idle blocking threads exit, queued blocking jobs are cancelled (dropped
        // here, outside the pool's lock; running ones finish on their threads).
        drop(state.blocking.shutdown());
        // Step 2: wakers are called with no lock held (the registry returns them).
        for waker in state.live_tasks.close() {
            waker.wake();
        }
        // Step 3.
        state.idle.wake_all();
        // Step 4.
        let me = thread::current().id();
        for thread in self.threads.drain(..) {
            if thread.thread().id() != me {
                // A worker never panics out of its thread (task panics are caught, and a
                // loop that unwinds restarts), so an error here could only come from a bug;
                // there is nothing to recover.
                let _ = thread.join();
            }
        }
        // Step 5: no other worker runs now, so every task still registered either waits
        // for a wake-up (this one drops it) or is queued (step 6 or its worker drops it).
        for waker in state.live_tasks.take_all() {
            waker.wake();
        }
        // Step 6.
        state.drain_after_shutdown();
        // Step 7: the IO objects and timers still alive report the shutdown.
        state.driver.shutdown();
        // The executor no longer keeps its state alive for the tasks (`task_count.rs`).
        task_count::holder_left(&state, None);
    }
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("worker_threads", &self.worker_threads())
            .field("wake_policy", &self.handle.state.policy)
            .finish()
    }
}

/// Spawns onto an executor from anywhere. `Clone + Send + Sync`; it does not keep the
/// executor's threads alive: after the executor is dropped, spawned tasks are dropped at
/// once and their [`JoinHandle`]s resolve to a cancelled error.
///
/// ```
/// let ex = filch::Executor::new();
/// let handle = ex.handle();
/// let inner = ex.block_on(async { filch::Handle::current().unwrap().spawn(async { 1 }) });
/// assert_eq!(ex.block_on(inner).unwrap(), 1);
/// drop(ex);
/// let late = handle.spawn(async { 2 });
/// assert!(filch::block_on(late).unwrap_err().is_cancelled());
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) state: Arc<State>,
}

impl Handle {
    pub(crate) fn from_state(state: Arc<State>) -> Handle {
        Handle { state }
    }

    pub(crate) fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// The executor whose worker, blocking-pool thread or `block_on` this thread is in.
    ///
    /// ```
    /// assert!(filch::Handle::current().is_none());
    /// let ex = filch::Executor::new();
    /// assert!(ex.block_on(async { filch::Handle::current() }).is_some());
    /// ```
    pub fn current() -> Option<Handle> {
        context::current_state().map(Handle::from_state)
    }

    /// Spawns `future` onto this executor. The task is scheduled at once; await the
    /// [`JoinHandle`] for its output, or drop it to let the task run detached.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let task = handle.spawn(async { 2 + 2 });
    /// assert_eq!(ex.block_on(task).unwrap(), 4);
    /// ```
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn::spawn(&self.state, future)
    }

    /// Runs `f` on this executor's blocking pool, never on a worker; see
    /// [`crate::spawn_blocking`].
    ///
    /// ```
    /// let ex = filch::Executor::builder().thread_name("app").build().unwrap();
    /// let handle = ex.handle();
    /// let name = handle.spawn_blocking(|| std::thread::current().name().map(str::to_owned));
    /// assert!(ex.block_on(name).unwrap().unwrap().starts_with("app-blocking-"));
    /// ```
    pub fn spawn_blocking<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        spawn::spawn_blocking(&self.state, f)
    }

    /// [`par_range`](crate::par_range) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let handle = ex.handle();
    /// ex.block_on(handle.par_range(0..100, |i| assert!(i < 100)));
    /// ```
    pub fn par_range<F>(&self, range: Range<usize>, body: F) -> ParRange
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        par::range_loop(range, On::Fixed(Arc::clone(&self.state)), body)
    }

    /// [`par_map`](crate::par_map) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(ex.handle().par_map(0..3, |i| i + 1));
    /// assert_eq!(v, vec![1, 2, 3]);
    /// ```
    pub fn par_map<T, F>(&self, range: Range<usize>, f: F) -> ParMap<T>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        par::map_loop(range, On::Fixed(Arc::clone(&self.state)), f)
    }

    /// [`par_reduce`](crate::par_reduce) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let max = ex.block_on(ex.handle().par_reduce(0..10, || 0, |m, i| m.max(i), |a, b| a.max(b)));
    /// assert_eq!(max, 9);
    /// ```
    pub fn par_reduce<T, I, F, R>(
        &self,
        range: Range<usize>,
        identity: I,
        fold: F,
        reduce: R,
    ) -> ParReduce<T>
    where
        T: Send + 'static,
        I: Fn() -> T + Send + Sync + 'static,
        F: Fn(T, usize) -> T + Send + Sync + 'static,
        R: Fn(T, T) -> T + Send + Sync + 'static,
    {
        par::reduce_loop(
            range,
            On::Fixed(Arc::clone(&self.state)),
            identity,
            fold,
            reduce,
        )
    }

    /// [`par_map_vec`](crate::par_map_vec) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(ex.handle().par_map_vec(vec![1u8, 2, 3], |x| x as u32 * 100));
    /// assert_eq!(v, vec![100, 200, 300]);
    /// ```
    pub fn par_map_vec<T, U, F>(&self, items: Vec<T>, f: F) -> ParMapVec<U>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: Fn(T) -> U + Send + Sync + 'static,
    {
        par::map_vec_loop(items, On::Fixed(Arc::clone(&self.state)), f)
    }

    /// [`par_for_each_mut`](crate::par_for_each_mut) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(ex.handle().par_for_each_mut(vec![String::new(); 3], |k, s| {
    ///     s.push_str(&k.to_string())
    /// }));
    /// assert_eq!(v, ["0", "1", "2"]);
    /// ```
    pub fn par_for_each_mut<T, F>(&self, items: Vec<T>, f: F) -> ParForEachMut<T>
    where
        T: Send + 'static,
        F: Fn(usize, &mut T) + Send + Sync + 'static,
    {
        par::for_each_mut_loop(items, On::Fixed(Arc::clone(&self.state)), f)
    }

    /// Polls `future` to completion on the calling thread, in this executor's context, as
    /// [`Executor::block_on`] does.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let four = std::thread::spawn(move || handle.block_on(async { 2 + 2 }))
    ///     .join()
    ///     .unwrap();
    /// assert_eq!(four, 4);
    /// ```
    ///
    /// # Panics
    /// On a worker thread of a filch executor (blocking a worker can deadlock the pool).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        assert_not_on_worker();
        let _enter = context::enter(Arc::clone(&self.state));
        // With `test-util` the thread counts as busy while it polls, for the paused clock
        // (`block_on.rs`).
        #[cfg(feature = "test-util")]
        return block_on::block_on_counted(
            crate::coop::budgeted(future),
            self.state.driver.clock().activity(),
        );
        #[cfg(not(feature = "test-util"))]
        block_on::block_on(crate::coop::budgeted(future))
    }

    /// Makes this executor the current one on this thread until the guard is dropped (see
    /// [`Executor::enter`]).
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let _guard = handle.enter();
    /// assert!(filch::Handle::current().is_some());
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _current: context::enter(Arc::clone(&self.state)),
            _executor: std::marker::PhantomData,
        }
    }

    /// The counters of every worker of this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// assert_eq!(ex.handle().stats().workers.len(), 2);
    /// ```
    pub fn stats(&self) -> Stats {
        self.state.stats()
    }
}

/// Keeps an executor current on this thread (from [`Executor::enter`] or [`Handle::enter`])
/// until it is dropped; then the executor that was current before is current again. Not
/// `Send`: it belongs to the thread that made it.
pub struct EnterGuard<'a> {
    _current: context::CurrentGuard,
    _executor: std::marker::PhantomData<&'a Handle>,
}

impl fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterGuard").finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("worker_threads", &self.state.num_workers())
            .field("shut_down", &self.state.is_shut_down())
            .finish()
    }
}

/// Panics if the current thread is a worker of a filch executor: blocking a worker can
/// deadlock the pool.
pub(crate) fn assert_not_on_worker() {
    if context::is_worker_thread() {
        panic!(
            "filch: `block_on` was called on a worker thread of a filch executor; blocking a \
             worker can deadlock the pool. Use `.await` on the future instead."
        );
    }
}

impl Spawn for Handle {
    fn spawn_obj(&self, future: FutureObj<'static, ()>) -> Result<(), SpawnError> {
        if self.state.is_shut_down() {
            return Err(SpawnError::shutdown());
        }
        drop(self.spawn(future));
        Ok(())
    }

    fn status(&self) -> Result<(), SpawnError> {
        if self.state.is_shut_down() {
            Err(SpawnError::shutdown())
        } else {
            Ok(())
        }
    }
}

impl Spawn for Executor {
    fn spawn_obj(&self, future: FutureObj<'static, ()>) -> Result<(), SpawnError> {
        self.handle.spawn_obj(future)
    }

    fn status(&self) -> Result<(), SpawnError> {
        self.handle.status()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::{Arc, Weak};

    use super::Builder;
    use std::cell::{Cell, RefCell};
    use std::time::Duration;

    use crate::state::State;

    fn state_of(ex: &super::Executor) -> Weak<State> {
        Arc::downgrade(ex.handle().state())
    }

    #[test]
    fn state_is_freed_when_the_executor_and_its_tasks_are_gone() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        ex.block_on(async {
            let tasks: Vec<_> = (0..100).map(|i| crate::spawn(async move { i })).collect();
            for t in tasks {
                t.await.unwrap();
            }
        });
        drop(ex);
        assert!(
            state.upgrade().is_none(),
            "the executor's state outlived it and its tasks"
        );
    }

    #[test]
    fn a_join_handle_keeps_the_state_until_it_is_dropped() {
        let ex = Builder::new().worker_threads(1).build().unwrap();
        let state = state_of(&ex);
        let pending = ex.spawn(std::future::pending::<()>());
        let done = ex.spawn(async { 7 });
        while !done.is_finished() {
            std::thread::yield_now();
        }
        drop(ex);
        assert!(
            state.upgrade().is_some(),
            "freed while join handles still reach tasks"
        );
        assert!(crate::block_on(pending).unwrap_err().is_cancelled());
        assert!(state.upgrade().is_some());
        assert_eq!(crate::block_on(done).unwrap(), 7);
        assert!(
            state.upgrade().is_none(),
            "the last task's end did not free the state"
        );
    }

    #[test]
    fn a_waker_held_elsewhere_keeps_the_state_until_it_is_dropped() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        let (tx, rx) = std::sync::mpsc::channel();
        drop(ex.spawn(std::future::poll_fn(move |cx| {
            let _ = tx.send(cx.waker().clone());
            std::task::Poll::<()>::Pending
        })));
        let waker = rx.recv().unwrap();
        drop(ex);
        assert!(state.upgrade().is_some());
        // Waking a task of a dropped executor is harmless.
        waker.wake_by_ref();
        drop(waker);
        drop(rx);
        assert!(state.upgrade().is_none());
    }

    #[test]
    fn spawning_through_a_handle_after_the_executor_is_gone_keeps_the_state_balanced() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        let handle = ex.handle();
        drop(ex);
        for _ in 0..3 {
            let late = handle.spawn(async { 1 });
            assert!(crate::block_on(late).unwrap_err().is_cancelled());
            assert!(state.upgrade().is_some(), "freed while a handle holds it");
        }
        drop(handle);
        assert!(
            state.upgrade().is_none(),
            "the handle's drop did not free the state"
        );
    }

    thread_local! {
        /// Thread starts left before an injected failure (`None`: no injection).
        static STARTS_BEFORE_FAILURE: Cell<Option<usize>> = const { Cell::new(None) };
        /// The state of the last executor built on this thread.
        static LAST_BUILT: RefCell<Option<Weak<State>>> = const { RefCell::new(None) };
    }

    /// Makes the `(k + 1)`-th worker-thread start of this thread fail, once.
    fn fail_thread_start_after(k: usize) {
        STARTS_BEFORE_FAILURE.with(|c| c.set(Some(k)));
    }

    pub(super) fn injected_start_failure() -> std::io::Result<()> {
        STARTS_BEFORE_FAILURE.with(|c| match c.get() {
            Some(0) => {
                c.set(None);
                Err(std::io::Error::other("injected thread start failure"))
            }
            Some(k) => {
                c.set(Some(k - 1));
                Ok(())
            }
            None => Ok(()),
        })
    }

    pub(super) fn built(state: &Arc<State>) {
        LAST_BUILT.with(|b| *b.borrow_mut() = Some(Arc::downgrade(state)));
    }

    /// Issue 8, defect 4: a thread-spawn failure part-way through `build` returns the error,
    /// stops and joins the workers already started, and frees the state.
    #[test]
    fn a_thread_start_failure_part_way_stops_the_started_workers_and_frees_everything() {
        fail_thread_start_after(2);
        let err = Builder::new()
            .worker_threads(4)
            .thread_name("partway")
            .build()
            .unwrap_err();
        assert_eq!(err.to_string(), "injected thread start failure");
        let state = LAST_BUILT.with(|b| b.borrow_mut().take()).unwrap();
        assert!(state.upgrade().is_none(), "a failed build leaked its state");
        // The two started workers were joined before `build` returned.
        let names: Vec<String> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with("partway")),
            "workers left running: {names:?}"
        );
    }

    /// Issue 8, defect 4: a NUL byte in the thread name is bad input, not a panic.
    #[test]
    fn a_thread_name_with_a_nul_byte_is_invalid_input() {
        let err = Builder::new()
            .worker_threads(2)
            .thread_name("bad\0name")
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    }

    /// Issue 8, defect 8: a worker whose loop unwinds while it is parked (as when a waker
    /// that the reactor calls panics) gives back its booking in the notifier and runs
    /// again: later tasks run (on a one-worker executor, only that worker can run them),
    /// later pushes still wake it, and shutdown frees the state.
    #[test]
    fn a_worker_whose_loop_unwinds_recovers() {
        let ex = Builder::new().worker_threads(1).build().unwrap();
        let state = state_of(&ex);
        let (tx, rx) = std::sync::mpsc::channel();
        for round in 0..3 {
            ex.handle()
                .state()
                .fault_next_park
                .store(true, std::sync::atomic::Ordering::SeqCst);
            // Wake the worker so that it parks again (and panics there).
            let tx = tx.clone();
            drop(ex.spawn(async move { tx.send(round).unwrap() }));
            assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(round));
            // Let it reach its park and unwind.
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while ex
                .handle()
                .state()
                .fault_next_park
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the worker never parked"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        // The worker must still be alive and wakeable.
        let answer = ex.spawn(async { 42 });
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || done_tx.send(futures::executor::block_on(answer)));
        let got = done_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a task spawned after the worker's loop unwound never ran");
        assert_eq!(got.unwrap(), 42);
        waiter.join().unwrap().unwrap();
        // Once it sleeps again it is booked once: the unwound parks gave their bookings back.
        let state_now = ex.handle().state().clone();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while state_now.idle.sleepers().is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "the worker never slept again"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            state_now.idle.sleepers(),
            vec![0],
            "stale bookings in the notifier"
        );
        drop(state_now);
        drop(ex);
        assert!(state.upgrade().is_none(), "the state leaked");
    }
}
