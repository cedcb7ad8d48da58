//! The pools that `filch::par` runs on: executors. [`current_num_threads`],
//! [`current_thread_index`], [`max_num_threads`], [`current_thread_has_pending_tasks`],
//! [`yield_now`] and [`yield_local`] (with [`Yield`]); [`ThreadPoolBuilder`], [`ThreadPool`]
//! and [`ThreadPoolBuildError`], rayon's, where a pool is an [`Executor`].
//!
//! A rayon *job* is, on filch, a piece of fork-join work: a `join`'s half or a scope's
//! closure on offer, a whole call, a broadcast's part addressed to a worker
//! (`runtime/scheduler/forkjoin/`). The async tasks are not jobs: [`yield_now`] never polls
//! a task inside the caller (a poll inside a poll), and the caller's own task, if it is
//! one, is not suspended.

use std::error::Error;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::executor::{global, Builder, Executor};
use crate::par::broadcast::{broadcast_on, spawn_broadcast_on, BroadcastContext};
use crate::par::ScopeFifo;
use crate::runtime::scheduler::forkjoin::{self, with_current};
use crate::runtime::scheduler::runtime::MAX_WORKER_THREADS;
use crate::runtime::scheduler::worker::context;

/// The number of workers of the current executor (a worker's, or the one whose `block_on`,
/// enter guard or blocking pool this thread is in), else of the global one (which this
/// starts); rayon's `current_num_threads`.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(3).build().unwrap();
/// assert_eq!(ex.block_on(async { filch::par::current_num_threads() }), 3);
/// ```
pub fn current_num_threads() -> usize {
    with_current(|t| t.map(|t| t.state.num_workers()))
        .or_else(|| context::with_state(|state| state.map(|s| s.num_workers())))
        .unwrap_or_else(|| crate::executor::global::current_or_global_state().num_workers())
}

/// This worker's index in its executor (`0..current_num_threads()`); `None` on a thread that
/// is no worker; rayon's `current_thread_index`.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let index = ex.block_on(ex.spawn(async { filch::par::current_thread_index() })).unwrap();
/// assert!(index.unwrap() < 2);
/// assert_eq!(filch::par::current_thread_index(), None);
/// ```
pub fn current_thread_index() -> Option<usize> {
    with_current(|t| t.map(|t| t.index))
        .or_else(|| context::with_worker(|worker| worker.map(|w| w.index)))
}

/// The most workers a pool can have (65,535, rayon's limit too); a
/// [`ThreadPoolBuilder`] asking for more fails to build. rayon's `max_num_threads`.
///
/// ```
/// assert!(filch::par::max_num_threads() >= filch::par::current_num_threads());
/// ```
pub fn max_num_threads() -> usize {
    MAX_WORKER_THREADS
}

/// Whether the calling worker has work queued for it before other workers: a broadcast's
/// part addressed to it, tasks in its deque, its inbox or its pinned queue; `None` on a
/// thread that is no worker (a stand-in included). rayon's
/// `current_thread_has_pending_tasks`.
///
/// ```
/// assert_eq!(filch::par::current_thread_has_pending_tasks(), None);
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert!(pool.install(filch::par::current_thread_has_pending_tasks).is_some());
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    forkjoin::has_pending(None)
}

/// Runs one pending piece of fork-join work on the calling worker, if there is one: a
/// broadcast's part addressed to it, else the oldest piece on its executor's board (any
/// call's: unlike a `join`'s wait, which runs only its own call's pieces). rayon's
/// `yield_now`. Returns `None` on a thread that is no worker (a stand-in included),
/// `Some(Yield::Executed)` if a piece ran, `Some(Yield::Idle)` if none was waiting.
///
/// Async tasks are not run (no poll inside the caller): a task that wants to let others
/// run awaits [`filch::task::yield_now`](crate::task::yield_now) instead.
///
/// ```
/// assert_eq!(filch::par::yield_now(), None);
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// let outcome = pool.install(|| {
///     filch::par::spawn_broadcast(move |_| tx.send(()).unwrap());
///     filch::par::yield_now()
/// });
/// assert_eq!(outcome, Some(filch::par::Yield::Executed));
/// assert_eq!(rx.try_recv(), Ok(()));
/// ```
pub fn yield_now() -> Option<Yield> {
    forkjoin::yield_one(None, false).map(Yield::from_ran)
}

/// As [`yield_now`], running only a piece addressed to the calling worker (a broadcast's
/// part): the worker's own queue, as rayon's `yield_local` runs only its local deque.
///
/// ```
/// assert_eq!(filch::par::yield_local(), None);
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(filch::par::yield_local), Some(filch::par::Yield::Idle));
/// ```
pub fn yield_local() -> Option<Yield> {
    forkjoin::yield_one(None, true).map(Yield::from_ran)
}

