//! The scatter-gather example's workload (`examples/scatter_gather/workload.rs`) on a tiny
//! configuration: under both wake policies, on 1 and 2 workers, every message reaches its
//! worker exactly once per round and every reply reaches the coordinator exactly once.
//!
//! Each run happens under a watchdog: a lost wake-up would hang the coordinator, and the
//! test fails with a message instead of hanging.

#[path = "../../examples/scatter_gather/workload.rs"]
mod workload;

use std::sync::Arc;
use std::time::Duration;

use crate::common::{executor_with, watchdog};
use filch::WakePolicy;
use workload::{Deliveries, Params};

/// How long one run may take, in seconds, before the watchdog declares it hung.
const WATCHDOG_SECS: u64 = 20;

/// Five tasks (not a multiple of the workers, so some must be stolen), 30 rounds, 20 µs.
fn tiny() -> Params {
    Params::new(5, 30, Duration::from_micros(20))
}

fn check_filch(policy: WakePolicy, workers: usize) {
    let what = format!("filch {policy:?} on {workers} worker(s)");
    let params = tiny();
    let record = Arc::new(Deliveries::new(params));
    let counts = Arc::clone(&record);
    let wall = watchdog(WATCHDOG_SECS, &what, move || {
        let ex = executor_with(workers, policy);
        // Twice on the same executor: the second run starts with warm workers.
        let first = workload::run_filch_recorded(&ex, params, Some(&counts));
        let second = workload::run_filch(&ex, params);
        first.and(second)
    });
    let wall = wall.unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Err(problems) = record.check_exactly_once() {
        panic!("{what}: {problems}");
    }
    assert!(
        wall >= params.ideal(workers),
        "{what}: finished in {wall:?}, faster than the work it had to do"
    );
}

#[test]
fn last_worker_one_worker() {
    check_filch(WakePolicy::LastWorker, 1);
}

#[test]
fn last_worker_two_workers() {
    check_filch(WakePolicy::LastWorker, 2);
}

#[test]
fn current_worker_one_worker() {
    check_filch(WakePolicy::CurrentWorker, 1);
}

#[test]
fn current_worker_two_workers() {
    check_filch(WakePolicy::CurrentWorker, 2);
}

/// The reference runtimes run the same futures: a check of the harness, and of the
/// functions the criterion bench uses.
#[test]
fn tokio_and_async_executor_run_the_same_workload() {
    let params = tiny();
    let record = Arc::new(Deliveries::new(params));
    let counts = Arc::clone(&record);
    watchdog(WATCHDOG_SECS, "tokio", move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("start tokio");
        workload::run_tokio_recorded(&rt, params, Some(&counts))
    })
    .unwrap_or_else(|e| panic!("tokio: {e}"));
    if let Err(problems) = record.check_exactly_once() {
        panic!("tokio: {problems}");
    }
    watchdog(WATCHDOG_SECS, "async-executor", move || {
        let ex = async_executor::Executor::new();
        workload::run_async_executor(&ex, 2, params)
    })
    .unwrap_or_else(|e| panic!("async-executor: {e}"));
}

/// The checker itself: a run that delivered nothing is reported, naming the first misses.
#[test]
fn deliveries_report_missing_messages() {
    let record = Deliveries::new(Params::new(2, 2, Duration::ZERO));
    let problems = record.check_exactly_once().unwrap_err();
    assert!(problems.contains("worker 0, round 0: received 0×, replied 0×"));
}
