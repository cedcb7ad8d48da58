//! Tiny parallel calls: the per-call cost of filch's `filch::par` against rayon's, for calls
//! whose work is a few nanoseconds (rayon-demo's `str_split`, `find` at position 0, small
//! tree walks), each row interleaved (each round times filch and rayon once, in a rotating
//! order, so that load on the machine hits both alike).
//!
//! `cargo bench -p filch-benches --bench tiny_calls` prints, per workload and place of the
//! call, the median time of one call for each and filch's ratio to rayon. The places:
//! - `main`: from the main thread, a thread outside the pools, on the global pools of
//!   `FILCH_BENCH_WORKERS` threads (default 2);
//! - `install(N)`: inside `install` of a pool of N threads (N = the workers, and 1).
//!
//! `FILCH_BENCH_ROUNDS` sets the rounds (default 7); `FILCH_BENCH_ONLY=name` runs the
//! workloads whose name contains `name`; `FILCH_BENCH_PLACE=place` (`main`, `install(2)`...)
//! runs only that place.
//!
//! Workloads:
//! - `split_4`, `split_64`: `iter::split(0..n, halve)` halving ranges down to one number,
//!   each piece summed (rayon-demo's `split` style);
//! - `find_any_0`, `find_first_0`, `position_first_0`: `(0..1000).into_par_iter()` searched
//!   for 0, the first item;
//! - `find_any_0_1e7`, `find_first_0_1e7`: a `Vec<u32>` of 10⁷ pseudo-random numbers searched
//!   for its first (rayon-demo's `find` at position 0);
//! - `sum_16`: `v.par_iter().sum()` over 16 `u64`;
//! - `join_15`: a recursive `join` tree of 15 nodes (depth 4), each leaf returning 1.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::rounds::{fmt, median, ratio, time_iters};
use common::runtimes::bench_workers;

/// The body of one tiny call, for filch's API (`filch::par`) or rayon's, written once: the
/// macro is expanded with each crate's paths (the bench code is the same, as rayon-demo's
/// with only the import changed).
macro_rules! workloads {
    ($modname:ident, $krate:ident) => {
        mod $modname {
            use super::black_box;
            use crate::$krate::iter::split;
            use crate::$krate::prelude::*;

            fn halve(
                r: std::ops::Range<u64>,
            ) -> (std::ops::Range<u64>, Option<std::ops::Range<u64>>) {
                if r.end - r.start <= 1 {
                    (r, None)
                } else {
                    let mid = r.start + (r.end - r.start) / 2;
                    (r.start..mid, Some(mid..r.end))
                }
            }

            pub fn split_64() -> u64 {
                split(black_box(0..64u64), halve)
                    .map(|r| r.sum::<u64>())
                    .sum()
            }

            pub fn find_any_0() -> Option<u32> {
                (0..black_box(1000u32))
                    .into_par_iter()
                    .find_any(|&x| x == 0)
            }

            pub fn find_first_0() -> Option<u32> {
                (0..black_box(1000u32))
                    .into_par_iter()
                    .find_first(|&x| x == 0)
            }

            pub fn position_first_0() -> Option<usize> {
                (0..black_box(1000u32))
                    .into_par_iter()
                    .position_first(|x| x == 0)
            }

            pub fn find_any_0_1e7(h: &[u32]) -> Option<&u32> {
                let needle = h[0];
                h.par_iter().find_any(|&&x| x == needle)
            }

            pub fn find_first_0_1e7(h: &[u32]) -> Option<&u32> {
                let needle = h[0];
                h.par_iter().find_first(|&&x| x == needle)
            }

            pub fn split_4() -> u64 {
                split(black_box(0..4u64), halve)
                    .map(|r| r.sum::<u64>())
                    .sum()
            }

            pub fn sum_16(v: &[u64]) -> u64 {
                v.par_iter().sum()
            }

            fn tree(depth: u32) -> u64 {
                if depth == 0 {
                    return 1;
                }
                let (a, b) = crate::$krate::join(|| tree(depth - 1), || tree(depth - 1));
                a + b + 1
            }

            pub fn join_15() -> u64 {
                tree(black_box(3))
            }
        }
    };
}

workloads!(on_filch, filch_par);
workloads!(on_rayon, rayon_par);

use filch::par as filch_par;
use rayon as rayon_par;

