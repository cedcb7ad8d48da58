//! Dropping a `par::run` future stops its parallel work at the next piece: nothing new
//! starts, the pieces already running finish, and every value the call owned is dropped once.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{executor, watchdog, Tally};

const DEPTH: u32 = 14;

/// What the leaves and the test share.
#[derive(Default)]
struct Leaves {
    /// Set by the first leaf to start.
    started: AtomicBool,
    /// Set by the test once it dropped the future: no leaf finishes before.
    dropped: AtomicBool,
    /// Leaves that ran.
    ran: AtomicUsize,
}

/// A recursion of `2^depth` leaves; each leaf waits for the drop, then counts itself.
fn leaves(depth: u32, shared: &Leaves) {
    if depth == 0 {
        shared.started.store(true, Ordering::SeqCst);
        while !shared.dropped.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        shared.ran.fetch_add(1, Ordering::SeqCst);
        return;
    }
    filch::par::join(|| leaves(depth - 1, shared), || leaves(depth - 1, shared));
}

#[test]
fn dropping_a_run_future_stops_its_recursion_early() {
    for workers in [1, 2] {
        watchdog(60, &format!("cancel, {workers} workers"), move || {
            let ex = executor(workers);
            let shared = Arc::new(Leaves::default());
            let tally = Tally::new();
            let (probe, ended) = tally.counted_probe();
            let run = {
                let shared = Arc::clone(&shared);
                filch::par::run(move || {
                    // Dropped when the call ends, however it ends.
                    let _probe = probe;
                    leaves(DEPTH, &shared);
                })
            };
            let mut run = Box::pin(run);
            let waker = futures::task::noop_waker();
            let _enter = ex.enter();
            // Starts the call.
            assert!(run
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker))
                .is_pending());
            while !shared.started.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            drop(run);
            shared.dropped.store(true, Ordering::SeqCst);
            // The call unwinds at its next pieces; its closure's values are dropped once.
            while ended.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            tally.assert_all_dropped_once("the call's closure");
            // Each thread finishes at most the two leaves of the join it was inside.
            let ran = shared.ran.load(Ordering::SeqCst);
            assert!(
                ran <= 2 * workers,
                "{ran} of {} leaves ran after the drop",
                1 << DEPTH
            );
        });
    }
}
