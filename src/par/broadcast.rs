//! [`broadcast`], [`spawn_broadcast`] and [`BroadcastContext`]: a closure run once on each
//! worker of an executor, rayon's.
//!
//! Each worker's part is addressed to that worker alone, which runs it as its next piece of
//! fork-join work once it is free (after the task or piece it runs now), or while it waits
//! for work the part belongs to; the core is `runtime/scheduler/forkjoin/broadcast.rs`.
//! **Invariant:** the closure runs exactly once per worker, with indexes `0..n` each once,
//! on that worker's own thread.

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin;
use crate::runtime::scheduler::state::State;

/// Where a broadcast's closure runs: which worker, of how many; rayon's.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
/// assert_eq!(seen, [(0, 2), (1, 2)]);
/// ```
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// `!Send` and `!Sync`, and tied to the call, as rayon's.
    _marker: PhantomData<&'a mut dyn Fn()>,
}

impl BroadcastContext<'_> {
    fn new(index: usize, num_threads: usize) -> BroadcastContext<'static> {
        BroadcastContext {
            index,
            num_threads,
            _marker: PhantomData,
        }
    }

    /// The index of the worker this runs on (`0..num_threads()`), as
    /// [`current_thread_index`](crate::par::current_thread_index) tells there.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers of the executor, each of which runs the closure once.
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

impl fmt::Debug for BroadcastContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastContext")
            .field("index", &self.index)
            .field("num_threads", &self.num_threads)
            .finish()
    }
}

/// Runs `op` once on each worker of the current executor (else the global one), and returns
/// their results in the order of the workers' indexes; rayon's `broadcast`.
///
/// Called on one of the executor's workers, that worker runs its own part itself; the others
/// run theirs when they are free, so a worker busy with a long task holds the broadcast up
/// until that task's poll returns. A worker waiting in a broadcast (or a `join`, a scope)
/// runs the parts addressed to it of the broadcasts made inside that work, so broadcasts
/// nest, within an executor and across executors; once it has waited a tick with nothing
/// of its own to run, it runs the other awaited parts addressed to it too (a blocking
/// broadcast's, a scope's), so that broadcasts made on two workers at once do not wait for
/// each other. If a part panics, the panic is resumed here once every part finished.
///
/// # Panics
///
/// If a part panics, or if the executor shut down before every worker ran its part.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let squares = pool.install(|| filch::par::broadcast(|ctx| ctx.index() * ctx.index()));
/// assert_eq!(squares, [0, 1, 4]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    broadcast_on(&current_or_global_state(), op)
}

/// [`broadcast`] on `state`'s workers.
pub(crate) fn broadcast_on<OP, R>(state: &State, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = state.num_workers();
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let part = |index: usize| {
        let value = op(BroadcastContext::new(index, n));
        *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    };
    forkjoin::broadcast(state, &part);
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("filch: a broadcast's part returned no value")
        })
        .collect()
}

/// Runs `op` once on each worker of the current executor (else the global one), some time
/// later, and returns at once; rayon's `spawn_broadcast`. A panic in a part is reported by
/// the panic hook and goes no further, as [`spawn`](crate::par::spawn)'s.
///
/// ```
/// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
/// let mut seen: Vec<usize> = rx.iter().take(2).collect();
/// seen.sort();
/// assert_eq!(seen, [0, 1]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    spawn_broadcast_on(&current_or_global_state(), op);
}

/// [`spawn_broadcast`] on `state`'s workers.
pub(crate) fn spawn_broadcast_on<OP>(state: &State, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let n = state.num_workers();
    forkjoin::spawn_broadcast(
        state,
        Arc::new(move |index| op(BroadcastContext::new(index, n))),
    );
}

/// The context of worker `index` of `n`, for a scope's broadcast (`scope.rs`).
pub(crate) fn context(index: usize, n: usize) -> BroadcastContext<'static> {
    BroadcastContext::new(index, n)
}
