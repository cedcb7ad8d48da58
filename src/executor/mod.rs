//! [`Executor`]: a thin wrapper over the runtime's `Runtime` (`runtime/scheduler/runtime.rs`,
//! which starts an executor and owns its shutdown), and every public method of it (each a
//! short delegation to [`Handle`] or to the `Runtime`); its drop,
//! [`Executor::shutdown_timeout`] and [`Executor::shutdown_background`] shut it down.
//!
//! Beside it: [`Builder`] (`builder.rs`: the settings) and [`Handle`] and [`EnterGuard`]
//! (`handle.rs`). The crate reaches all of them as `crate::executor::…`; they reach the
//! runtime through its front door, `runtime/scheduler/runtime.rs`, only.

mod builder;
pub(crate) mod global;
mod handle;

pub use builder::Builder;
pub(crate) use handle::assert_not_on_worker;
pub use handle::{EnterGuard, Handle, TryCurrentError};

use std::fmt;
use std::future::Future;
use std::time::Duration;

use futures::task::{FutureObj, Spawn, SpawnError};

use crate::runtime::scheduler::runtime::Runtime;
use crate::{JoinHandle, Stats, TaskDump};

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
    /// The worker threads and the shutdown (its drop shuts the executor down).
    runtime: Runtime,
    handle: Handle,
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
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Spawns the `!Send` future that `create` makes onto the least loaded worker, pinned
    /// there; see [`crate::spawn_pinned`].
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let task = ex.spawn_pinned(|| {
    ///     let cell = std::rc::Rc::new(std::cell::Cell::new(1));
    ///     async move {
    ///         filch::yield_now().await;
    ///         cell.set(cell.get() * 7);
    ///         cell.get()
    ///     }
    /// });
    /// assert_eq!(ex.block_on(task).unwrap(), 7);
    /// ```
    #[track_caller]
    pub fn spawn_pinned<C, F>(&self, create: C) -> JoinHandle<F::Output>
    where
        C: FnOnce() -> F + Send + 'static,
        F: Future + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn_pinned(create)
    }

    /// Polls `future` to completion on the calling thread. Inside it, [`crate::spawn`],
    /// [`Handle::current`] and the `par_*` loops use this executor.
    ///
    /// # Panics
    /// On a worker thread of a filch executor (use `.await` there), unless inside
    /// [`task::block_in_place`](crate::task::block_in_place).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(async { filch::spawn(async { 3 }).await.unwrap() });
    /// assert_eq!(v, 3);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Runs `op` on one of this executor's workers and returns its value; rayon's
    /// `ThreadPool::install` (see [`Handle::install`]).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let index = ex.install(filch::par::current_thread_index);
    /// assert!(index.unwrap() < 2);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.handle.install(op)
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

    /// A snapshot of the executor's live tasks: id, name, spawn location, state, polls and
    /// times; see [`TaskDump`] for which tasks it lists, and `println!("{dump}")` for a table.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = filch::task::Builder::new()
    ///     .name("forever")
    ///     .spawn_on(std::future::pending::<()>(), &ex.handle())
    ///     .unwrap();
    /// let dump = ex.dump();
    /// assert_eq!(dump.tasks.len(), 1);
    /// assert_eq!(dump.tasks[0].id, task.id());
    /// task.abort();
    /// ```
    pub fn dump(&self) -> TaskDump {
        self.handle.dump()
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
    /// finish on their threads, detached). Called inside one of those jobs, it waits for the
    /// others, not for the job it runs in. A `timeout` too long for the clock to hold
    /// (`Duration::MAX`) waits as long as they take.
    ///
    /// ```
    /// use std::time::Duration;
    /// let ex = filch::Executor::new();
    /// let job = ex.spawn_blocking(|| std::thread::sleep(Duration::from_millis(20)));
    /// # let _ = job;
    /// ex.shutdown_timeout(Duration::from_secs(5)); // returns once the job has finished
    /// ```
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.runtime.shutdown(Some(timeout));
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
    #[track_caller]
    pub fn spawn_blocking<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }
}

impl Executor {
    /// The executor of a started runtime.
    fn from_runtime(runtime: Runtime) -> Executor {
        let handle = Handle::from_state(std::sync::Arc::clone(runtime.state()));
        Executor { runtime, handle }
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

impl Spawn for Executor {
    fn spawn_obj(&self, future: FutureObj<'static, ()>) -> Result<(), SpawnError> {
        self.handle.spawn_obj(future)
    }

    fn status(&self) -> Result<(), SpawnError> {
        self.handle.status()
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
