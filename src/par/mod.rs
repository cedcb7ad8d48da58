//! Async data-parallel loops: [`par_range`], [`par_map`] and [`par_reduce`] over an index
//! range, and [`par_map_vec`] and [`par_for_each_mut`] over an owned `Vec`.
//!
//! `par_range(0..n, body).await` splits the index space across the executor's workers and
//! the awaiting task simply waits: it never blocks a worker (rayon's loops block the calling
//! thread; tokio and smol have none). The split is the work-stealing range of
//! `steal_range.rs`: each worker's helper task takes adaptive batches from the low end of
//! its own slice, idle helpers steal from the high end of the others' slices, and the loop
//! ends when the shared remaining count reaches zero (Huba's partitioner). `run.rs` holds
//! the running loop and its helper tasks, `kinds.rs` and `owned.rs` what each loop does per
//! index, `tick.rs` the coarse clock that makes helpers look up between items.
//!
//! The futures are lazy: nothing starts until the first poll. The free functions pick the
//! executor then (the current one of the polling thread, else the global one); the methods
//! of [`Handle`] and [`Executor`] use theirs.
//!
//! **Invariant:** every index of the range is processed exactly once, unless the loop is
//! stopped (a panic, or the future dropped), after which no index starts.
//!
//! **Invariant:** a loop future completes with a value at most once, and never after it
//! resumed a panic: it is then `Failed`, and a further poll panics.

mod kinds;
mod owned;
mod run;
pub(crate) mod steal_range;
mod tick;

use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::executor::{Executor, Handle};
use crate::shared::Shared;
use kinds::{ForEach, Map, Reduce};
use owned::{ForEachMut, MapVec};
use run::{Kind, Loop, Outcome};

/// A started loop, seen through its output type only.
type Running<O> = Arc<dyn Outcome<O>>;

/// Builds the loop for its range on an executor, or gives the output of an empty range.
type Start<O> = Box<dyn FnOnce(Range<usize>, Option<&Arc<Shared>>) -> Started<O> + Send>;

enum Started<O> {
    Empty(O),
    Running(Running<O>),
}

/// The state machine shared by the loop futures.
enum Stage<O: Send + 'static> {
    /// Not polled yet: the loop's description and, for the methods, the executor.
    Lazy {
        range: Range<usize>,
        handle: Option<Handle>,
        start: Start<O>,
    },
    /// Started: the running loop.
    Running(StopOnDrop<O>),
    /// The output was handed out.
    Done,
    /// A panic was resumed (or the executor shut down under the loop): there is no output,
    /// and a further poll panics.
    Failed,
}

/// Builds the [`Start`] of a loop of kind `K`, made by `make` for a number of helpers.
fn start<K: Kind>(make: impl FnOnce(usize) -> K + Send + 'static) -> Start<K::Output> {
    Box::new(move |range: Range<usize>, shared: Option<&Arc<Shared>>| {
        let len = range.end.saturating_sub(range.start);
        match shared {
            Some(shared) if len > 0 => {
                let helpers = shared.num_workers().min(len);
                let lp = Arc::new(Loop::new(range, helpers, make(helpers)));
                lp.start(shared);
                Started::Running(lp)
            }
            // No index will run: the output of an empty loop (for the owned loops, built
            // from the caller's empty Vec).
            _ => Started::Empty(make(1).take_output()),
        }
    })
}

