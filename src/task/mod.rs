//! Tasks: ids ([`Id`], [`id`], [`try_id`]), a [`Builder`] for named tasks, the task dump's
//! types ([`TaskDump`], [`TaskInfo`], [`TaskState`]), pinned `!Send` tasks
//! ([`spawn_local`]), and the task types also found at the crate root ([`JoinHandle`],
//! [`AbortHandle`], [`JoinSet`], [`JoinError`], [`yield_now`]), so that
//! `filch::task::JoinHandle` works as `tokio::task::JoinHandle` does.
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
//! let handle = ex.block_on(async {
//!     filch::task::Builder::new().name("greeter").spawn(async { "hi" }).unwrap()
//! });
//! let id: filch::task::Id = handle.id();
//! assert_eq!(ex.block_on(handle).unwrap(), "hi");
//! println!("task {id} said hi");
//! ```

mod block_in_place;
pub(crate) mod join_set;
mod task_builder;

pub use block_in_place::block_in_place;
pub use join_set::JoinSet;
pub use task_builder::Builder;

pub use crate::runtime::observe::dump::{TaskDump, TaskInfo, TaskState};
pub use crate::runtime::scheduler::join_handle::JoinHandle;
pub use crate::runtime::scheduler::pinned::spawn_local;
pub use crate::runtime::task::abort::AbortHandle;
pub use crate::runtime::task::id::{id, try_id, Id};
pub use crate::runtime::task::yield_now::{yield_now, YieldNow};
pub use crate::runtime::task::JoinError;
