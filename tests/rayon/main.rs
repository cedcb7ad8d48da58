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
/// expectations, such as how early a search stops, hold only then). Its polls are never
/// handed over to a stand-in: a call's task that the stand-in polled while the worker was
/// in a long poll (a debug build's, on a busy machine) would go on the board as a whole
/// call, and the worker would take pieces of it beside the thread running it.
fn on_one_worker<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    common::watchdog(120, "a call on one worker", move || {
        let ex = common::own_loop_executor(1, filch::WakePolicy::default());
        ex.block_on(async move { f() })
    })
}
