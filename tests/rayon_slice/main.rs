//! `filch::par::slice` and `filch::par::str` against rayon's own tests, one module per
//! scenario: the sorts (correctness on every length and pattern, stability, panic safety
//! with drop counters), and the slices' and strings' parallel iterators. `slice_common` holds
//! the helpers these modules share beside `common`.

#[path = "../common/mod.rs"]
mod common;
mod slice_common;

mod chunk_by;
mod chunks;
mod clones;
mod debug;
mod producer_split_at;
mod send_sync;
mod sort;
mod sort_on_workers;
mod sort_panic_safe;
mod sort_stability;
mod split;
mod str;
mod windows;
