//! A skewed loop, all of whose heavy items lie in one worker's first piece, is shared: the
//! piece splits for the other workers (on demand, and at heartbeats while they sleep), and
//! they take heavy items. On a loaded two-core machine a worker may be descheduled for a
//! while, so the check is "at least two distinct workers ran heavy items", with a few attempts.

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{named_executor, watchdog};
use crate::par_common::{spin, Counters, Threads};

const N: usize = 4000;
const HEAVY: Duration = Duration::from_micros(100);

/// Spins (no sleep: the worker stays busy) for `d`.
fn busy(d: Duration) {
    let t = Instant::now();
    let mut x = 1;
    while t.elapsed() < d {
        x = spin(x, 16);
    }
    std::hint::black_box(x);
}

/// Runs `0..N` with the items of `heavy` costing [`HEAVY`] and the rest a few hashes, and
/// returns the worker names that ran heavy items (checking every index ran once).
fn run(workers: usize, heavy: Range<usize>) -> Vec<String> {
    let ex = named_executor(workers, "skew");
    let counters = Counters::new(0..N);
    let threads = Threads::new();
    let (c, t, h) = (Arc::clone(&counters), Arc::clone(&threads), heavy.clone());
    ex.block_on(filch::par_range(0..N, move |i| {
        if h.contains(&i) {
            busy(HEAVY);
        } else {
            std::hint::black_box(spin(i as u64, 8));
        }
        c.hit(i);
        t.record(i);
    }));
    counters.assert_each_once(&format!("skewed 0..{N}, heavy {heavy:?}"));
    threads.assert_all_workers_of("skew", "skewed loop");
    threads
        .names_where(|i| heavy.contains(&i))
        .into_iter()
        .collect()
}

fn check_shared(workers: usize, heavy: Range<usize>) {
    let mut seen = Vec::new();
    for _attempt in 0..3 {
        let names = run(workers, heavy.clone());
        if names.len() >= 2 {
            return;
        }
        seen.push(names);
    }
    panic!(
        "heavy items {heavy:?} of 0..{N} on {workers} workers ran on a single worker in 3 \
         attempts: {seen:?}"
    );
}

#[test]
fn heavy_head_is_shared_by_two_workers() {
    watchdog(60, "heavy_head_is_shared_by_two_workers", || {
        check_shared(2, 0..N / 8);
    });
}

#[test]
fn heavy_head_is_shared_by_three_workers() {
    watchdog(60, "heavy_head_is_shared_by_three_workers", || {
        check_shared(3, 0..N / 8);
    });
}

#[test]
fn heavy_tail_is_shared_by_two_workers() {
    watchdog(60, "heavy_tail_is_shared_by_two_workers", || {
        check_shared(2, N - N / 8..N);
    });
}