const WORKLOADS: [&str; 9] = [
    "split_4",
    "split_64",
    "find_any_0",
    "find_first_0",
    "position_first_0",
    "find_any_0_1e7",
    "find_first_0_1e7",
    "sum_16",
    "join_15",
];

/// Runs workload `name` once on filch (`rayon == false`) or rayon.
fn run_once(name: &str, rayon: bool, v: &[u64], h: &[u32]) {
    macro_rules! on {
        ($m:ident) => {
            match name {
                "split_4" => {
                    black_box($m::split_4());
                }
                "find_any_0_1e7" => {
                    black_box($m::find_any_0_1e7(h));
                }
                "find_first_0_1e7" => {
                    black_box($m::find_first_0_1e7(h));
                }
                "split_64" => {
                    black_box($m::split_64());
                }
                "find_any_0" => {
                    black_box($m::find_any_0());
                }
                "find_first_0" => {
                    black_box($m::find_first_0());
                }
                "position_first_0" => {
                    black_box($m::position_first_0());
                }
                "sum_16" => {
                    black_box($m::sum_16(v));
                }
                "join_15" => {
                    black_box($m::join_15());
                }
                _ => unreachable!(),
            }
        };
    }
    if rayon {
        on!(on_rayon)
    } else {
        on!(on_filch)
    }
}

/// Where a call is made: the main thread, or inside a pool's `install`.
enum Place {
    Main,
    Install(filch::par::ThreadPool, rayon::ThreadPool),
}

impl Place {
    /// Runs `f` at this place, for filch (`rayon == false`) or rayon.
    fn at<R: Send>(&self, rayon: bool, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Place::Main => f(),
            Place::Install(fp, rp) => {
                if rayon {
                    rp.install(f)
                } else {
                    fp.install(f)
                }
            }
        }
    }
}

/// The number of calls that take about `target`.
fn calibrate(target: Duration, mut f: impl FnMut()) -> u32 {
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < Duration::from_millis(2) {
        f();
        n += 1;
    }
    let per = start.elapsed() / n;
    ((target.as_nanos() / per.as_nanos().max(1)) as u32).max(1)
}

fn pools(n: usize) -> Place {
    Place::Install(
        filch::par::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("start filch"),
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("start rayon"),
    )
}

fn main() {
    let workers = bench_workers();
    let rounds: usize = std::env::var("FILCH_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let only = std::env::var("FILCH_BENCH_ONLY").ok();
    let place_only = std::env::var("FILCH_BENCH_PLACE").ok();
    filch::par::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build_global()
        .expect("filch's global pool");
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build_global()
        .expect("rayon's global pool");
    let places: Vec<(String, Place)> = vec![
        ("main".to_string(), Place::Main),
        (format!("install({workers})"), pools(workers)),
        ("install(1)".to_string(), pools(1)),
    ];
    let v: Vec<u64> = (0..16).collect();
    // A haystack of 10⁷ pseudo-random numbers (rayon-demo's `find`), searched for its first.
    let mut x = 0x9E37_79B9u32;
    let h: Vec<u32> = (0..10_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect();
    let h = &h[..];
    println!("tiny parallel calls, {workers} workers, {rounds} rounds (median of one call)\n");
    println!(
        "| {:<18} | {:<11} | {:>10} | {:>10} | {:>13} |",
        "workload", "place", "filch", "rayon", "filch / rayon"
    );
    println!("|---|---|---:|---:|---:|");
    for name in WORKLOADS {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        for (place_name, place) in &places {
            if place_only.as_deref().is_some_and(|o| place_name != o) {
                continue;
            }
            let v = &v[..];
            let iters = [false, true].map(|rayon| {
                place.at(rayon, || {
                    calibrate(Duration::from_millis(10), || run_once(name, rayon, v, h))
                })
            });
            let mut samples = [Vec::new(), Vec::new()];
            for round in 0..rounds {
                for k in 0..2 {
                    let who = (round + k) % 2;
                    let rayon = who == 1;
                    let d = place.at(rayon, || {
                        time_iters(iters[who], || run_once(name, rayon, v, h))
                    });
                    samples[who].push(d);
                }
            }
            let [f, r] = samples.map(median);
            println!(
                "| {:<18} | {:<11} | {:>10} | {:>10} | {:>13} |",
                name,
                place_name,
                fmt(f),
                fmt(r),
                ratio(f, r)
            );
        }
    }
}