/// Builds a [`ThreadPool`] (a filch [`Executor`]), or configures the global executor;
/// rayon's `ThreadPoolBuilder`.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("crunch-{i}"))
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("crunch-"));
/// ```
#[derive(Default)]
pub struct ThreadPoolBuilder {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    start_handler: Option<crate::runtime::threads::WorkerHook>,
    exit_handler: Option<crate::runtime::threads::WorkerHook>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("thread_name", &self.thread_name.is_some())
            .field("stack_size", &self.stack_size)
            .field("start_handler", &self.start_handler.is_some())
            .field("exit_handler", &self.exit_handler.is_some())
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with rayon's defaults: one thread per CPU.
    pub fn new() -> ThreadPoolBuilder {
        ThreadPoolBuilder::default()
    }

    /// The number of worker threads; 0 (the default) means one per available CPU, and for
    /// [`build_global`](ThreadPoolBuilder::build_global) `FILCH_WORKERS` if it is set (rayon's
    /// meaning, with `RAYON_NUM_THREADS`).
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 3);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> ThreadPoolBuilder {
        self.num_threads = num_threads;
        self
    }

    /// Names worker `i` `closure(i)`.
    pub fn thread_name<F>(mut self, closure: F) -> ThreadPoolBuilder
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// The stack size of the worker threads, in bytes.
    pub fn stack_size(mut self, stack_size: usize) -> ThreadPoolBuilder {
        self.stack_size = Some(stack_size);
        self
    }

    /// Runs `handler(i)` on worker `i` as it starts, before it runs anything.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let seen = Arc::clone(&started);
    /// let pool = filch::par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .start_handler(move |_| {
    ///         seen.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, handler: H) -> ThreadPoolBuilder
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Arc::new(handler));
        self
    }

    /// Runs `handler(i)` on worker `i` as it exits (when the pool is dropped).
    pub fn exit_handler<H>(mut self, handler: H) -> ThreadPoolBuilder
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Arc::new(handler));
        self
    }

    /// The filch [`Builder`] these settings make; `default` is the number of workers that 0
    /// threads means.
    fn into_builder(mut self, default: impl FnOnce() -> usize) -> Builder {
        let n = match self.num_threads {
            0 => default(),
            n => n,
        };
        let mut builder = Builder::new().worker_threads(n);
        if let Some(name) = self.thread_name.as_mut() {
            builder = builder.worker_names((0..n).map(name).collect());
        }
        if let Some(bytes) = self.stack_size {
            builder = builder.thread_stack_size(bytes);
        }
        builder.worker_hooks(self.start_handler, self.exit_handler)
    }

    /// Starts the pool.
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let executor = self
            .into_builder(available_cpus)
            .build()
            .map_err(ThreadPoolBuildError::io)?;
        Ok(ThreadPool { executor })
    }

    /// Starts the global executor with these settings (they win over `FILCH_WORKERS`; 0
    /// threads, the default, means `FILCH_WORKERS` if it is set, as rayon's means
    /// `RAYON_NUM_THREADS`): the pool of `filch::par`'s free functions, and of filch's,
    /// outside every executor. An error if the global executor has started already (any free
    /// function used outside every executor starts it), as rayon's.
    ///
    /// # Panics
    ///
    /// With 0 threads, if `FILCH_WORKERS` is set to anything but a positive whole number (as
    /// the global executor's start does).
    ///
    /// ```
    /// filch::par::ThreadPoolBuilder::new().num_threads(2).build_global().unwrap();
    /// assert_eq!(filch::par::current_num_threads(), 2);
    /// assert!(filch::par::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let builder = self.into_builder(|| global::env_workers().unwrap_or_else(available_cpus));
        match global::build_global(builder) {
            Ok(true) => Ok(()),
            Ok(false) => Err(ThreadPoolBuildError {
                kind: BuildErrorKind::GlobalPoolAlreadyInitialized,
            }),
            Err(e) => Err(ThreadPoolBuildError::io(e)),
        }
    }
}

/// One worker per available CPU: what 0 threads means for a pool (rayon's default).
fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Why a [`ThreadPoolBuilder`] failed.
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: BuildErrorKind,
}

#[derive(Debug)]
enum BuildErrorKind {
    GlobalPoolAlreadyInitialized,
    Io(std::io::Error),
}

impl ThreadPoolBuildError {
    fn io(e: std::io::Error) -> ThreadPoolBuildError {
        ThreadPoolBuildError {
            kind: BuildErrorKind::Io(e),
        }
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BuildErrorKind::GlobalPoolAlreadyInitialized => f.write_str(
                "filch: the global executor has already started (build_global must come before \
                 any use of it)",
            ),
            BuildErrorKind::Io(e) => write!(f, "filch: cannot start the pool: {e}"),
        }
    }
}

impl Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.kind {
            BuildErrorKind::Io(e) => Some(e),
            BuildErrorKind::GlobalPoolAlreadyInitialized => None,
        }
    }
}

