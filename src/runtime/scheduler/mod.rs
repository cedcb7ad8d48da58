//! The scheduler of one executor: what its workers and handles share (`state.rs`), how it
//! shuts down (`shutdown.rs`), the paused clock's jumps over it (`auto_advance.rs`), the
//! workers (`worker/`: the loop, its private queues, the schedule function, the
//! thread-locals), and making tasks (`spawner.rs`; pinned ones, all in `pinned/`; blocking jobs, with
//! the blocking pool in `blocking/`) with their
//! [`JoinHandle`](join_handle::JoinHandle)s (`join_handle.rs`); the stand-ins that take
//! the place of a worker whose poll holds it (`standin/`).

pub(crate) mod auto_advance;
pub(crate) mod blocking;
pub(crate) mod forkjoin;
pub(crate) mod join_handle;
#[cfg(all(test, loom, feature = "test-util"))]
mod loom_model;
pub(crate) mod pinned;
pub(crate) mod runtime;
pub(crate) mod shutdown;
pub(crate) mod spawner;
pub(crate) mod standin;
pub(crate) mod state;
pub(crate) mod worker;