impl<O: Send + 'static> Stage<O> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<O> {
        if let Stage::Lazy { range, .. } = self {
            // An empty or reversed range completes at once, on no executor at all.
            let empty = range.start >= range.end;
            let Stage::Lazy {
                range,
                handle,
                start,
            } = std::mem::replace(self, Stage::Done)
            else {
                unreachable!("matched above")
            };
            let handle = match (empty, handle) {
                (true, _) => None,
                (false, Some(handle)) => Some(handle),
                (false, None) => Some(crate::global::current_or_global()),
            };
            match start(range, handle.as_ref().map(Handle::shared)) {
                Started::Empty(output) => return Poll::Ready(output),
                Started::Running(lp) => *self = Stage::Running(StopOnDrop(lp)),
            }
        }
        match self {
            Stage::Running(StopOnDrop(lp)) => match std::task::ready!(lp.poll_done(cx)) {
                Ok(output) => {
                    *self = Stage::Done;
                    Poll::Ready(output)
                }
                Err(failure) => {
                    // Leave the running state before resuming: polled again, the future
                    // must panic again, never read the (incomplete) results.
                    *self = Stage::Failed;
                    failure.resume()
                }
            },
            Stage::Done => {
                panic!("filch: a data-parallel loop future was polled after it completed")
            }
            Stage::Failed => {
                panic!("filch: a data-parallel loop future was polled again after it panicked")
            }
            Stage::Lazy { .. } => unreachable!("started above"),
        }
    }

    fn state(&self) -> &'static str {
        match self {
            Stage::Lazy { .. } => "not started",
            Stage::Running(_) => "running",
            Stage::Done => "done",
            Stage::Failed => "failed",
        }
    }
}

/// Stops the loop when the future is dropped before completion: no new index starts.
/// (After completion the stop finds nothing left and changes nothing.)
struct StopOnDrop<O: Send + 'static>(Running<O>);

impl<O: Send + 'static> Drop for StopOnDrop<O> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The future of [`par_range`]: resolves to `()` once the body ran on every index.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParRange = ex.par_range(0..10, |_| {});
/// ex.block_on(fut);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParRange {
    stage: Stage<()>,
}

/// The future of [`par_map`]: resolves to the results in index order.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParMap<usize> = ex.par_map(0..4, |i| i * 10);
/// assert_eq!(ex.block_on(fut), vec![0, 10, 20, 30]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParMap<T: Send + 'static> {
    stage: Stage<Vec<T>>,
}

/// The future of [`par_reduce`]: resolves to the combination of every index's fold.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParReduce<u64> = ex.par_reduce(0..5, || 0, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(ex.block_on(fut), 10);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParReduce<T: Send + 'static> {
    stage: Stage<T>,
}

/// The future of [`par_map_vec`]: resolves to the results in the order of the items.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let words = vec!["a".to_string(), "bb".to_string()];
/// let fut: filch::ParMapVec<usize> = ex.par_map_vec(words, |w| w.len());
/// assert_eq!(ex.block_on(fut), vec![1, 2]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParMapVec<U: Send + 'static> {
    stage: Stage<Vec<U>>,
}

/// The future of [`par_for_each_mut`]: resolves to the same `Vec`, each element changed in
/// place.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParForEachMut<u32> = ex.par_for_each_mut(vec![1, 2, 3], |_, x| *x *= 2);
/// assert_eq!(ex.block_on(fut), vec![2, 4, 6]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParForEachMut<T: Send + 'static> {
    stage: Stage<Vec<T>>,
}

impl<U: Send + 'static> Future for ParMapVec<U> {
    type Output = Vec<U>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<U>> {
        self.stage.poll(cx)
    }
}

impl<T: Send + 'static> Future for ParForEachMut<T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        self.stage.poll(cx)
    }
}

impl<U: Send + 'static> fmt::Debug for ParMapVec<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParMapVec")
            .field("state", &self.stage.state())
            .finish()
    }
}

impl<T: Send + 'static> fmt::Debug for ParForEachMut<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParForEachMut")
            .field("state", &self.stage.state())
            .finish()
    }
}

impl Future for ParRange {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.stage.poll(cx)
    }
}

impl<T: Send + 'static> Future for ParMap<T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        self.stage.poll(cx)
    }
}

impl<T: Send + 'static> Future for ParReduce<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.stage.poll(cx)
    }
}

impl fmt::Debug for ParRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParRange")
            .field("state", &self.stage.state())
            .finish()
    }
}

impl<T: Send + 'static> fmt::Debug for ParMap<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParMap")
            .field("state", &self.stage.state())
            .finish()
    }
}

