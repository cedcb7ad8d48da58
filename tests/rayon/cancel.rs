//! Dropping a `par::run` future stops its parallel iterators at their next piece boundary
//! (between two chunks, and every few hundred items of an unindexed fold): calls over more
//! items than could ever be processed end, and every value the call owned is dropped once.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use filch::par::prelude::*;

use crate::common::{executor, watchdog, Tally};

/// What the items and the test share.
#[derive(Default)]
struct Shared {
    /// Set by the first item.
    started: AtomicBool,
    /// Items processed.
    items: AtomicU64,
}

impl Shared {
    fn item(&self) {
        self.started.store(true, Ordering::SeqCst);
        self.items.fetch_add(1, Ordering::Relaxed);
    }
}

/// Starts `chain` in a `par::run` on `workers` workers, drops the future once an item ran,
/// and waits (under the watchdog) for the call to end.
fn drop_while_running(name: &'static str, workers: usize, chain: fn(&Shared)) {
    watchdog(
        60,
        &format!("cancel {name}, {workers} workers"),
        move || {
            let ex = executor(workers);
            let shared = Arc::new(Shared::default());
            let tally = Tally::new();
            let (probe, ended) = tally.counted_probe();
            let run = {
                let shared = Arc::clone(&shared);
                filch::par::run(move || {
                    // Dropped when the call ends, however it ends.
                    let _probe = probe;
                    chain(&shared);
                })
            };
            let mut run = Box::pin(run);
            let waker = futures::task::noop_waker();
            let _enter = ex.enter();
            assert!(run
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker))
                .is_pending());
            while !shared.started.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            drop(run);
            // The call unwinds at its next piece boundaries; its closure's values go once.
            while ended.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            tally.assert_all_dropped_once(name);
        },
    );
}

#[test]
fn an_indexed_chain_stops_at_its_next_chunk() {
    for workers in [1, 2] {
        drop_while_running("indexed", workers, |s| {
            (0..usize::MAX)
                .into_par_iter()
                .with_max_len(64)
                .for_each(|_| s.item())
        });
        drop_while_running("nested", workers, |s| {
            (0..usize::MAX)
                .into_par_iter()
                .flat_map(|_| (0..1000u32).into_par_iter())
                .for_each(|_| s.item())
        });
    }
}

#[test]
fn an_unindexed_chain_stops_inside_its_folds() {
    for workers in [1, 2] {
        drop_while_running("unindexed", workers, |s| {
            (0..u128::MAX)
                .into_par_iter()
                .filter(|x| x % 2 == 0)
                .for_each(|_| s.item())
        });
        drop_while_running("par_bridge", workers, |s| {
            (0..).par_bridge().for_each(|_: u64| s.item())
        });
    }
}
