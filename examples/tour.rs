//! A short tour of filch: an executor, spawned tasks, a join handle, and the counters.
//!
//! `cargo run --release --example tour`

use filch::{Executor, WakePolicy};

fn main() {
    let ex = Executor::builder()
        .worker_threads(2)
        .wake_policy(WakePolicy::LastWorker)
        .build()
        .expect("start the executor");

    let total = ex.block_on(async {
        let tasks: Vec<_> = (1..=100u64)
            .map(|i| filch::spawn(async move { i * i }))
            .collect();
        let mut total = 0;
        for task in tasks {
            total += task.await.expect("task failed");
        }
        total
    });
    println!("sum of squares 1..=100 = {total}");

    let err = ex
        .block_on(ex.spawn(async { panic!("a task may panic") }))
        .unwrap_err();
    println!("a panicking task gives: {err}");

    let stats = ex.stats().total();
    println!(
        "polls {}, steal attempts {}, steals {}, parks {}",
        stats.polls, stats.steal_attempts, stats.steals, stats.parks
    );
}
