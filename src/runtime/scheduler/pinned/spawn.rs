//! Pinned tasks: `!Send` futures on the workers. [`spawn_pinned`] (through `executor/global.rs`,
//! `Handle` and `Executor`) runs a `Send` closure on the least loaded worker and polls the
//! future it returns there; [`spawn_local`], inside a task on a worker, pins a future that
//! already exists to that same worker. The worker's side (the queue, the placement, the
//! exit) is `runtime/scheduler/pinned/worker_side.rs`.
//!
//! A pinned task is an ordinary filch task (the same metadata, `TaskFuture`, registry,
//! abort and `JoinHandle`) whose future is a [`PinnedFuture`]: the closure, until the
//! first poll calls it, then the future it returned. Its schedule function pushes it onto
//! its worker's pinned queue, which only that worker pops.
//!
//! **Invariant:** a pinned task's future is created, polled and dropped only on its
//! worker's thread. The closure (`Send`) may be dropped anywhere, unrun: on the spawner's
//! thread when the executor is shut down, on a draining thread once the worker exited.
//! Why this holds on every path (the argument behind `PinnedFuture`'s `Send`):
//! - polls: the runnable reaches only its worker's pinned queue (a wake from any thread, an
//!   abort, the drop of the last waker or of the `JoinHandle` all go through the schedule
//!   function), and only that worker pops it;
//! - drops: the future is dropped by the poll that completes, panics or is aborted (on the
//!   worker), or with its runnable, which only the worker drops while it lives; a worker
//!   exits only once every pinned future of it was dropped (`runtime/scheduler/pinned/worker_side.rs`),
//!   so the runnables that reach its queue afterwards hold none. `JoinHandle` and `AbortHandle`
//!   never touch the future, and the output is `Send`.
//!
//! `PinnedFuture` also checks the thread at its drop: a future that would be dropped on
//! another thread (which the argument above rules out) is leaked instead.

use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::{self, ThreadId};

use crate::runtime::scheduler::join_handle::JoinHandle;
use crate::runtime::scheduler::pinned::queue::PinnedQueue;
use crate::runtime::scheduler::pinned::worker_side::{least_loaded, push_pinned, schedule_pinned};
use crate::runtime::scheduler::spawner::{build, Options};
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;

/// Spawns the future that `create` makes onto `state`'s least loaded worker, pinned there.
#[track_caller]
pub(crate) fn spawn_pinned<C, F>(state: &Arc<State>, create: C) -> JoinHandle<F::Output>
where
    C: FnOnce() -> F + Send + 'static,
    F: Future + 'static,
    F::Output: Send + 'static,
{
    let index = least_loaded(state);
    spawn_pinned_to(state, index, PinnedStage::Create(create), None)
}

