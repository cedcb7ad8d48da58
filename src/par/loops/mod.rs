//! Async data-parallel loops: [`par_range`](crate::par_range), [`par_map`](crate::par_map) and
//! [`par_reduce`](crate::par_reduce) over an index range, and [`par_map_vec`](crate::par_map_vec)
//! and [`par_for_each_mut`](crate::par_for_each_mut) over an owned `Vec`.
//!
//! `par_range(0..n, body).await` splits the index space across the executor's workers and
//! the awaiting task simply waits: it never blocks a worker (rayon's loops block the calling
//! thread; tokio and smol have none). The split is the work-stealing range of
//! `steal_range.rs`: each worker's helper task takes batches from the low end of its own
//! slice (sized by its controller, `batch.rs`), idle helpers steal from the high end of the
//! others' slices, and the loop ends when the shared remaining count reaches zero (Huba's
//! partitioner). `run.rs` holds the running loop and its helper tasks, `kinds.rs` and
//! `owned.rs` what each loop does per index, `runtime/time/tick.rs` the coarse clock that makes
//! helpers look up between items.
//!
//! The futures are lazy: nothing starts until the first poll. The free functions
//! (`executor/global.rs`) pick the executor then (the current one of the polling thread, else the
//! global one); the methods of `Handle` and `Executor` (`executor/`) use theirs.
//!
//! **Invariant:** every index of the range is processed exactly once, unless the loop is
//! stopped (a panic, or the future dropped), after which no index starts.
//!
//! **Invariant:** a loop future completes with a value at most once, and never after it
//! resumed a panic: it is then `Failed`, and a further poll panics.

mod batch;
mod kinds;
#[cfg(all(test, loom))]
mod loom_model;
mod owned;
mod run;
mod steal_range;

use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::runtime::scheduler::state::State;
use kinds::{ForEach, Map, Reduce};
use owned::{ForEachMut, MapVec};
use run::{Kind, Loop, Outcome};

/// A started loop, seen through its output type only.
type RunningLoop<O> = Arc<dyn Outcome<O>>;

/// Builds the loop for its range on an executor, or gives the output of an empty range.
type Start<O> = Box<dyn FnOnce(Range<usize>, Option<&Arc<State>>) -> Started<O> + Send>;

enum Started<O> {
    Empty(O),
    RunningLoop(RunningLoop<O>),
}

/// Where a loop runs: a given executor (the methods of `Handle` and `Executor`), or the one
/// `resolve` gives when the future is first polled (the free functions: the current
/// executor, else the global one; `executor/global.rs` passes the resolver, so that this module
/// needs no knowledge of the global executor).
pub(crate) enum On {
    Fixed(Arc<State>),
    Current(fn() -> Arc<State>),
}

/// The state machine shared by the loop futures.
enum LoopStage<O: Send + 'static> {
    /// Not polled yet: the loop's description and where it will run.
    Lazy {
        range: Range<usize>,
        on: On,
        start: Start<O>,
    },
    /// Started: the running loop.
    RunningLoop(StopOnDrop<O>),
    /// The output was handed out.
    Done,
    /// A panic was resumed (or the executor shut down under the loop): there is no output,
    /// and a further poll panics.
    Failed,
}

/// Builds the [`Start`] of a loop of kind `K`, made by `make` for a number of helpers.
fn start<K: Kind>(make: impl FnOnce(usize) -> K + Send + 'static) -> Start<K::Output> {
    Box::new(move |range: Range<usize>, shared: Option<&Arc<State>>| {
        let len = range.end.saturating_sub(range.start);
        match shared {
            Some(shared) if len > 0 => {
                let helpers = shared.num_workers().min(len);
                let lp = Arc::new(Loop::new(range, helpers, make(helpers)));
                lp.start(shared);
                Started::RunningLoop(lp)
            }
            // No index will run: the output of an empty loop (for the owned loops, built
            // from the caller's empty Vec).
            _ => Started::Empty(make(1).take_output()),
        }
    })
}

