//! [`Handle`], which spawns onto one executor from anywhere, and [`EnterGuard`], which keeps
//! an executor current on a thread; the public methods of both (each a short delegation to
//! the runtime's front door, `runtime/scheduler/runtime.rs`, which names the module that
//! does the work).
//!
//! **Invariants:** a `Handle` holds an `Arc` of the executor's state, never its threads, so
//! it keeps the state alive but not the workers: after shutdown what it spawns is dropped
//! at once (its `JoinHandle` resolves to a cancelled error). `block_on` refuses to run on a
//! worker thread ([`assert_not_on_worker`]). An `EnterGuard` is not `Send`: the context it
//! restores on drop is its thread's.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::task::{FutureObj, Spawn, SpawnError};

use crate::runtime::scheduler::runtime::{self as rt, State};
use crate::{JoinHandle, Stats, TaskDump};

/// Spawns onto an executor from anywhere. `Clone + Send + Sync`; it does not keep the
/// executor's threads alive: after the executor is dropped, spawned tasks are dropped at
/// once and their [`JoinHandle`]s resolve to a cancelled error.
///
/// ```
/// let ex = filch::Executor::new();
/// let handle = ex.handle();
/// let inner = ex.block_on(async { filch::Handle::current().spawn(async { 1 }) });
/// assert_eq!(ex.block_on(inner).unwrap(), 1);
/// drop(ex);
/// let late = handle.spawn(async { 2 });
/// assert!(filch::block_on(late).unwrap_err().is_cancelled());
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) state: Arc<State>,
}

/// The error of [`Handle::try_current`]: this thread is in no executor (no task, worker,
/// blocking-pool job, `block_on` or enter guard of one).
///
/// ```
/// let err = filch::Handle::try_current().unwrap_err();
/// assert!(err.to_string().contains("try_current"));
/// ```
#[derive(Clone, Debug)]
pub struct TryCurrentError(());

impl std::fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "filch: no executor here: Handle::current() works in a task, inside `block_on` or \
             `#[filch::main]`, on a blocking-pool thread, or under `Handle::enter`; \
             Handle::try_current() returns this error instead of panicking",
        )
    }
}

impl std::error::Error for TryCurrentError {}

impl Handle {
    pub(crate) fn from_state(state: Arc<State>) -> Handle {
        Handle { state }
    }

    pub(crate) fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// The executor whose worker, blocking-pool thread, `block_on` or enter guard this thread
    /// is in (the innermost).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let workers = ex.block_on(async { filch::Handle::current().stats().workers.len() });
    /// assert_eq!(workers, 2);
    /// ```
    ///
    /// # Panics
    /// Outside every executor, as tokio's, with a message that names
    /// [`Handle::try_current`], which returns an error instead.
    #[track_caller]
    pub fn current() -> Handle {
        Handle::try_current().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The executor this thread is in, as [`Handle::current`], or an error outside every
    /// executor.
    ///
    /// ```
    /// assert!(filch::Handle::try_current().is_err());
    /// let ex = filch::Executor::new();
    /// assert!(ex.block_on(async { filch::Handle::try_current() }).is_ok());
    /// ```
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        rt::current_state()
            .map(Handle::from_state)
            .ok_or(TryCurrentError(()))
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
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        rt::spawn(&self.state, future)
    }

    /// Spawns the `!Send` future that `create` makes onto this executor's least loaded
    /// worker, pinned there; see [`crate::spawn_pinned`].
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let handle = ex.handle();
    /// let task = handle.spawn_pinned(|| {
    ///     let here = std::rc::Rc::new(std::thread::current().id());
    ///     async move {
    ///         filch::yield_now().await;
    ///         *here == std::thread::current().id()
    ///     }
    /// });
    /// assert!(ex.block_on(task).unwrap());
    /// ```
    #[track_caller]
    pub fn spawn_pinned<C, F>(&self, create: C) -> JoinHandle<F::Output>
    where
        C: FnOnce() -> F + Send + 'static,
        F: Future + 'static,
        F::Output: Send + 'static,
    {
        rt::spawn_pinned(&self.state, create)
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
    #[track_caller]
    pub fn spawn_blocking<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        rt::spawn_blocking(&self.state, f)
    }

    /// Polls `future` to completion on the calling thread, in this executor's context, as
    /// [`Executor::block_on`](crate::Executor::block_on) does.
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
    /// On a worker thread of a filch executor (blocking a worker can deadlock the pool),
    /// unless inside [`task::block_in_place`](crate::task::block_in_place), which has another
    /// thread take the worker's place first.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        assert_not_on_worker();
        rt::block_on(&self.state, future)
    }

    /// Runs `op` on one of this executor's workers and returns its value; rayon's
    /// `ThreadPool::install`. On a worker of this executor `op` runs right here; elsewhere the
    /// calling thread waits for it. Inside `op`, `filch::par`'s calls (`join`, `scope`, the
    /// parallel iterators) run on this executor's workers. A panic in `op` is resumed here.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let data = vec![1u64, 2, 3, 4];
    /// let (a, b) = ex.handle().install(|| {
    ///     filch::par::join(|| data[..2].iter().sum::<u64>(), || data[2..].iter().sum::<u64>())
    /// });
    /// assert_eq!(a + b, 10);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        rt::install(&self.state, op)
    }

    /// Makes this executor the current one on this thread until the guard is dropped (see
    /// [`Executor::enter`](crate::Executor::enter)).
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let _guard = handle.enter();
    /// assert!(filch::Handle::try_current().is_ok());
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _current: rt::enter(Arc::clone(&self.state)),
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

    /// A snapshot of this executor's live tasks; see [`Executor::dump`](crate::Executor::dump).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// assert!(ex.handle().dump().tasks.is_empty());
    /// ```
    pub fn dump(&self) -> TaskDump {
        rt::dump(&self.state)
    }
}

/// Keeps an executor current on this thread (from
/// [`Executor::enter`](crate::Executor::enter) or [`Handle::enter`]) until it is dropped;
/// then the executor that was current before is current again. Not `Send`: it belongs to
/// the thread that made it.
pub struct EnterGuard<'a> {
    _current: rt::CurrentGuard,
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

/// Panics if the current thread is a worker of a filch executor, outside
/// `task::block_in_place`: blocking a worker can deadlock the pool.
pub(crate) fn assert_not_on_worker() {
    // Inside `task::block_in_place` the worker's place is taken: blocking is allowed there.
    if rt::on_worker() {
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
