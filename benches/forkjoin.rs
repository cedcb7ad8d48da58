//! Fork-join: filch's `par::join` against rayon's and chili's on pools of the same size, and
//! the sequential code, in the same run, interleaved (each round runs every contender once,
//! in a rotating order, so that load on the machine hits all alike), with
//! `FILCH_BENCH_WORKERS` workers (default 2).
//!
//! `cargo bench -p filch-benches --bench forkjoin` prints, per workload, the median time of
//! one run for each contender and filch's ratio to rayon and to chili. `FILCH_BENCH_ROUNDS`
//! sets the rounds (default 11); `FILCH_BENCH_ONLY=name` runs the workloads whose name
//! contains `name`.
//!
//! Workloads (issue 34's goals, on 2 workers: filch ≤ 0.5x rayon on `tree_1023`, ≤ 1.0x on
//! the others):
//! - `tree_1023`: the sum of a binary tree of 1,023 nodes by `join` at every node (chili's
//!   benchmark; rayon's small-input overhead);
//! - `tree_4m`: the same over 2²²−1 nodes;
//! - `fib_30`: fib(30) by `join`, sequential below 15;
//! - `quicksort_10m`: a quicksort of 10⁷ random u64 by `join`, each side sorted in parallel
//!   down to 4,096 elements (the same code for each contender; the copy of the input into the
//!   buffer is outside the timing);
//! - `*_from_outside`: the tree rows again, each run a call from the bench's thread (outside
//!   the pool: filch's `install`, rayon's `install`; chili has no such call);
//! - `scope_spawn_9841`: a `scope` whose closures each spawn three more, 8 levels deep
//!   (9,841 spawns of about 50 multiply-adds each: the pattern of rayon-demo's `tsp`, whose
//!   closures are that small above its sequential threshold); chili has no `scope`.
//!
//! Each contender runs its timing loop inside its pool (filch's and rayon's `install`,
//! chili's scope), as a program that is already parallel would call `join`.

mod common;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::rounds::{fmt, median, ratio, time_iters};
use common::runtimes::bench_workers;

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn tree(layers: u32) -> Node {
    Node {
        value: 1,
        left: (layers > 1).then(|| Box::new(tree(layers - 1))),
        right: (layers > 1).then(|| Box::new(tree(layers - 1))),
    }
}

fn sum_seq(node: &Node) -> u64 {
    node.value + node.left.as_deref().map_or(0, sum_seq) + node.right.as_deref().map_or(0, sum_seq)
}

fn sum_filch(node: &Node) -> u64 {
    let (l, r) = filch::par::join(
        || node.left.as_deref().map_or(0, sum_filch),
        || node.right.as_deref().map_or(0, sum_filch),
    );
    node.value + l + r
}

fn sum_rayon(node: &Node) -> u64 {
    let (l, r) = rayon::join(
        || node.left.as_deref().map_or(0, sum_rayon),
        || node.right.as_deref().map_or(0, sum_rayon),
    );
    node.value + l + r
}

fn sum_chili(node: &Node, s: &mut chili::Scope<'_>) -> u64 {
    let (l, r) = s.join(
        |s| node.left.as_deref().map_or(0, |n| sum_chili(n, s)),
        |s| node.right.as_deref().map_or(0, |n| sum_chili(n, s)),
    );
    node.value + l + r
}

const FIB_CUTOFF: u32 = 15;

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn fib_filch(n: u32) -> u64 {
    if n < FIB_CUTOFF {
        return fib_seq(n);
    }
    let (a, b) = filch::par::join(|| fib_filch(n - 1), || fib_filch(n - 2));
    a + b
}

