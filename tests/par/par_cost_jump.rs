//! A loop's worker looks up within a few items even when the cost of an item jumps in the
//! middle of a loop: its tasks are served (its stand-in takes its place) after a few slow
//! items, and after a stop no new item starts (issue 9, defect 3: a probe interval grown to
//! thousands of indices on nanosecond items let thousands of 1 ms items run before the next
//! look; on the bridge, a chunk sized for nanosecond items would do the same without the
//! loops' watch, `par/loops/watched.rs`).
//!
//! No timing assertions: the tests count items. Items turn slow (a 1 ms spin) after a
//! million fast ones; once the event under test happened, or after [`SLOW_LIMIT`] slow items
//! in any case, they turn fast again, so a failing run ends quickly too.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::common::{executor, wait_until, watchdog};

/// Fast items before the cost jump: enough for any adaptive probe to grow large.
const FAST: usize = 1_000_000;
/// The most slow items a run makes; a worker that looks up every few items is relieved
/// after a few.
const SLOW_LIMIT: usize = 100;
/// At most this many slow items may run before a task spawned beside the loop runs: with a
/// 2 ms budget and 1 ms items that is about 3, and the margin absorbs a loaded machine.
const SLOW_BEFORE_YIELD: usize = 50;

fn spin(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

#[test]
fn a_task_beside_a_loop_runs_soon_after_items_turn_slow() {
    watchdog(
        120,
        "a_task_beside_a_loop_runs_soon_after_items_turn_slow",
        || {
            // One worker: the loop occupies it; the task spawned beside it (from a loop body:
            // into the injector) runs on the worker's stand-in once the worker looked up.
            let ex = executor(1);
            let handle = ex.handle();
            let slow_started = Arc::new(AtomicUsize::new(0));
            // The number of slow items started when the task beside ran (usize::MAX: not yet).
            let seen_by_task = Arc::new(AtomicUsize::new(usize::MAX));
            let (slow, seen) = (Arc::clone(&slow_started), Arc::clone(&seen_by_task));
            ex.block_on(ex.par_range(0..FAST + 10_000, move |i| {
                if i < FAST {
                    std::hint::black_box(i);
                    return;
                }
                if seen.load(Ordering::SeqCst) != usize::MAX {
                    return;
                }
                let k = slow.fetch_add(1, Ordering::SeqCst);
                if k == 0 {
                    let (slow, seen) = (Arc::clone(&slow), Arc::clone(&seen));
                    drop(handle.spawn(async move {
                        seen.store(slow.load(Ordering::SeqCst), Ordering::SeqCst);
                    }));
                }
                if k < SLOW_LIMIT {
                    spin(Duration::from_millis(1));
                }
            }));
            let seen = seen_by_task.load(Ordering::SeqCst);
            assert!(
                seen <= SLOW_BEFORE_YIELD,
                "the task beside the loop ran after {seen} slow items (1 ms each) had started"
            );
        },
    );
}

#[test]
fn no_item_starts_after_the_future_is_dropped() {
    watchdog(120, "no_item_starts_after_the_future_is_dropped", || {
        let ex = executor(1);
        let slow_started = Arc::new(AtomicUsize::new(0));
        let stopped = Arc::new(AtomicBool::new(false));
        let after_stop = Arc::new(AtomicUsize::new(0));
        let (slow, stop, after) = (
            Arc::clone(&slow_started),
            Arc::clone(&stopped),
            Arc::clone(&after_stop),
        );
        let fut = ex.par_range(0..FAST + 10_000, move |i| {
            if stop.load(Ordering::SeqCst) {
                after.fetch_add(1, Ordering::SeqCst);
            }
            if i < FAST {
                std::hint::black_box(i);
                return;
            }
            if slow.fetch_add(1, Ordering::SeqCst) < SLOW_LIMIT {
                spin(Duration::from_millis(1));
            }
        });
        let mut fut = Box::pin(fut);
        // The first poll starts the loop; the test thread is no worker, so it can wait.
        let mut cx = Context::from_waker(Waker::noop());
        assert!(fut.as_mut().poll(&mut cx) == Poll::Pending);
        wait_until(60, "slow items", || {
            slow_started.load(Ordering::SeqCst) >= 2
        });
        drop(fut);
        stopped.store(true, Ordering::SeqCst);
        // Let the loop see the stop (or run on, should it miss it).
        std::thread::sleep(Duration::from_millis(200));
        ex.block_on(async {});
        // The item running at the drop may read the flag, and so may the rest of its block
        // (a watched fold looks up between blocks of 4 items); no later item may start.
        let after = after_stop.load(Ordering::SeqCst);
        assert!(
            after <= 4,
            "{after} items started after the future was dropped"
        );
    });
}
