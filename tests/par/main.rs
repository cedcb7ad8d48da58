//! The async data-parallel loops (`par_range`, `par_map`, `par_reduce`, `par_map_vec`,
//! `par_for_each_mut`), one module per property: every index exactly once, order, panics,
//! drops, laziness, progress of other tasks, sharing skewed work, the ends of `usize`, and a
//! proptest.
//! `par_common` holds the helpers these modules share beside `common`.

#[path = "../common/mod.rs"]
mod common;
mod par_common;

mod par_cost_jump;
mod par_drop_stops;
mod par_empty_and_reversed;
mod par_exactly_once;
mod par_first_free_worker;
mod par_for_each_mut;
mod par_lazy;
mod par_many_loops;
mod par_map_order;
mod par_map_vec;
mod par_one_worker;
mod par_other_tasks_progress;
mod par_panics;
mod par_poll_after_panic;
mod par_proptest;
mod par_reduce;
mod par_reduce_order;
mod par_skewed;
mod par_usize_ends;