fn fib_rayon(n: u32) -> u64 {
    if n < FIB_CUTOFF {
        return fib_seq(n);
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(n: u32, s: &mut chili::Scope<'_>) -> u64 {
    if n < FIB_CUTOFF {
        return fib_seq(n);
    }
    let (a, b) = s.join(|s| fib_chili(n - 1, s), |s| fib_chili(n - 2, s));
    a + b
}

const SORT_CUTOFF: usize = 4096;

/// Lomuto partition around the median of three; returns the pivot's final index.
fn partition(v: &mut [u64]) -> usize {
    let mid = v.len() / 2;
    let last = v.len() - 1;
    if v[mid] < v[0] {
        v.swap(mid, 0);
    }
    if v[last] < v[0] {
        v.swap(last, 0);
    }
    if v[mid] < v[last] {
        v.swap(mid, last);
    }
    let pivot = v[last];
    let mut store = 0;
    for i in 0..last {
        if v[i] < pivot {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

fn quicksort_seq(v: &mut [u64]) {
    v.sort_unstable();
}

fn quicksort_filch(v: &mut [u64]) {
    if v.len() <= SORT_CUTOFF {
        return v.sort_unstable();
    }
    let p = partition(v);
    let (lo, hi) = v.split_at_mut(p);
    filch::par::join(|| quicksort_filch(lo), || quicksort_filch(&mut hi[1..]));
}

fn quicksort_rayon(v: &mut [u64]) {
    if v.len() <= SORT_CUTOFF {
        return v.sort_unstable();
    }
    let p = partition(v);
    let (lo, hi) = v.split_at_mut(p);
    rayon::join(|| quicksort_rayon(lo), || quicksort_rayon(&mut hi[1..]));
}

fn quicksort_chili(v: &mut [u64], s: &mut chili::Scope<'_>) {
    if v.len() <= SORT_CUTOFF {
        return v.sort_unstable();
    }
    let p = partition(v);
    let (lo, hi) = v.split_at_mut(p);
    s.join(
        |s| quicksort_chili(lo, s),
        |s| quicksort_chili(&mut hi[1..], s),
    );
}

/// The contenders, in the order of the table's columns.
const CONTENDERS: [&str; 4] = ["sequential", "filch", "rayon", "chili"];

struct Pools {
    filch: filch::Executor,
    rayon: rayon::ThreadPool,
    chili: chili::ThreadPool,
}

/// Times `iters` runs of a workload on contender `who` (the loop inside its pool) and returns
/// the time of one run. `run` gets the contender's index and whether to call from outside.
type Workload = Box<dyn Fn(&Pools, usize, u32) -> Option<Duration>>;

fn tree_workload(layers: u32, from_outside: bool) -> Workload {
    let t = tree(layers);
    let expect = (1u64 << layers) - 1;
    Box::new(move |pools, who, iters| {
        let t = &t;
        let check = |v: u64| assert_eq!(black_box(v), expect);
        match (who, from_outside) {
            (0, _) => Some(time_iters(iters, || check(sum_seq(t)))),
            (1, false) => Some(
                pools
                    .filch
                    .install(|| time_iters(iters, || check(sum_filch(t)))),
            ),
            (1, true) => Some(time_iters(iters, || {
                check(pools.filch.install(|| sum_filch(t)))
            })),
            (2, false) => Some(
                pools
                    .rayon
                    .install(|| time_iters(iters, || check(sum_rayon(t)))),
            ),
            (2, true) => Some(time_iters(iters, || {
                check(pools.rayon.install(|| sum_rayon(t)))
            })),
            (3, false) => {
                let mut s = pools.chili.scope();
                Some(time_iters(iters, || check(sum_chili(t, &mut s))))
            }
            _ => None,
        }
    })
}

/// Levels of spawns below the scope's body in `scope_spawn_9841`.
const SPAWN_DEPTH: u32 = 8;

/// A spawned closure's own work: about 50 dependent multiply-adds.
fn spawn_work(seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..50 {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

fn spawn_seq(depth: u32, count: &AtomicU64) {
    count.fetch_add(1, Ordering::Relaxed);
    black_box(spawn_work(u64::from(depth)));
    if depth > 0 {
        for _ in 0..3 {
            spawn_seq(depth - 1, count);
        }
    }
}

fn spawn_filch<'s>(s: &filch::par::Scope<'s>, depth: u32, count: &'s AtomicU64) {
    count.fetch_add(1, Ordering::Relaxed);
    black_box(spawn_work(u64::from(depth)));
    if depth > 0 {
        for _ in 0..3 {
            s.spawn(move |s| spawn_filch(s, depth - 1, count));
        }
    }
}

fn spawn_rayon<'s>(s: &rayon::Scope<'s>, depth: u32, count: &'s AtomicU64) {
    count.fetch_add(1, Ordering::Relaxed);
    black_box(spawn_work(u64::from(depth)));
    if depth > 0 {
        for _ in 0..3 {
            s.spawn(move |s| spawn_rayon(s, depth - 1, count));
        }
    }
}

fn spawn_workload() -> Workload {
    // 3^0 + 3^1 + ... + 3^SPAWN_DEPTH closures.
    let expect = (3u64.pow(SPAWN_DEPTH + 1) - 1) / 2;
    Box::new(move |pools, who, iters| {
        let run = |f: &dyn Fn(&AtomicU64)| {
            let count = AtomicU64::new(0);
            f(&count);
            assert_eq!(count.load(Ordering::Relaxed), expect);
        };
        match who {
            0 => Some(time_iters(iters, || run(&|c| spawn_seq(SPAWN_DEPTH, c)))),
            1 => Some(pools.filch.install(|| {
                time_iters(iters, || {
                    run(&|c| filch::par::scope(|s| spawn_filch(s, SPAWN_DEPTH, c)))
                })
            })),
            2 => Some(pools.rayon.install(|| {
                time_iters(iters, || {
                    run(&|c| rayon::scope(|s| spawn_rayon(s, SPAWN_DEPTH, c)))
                })
            })),
            _ => None,
        }
    })
}

fn fib_workload(n: u32) -> Workload {
    let expect = fib_seq(n);
    Box::new(move |pools, who, iters| {
        let check = |v: u64| assert_eq!(black_box(v), expect);
        Some(match who {
            0 => time_iters(iters, || check(fib_seq(black_box(n)))),
            1 => pools
                .filch
                .install(|| time_iters(iters, || check(fib_filch(black_box(n))))),
            2 => pools
                .rayon
                .install(|| time_iters(iters, || check(fib_rayon(black_box(n))))),
            _ => {
                let mut s = pools.chili.scope();
                time_iters(iters, || check(fib_chili(black_box(n), &mut s)))
            }
        })
    })
}

fn sort_workload(n: usize) -> Workload {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let input: Vec<u64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    Box::new(move |pools, who, iters| {
        let mut total = Duration::ZERO;
        let mut buf = input.clone();
        for _ in 0..iters {
            buf.copy_from_slice(&input);
            let start = Instant::now();
            match who {
                0 => quicksort_seq(&mut buf),
                1 => pools.filch.install(|| quicksort_filch(&mut buf)),
                2 => pools.rayon.install(|| quicksort_rayon(&mut buf)),
                _ => quicksort_chili(&mut buf, &mut pools.chili.scope()),
            }
            total += start.elapsed();
            assert!(buf.windows(2).all(|w| w[0] <= w[1]));
        }
        Some(total / iters)
    })
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
        chili: chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(workers),
            ..Default::default()
        }),
    };
    // (name, workload, runs per timing)
    let workloads: Vec<(&str, Workload, u32)> = vec![
        ("tree_1023", tree_workload(10, false), 20_000),
        ("tree_1023_from_outside", tree_workload(10, true), 2_000),
        ("tree_4m", tree_workload(22, false), 5),
        ("tree_4m_from_outside", tree_workload(22, true), 5),
        ("fib_30", fib_workload(30), 5),
        ("quicksort_10m", sort_workload(10_000_000), 1),
        ("scope_spawn_9841", spawn_workload(), 20),
    ];
    println!("fork-join, {workers} workers, {rounds} rounds (median of one run each)\n");
    println!(
        "| {:<24} | {:>11} | {:>11} | {:>11} | {:>11} | {:>13} | {:>13} |",
        "workload",
        CONTENDERS[0],
        CONTENDERS[1],
        CONTENDERS[2],
        CONTENDERS[3],
        "filch / rayon",
        "filch / chili"
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
                if let Some(d) = workload(&pools, who, *iters) {
                    samples[who].push(d);
                }
            }
        }
        let m: Vec<Option<Duration>> = samples.into_iter().map(median).collect();
        println!(
            "| {:<24} | {:>11} | {:>11} | {:>11} | {:>11} | {:>13} | {:>13} |",
            name,
            fmt(m[0]),
            fmt(m[1]),
            fmt(m[2]),
            fmt(m[3]),
            ratio(m[1], m[2]),
            ratio(m[1], m[3])
        );
    }
}
