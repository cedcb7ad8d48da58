//! Pinned tasks, all in this folder: `!Send` futures that run on one worker each
//! (`spawn_pinned`, `spawn_local`).
//!
//! - `spawn.rs` makes them: [`spawn_pinned`], [`spawn_local`] and `PinnedFuture`, with the
//!   invariant that a pinned task's future is created, polled and dropped only on its
//!   worker's thread, and the argument for it;
//! - `worker_side.rs` is the worker's side: their schedule function, the least loaded
//!   worker, the pops from the pinned queue and the worker's exit;
//! - `queue.rs` is [`queue::PinnedQueue`], what the other threads see of one worker's pinned
//!   tasks (the queue only that worker pops, their count, the exited flag).

pub(crate) mod queue;
mod spawn;
pub(crate) mod worker_side;

pub use spawn::spawn_local;
pub(crate) use spawn::spawn_pinned;
