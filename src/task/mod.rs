//! Tasks: ids ([`Id`], [`id`], [`try_id`]), a [`Builder`] for named tasks, the task dump's
//! types ([`TaskDump`], [`TaskInfo`], [`TaskState`]), and the task types also found at the
//! crate root ([`JoinHandle`], [`AbortHandle`], [`JoinSet`], [`JoinError`], [`yield_now`]),
//! so that `filch::task::JoinHandle` works as `tokio::task::JoinHandle` does.
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

mod builder;
mod dump;
pub(crate) mod id;

pub use builder::Builder;
pub use dump::{TaskDump, TaskInfo, TaskState};
pub use id::{id, try_id, Id};

pub(crate) use dump::{collect, name_of};

pub use crate::abort::AbortHandle;
pub use crate::join::JoinHandle;
pub use crate::join_set::JoinSet;
pub use crate::task_core::JoinError;
pub use crate::yield_now::yield_now;