/// Spawns a `!Send` future onto the worker the current task runs on, pinned there: it is
/// polled and dropped only on that worker's thread, as a task of
/// [`spawn_pinned`](crate::spawn_pinned). The calling task is not pinned by this: only the new task
/// is.
///
/// # Panics
/// Outside a task on a filch worker (in `block_on`, on a thread of the blocking pool, on
/// any other thread), where no worker is there to pin the future to: use
/// [`spawn_pinned`](crate::spawn_pinned), whose closure builds the future on a worker, instead.
///
/// ```
/// use std::{cell::RefCell, rc::Rc};
///
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let sum = ex.block_on(filch::spawn_pinned(|| async {
///     let shared = Rc::new(RefCell::new(1));
///     let child = filch::spawn_local({
///         let shared = Rc::clone(&shared);
///         async move { *shared.borrow_mut() += 1 }
///     });
///     child.await.unwrap();
///     shared.take()
/// }));
/// assert_eq!(sum.unwrap(), 2);
/// ```
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: Send + 'static,
{
    let worker = context::with_worker(|worker| worker.map(|w| (Arc::clone(&w.state), w.index)));
    let Some((state, index)) = worker else {
        panic!(
            "filch::spawn_local called outside a task on a filch worker thread: a !Send \
             future can only be pinned to the worker it is created on; use \
             filch::spawn_pinned(|| future) to create it on a worker from here"
        );
    };
    let owner = Some(thread::current().id());
    spawn_pinned_to::<fn() -> F, F>(&state, index, PinnedStage::Run(future), owner)
}

/// Spawns a pinned task onto worker `index` of `state`; `owner` is the current thread if
/// `stage` already holds the future (`spawn_local`, on that worker).
#[track_caller]
fn spawn_pinned_to<C, F>(
    state: &Arc<State>,
    index: usize,
    stage: PinnedStage<C, F>,
    owner: Option<ThreadId>,
) -> JoinHandle<F::Output>
where
    C: FnOnce() -> F + Send + 'static,
    F: Future + 'static,
    F::Output: Send + 'static,
{
    let queue = &state.workers[index].pinned;
    queue.task_added();
    let future = PinnedFuture {
        stage: ManuallyDrop::new(stage),
        queue,
        owner,
    };
    let (runnable, handle) = build(
        state,
        future,
        move |runnable: Runnable| schedule_pinned(index, runnable),
        Options {
            kind: "local",
            ..Options::at(Location::caller())
        },
        false,
    );
    if let Some(runnable) = runnable {
        push_pinned(state, index, runnable);
    }
    handle
}

/// What a pinned task holds: the closure, until its first poll; then the future.
enum PinnedStage<C, F> {
    Create(C),
    Run(F),
    /// The closure panicked (the task completes with that panic, and is not polled again).
    Gone,
}

/// The future of a pinned task (module docs): runs the closure on the first poll, on its
/// worker, then polls the future it made there.
pub(crate) struct PinnedFuture<C, F> {
    /// Dropped in `drop`, in place (a future in it is structurally pinned).
    stage: ManuallyDrop<PinnedStage<C, F>>,
    /// The pinned queue of the task's worker, whose count of pinned tasks this one is in.
    queue: *const PinnedQueue<Runnable>,
    /// The thread the future was created on (its worker's), once it exists.
    owner: Option<ThreadId>,
}

// SAFETY: what is not `Send` in a `PinnedFuture` is the future `F` (and the queue pointer,
// which only reaches an atomic count and a lock-free queue, both `Sync`). The future is
// created, polled and dropped only on its worker's thread (module docs: the invariant and
// why it holds on every path); only the closure, which is `Send`, and a `Gone` stage are
// ever moved or dropped on another thread.
unsafe impl<C: Send, F> Send for PinnedFuture<C, F> {}

impl<C, F> Future for PinnedFuture<C, F>
where
    C: FnOnce() -> F,
    F: Future,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: the stage's future is never moved out of `self`: it is polled through a
        // pinned reference below and dropped in place by `drop`. The closure is moved out
        // before any future is there.
        let this = unsafe { self.get_unchecked_mut() };
        if matches!(*this.stage, PinnedStage::Create(_)) {
            let PinnedStage::Create(create) =
                std::mem::replace(&mut *this.stage, PinnedStage::Gone)
            else {
                unreachable!("filch: the stage was just matched as Create");
            };
            this.owner = Some(thread::current().id());
            let future = create();
            *this.stage = PinnedStage::Run(future);
        }
        match &mut *this.stage {
            PinnedStage::Run(future) => {
                debug_assert_eq!(
                    this.owner,
                    Some(thread::current().id()),
                    "filch: a pinned task polled off its worker's thread"
                );
                // SAFETY: pinned along with `self` (see above).
                unsafe { Pin::new_unchecked(future) }.poll(cx)
            }
            _ => panic!("filch: a pinned task polled after its closure panicked"),
        }
    }
}

impl<C, F> Drop for PinnedFuture<C, F> {
    fn drop(&mut self) {
        /// Uncounts the task once the stage is dropped, also if its destructor panics.
        struct Uncount(*const PinnedQueue<Runnable>);
        impl Drop for Uncount {
            fn drop(&mut self) {
                // SAFETY: the queue is part of the task's executor's state, which the task's
                // metadata keeps alive (`runtime/task/task_count.rs`); async-task drops the future
                // before the metadata, and this runs inside the future's drop.
                unsafe { &*self.0 }.task_dropped();
            }
        }
        let _uncount = Uncount(self.queue);
        if matches!(*self.stage, PinnedStage::Run(_)) && self.owner != Some(thread::current().id())
        {
            // Never by the module invariant; leaking is the one sound thing left to do with
            // a `!Send` future on a foreign thread.
            debug_assert!(
                false,
                "filch: a pinned task dropped off its worker's thread"
            );
            return;
        }
        // SAFETY: dropped exactly once, here, in place; `stage` is not used again.
        unsafe { ManuallyDrop::drop(&mut self.stage) };
    }
}
