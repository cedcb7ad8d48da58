//! Tasks: the handles of spawned tasks, groups of tasks, and yielding.
//!
//! The same items are at the crate root; this module gathers them as tokio's `task` does.
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! ex.block_on(async {
//!     let handle: filch::task::JoinHandle<u32> = filch::spawn(async { 7 });
//!     filch::task::yield_now().await;
//!     assert_eq!(handle.await.unwrap(), 7);
//! });
//! ```

pub(crate) mod join_set;

pub use crate::runtime::scheduler::join::JoinHandle;
pub use crate::runtime::scheduler::pinned::spawn_local;
pub use crate::runtime::task::abort::AbortHandle;
pub use crate::runtime::task::yield_now::{yield_now, YieldNow};
pub use crate::runtime::task::JoinError;
pub use join_set::JoinSet;
