//! rayon's iterator API on filch (`filch::par`): rayon's own iterator tests, ported, and
//! filch's checks of every adaptor, consumer, source and collect target, one module per
//! scenario. Every test holds whether the pieces run on one thread or several.

#[path = "../common/mod.rs"]
mod common;

mod cancel;
mod clones;
mod collect;
mod collect_targets;
mod debug;
mod drain_vec;
mod early_stop;
mod grid_source;
mod intersperse;
mod issue671;
mod issue671_unzip;
mod iter_panic;
mod iter_test;
mod memory;
mod octillion;
mod panics;
mod par_bridge_recursion;
mod producer_split_at;
mod semantics;
mod sources;

/// Runs `f` inside `block_on` of an executor with one worker, under the watchdog, so that
/// the pieces of the parallel calls in `f` run one after the other (for tests whose
/// expectations, such as how early a search stops, hold only then).
fn on_one_worker<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    common::watchdog(120, "a call on one worker", move || {
        let ex = common::executor(1);
        ex.block_on(async move { f() })
    })
}