impl<T: Send + 'static> fmt::Debug for ParReduce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParReduce")
            .field("state", &self.stage.state())
            .finish()
    }
}

fn range_loop<F>(range: Range<usize>, handle: Option<Handle>, body: F) -> ParRange
where
    F: Fn(usize) + Send + Sync + 'static,
{
    ParRange {
        stage: Stage::Lazy {
            range,
            handle,
            start: start(move |_| ForEach { body }),
        },
    }
}

fn map_loop<T, F>(range: Range<usize>, handle: Option<Handle>, f: F) -> ParMap<T>
where
    T: Send + 'static,
    F: Fn(usize) -> T + Send + Sync + 'static,
{
    let bounds = range.clone();
    ParMap {
        stage: Stage::Lazy {
            range,
            handle,
            start: start(move |helpers| Map::new(f, bounds, helpers)),
        },
    }
}

fn reduce_loop<T, I, F, R>(
    range: Range<usize>,
    handle: Option<Handle>,
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
    ParReduce {
        stage: Stage::Lazy {
            range,
            handle,
            start: start(move |helpers| Reduce::new(identity, fold, reduce, helpers)),
        },
    }
}

fn map_vec_loop<T, U, F>(items: Vec<T>, handle: Option<Handle>, f: F) -> ParMapVec<U>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> U + Send + Sync + 'static,
{
    ParMapVec {
        stage: Stage::Lazy {
            range: 0..items.len(),
            handle,
            start: start(move |helpers| MapVec::new(f, items, helpers)),
        },
    }
}

fn for_each_mut_loop<T, F>(items: Vec<T>, handle: Option<Handle>, f: F) -> ParForEachMut<T>
where
    T: Send + 'static,
    F: Fn(usize, &mut T) + Send + Sync + 'static,
{
    ParForEachMut {
        stage: Stage::Lazy {
            range: 0..items.len(),
            handle,
            start: start(move |_| ForEachMut::new(f, items)),
        },
    }
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
    range_loop(range, None, body)
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
    map_loop(range, None, f)
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
    reduce_loop(range, None, identity, fold, reduce)
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
    map_vec_loop(items, None, f)
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
    for_each_mut_loop(items, None, f)
}

impl Handle {
    /// [`par_range`] on this executor.
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
        range_loop(range, Some(self.clone()), body)
    }

    /// [`par_map`] on this executor.
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
        map_loop(range, Some(self.clone()), f)
    }

    /// [`par_reduce`] on this executor.
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
        reduce_loop(range, Some(self.clone()), identity, fold, reduce)
    }

    /// [`par_map_vec`] on this executor.
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
        map_vec_loop(items, Some(self.clone()), f)
    }

    /// [`par_for_each_mut`] on this executor.
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
        for_each_mut_loop(items, Some(self.clone()), f)
    }
}

impl Executor {
    /// [`par_range`] on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// ex.block_on(ex.par_range(0..100, |i| assert!(i < 100)));
    /// ```
    pub fn par_range<F>(&self, range: Range<usize>, body: F) -> ParRange
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        self.handle().par_range(range, body)
    }

    /// [`par_map`] on this executor.
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
        self.handle().par_map(range, f)
    }

    /// [`par_reduce`] on this executor.
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
        self.handle().par_reduce(range, identity, fold, reduce)
    }

    /// [`par_map_vec`] on this executor.
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
        self.handle().par_map_vec(items, f)
    }

    /// [`par_for_each_mut`] on this executor.
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
        self.handle().par_for_each_mut(items, f)
    }
}

/// Compile-time checks: every loop future can be spawned (`Send`, for any `Send` output)
/// and polled without pinning (`Unpin`).
#[allow(dead_code)]
fn _assert_send_unpin<T: Send + 'static>() {
    fn send_unpin<F: Send + Unpin>() {}
    send_unpin::<ParRange>();
    send_unpin::<ParMap<T>>();
    send_unpin::<ParReduce<T>>();
    send_unpin::<ParMapVec<T>>();
    send_unpin::<ParForEachMut<T>>();
}
