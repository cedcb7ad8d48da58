//! `filch::par`: rayon's fork-join and parallel iterators, on filch's workers.
//!
//! A rayon program compiles on filch by changing `rayon::` to `filch::par::` (so
//! `use filch::par::prelude::*;`), and its parallel work runs on the same workers as the
//! program's async tasks: no second pool.
//!
//! - Fork-join: [`join`], [`join_context`], [`scope`], [`in_place_scope`], [`spawn`], and
//!   the FIFO forms [`scope_fifo`], [`in_place_scope_fifo`], [`spawn_fifo`] (`join.rs`,
//!   `scope.rs`); the calls borrow from the caller's stack and return once every piece they
//!   started has finished.
//! - Broadcasts: [`broadcast`], [`spawn_broadcast`], [`BroadcastContext`] (`broadcast.rs`):
//!   a closure once on each worker.
//! - Pools: [`current_num_threads`], [`current_thread_index`], [`max_num_threads`],
//!   [`current_thread_has_pending_tasks`], [`yield_now`], [`yield_local`] (`pool.rs`).
//! - Parallel iterators ([`iter`], [`slice`](mod@slice), [`str`](mod@str), [`prelude`]),
//!   and the iterator types of the sources ([`range`], [`range_inclusive`],
//!   [`vec`](mod@vec), [`array`](mod@array), [`option`], [`result`], [`string`],
//!   [`collections`]), named as rayon names them.
//! - The awaited loops ([`par_range`], [`par_map`], [`par_reduce`], [`par_map_vec`],
//!   [`par_for_each_mut`], `loops/`): [`run`]s of parallel-iterator chains, which never block
//!   the awaiting task's worker.

mod loops;

mod broadcast;
mod join;
mod math;
mod pool;
mod run;
mod scope;

pub mod array;
pub mod collections;
pub mod iter;
pub mod option;
pub mod prelude;
pub mod range;
pub mod range_inclusive;
pub mod result;
pub mod slice;
pub mod str;
pub mod string;
pub mod vec;

pub use broadcast::{broadcast, spawn_broadcast, BroadcastContext};
pub use join::{join, join_context, FnContext};
pub use loops::{par_for_each_mut, par_map, par_map_vec, par_range, par_reduce};
pub use loops::{ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
pub use pool::{
    current_num_threads, current_thread_has_pending_tasks, current_thread_index, max_num_threads,
    yield_local, yield_now, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
pub use run::{run, Run};
pub use scope::{
    in_place_scope, in_place_scope_fifo, scope, scope_fifo, spawn, spawn_fifo, Scope, ScopeFifo,
};

pub(crate) use crate::runtime::scheduler::forkjoin::{
    at_piece_boundary, offer_half_at_once, offer_to_sleepers, wants_split,
};
