//! Tasks, one module per scenario: spawning and awaiting, `JoinHandle` (abort, detach,
//! exact wake-ups), `JoinSet`, panics in tasks and in their destructors, long wake chains,
//! `spawn_blocking`, the `futures` `Spawn` impls, pinned tasks (`spawn_pinned`, `spawn_local`,
//! and tokio's `LocalSet` tests ported to them), and the `#[filch::test]`/`#[filch::main]`
//! attributes.

#[path = "../common/mod.rs"]
mod common;

mod abort_and_detach;
mod dump;
mod exact_wakeups;
mod futures_spawn;
mod join_set;
#[cfg(feature = "macros")]
mod macros;
mod panicking_destructors;
mod panics;
mod pinned;
mod pinned_local_set;
mod spawn_and_await;
mod spawn_blocking;
mod task_ids;
mod wake_chain;
