//! Parallel iterators: filch's `filch::par` chains against the same rayon chains on a pool
//! of the same size, and the sequential iterator, in the same run, interleaved (each round
//! runs every contender once, in a rotating order, so that load on the machine hits all
//! alike), with `FILCH_BENCH_WORKERS` workers (default 2).
//!
//! `cargo bench -p filch-benches --bench par_iter` prints, per workload, the median time of
//! one run for each contender and filch's ratio to rayon and to the ideal (sequential time /
//! workers). `FILCH_BENCH_ROUNDS` sets the rounds (default 11); `FILCH_BENCH_ONLY=name` runs
//! the workloads whose name contains `name`.
//!
//! Workloads (issue 35's goals, on 2 workers: filch ≤ 1.0x rayon on every row, ≤ 0.5x at
//! 10³ items):
//! - `map_sum_1e3`, `map_sum_1e5`, `map_sum_1e7`: `v.par_iter().map(..).sum()` over a
//!   `Vec<u64>` of 10³, 10⁵ and 10⁷ items;
//! - `map_filter_collect_1e7`: `(0..10⁷).into_par_iter().map(..).filter(..).collect()`
//!   into a `Vec<u64>` (unindexed: the pieces' vectors spliced once);
//! - `find_first_1e8`: `(0..10⁸).into_par_iter().find_first(..)` with a hashing predicate,
//!   the only match 1,000 items from the end.
//! - nbody, life (200 generations of 256×256), `par_sort_unstable` of 10⁷ u64 and `par_sort`
//!   of 10⁶ `String`s: rows to come (see `TODO(others)` in `main`).
//!
//! Each contender runs its timing loop inside its pool (filch's and rayon's `install`), as a
//! program that is already parallel would run its chains.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::runtimes::bench_workers;

/// The contenders, in the order of the table's columns.
const CONTENDERS: [&str; 3] = ["sequential", "filch", "rayon"];

struct Pools {
    filch: filch::Executor,
    rayon: rayon::ThreadPool,
}

/// Times `iters` runs of a workload on contender `who` and returns the time of one run.
type Workload = Box<dyn Fn(&Pools, usize, u32) -> Duration>;

fn time_iters(iters: u32, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

/// A ~1 ns per-item step: multiply and xorshift.
#[inline]
fn step(x: u64) -> u64 {
    let x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 29)
}

fn map_sum(n: usize) -> Workload {
    let v: Vec<u64> = (0..n as u64).collect();
    let expect = v.iter().map(|&x| step(x)).fold(0u64, u64::wrapping_add);
    Box::new(move |pools, who, iters| {
        let v = black_box(&v);
        let check = |s: u64| assert_eq!(black_box(s), expect);
        match who {
            0 => time_iters(iters, || {
                check(v.iter().map(|&x| step(x)).fold(0, u64::wrapping_add))
            }),
            1 => pools.filch.install(|| {
                use filch::par::prelude::*;
                time_iters(iters, || {
                    check(
                        v.par_iter()
                            .map(|&x| step(x))
                            .reduce(|| 0, u64::wrapping_add),
                    )
                })
            }),
            _ => pools.rayon.install(|| {
                use rayon::prelude::*;
                time_iters(iters, || {
                    check(
                        v.par_iter()
                            .map(|&x| step(x))
                            .reduce(|| 0, u64::wrapping_add),
                    )
                })
            }),
        }
    })
}

fn map_filter_collect(n: usize) -> Workload {
    let keep = |x: &u64| x % 3 != 0;
    let expect = (0..n as u64).map(step).filter(keep).count();
    Box::new(move |pools, who, iters| {
        let n = black_box(n);
        let check = |v: Vec<u64>| assert_eq!(black_box(v).len(), expect);
        match who {
            0 => time_iters(iters, || {
                check((0..n as u64).map(step).filter(keep).collect())
            }),
            1 => pools.filch.install(|| {
                use filch::par::prelude::*;
                time_iters(iters, || {
                    check(
                        (0..n)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .filter(keep)
                            .collect(),
                    )
                })
            }),
            _ => pools.rayon.install(|| {
                use rayon::prelude::*;
                time_iters(iters, || {
                    check(
                        (0..n)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .filter(keep)
                            .collect(),
                    )
                })
            }),
        }
    })
}

