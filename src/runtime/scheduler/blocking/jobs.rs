//! The executor's side of its blocking pool: what a job is ([`BlockingJob`], an async-task
//! runnable's future that calls the closure once, so that the caller gets filch's own
//! `JoinHandle` with its panic and cancellation semantics), the jobs' schedule function
//! ([`schedule_blocking`]: onto the pool, starting a thread when the pool asks for one) and
//! the body of a pool thread (named `{prefix}-blocking-{n}`, inside its executor's context).
//! `spawn_blocking` itself is `runtime/scheduler/spawner.rs`'s, with the other spawns.
//!
//! Invariants: a job is scheduled once (it completes in its first poll, and `abort` wakes
//! only registered tasks); the executor's state outlives the push (the schedule function
//! holds its own reference); the paused clock counts a job busy from its schedule to its end
//! (`runtime/time/clock.rs`); a job the pool refuses, or that only a thread that could not
//! start would have run, is cancelled (dropped outside the pool's lock).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_task::ScheduleInfo;

use crate::runtime::observe::coarse_clock::coarse_now;
use crate::runtime::scheduler::blocking::Pushed;
use crate::runtime::scheduler::state::{Runnable, State};
use crate::runtime::scheduler::worker::context;
use crate::util::wake_all::drop_quietly;

/// The future of a blocking job: calls the closure on its first (and only) poll. Its panic
/// is caught by `TaskFuture` like any task's.
pub(crate) struct BlockingJob<F> {
    f: Option<F>,
}

impl<F> BlockingJob<F> {
    /// The job that calls `f`.
    pub(crate) fn new(f: F) -> BlockingJob<F> {
        BlockingJob { f: Some(f) }
    }
}

// The closure is moved out, never pinned in place.
impl<F> Unpin for BlockingJob<F> {}

impl<F: FnOnce() -> T, T> Future for BlockingJob<F> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        let f = self
            .f
            .take()
            .expect("filch: a blocking job was polled after it completed");
        Poll::Ready(f())
    }
}

/// The schedule function of blocking jobs: queues the job on its executor's pool, starting
/// a thread if the pool asks for one. Called once, by `spawn_blocking` (the job is never
/// woken: it completes in its first poll, and `abort` wakes only registered tasks).
pub(crate) fn schedule_blocking(runnable: Runnable, _: ScheduleInfo) {
    if let Some(record) = runnable.metadata().record() {
        record.scheduled(coarse_now());
    }
    // Our own reference: the executor must outlive the push even if the job is dropped.
    let state = runnable.metadata().home_arc();
    // Busy for a paused clock from here to the job's end (`test-util`, `runtime/time/clock.rs`).
    state.driver.clock().job_started();
    match state.blocking.push(runnable) {
        Pushed::Queued => {}
        // Dropped outside the pool's lock: that cancels the job.
        Pushed::Refused(runnable) => state.cancel_blocking_jobs([runnable]),
        Pushed::StartThread(id) => {
            let thread_state = Arc::clone(&state);
            let name = format!("{}-blocking-{id}", state.threads.prefix);
            let started = state
                .threads
                .spawn(name, move || run_blocking_thread(thread_state));
            if let Err(err) = started {
                // No thread will run the jobs that only this one would have: cancel them
                // and say why.
                state.cancel_blocking_jobs(state.blocking.thread_failed());
                panic!("filch: cannot start a blocking-pool thread: {err}");
            }
        }
    }
}

/// The body of a blocking-pool thread of `state`'s executor.
fn run_blocking_thread(state: Arc<State>) {
    let _enter = context::enter(Arc::clone(&state));
    state.blocking.serve(|runnable: Runnable| {
        if runnable.metadata().is_aborted() {
            // Dropping the runnable drops the closure unrun; the handle reports cancelled.
            drop(runnable);
        } else if let Err(payload) = catch_unwind(AssertUnwindSafe(|| runnable.run())) {
            // `TaskFuture` catches the closure's panic and its destructors'; this is a
            // second line for a panic from the runtime itself, so that the thread survives.
            drop_quietly(payload);
        }
        // After the job's output (and the wake of whoever awaits it): the task it wakes is
        // queued, or the `block_on` counted, before the count may reach zero.
        state.driver.clock().job_ended();
    });
}
