//! `par_map` returns its results in index order, for `Copy`, owned (`String`), zero-sized and
//! over-aligned values, and drops every produced value exactly once: with the Vec, after a
//! panic in `f`, and when the loop's future is dropped half-way.

use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{named_executor, wait_until, watchdog, Tally};

#[test]
fn results_are_in_index_order() {
    watchdog(60, "results_are_in_index_order", || {
        for workers in [1, 2, 3] {
            let ex = named_executor(workers, "map-order");
            for n in [0, 1, 2, 3, 7, 64, 1000, 4099, 100_003] {
                let what = format!("0..{n} on {workers} workers");
                let v = ex.block_on(filch::par_map(0..n, |i| format!("item {i}")));
                assert_eq!(v.len(), n, "{what}");
                for (i, s) in v.iter().enumerate() {
                    assert_eq!(*s, format!("item {i}"), "{what}: slot {i}");
                }

                let start = 1_000_000;
                let v = ex.block_on(ex.par_map(start..start + n, |i| (i as u128) << 64));
                assert!(
                    v.iter()
                        .enumerate()
                        .all(|(k, &x)| x == ((start + k) as u128) << 64),
                    "u128, {what}"
                );

                let v = ex.block_on(ex.par_map(0..n, |_| ()));
                assert_eq!(v.len(), n, "zero-sized values, {what}");
            }
        }
    });
}

#[test]
fn every_value_is_dropped_once_with_the_vec() {
    watchdog(60, "every_value_is_dropped_once_with_the_vec", || {
        let ex = named_executor(2, "map-drop");
        let n = 10_007;
        let tally = Tally::new();
        let t = Arc::clone(&tally);
        let v = ex.block_on(ex.par_map(0..n, move |i| (i, t.probe())));
        assert_eq!(tally.made(), n, "f ran once per index");
        assert_eq!(tally.dropped(), 0, "a value was dropped before the Vec");
        assert!(v.iter().enumerate().all(|(k, (i, _))| k == *i), "order");
        drop(v);
        tally.assert_all_dropped_once("par_map values after the Vec is dropped");
    });
}

#[test]
fn values_already_made_are_dropped_once_after_a_panic() {
    watchdog(
        60,
        "values_already_made_are_dropped_once_after_a_panic",
        || {
            for workers in [1, 2, 3] {
                let ex = named_executor(workers, "map-panic");
                let n = 20_000;
                let tally = Tally::new();
                let t = Arc::clone(&tally);
                let payload = catch_unwind(AssertUnwindSafe(|| {
                    ex.block_on(ex.par_map(0..n, move |i| {
                        if i == n / 3 {
                            panic_any(format!("map failed at {i}"));
                        }
                        (i, t.probe())
                    }))
                }))
                .expect_err("f panicked, so must the awaiting task");
                assert_eq!(
                    *payload.downcast::<String>().expect("a String payload"),
                    format!("map failed at {}", n / 3)
                );
                // The values made so far may be dropped by the last worker to leave the loop.
                wait_until(10, "the values made before the panic to be dropped", || {
                    tally.dropped() >= tally.made()
                });
                tally.assert_all_dropped_once(&format!("par_map panic on {workers} workers"));
            }
        },
    );
}

#[test]
fn values_already_made_are_dropped_once_when_the_future_is_dropped() {
    watchdog(
        60,
        "values_already_made_are_dropped_once_when_the_future_is_dropped",
        || {
            let ex = named_executor(2, "map-cancel");
            let tally = Tally::new();
            let t = Arc::clone(&tally);
            let started = Arc::new(AtomicUsize::new(0));
            let s = Arc::clone(&started);
            let mut fut = Box::pin(ex.par_map(0..100_000, move |i| {
                s.fetch_add(1, Ordering::SeqCst);
                thread::sleep(Duration::from_micros(100));
                (i, t.probe())
            }));
            ex.block_on(async {
                assert!(futures::poll!(&mut fut).is_pending());
                wait_until(10, "some values to be made", || {
                    started.load(Ordering::SeqCst) > 20
                });
            });
            drop(fut);
            wait_until(10, "the values made to be dropped", || {
                tally.dropped() >= tally.made()
            });
            thread::sleep(Duration::from_millis(50));
            assert!(tally.made() < 100_000, "the loop ran to the end");
            tally.assert_all_dropped_once("par_map values after the future was dropped");
        },
    );
}
