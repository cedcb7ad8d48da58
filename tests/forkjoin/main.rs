//! Fork-join on the workers (`filch::par::{join, join_context, scope, in_place_scope, spawn}`,
//! pools, `par::run`, `task::block_in_place`): one module per property, and rayon-core's and
//! tokio's own tests of the same calls, ported.

#[path = "../common/mod.rs"]
mod common;

mod cancel;
mod idle;
mod join_basics;
mod lock_across_join;
mod nesting;
mod panics;
mod served_while_joining;
