//! rayon's iterator API on filch (`filch::par`): rayon's own iterator tests, ported, and
//! filch's checks of every adaptor, consumer, source and collect target, one module per
//! scenario. Every test holds whether the pieces run on one thread or several.

#[path = "../common/mod.rs"]
mod common;

mod clones;
mod collect;
mod debug;
mod drain_vec;
mod intersperse;
mod issue671;
mod issue671_unzip;
mod iter_panic;
mod iter_test;
mod octillion;
mod par_bridge_recursion;
mod producer_split_at;

/// Runs `f` inside `block_on` of an executor with one worker, so that the pieces of the
/// parallel calls in `f` run one after the other (for tests whose expectations, such as
/// how early a search stops, hold only then).
fn on_one_worker<R>(f: impl FnOnce() -> R) -> R {
    let ex = common::executor(1);
    ex.block_on(async move { f() })
}
