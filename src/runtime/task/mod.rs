//! What a task is, independent of the executor that runs it: its metadata ([`TaskMeta`],
//! `meta.rs`), the future async-task polls ([`TaskFuture`], `future.rs`), the output it
//! stores ([`TaskOutput`], `output.rs`) and the [`JoinError`] a failed task gives
//! (`join_error.rs`). This file holds the module list and the re-exports.
//!
//! Generic over the task's *home* (`H`, the executor's state, [`TaskHome`]) so that this
//! module sits below the state that holds the queues of these tasks.
//!
//! [`TaskFuture`] wraps the user's future and
//! - catches a panic of its `poll` and turns it into a panic [`JoinError`], so the worker
//!   thread survives;
//! - drops the user's future itself, inside a panic guard, as soon as it is done with it
//!   (after `Ready`, after a panic, on abort): async-task would drop it inside its
//!   abort-on-panic guard, so a panicking destructor would end the process. A panic from that
//!   drop becomes the task's panic [`JoinError`]. When the future is dropped without a poll
//!   (shutdown drops the runnable), the panic is kept in the metadata for the `JoinHandle`;
//! - checks the abort flag before every poll, so an aborted task drops its future and
//!   completes with a cancelled error (the `JoinHandle` sees it only after the destructors
//!   ran);
//! - registers the task in the live-task registry the first time it returns `Pending` (a
//!   task that waits for a wake-up sits in no queue, so only the registry can reach it at
//!   shutdown or for an abort), and removes it when it is dropped;
//! - with `test-util` and `tokio-context`, makes each poll a scope in which tokio's timers
//!   are off while the executor's clock is paused (`runtime/tokio_context/timers_off.rs`).
//!
//! [`TaskOutput`] likewise drops an output that nobody takes (a detached task's) inside a
//! panic guard.
//!
//! For the task dump and slow-poll reports (`runtime/observe/record.rs`, `runtime/observe/poll_watch.rs`) each task has
//! an id and a spawn location in its metadata, and, once it waits (or from its spawn, for
//! tasks registered at once), a [`TaskRecord`](record::TaskRecord) the polls stamp. The id is the thread's
//! current task id around each poll and while filch drops the task's future or output.

pub(crate) mod abort;
pub(crate) mod cold_tail;
mod future;
pub(crate) mod id;
mod join_error;
pub(crate) mod live_tasks;
#[cfg(all(test, loom))]
mod loom_model;
mod meta;
mod output;
pub(crate) mod task_count;
pub(crate) mod yield_now;

pub(crate) use future::TaskFuture;
pub use join_error::JoinError;
pub(crate) use join_error::Payload;
pub(crate) use meta::{TaskHome, TaskMeta, GENERATED, SPAWNED, YIELDED};
pub(crate) use output::TaskOutput;