impl<O: Send + 'static> LoopStage<O> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<O> {
        if let LoopStage::Lazy { range, .. } = self {
            // An empty or reversed range completes at once, on no executor at all.
            let empty = range.start >= range.end;
            let LoopStage::Lazy { range, on, start } = std::mem::replace(self, LoopStage::Done)
            else {
                unreachable!("matched above")
            };
            let state = match (empty, on) {
                (true, _) => None,
                (false, On::Fixed(state)) => Some(state),
                (false, On::Current(resolve)) => Some(resolve()),
            };
            match start(range, state.as_ref()) {
                Started::Empty(output) => return Poll::Ready(output),
                Started::RunningLoop(lp) => *self = LoopStage::RunningLoop(StopOnDrop(lp)),
            }
        }
        match self {
            LoopStage::RunningLoop(StopOnDrop(lp)) => match std::task::ready!(lp.poll_done(cx)) {
                Ok(output) => {
                    *self = LoopStage::Done;
                    Poll::Ready(output)
                }
                Err(failure) => {
                    // Leave the running state before resuming: polled again, the future
                    // must panic again, never read the (incomplete) results.
                    *self = LoopStage::Failed;
                    failure.resume()
                }
            },
            LoopStage::Done => {
                panic!("filch: a data-parallel loop future was polled after it completed")
            }
            LoopStage::Failed => {
                panic!("filch: a data-parallel loop future was polled again after it panicked")
            }
            LoopStage::Lazy { .. } => unreachable!("started above"),
        }
    }

    fn state(&self) -> &'static str {
        match self {
            LoopStage::Lazy { .. } => "not started",
            LoopStage::RunningLoop(_) => "running",
            LoopStage::Done => "done",
            LoopStage::Failed => "failed",
        }
    }
}

/// Stops the loop when the future is dropped before completion: no new index starts.
/// (After completion the stop finds nothing left and changes nothing.)
struct StopOnDrop<O: Send + 'static>(RunningLoop<O>);

impl<O: Send + 'static> Drop for StopOnDrop<O> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The future of [`par_range`](crate::par_range): resolves to `()` once the body ran on every
/// index.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParRange = ex.par_range(0..10, |_| {});
/// ex.block_on(fut);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParRange {
    stage: LoopStage<()>,
}

/// The future of [`par_map`](crate::par_map): resolves to the results in index order.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParMap<usize> = ex.par_map(0..4, |i| i * 10);
/// assert_eq!(ex.block_on(fut), vec![0, 10, 20, 30]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParMap<T: Send + 'static> {
    stage: LoopStage<Vec<T>>,
}

/// The future of [`par_reduce`](crate::par_reduce): resolves to the combination of every index's
/// fold.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParReduce<u64> = ex.par_reduce(0..5, || 0, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(ex.block_on(fut), 10);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParReduce<T: Send + 'static> {
    stage: LoopStage<T>,
}

/// The future of [`par_map_vec`](crate::par_map_vec): resolves to the results in the order of the
/// items.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let words = vec!["a".to_string(), "bb".to_string()];
/// let fut: filch::ParMapVec<usize> = ex.par_map_vec(words, |w| w.len());
/// assert_eq!(ex.block_on(fut), vec![1, 2]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParMapVec<U: Send + 'static> {
    stage: LoopStage<Vec<U>>,
}

/// The future of [`par_for_each_mut`](crate::par_for_each_mut): resolves to the same `Vec`, each
/// element changed in place.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParForEachMut<u32> = ex.par_for_each_mut(vec![1, 2, 3], |_, x| *x *= 2);
/// assert_eq!(ex.block_on(fut), vec![2, 4, 6]);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ParForEachMut<T: Send + 'static> {
    stage: LoopStage<Vec<T>>,
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

pub(crate) fn range_loop<F>(on: On, range: Range<usize>, body: F) -> ParRange
where
    F: Fn(usize) + Send + Sync + 'static,
{
    ParRange {
        stage: LoopStage::Lazy {
            range,
            on,
            start: start(move |_| ForEach { body }),
        },
    }
}

pub(crate) fn map_loop<T, F>(on: On, range: Range<usize>, f: F) -> ParMap<T>
where
    T: Send + 'static,
    F: Fn(usize) -> T + Send + Sync + 'static,
{
    let bounds = range.clone();
    ParMap {
        stage: LoopStage::Lazy {
            range,
            on,
            start: start(move |helpers| Map::new(f, bounds, helpers)),
        },
    }
}

pub(crate) fn reduce_loop<T, I, F, R>(
    on: On,
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
    ParReduce {
        stage: LoopStage::Lazy {
            range,
            on,
            start: start(move |helpers| Reduce::new(identity, fold, reduce, helpers)),
        },
    }
}

pub(crate) fn map_vec_loop<T, U, F>(on: On, items: Vec<T>, f: F) -> ParMapVec<U>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> U + Send + Sync + 'static,
{
    ParMapVec {
        stage: LoopStage::Lazy {
            range: 0..items.len(),
            on,
            start: start(move |helpers| MapVec::new(f, items, helpers)),
        },
    }
}

pub(crate) fn for_each_mut_loop<T, F>(on: On, items: Vec<T>, f: F) -> ParForEachMut<T>
where
    T: Send + 'static,
    F: Fn(usize, &mut T) + Send + Sync + 'static,
{
    ParForEachMut {
        stage: LoopStage::Lazy {
            range: 0..items.len(),
            on,
            start: start(move |_| ForEachMut::new(f, items)),
        },
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
