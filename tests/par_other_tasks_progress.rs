//! While a loop of slow items occupies every worker, the executor's other tasks still run
//! promptly: a loop's helpers take turns with the other tasks of their worker (awaiting a
//! loop never blocks a worker, and neither may running one for seconds).

mod common;
mod par_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::{named_executor, wait_until, watchdog};

/// The worst latency allowed for a task spawned during the loop (generous for a debug build
/// on a loaded machine; the loop itself lasts about 1.5 s).
const LATENCY: Duration = Duration::from_millis(250);

fn check(workers: usize, item: Duration, n: usize) {
    let ex = named_executor(workers, "progress");
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let lp = ex.spawn(filch::par_range(0..n, move |_| {
        c.fetch_add(1, Ordering::Relaxed);
        thread::sleep(item);
    }));
    wait_until(10, "the loop to start", || {
        calls.load(Ordering::Relaxed) > 0
    });
    thread::sleep(Duration::from_millis(50));
    let mut worst = Duration::ZERO;
    for _ in 0..3 {
        let t = Instant::now();
        ex.block_on(ex.spawn(async {}))
            .expect("the probe task failed");
        worst = worst.max(t.elapsed());
    }
    let ran = calls.load(Ordering::Relaxed);
    assert!(
        worst < LATENCY,
        "{workers} workers, {item:?} items: a task spawned during the loop waited {worst:?} \
         (loop at {ran} of {n} items)"
    );
    ex.block_on(lp).expect("the loop's task failed");
}

#[test]
fn a_task_runs_during_a_loop_of_millisecond_items() {
    watchdog(60, "a_task_runs_during_a_loop_of_millisecond_items", || {
        check(2, Duration::from_millis(1), 3000);
    });
}

#[test]
fn a_task_runs_during_a_loop_on_one_worker() {
    watchdog(60, "a_task_runs_during_a_loop_on_one_worker", || {
        check(1, Duration::from_millis(1), 1500);
    });
}
