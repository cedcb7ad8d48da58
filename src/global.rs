//! The lazily started global executor, and the free functions that use the current
//! executor or fall back to it: `spawn`, `block_on`, `spawn_blocking` and the data-parallel
//! loops (which `par/` builds; this module only tells them where to run).
//!
//! **The fallback.** On a thread outside every executor, the free functions (and IO objects
//! and timers made there) use the executor of a running `#[filch::main]` function, if there
//! is one (the oldest still running: the program's `main`), else the global executor. So a
//! thread that `main` starts finds `main`'s executor, and no second pool of workers starts.

use std::future::Future;
use std::ops::Range;
use std::sync::{Arc, OnceLock, PoisonError, Weak};

use crate::driver::Driver;
use crate::executor::{assert_not_on_worker, Builder, Executor, Handle};
use crate::join::JoinHandle;
use crate::par::{self, On, ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
use crate::state::State;
use crate::worker::context;

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

/// The global executor, started on first use with `available_parallelism()` workers, or
/// [`WORKERS_ENV`] of them when that is set.
///
/// # Panics
/// If [`WORKERS_ENV`] is set to anything but a positive whole number, or the threads cannot
/// be started.
pub(crate) fn global() -> &'static Executor {
    GLOBAL.get_or_init(|| {
        let mut builder = Builder::new();
        if let Some(value) = std::env::var_os(WORKERS_ENV) {
            let text = value.to_string_lossy();
            match parse_workers(&text) {
                Some(n) => builder = builder.worker_threads(n),
                None => panic!(
                    "filch: the environment variable {WORKERS_ENV} must be a positive whole \
                     number of worker threads, but it is {text:?}"
                ),
            }
        }
        builder
            .build()
            .unwrap_or_else(|e| panic!("filch: cannot start the global executor: {e}"))
    })
}

/// The executors of the `#[filch::main]` functions running now, oldest first (module docs,
/// "The fallback"). std's lock: a static (`crate::sync`'s has no `const fn new` under loom).
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
fn current_or_global_state() -> Arc<State> {
    context::current_state().unwrap_or_else(fallback_state)
}

/// The IO driver of the current executor, else of the fallback: where IO objects and
/// timers made on this thread belong.
pub(crate) fn current_driver() -> Arc<Driver> {
    context::with_state(|state| match state {
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
    spawn_with(
        future,
        crate::spawn::Options::at(std::panic::Location::caller()),
    )
}

/// [`spawn`] of a task made as `options` say (`task::Builder`).
pub(crate) fn spawn_with<F>(future: F, options: crate::spawn::Options<'_>) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    context::with_state(|state| match state {
        Some(state) => crate::spawn::spawn_with(state, future, options),
        None => crate::spawn::spawn_with(&fallback_state(), future, options),
    })
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
    spawn_blocking_with(f, crate::spawn::Options::at(std::panic::Location::caller()))
}

