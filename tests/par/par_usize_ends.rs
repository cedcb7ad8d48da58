//! Loops over ranges at both ends of `usize`: no overflow or underflow anywhere in
//! `0..=usize::MAX`, every index exactly once, sums computed exactly in `u128`; a range too
//! long to run (`0..usize::MAX`) still stops at a panic or when its future is dropped.

use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{named_executor, wait_until, watchdog};
use crate::par_common::Counters;

const M: usize = usize::MAX;

#[test]
fn every_index_once_at_both_ends() {
    watchdog(60, "every_index_once_at_both_ends", || {
        let ranges = [
            0..1000,
            0..1,
            M - 1000..M,
            M - 5..M,
            M - 1..M,
            M - 4099..M - 3,
        ];
        for workers in [1, 2, 3] {
            let ex = named_executor(workers, "ends");
            for range in ranges.clone() {
                let what = format!("par_range({range:?}) on {workers} workers");
                let counters = Counters::new(range.clone());
                let c = Arc::clone(&counters);
                ex.block_on(ex.par_range(range.clone(), move |i| c.hit(i)));
                counters.assert_each_once(&what);

                let v = ex.block_on(ex.par_map(range.clone(), |i| i));
                assert_eq!(v, range.clone().collect::<Vec<_>>(), "par_map, {what}");

                let sum = ex.block_on(ex.par_reduce(
                    range.clone(),
                    || 0u128,
                    |acc, i| acc + i as u128,
                    |a, b| a + b,
                ));
                let expected: u128 = range.clone().map(|i| i as u128).sum();
                assert_eq!(sum, expected, "par_reduce, {what}");
            }
        }
    });
}

#[test]
fn u128_sum_of_the_top_hundred_thousand() {
    watchdog(60, "u128_sum_of_the_top_hundred_thousand", || {
        let range = M - 100_000..M;
        // Sum of (M - k) for k in 1..=100_000.
        let n = 100_000u128;
        let expected = n * M as u128 - n * (n + 1) / 2;
        assert_eq!(expected, range.clone().map(|i| i as u128).sum::<u128>());
        for workers in [1, 2, 3] {
            let ex = named_executor(workers, "ends-sum");
            let sum = ex.block_on(filch::par_reduce(
                range.clone(),
                || 0u128,
                |acc, i| acc + i as u128,
                |a, b| a + b,
            ));
            assert_eq!(sum, expected, "{workers} workers");
            let count = ex.block_on(filch::par_reduce(
                range.clone(),
                || 0usize,
                |acc, _| acc + 1,
                |a, b| a + b,
            ));
            assert_eq!(count, 100_000, "{workers} workers: items folded");
        }
    });
}

/// `0..usize::MAX` cannot run to the end; a panic at its first item must stop it.
#[test]
fn a_huge_range_stops_at_a_panic() {
    watchdog(30, "a_huge_range_stops_at_a_panic", || {
        for workers in [1, 2] {
            let ex = named_executor(workers, "ends-huge");
            let calls = Arc::new(AtomicUsize::new(0));
            let c = Arc::clone(&calls);
            let payload = catch_unwind(AssertUnwindSafe(|| {
                ex.block_on(ex.par_range(0..M, move |i| {
                    c.fetch_add(1, Ordering::Relaxed);
                    panic_any(i);
                }))
            }))
            .expect_err("a panicking body must panic the awaiting task");
            let index = *payload
                .downcast::<usize>()
                .expect("the payload is the index that panicked");
            assert!(index < M, "{workers} workers: panicked at {index}");
            let calls = calls.load(Ordering::Relaxed);
            assert!(
                (1..=64).contains(&calls),
                "{workers} workers: {calls} bodies ran after the first panicked"
            );
            // The executor still works.
            assert_eq!(ex.block_on(ex.par_map(M - 3..M, |i| M - i)), vec![3, 2, 1]);
        }
    });
}

/// `0..usize::MAX` of slow items (a grain of the range is then over 2^32 indices): dropping
/// its future after the first poll stops it.
#[test]
fn a_huge_range_stops_when_dropped() {
    watchdog(30, "a_huge_range_stops_when_dropped", || {
        let ex = named_executor(2, "ends-drop");
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        ex.block_on(async {
            let mut fut = Box::pin(ex.par_range(0..M, move |_| {
                c.fetch_add(1, Ordering::Relaxed);
                thread::sleep(Duration::from_micros(200));
            }));
            assert!(futures::poll!(&mut fut).is_pending());
            wait_until(10, "the huge loop to start", || {
                calls.load(Ordering::Relaxed) > 0
            });
            thread::sleep(Duration::from_millis(20));
        });
        assert_stopped(&calls, "0..usize::MAX dropped after one poll");
    });
}

/// The same loop awaited by a task that is aborted: the executor must get to the aborted
/// task (to drop its future) while the loop occupies its workers.
#[test]
fn a_huge_range_stops_when_its_task_is_aborted() {
    watchdog(30, "a_huge_range_stops_when_its_task_is_aborted", || {
        // Leaked: if the abort is not honoured, dropping the executor would wait for the loop.
        let ex: &'static filch::Executor = Box::leak(Box::new(named_executor(2, "ends-abort")));
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let task = ex.spawn(ex.par_range(0..M, move |_| {
            c.fetch_add(1, Ordering::Relaxed);
            thread::sleep(Duration::from_micros(200));
        }));
        wait_until(10, "the huge loop to start", || {
            calls.load(Ordering::Relaxed) > 0
        });
        thread::sleep(Duration::from_millis(20));
        task.abort();
        wait_until(2, "the aborted task's future to be dropped", || {
            task.is_finished()
        });
        let err = ex.block_on(task).expect_err("an aborted task");
        assert!(err.is_cancelled());
        assert_stopped(&calls, "0..usize::MAX, awaiting task aborted");
    });
}

/// Bodies already running may finish; then nothing new starts.
fn assert_stopped(calls: &AtomicUsize, what: &str) {
    thread::sleep(Duration::from_millis(50));
    let a = calls.load(Ordering::Relaxed);
    thread::sleep(Duration::from_millis(200));
    let b = calls.load(Ordering::Relaxed);
    assert_eq!(
        a, b,
        "{what}: bodies kept starting after the loop's future was dropped"
    );
}
