//! The runtime: everything an executor is made of, below its public entry points
//! (`executor/`). Its folders are layers, from the bottom up (ARCHITECTURE.md, "Layers"):
//!
//! - this folder's own files are leaves: the cooperative budget (`coop.rs`), the per-worker
//!   counters (`stats.rs`), how threads start (`threads.rs`, `tokio_context/`), the wake
//!   policy (`wake_policy.rs`);
//! - `task/`: what a task is, generic over the executor that runs it;
//! - `park/`: idle workers and the parker every filch thread sleeps on; `io/` and `time/`:
//!   the two drivers, which know nothing of each other;
//! - `driver/`: the driver stack that composes them, the IO sources on it, and `block_on`;
//! - `scheduler/`: the executor's state, its workers, shutdown, and making tasks.

pub(crate) mod coop;
pub(crate) mod driver;
pub(crate) mod io;
pub(crate) mod observe;
pub(crate) mod park;
pub(crate) mod scheduler;
pub(crate) mod stats;
pub(crate) mod task;
pub(crate) mod threads;
pub(crate) mod time;
pub(crate) mod tokio_context;
pub(crate) mod wake_policy;
