//! Fork-join on the workers (`filch::par::{join, join_context, scope, in_place_scope, spawn}`,
//! pools, `par::run`, `task::block_in_place`): one module per property, and rayon-core's and
//! tokio's own tests of the same calls, ported.

#[path = "../common/mod.rs"]
mod common;

mod between_executors;
mod cancel;
mod held_polls;
mod idle;
mod join_basics;
mod late_thief;
mod lineage;
mod lock_across_join;
mod nesting;
mod panics;
mod rayon_broadcast;
mod rayon_builder;
mod rayon_integration;
mod rayon_join;
mod rayon_scope;
mod rayon_spawn;
mod rayon_thread_pool;
mod scope_tree;
mod served_while_joining;
mod shutdown;
mod tokio_block_in_place;
mod waiting_half;
