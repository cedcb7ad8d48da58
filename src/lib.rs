//! filch: a multi-threaded async executor on work-stealing deques, with async
//! data-parallel loops.
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! let sum = ex.block_on(async {
//!     let tasks: Vec<_> = (0..10u64).map(|i| filch::spawn(async move { i * i })).collect();
//!     let mut sum = 0;
//!     for t in tasks {
//!         sum += t.await.unwrap();
//!     }
//!     sum
//! });
//! assert_eq!(sum, 285);
//! ```
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs, unreachable_pub, clippy::undocumented_unsafe_blocks)]

mod block_on;
mod blocking;
mod context;
mod executor;
mod global;
mod par;
mod park;
mod registry;
mod shared;
mod stats;
mod sync;
mod task;
mod task_count;
mod worker;
mod yield_now;

pub use executor::{Builder, Executor, Handle, WakePolicy};
pub use global::{block_on, spawn, spawn_blocking, WORKERS_ENV};
pub use par::{par_map, par_range, par_reduce, ParMap, ParRange, ParReduce};
pub use stats::{Stats, WorkerStats};
pub use task::{JoinError, JoinHandle};
pub use yield_now::{yield_now, YieldNow};

/// Internals exposed to the loom models only.
#[cfg(loom)]
#[doc(hidden)]
pub mod __loom {
    pub use crate::par::steal_range::*;
    pub use crate::park::{Parked, Sleep};
}

/// Compile-time checks of the thread-safety promises of the public types.
#[allow(dead_code)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    fn unpin<T: Unpin>() {}
    send_sync::<Handle>();
    send_sync::<Executor>();
    send_sync::<JoinError>();
    send::<JoinHandle<()>>();
    unpin::<JoinHandle<()>>();
    send_sync::<Stats>();
}
