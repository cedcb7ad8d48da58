//! The lazily started global executor, and the free functions that use the current
//! executor or fall back to it: `spawn`, `block_on`, `spawn_blocking`. The free functions of
//! `par/` (joins, scopes, `par::run`, the awaited loops, which `par/loops/` declares) find
//! where to run through [`current_or_global_state`].
//!
//! **The fallback.** On a thread outside every executor, the free functions (and IO objects
//! and timers made there) use the executor of a running `#[filch::main]` function, if there
//! is one (the oldest still running: the program's `main`), else the global executor. So a
//! thread that `main` starts finds `main`'s executor, and no second pool of workers starts.

use std::future::Future;
use std::sync::{Arc, OnceLock, PoisonError, Weak};

use crate::executor::{assert_not_on_worker, Builder, Executor, Handle};
use crate::runtime::scheduler::runtime::{self as rt, State};
use crate::JoinHandle;

/// The environment variable that sets the global executor's number of workers: a positive
/// whole number (anything else makes the global executor's start panic with a message that
/// names the variable and the value). Read once, when the global executor starts.
///
/// ```
/// assert_eq!(filch::WORKERS_ENV, "FILCH_WORKERS");
/// ```
pub const WORKERS_ENV: &str = "FILCH_WORKERS";

static GLOBAL: OnceLock<Executor> = OnceLock::new();

/// Parses a [`WORKERS_ENV`] value: a whole number of at least one.
fn parse_workers(value: &str) -> Option<usize> {
    value.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

/// The number of workers [`WORKERS_ENV`] sets for the global executor, if it is set.
///
/// # Panics
/// If it is set to anything but a positive whole number.
pub(crate) fn env_workers() -> Option<usize> {
    let value = std::env::var_os(WORKERS_ENV)?;
    let text = value.to_string_lossy();
    match parse_workers(&text) {
        Some(n) => Some(n),
        None => panic!(
            "filch: the environment variable {WORKERS_ENV} must be a positive whole number of \
             worker threads, but it is {text:?}"
        ),
    }
}

/// The global executor, started on first use with `available_parallelism()` workers, or
/// [`WORKERS_ENV`] of them when that is set.
///
/// # Panics
/// If [`WORKERS_ENV`] is set to anything but a positive whole number, or the threads cannot
/// be started.
pub(crate) fn global() -> &'static Executor {
    GLOBAL.get_or_init(|| {
        let mut builder = Builder::new();
        if let Some(n) = env_workers() {
            builder = builder.worker_threads(n);
        }
        builder
            .build()
            .unwrap_or_else(|e| panic!("filch: cannot start the global executor: {e}"))
    })
}

/// Starts the global executor from `builder` (rayon's `build_global`): `Ok(true)` if this
/// call started it, `Ok(false)` if it had started already (this builder then did nothing),
/// or the error of the build.
pub(crate) fn build_global(builder: Builder) -> std::io::Result<bool> {
    // std's: a static. Held while building, so that a first use on another thread waits for
    // this one rather than starting a default executor meanwhile.
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _building = BUILDING.lock().unwrap_or_else(PoisonError::into_inner);
    if GLOBAL.get().is_some() {
        return Ok(false);
    }
    let executor = builder.build()?;
    Ok(GLOBAL.set(executor).is_ok())
}

/// The executors of the `#[filch::main]` functions running now, oldest first (module docs,
/// "The fallback"). std's lock: a static (`crate::util::sync`'s has no `const fn new` under loom).
static MAINS: std::sync::Mutex<Vec<Weak<State>>> = std::sync::Mutex::new(Vec::new());

/// The executor of the oldest `#[filch::main]` function still running, if any.
fn main_state() -> Option<Arc<State>> {
    let mains = MAINS.lock().unwrap_or_else(PoisonError::into_inner);
    mains
        .iter()
        .find_map(|main| main.upgrade().filter(|state| !state.is_shut_down()))
}

