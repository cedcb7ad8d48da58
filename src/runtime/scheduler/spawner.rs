//! Making tasks: a future (or a blocking closure) becomes an async-task task with filch's
//! metadata and `TaskFuture` (in a `ColdTail` unless the task is small,
//! `runtime/task/cold_tail.rs`), its first runnable is placed, and the spawner gets a
//! [`JoinHandle`].
//!
//! - [`spawn`]: onto the workers, through the schedule function
//!   (`runtime/scheduler/worker/schedule.rs`);
//! - [`spawn_blocking`]: onto the executor's blocking pool (`runtime/scheduler/blocking/`:
//!   the pool, and in `jobs.rs` the jobs' future, their schedule function and the pool's
//!   threads, named `{prefix}-blocking-{n}`, inside the executor's context).
//!
//! A task spawned after shutdown is dropped at once, so its handle reports cancelled.
//!
//! Every entry point is `#[track_caller]` (and so are the public ones above it), so that a
//! task's metadata holds where the user's spawn call is; a caller that goes through a
//! closure passes the location in [`Options`] instead. A task spawned with
//! `register_at_spawn` (`task::Builder`'s) and every blocking job register in the live-task
//! registry at once, so that a task dump lists them from the start (`runtime/observe/record.rs`).

use std::future::Future;
use std::mem::size_of;
use std::panic::Location;
use std::sync::Arc;

use async_task::WithInfo;

use crate::runtime::observe::record::SpawnedAt;
use crate::runtime::scheduler::blocking::jobs::{schedule_blocking, BlockingJob};
use crate::runtime::scheduler::join_handle::JoinHandle;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::schedule::schedule;
use crate::runtime::task::cold_tail::{wants_cold_tail, ColdTail};
use crate::runtime::task::{Payload, TaskFuture, TaskMeta, TaskOutput};

/// How a task is made: where it was spawned, its name, whether it registers at once.
pub(crate) struct Options<'a> {
    pub(crate) spawned_at: SpawnedAt,
    pub(crate) name: Option<&'a str>,
    /// Register in the live-task registry at the spawn (else at the first wait).
    pub(crate) register_at_spawn: bool,
    /// What tokio-console calls the task's kind: `task`, or `local` for a pinned one (a
    /// blocking job is `blocking` whatever this says).
    #[cfg_attr(not(feature = "console"), allow(dead_code))]
    pub(crate) kind: &'static str,
}

impl Options<'_> {
    /// A plain task spawned at `spawned_at`.
    pub(crate) fn at(spawned_at: SpawnedAt) -> Options<'static> {
        Options {
            spawned_at,
            name: None,
            register_at_spawn: false,
            kind: "task",
        }
    }
}

/// Spawns `future` onto `state`'s workers.
#[track_caller]
pub(crate) fn spawn<F>(state: &Arc<State>, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_with(state, future, Options::at(Location::caller()))
}

/// Spawns `future` onto `state`'s workers, made as `options` say.
pub(crate) fn spawn_with<F>(
    state: &Arc<State>,
    future: F,
    options: Options<'_>,
) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (runnable, handle) = build(state, future, WithInfo(schedule), options, false);
    if let Some(runnable) = runnable {
        runnable.schedule();
    }
    handle
}

/// Runs `f` on `state`'s blocking pool.
#[track_caller]
pub(crate) fn spawn_blocking<F, T>(state: &Arc<State>, f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_blocking_with(state, f, Options::at(Location::caller()))
}

/// Runs `f` on `state`'s blocking pool, as a task made as `options` say (a blocking job
/// always registers at its spawn).
pub(crate) fn spawn_blocking_with<F, T>(
    state: &Arc<State>,
    f: F,
    options: Options<'_>,
) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (runnable, handle) = build(
        state,
        BlockingJob::new(f),
        WithInfo(schedule_blocking),
        options,
        true,
    );
    if let Some(runnable) = runnable {
        runnable.schedule();
    }
    handle
}

/// Builds the task; its first runnable, unless the executor is shut down (then the future
/// is dropped here and now, and the handle reports cancelled; a spawn racing with shutdown
/// is dropped by the schedule function or the shutdown drain instead, moments later).
pub(crate) fn build<F, S>(
    state: &Arc<State>,
    future: F,
    schedule: S,
    options: Options<'_>,
    blocking: bool,
) -> (Option<Runnable>, JoinHandle<F::Output>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
    S: async_task::Schedule<TaskMeta<State>> + Send + Sync + 'static,
{
    let builder = async_task::Builder::new().metadata(TaskMeta::new(state, options.spawned_at));
    // Why both `spawn_unchecked` calls below are sound: it asks that a non-Send future be
    // run and dropped on its own thread, that non-'static borrows outlive the Runnable, and
    // that a non-Send schedule function be used on its own thread. `F` is Send + 'static,
    // the schedule function is Send + Sync + 'static, and the only borrow is `meta`, the
    // task's own metadata: async-task keeps it in the task allocation until after the
    // future is dropped, and `TaskFuture` uses it only in `poll` and `drop` (`ColdTail`
    // only holds the `TaskFuture`). The `'static` we give the reference never escapes
    // `TaskFuture`.
    // The task made known to tokio-console, with its id (`runtime/observe/console/`).
    #[cfg(feature = "console")]
    let trace = {
        let kind = if blocking { "blocking" } else { options.kind };
        let (name, at) = (options.name, options.spawned_at);
        move |future: TaskFuture<F, State>, _: &TaskMeta<State>| future.traced(kind, name, at)
    };
    #[cfg(not(feature = "console"))]
    let trace = |future, _: &TaskMeta<State>| future;
    // Decided at compile time (an inline const): each future type instantiates one of the
    // two task layouts, not both.
    let (runnable, task) = if const {
        wants_cold_tail(
            size_of::<TaskMeta<State>>(),
            size_of::<TaskFuture<F, State>>(),
            size_of::<Result<TaskOutput<F::Output>, Payload>>(),
        )
    } {
        let make_future = move |meta: &'static TaskMeta<State>| {
            ColdTail::new(trace(TaskFuture::new(future, meta), meta))
        };
        // SAFETY: the argument above.
        unsafe { builder.spawn_unchecked(make_future, schedule) }
    } else {
        let make_future =
            move |meta: &'static TaskMeta<State>| trace(TaskFuture::new(future, meta), meta);
        // SAFETY: the argument above.
        unsafe { builder.spawn_unchecked(make_future, schedule) }
    };
    if options.register_at_spawn || blocking {
        let name = options.name.map(Box::from);
        task.metadata()
            .register_at_spawn(runnable.waker(), name, blocking);
    }
    let handle = JoinHandle::from_task(task);
    if state.is_shut_down() {
        drop(runnable);
        return (None, handle);
    }
    (Some(runnable), handle)
}