/// rayon's thread pool: a filch [`Executor`], which it derefs to, so that its async API
/// (`block_on`, `spawn` of futures, the awaited loops) is one call away.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
/// assert_eq!(a + b, 6);
/// // The executor behind it:
/// assert_eq!(pool.block_on(async { filch::spawn(async { 7 }).await.unwrap() }), 7);
/// ```
#[derive(Debug)]
pub struct ThreadPool {
    executor: Executor,
}

impl Deref for ThreadPool {
    type Target = Executor;

    fn deref(&self) -> &Executor {
        &self.executor
    }
}

impl ThreadPool {
    /// Runs `op` on one of the pool's workers (see [`Executor::install`]).
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.executor.install(op)
    }

    /// [`join`](crate::par::join) on this pool.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::par::join(a, b))
    }

    /// [`scope`](crate::par::scope) on this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&crate::par::Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::par::scope(op))
    }

    /// [`in_place_scope`](crate::par::in_place_scope) with this pool's workers.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&crate::par::Scope<'scope>) -> R,
    {
        let _enter = self.executor.enter();
        crate::par::in_place_scope(op)
    }

    /// Runs `op` on one of the pool's workers some time later ([`spawn`](crate::par::spawn)).
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        let _enter = self.executor.enter();
        crate::par::spawn(op);
    }

    /// [`broadcast`](crate::par::broadcast) on this pool's workers: `op` runs once on each,
    /// and the results come back in the order of their indexes.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast_on(self.executor.handle().state(), op)
    }

    /// [`spawn_broadcast`](crate::par::spawn_broadcast) on this pool's workers.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_broadcast(move |ctx| tx.send(ctx.num_threads()).unwrap());
    /// assert_eq!(rx.iter().take(2).sum::<usize>(), 4);
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_on(self.executor.handle().state(), op);
    }

    /// Runs `op` on one of the pool's workers some time later
    /// ([`spawn_fifo`](crate::par::spawn_fifo)).
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_fifo(move || tx.send(1).unwrap());
    /// assert_eq!(rx.recv(), Ok(1));
    /// ```
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        let _enter = self.executor.enter();
        crate::par::spawn_fifo(op);
    }

    /// [`scope_fifo`](crate::par::scope_fifo) on this pool.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut hits = [0; 2];
    /// pool.scope_fifo(|s| {
    ///     for hit in hits.iter_mut() {
    ///         s.spawn_fifo(move |_| *hit += 1);
    ///     }
    /// });
    /// assert_eq!(hits, [1, 1]);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::par::scope_fifo(op))
    }

    /// [`in_place_scope_fifo`](crate::par::in_place_scope_fifo) with this pool's workers.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let mut total = 0;
    /// pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| total += 2));
    /// assert_eq!(total, 2);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        let _enter = self.executor.enter();
        crate::par::in_place_scope_fifo(op)
    }

    /// [`yield_now`](crate::par::yield_now) on one of this pool's workers: `None` on any
    /// other thread.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_now(), None);
    /// assert_eq!(pool.install(|| pool.yield_now()), Some(filch::par::Yield::Idle));
    /// ```
    pub fn yield_now(&self) -> Option<Yield> {
        forkjoin::yield_one(Some(self.executor.handle().state()), false).map(Yield::from_ran)
    }

    /// [`yield_local`](crate::par::yield_local) on one of this pool's workers: `None` on any
    /// other thread.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_local(), None);
    /// ```
    pub fn yield_local(&self) -> Option<Yield> {
        forkjoin::yield_one(Some(self.executor.handle().state()), true).map(Yield::from_ran)
    }

    /// [`current_thread_has_pending_tasks`](crate::par::current_thread_has_pending_tasks) on
    /// one of this pool's workers: `None` on any other thread.
    ///
    /// ```
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.current_thread_has_pending_tasks(), None);
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        forkjoin::has_pending(Some(self.executor.handle().state()))
    }

    /// The number of the pool's workers.
    pub fn current_num_threads(&self) -> usize {
        self.executor.worker_threads()
    }

    /// The index of the calling thread among the pool's workers; `None` on any other thread.
    pub fn current_thread_index(&self) -> Option<usize> {
        let ours = |state: &crate::runtime::scheduler::state::State| {
            std::ptr::eq(state, &**self.executor.handle().state())
        };
        with_current(|t| t.filter(|t| ours(&t.state)).map(|t| t.index))
            .or_else(|| context::with_worker(|w| w.filter(|w| ours(&w.state)).map(|w| w.index)))
    }
}

/// What [`yield_now`] and [`yield_local`] did; rayon's `Yield`.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(filch::par::yield_now), Some(filch::par::Yield::Idle));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// A pending piece of fork-join work ran.
    Executed,
    /// No piece was waiting.
    Idle,
}

impl Yield {
    fn from_ran(ran: bool) -> Yield {
        if ran {
            Yield::Executed
        } else {
            Yield::Idle
        }
    }
}