fn find_first(n: usize) -> Workload {
    let target = n - 1000;
    // The predicate hashes each index (behind `black_box`), so that no contender's search
    // folds into a formula.
    let wanted = step(target as u64);
    let hit = move |i: &usize| step(black_box(*i) as u64) == wanted;
    Box::new(move |pools, who, iters| {
        let n = black_box(n);
        let check = |found: Option<usize>| assert_eq!(black_box(found), Some(target));
        match who {
            0 => time_iters(iters, || check((0..n).find(hit))),
            1 => pools.filch.install(|| {
                use filch::par::prelude::*;
                time_iters(iters, || check((0..n).into_par_iter().find_first(hit)))
            }),
            _ => pools.rayon.install(|| {
                use rayon::prelude::*;
                time_iters(iters, || check((0..n).into_par_iter().find_first(hit)))
            }),
        }
    })
}

fn median(mut v: Vec<Duration>) -> Option<Duration> {
    if v.is_empty() {
        return None;
    }
    v.sort();
    Some(v[v.len() / 2])
}

fn fmt(d: Option<Duration>) -> String {
    match d {
        None => "-".to_string(),
        Some(d) => {
            let ns = d.as_nanos() as f64;
            if ns >= 1e6 {
                format!("{:.2} ms", ns / 1e6)
            } else if ns >= 1e3 {
                format!("{:.1} µs", ns / 1e3)
            } else {
                format!("{ns:.0} ns")
            }
        }
    }
}

fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if !b.is_zero() => format!("{:.2}", a.as_secs_f64() / b.as_secs_f64()),
        _ => "-".to_string(),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let workers = bench_workers();
    let rounds: usize = std::env::var("FILCH_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    let only = std::env::var("FILCH_BENCH_ONLY").ok();
    let pools = Pools {
        filch: filch::Executor::builder()
            .worker_threads(workers)
            .build()
            .expect("start filch"),
        rayon: rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("start rayon"),
    };
    // (name, workload, runs per timing)
    let workloads: Vec<(&str, Workload, u32)> = vec![
        ("map_sum_1e3", map_sum(1_000), 20_000),
        ("map_sum_1e5", map_sum(100_000), 500),
        ("map_sum_1e7", map_sum(10_000_000), 5),
        ("map_filter_collect_1e7", map_filter_collect(10_000_000), 2),
        ("find_first_1e8", find_first(100_000_000), 1),
        // TODO(others): the rows of issue 35 that come with their code — nbody and life
        // (200 generations of 256×256; the ported rayon-demo programs), `par_sort_unstable`
        // of 10⁷ u64 and `par_sort` of 10⁶ `String`s (branch `slice`) — go here, as
        // `Workload`s with the same three contenders.
    ];
    println!("parallel iterators, {workers} workers, {rounds} rounds (median of one run each)\n");
    println!(
        "| {:<24} | {:>11} | {:>11} | {:>11} | {:>11} | {:>13} | {:>13} |",
        "workload",
        CONTENDERS[0],
        CONTENDERS[1],
        CONTENDERS[2],
        "ideal",
        "filch / rayon",
        "filch / ideal"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, workload, iters) in &workloads {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); CONTENDERS.len()];
        // Warm-up: each contender once.
        for who in 0..CONTENDERS.len() {
            workload(&pools, who, 1);
        }
        for round in 0..rounds {
            for k in 0..CONTENDERS.len() {
                let who = (round + k) % CONTENDERS.len();
                samples[who].push(workload(&pools, who, *iters));
            }
        }
        let [seq, filch, rayon] = [0, 1, 2].map(|who| median(std::mem::take(&mut samples[who])));
        let ideal = seq.map(|s| s / workers as u32);
        println!(
            "| {:<24} | {:>11} | {:>11} | {:>11} | {:>11} | {:>13} | {:>13} |",
            name,
            fmt(seq),
            fmt(filch),
            fmt(rayon),
            fmt(ideal),
            ratio(filch, rayon),
            ratio(filch, ideal),
        );
    }
}