/// The executor the free functions use outside every executor: a running
/// `#[filch::main]`'s, else the global one (started on first use).
fn fallback_state() -> Arc<State> {
    main_state().unwrap_or_else(|| Arc::clone(global().handle().state()))
}

/// The fallback executor's state if it exists already (no global executor is started for
/// this): the clock that `time::now` reads outside every executor.
#[cfg(feature = "test-util")]
pub(crate) fn started_fallback() -> Option<Arc<State>> {
    main_state().or_else(|| GLOBAL.get().map(|ex| Arc::clone(ex.handle().state())))
}

impl Executor {
    /// Blocks on `future` as [`Executor::block_on`] does, this executor being the one that
    /// the free functions use on threads outside every executor until it returns (what
    /// `#[filch::main]` expands to; module docs, "The fallback").
    #[doc(hidden)]
    pub fn __block_on_main<F: Future>(self, future: F) -> F::Output {
        /// Takes the executor out of the list again, also when the body panics.
        struct Registered(Weak<State>);
        impl Drop for Registered {
            fn drop(&mut self) {
                let mut mains = MAINS.lock().unwrap_or_else(PoisonError::into_inner);
                mains.retain(|main| !main.ptr_eq(&self.0));
            }
        }
        let weak = Arc::downgrade(self.handle().state());
        MAINS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Weak::clone(&weak));
        let _registered = Registered(weak);
        self.block_on(future)
    }
}

/// The current executor's handle, else the fallback's (module docs).
pub(crate) fn current_or_global() -> Handle {
    Handle::try_current().unwrap_or_else(|_| Handle::from_state(fallback_state()))
}

/// The current executor's state, else the fallback's (the resolver of the free loops).
pub(crate) fn current_or_global_state() -> Arc<State> {
    rt::current_state().unwrap_or_else(fallback_state)
}

/// The IO driver of the current executor, else of the fallback: where IO objects and
/// timers made on this thread belong.
pub(crate) fn current_driver() -> Arc<rt::Driver> {
    rt::with_state(|state| match state {
        Some(state) => Arc::clone(&state.driver),
        None => Arc::clone(&fallback_state().driver),
    })
}

/// Spawns `future` onto the current executor (the one whose worker or `block_on` this
/// thread is in), else onto the global executor. The task is scheduled at once.
///
/// ```
/// let task = filch::spawn(async { 1 + 2 });
/// assert_eq!(filch::block_on(task).unwrap(), 3);
/// ```
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_with(future, rt::SpawnOptions::at(std::panic::Location::caller()))
}

/// [`spawn`] of a task made as `options` say (`task::Builder`).
pub(crate) fn spawn_with<F>(future: F, options: rt::SpawnOptions<'_>) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    rt::with_state(|state| match state {
        Some(state) => rt::spawn_with(state, future, options),
        None => rt::spawn_with(&fallback_state(), future, options),
    })
}