/// [`spawn_blocking`] of a job made as `options` say (`task::Builder`).
pub(crate) fn spawn_blocking_with<F, T>(f: F, options: crate::spawn::Options<'_>) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    context::with_state(|state| match state {
        Some(state) => crate::spawn::spawn_blocking_with(state, f, options),
        None => crate::spawn::spawn_blocking_with(&fallback_state(), f, options),
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
pub fn block_on<F: Future>(future: F) -> F::Output {
    // Before anything else: on a worker this is a mistake, and the global executor must not
    // be started (nor `FILCH_WORKERS` read) on the way to saying so.
    assert_not_on_worker();
    current_or_global().block_on(future)
}

/// Runs `body` on every index of `range`, in parallel on the current executor (else the
/// global one), chosen when the future is first polled. Awaiting it never blocks a worker.
///
/// An empty or reversed range completes at once without calling `body`. A panic in `body`
/// stops the loop (indices not yet started are skipped) and is resumed in the awaiting
/// task, with its payload, once the bodies already running have returned; polled again
/// after that, the future panics again. Dropping the future stops the loop. The loop shares
/// the workers with other tasks: each worker's part returns to its worker every few
/// milliseconds of body time (and after one item, however long that item takes), even when
/// the cost of the items changes in the middle of the loop.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let sum = Arc::new(AtomicUsize::new(0));
/// let s = Arc::clone(&sum);
/// filch::block_on(filch::par_range(0..1000, move |i| {
///     s.fetch_add(i, Ordering::Relaxed);
/// }));
/// assert_eq!(sum.load(Ordering::Relaxed), 499_500);
/// ```
///
/// The body must be `Send + Sync`, since it runs on several threads at once:
///
/// ```compile_fail
/// use std::rc::Rc;
/// let shared = Rc::new(5);
/// let fut = filch::par_range(0..10, move |i| {
///     let _ = (&shared, i);
/// });
/// ```
pub fn par_range<F>(range: Range<usize>, body: F) -> ParRange
where
    F: Fn(usize) + Send + Sync + 'static,
{
    par::range_loop(range, On::Current(current_or_global_state), body)
}

/// Computes `f(i)` for every index of `range` in parallel and gives the results in index
/// order. Executor choice, empty ranges, panics and dropping work as for [`par_range`].
///
/// ```
/// let squares = filch::block_on(filch::par_map(0..5, |i| i * i));
/// assert_eq!(squares, vec![0, 1, 4, 9, 16]);
/// ```
pub fn par_map<T, F>(range: Range<usize>, f: F) -> ParMap<T>
where
    T: Send + 'static,
    F: Fn(usize) -> T + Send + Sync + 'static,
{
    par::map_loop(range, On::Current(current_or_global_state), f)
}

/// Folds every index of `range` in parallel: each run of consecutive indices a worker takes
/// is folded from `identity()` with `fold`, and the partial results are combined with
/// `reduce` in index order, as rayon does: `reduce` must be associative but need not be
/// commutative (concatenating gives the sequential answer), and `identity()` must be neutral
/// for it. An empty range gives `identity()`. Executor choice, panics and dropping work as
/// for [`par_range`].
///
/// ```
/// let sum = filch::block_on(filch::par_reduce(
///     1..101,
///     || 0u64,
///     |acc, i| acc + i as u64,
///     |a, b| a + b,
/// ));
/// assert_eq!(sum, 5050);
///
/// // Not commutative: the partials are combined in index order.
/// let digits = filch::block_on(filch::par_reduce(
///     0..10,
///     String::new,
///     |mut s, i| {
///         s.push_str(&i.to_string());
///         s
///     },
///     |a, b| a + &b,
/// ));
/// assert_eq!(digits, "0123456789");
/// ```
pub fn par_reduce<T, I, F, R>(range: Range<usize>, identity: I, fold: F, reduce: R) -> ParReduce<T>
where
    T: Send + 'static,
    I: Fn() -> T + Send + Sync + 'static,
    F: Fn(T, usize) -> T + Send + Sync + 'static,
    R: Fn(T, T) -> T + Send + Sync + 'static,
{
    par::reduce_loop(
        range,
        On::Current(current_or_global_state),
        identity,
        fold,
        reduce,
    )
}

/// Moves each item of `items` into `f`, in parallel, and gives the results in the order of
/// the items. Executor choice, laziness, panics and dropping work as for [`par_range`], over
/// the indices `0..items.len()`.
///
/// Each item is moved into `f` exactly once. If the loop stops early (a panic in `f`, or
/// the future dropped), the items not yet moved into `f` and the results already made are
/// each dropped exactly once (the item a panicking `f` held is dropped by that panic).
/// An empty `items` completes at once with an empty `Vec`. When `U` has the size and
/// alignment of `T`, the results are written over the items and the output reuses the
/// allocation of `items` (as std's `into_iter().map().collect()` does).
///
/// ```
/// let lines = vec!["3".to_string(), "x".to_string(), "42".to_string()];
/// let parsed = filch::block_on(filch::par_map_vec(lines, |s| s.parse::<u32>().ok()));
/// assert_eq!(parsed, vec![Some(3), None, Some(42)]);
/// ```
///
/// Items need not be `Sync` or `Clone`, only `Send`; `f` runs on several threads at once,
/// so it must be `Sync`:
///
/// ```compile_fail
/// use std::cell::Cell;
/// let counter = Cell::new(0);
/// let fut = filch::par_map_vec(vec![1, 2, 3], move |x: i32| {
///     counter.set(counter.get() + 1);
///     x
/// });
/// ```
pub fn par_map_vec<T, U, F>(items: Vec<T>, f: F) -> ParMapVec<U>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> U + Send + Sync + 'static,
{
    par::map_vec_loop(items, On::Current(current_or_global_state), f)
}

/// Calls `f(k, &mut items[k])` for every element of `items`, in parallel, and gives the
/// same `Vec` back (the same allocation), each element changed in place. Executor choice,
/// laziness, panics and dropping work as for [`par_range`], over the indices
/// `0..items.len()`.
///
/// If the loop stops early (a panic in `f`, or the future dropped), the elements are
/// dropped with the `Vec` (each exactly once), as they stand. An empty `items` completes at
/// once and gives the same empty `Vec` back.
///
/// ```
/// let mut scores = vec![10u32; 1000];
/// scores = filch::block_on(filch::par_for_each_mut(scores, |k, s| *s += k as u32));
/// assert_eq!(scores[0], 10);
/// assert_eq!(scores[999], 1009);
/// ```
pub fn par_for_each_mut<T, F>(items: Vec<T>, f: F) -> ParForEachMut<T>
where
    T: Send + 'static,
    F: Fn(usize, &mut T) + Send + Sync + 'static,
{
    par::for_each_mut_loop(items, On::Current(current_or_global_state), f)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::parse_workers;

    #[test]
    fn parses_worker_counts() {
        assert_eq!(parse_workers("4"), Some(4));
        assert_eq!(parse_workers(" 2 "), Some(2));
        assert_eq!(parse_workers("0"), None);
        assert_eq!(parse_workers("-1"), None);
        assert_eq!(parse_workers("two"), None);
        assert_eq!(parse_workers(""), None);
    }
}