/// Spawns the `!Send` future that `create` makes onto a worker of the current executor
/// (else the global one), pinned there: `create` runs on the least loaded worker when the
/// task first runs, and the future it returns is polled and dropped only on that worker's
/// thread, never stolen by another worker. Wakes from any thread reach it; when the
/// executor shuts down, the future is dropped on its worker's thread before that thread
/// exits. The closure is `Send`, the future need not be (`Rc`, `RefCell`, thread-bound
/// handles); the output is `Send`, and the [`JoinHandle`] is as any task's (abort, panics).
///
/// A worker's load, for the choice, is its pinned tasks alive plus the tasks queued in its
/// deque and inbox; ties go to the lowest index. Inside the pinned task,
/// [`spawn_local`](crate::spawn_local) pins more `!Send` futures to the same worker.
///
/// A pinned task shares its worker's fairness rules with the other tasks there: one that
/// keeps yielding (or spends its budget, [`consume_budget`](crate::consume_budget)) lets
/// them run. One that blocks its worker inside a poll holds up the other pinned tasks of
/// that worker, which cannot move; the worker's other tasks can be stolen.
///
/// ```
/// use std::{cell::RefCell, rc::Rc};
///
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let total = ex.block_on(async {
///     let task = filch::spawn_pinned(|| async {
///         let seen = Rc::new(RefCell::new(Vec::new()));
///         for i in 0..3 {
///             filch::yield_now().await;
///             seen.borrow_mut().push(i);
///         }
///         let total: i32 = seen.borrow().iter().sum();
///         total
///     });
///     task.await.unwrap()
/// });
/// assert_eq!(total, 3);
/// ```
#[track_caller]
pub fn spawn_pinned<C, F>(create: C) -> JoinHandle<F::Output>
where
    C: FnOnce() -> F + Send + 'static,
    F: Future + 'static,
    F::Output: Send + 'static,
{
    // Outside a closure, so that the task's spawn location is the caller's.
    let state = rt::with_state(|state| state.map(Arc::clone)).unwrap_or_else(fallback_state);
    rt::spawn_pinned(&state, create)
}

/// Runs the blocking closure `f` on a separate, elastic pool of threads of the current
/// executor (else the global one), never on a worker, and returns a [`JoinHandle`] for its
/// result.
///
/// Use it for calls that block: file IO, blocking libraries, long computations that must
/// not stall the tasks of a worker. The pool starts threads on demand (up to 512 per
/// executor) and idle threads exit after 10 seconds. The threads are named
/// `{prefix}-blocking-{n}` (the prefix of [`Builder::thread_name`]); on them
/// [`Handle::current`] is the owning executor, and `block_on` may be called.
///
/// A panic in `f` resolves the handle to a panic [`JoinError`](crate::JoinError).
/// [`JoinHandle::abort`] cancels a job that has not started yet; a running one cannot be
/// interrupted. When the executor is dropped, jobs not yet started are cancelled and jobs
/// already running finish on their threads (the drop does not wait for them).
///
/// ```
/// let ex = filch::Executor::builder().thread_name("app").build().unwrap();
/// let out = ex.block_on(async {
///     let name = filch::spawn_blocking(|| {
///         // Blocking here is fine: this is no worker thread.
///         std::thread::sleep(std::time::Duration::from_millis(10));
///         std::thread::current().name().unwrap().to_owned()
///     });
///     name.await.unwrap()
/// });
/// assert!(out.starts_with("app-blocking-"));
/// ```
#[track_caller]
pub fn spawn_blocking<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_blocking_with(f, rt::SpawnOptions::at(std::panic::Location::caller()))
}

/// [`spawn_blocking`] of a job made as `options` say (`task::Builder`).
pub(crate) fn spawn_blocking_with<F, T>(f: F, options: rt::SpawnOptions<'_>) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    rt::with_state(|state| match state {
        Some(state) => rt::spawn_blocking_with(state, f, options),
        None => rt::spawn_blocking_with(&fallback_state(), f, options),
    })
}

/// Polls `future` to completion on the calling thread: in the current executor's context
/// if this thread is inside one's `block_on`, else in the global executor's (started on
/// first use), so that [`spawn`] and the `par_*` loops inside it go there.
///
/// # Panics
/// On a worker thread of a filch executor: blocking a worker can deadlock the pool; use
/// `.await` instead.
///
/// ```
/// let v = filch::block_on(async {
///     let t = filch::spawn(async { 20 });
///     t.await.unwrap() + 1
/// });
/// assert_eq!(v, 21);
/// ```
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    // Before anything else: on a worker this is a mistake, and the global executor must not
    // be started (nor `FILCH_WORKERS` read) on the way to saying so.
    assert_not_on_worker();
    current_or_global().block_on(future)
}

#[cfg(all(test, not(loom)))]
mod tests;
