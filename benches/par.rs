//! Data-parallel loops: filch's `par_reduce`/`par_map` against rayon on a pool of the same
//! size and a sequential loop, in the same run, with `FILCH_BENCH_WORKERS` workers (default 2).
//!
//! `cargo bench --bench par` prints criterion's timings and, at the end, a table of medians
//! with filch's ratio to rayon and to the ideal (sequential time / workers).
//!
//! Workloads (the speed targets of issue 3):
//! - uniform_fine: sum of a ~1 ns hash over 0..100,000,000 (target: <= 1.05x rayon);
//! - skewed: 0..100,000, the first eighth 100x as costly as the rest (cheap ~100 ns, dear
//!   ~10 us, in rounds of a hash; target: <= 1.1x ideal);
//! - increasing: cost(i) proportional to i over 0..20,000 (target: <= 1.05x ideal);
//! - par_map: 10,000,000 values `i as u64 * 3` into a Vec (target: <= 1.1x rayon's
//!   `into_par_iter().map().collect()`).

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode};
use rayon::prelude::*;

use common::report::median_ns;
use common::runtimes::bench_workers;

const UNIFORM_N: usize = 100_000_000;
const SKEWED_N: usize = 100_000;
/// Hash rounds of a cheap skewed item (~100 ns); a dear one costs 100x as many.
const SKEWED_CHEAP: u32 = 32;
const INCREASING_N: usize = 20_000;
/// cost(i) = i / INCREASING_DIV hash rounds.
const INCREASING_DIV: usize = 3;
const MAP_N: usize = 10_000_000;

/// The ~1 ns per-index hash of uniform_fine: one multiply-xorshift round; the result fits in
/// 32 bits so 10^8 of them sum without overflow. `black_box` on the index keeps the compiler
/// from vectorising (or summing in closed form) the sequential and rayon loops alike.
#[inline]
fn hash(i: usize) -> u64 {
    let mut x = black_box(i) as u64;
    x ^= x >> 31;
    x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x >> 32
}

/// `rounds` dependent rounds of a 64-bit mixer seeded with `i` (~3 ns a round).
#[inline]
fn work(i: usize, rounds: u32) -> u64 {
    let mut x = i as u64;
    for _ in 0..rounds {
        x ^= x >> 30;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    }
    x >> 32
}

#[inline]
fn skewed_cost(i: usize) -> u64 {
    let rounds = if i < SKEWED_N / 8 {
        SKEWED_CHEAP * 100
    } else {
        SKEWED_CHEAP
    };
    work(i, rounds)
}

#[inline]
fn increasing_cost(i: usize) -> u64 {
    work(i, (i / INCREASING_DIV) as u32)
}

const MAP_GROUP: &str = "par_map";

/// Benchmarks one sum workload: `cost` summed over `0..n` by filch, rayon and a sequential
/// loop. Generic over the cost function (a fn item, zero-sized) so that each contender calls
/// it directly and can inline it.
fn bench_sum<C>(
    c: &mut Criterion,
    ex: &filch::Executor,
    pool: &rayon::ThreadPool,
    group: &str,
    n: usize,
    cost: C,
) where
    C: Fn(usize) -> u64 + Copy + Send + Sync + 'static,
{
    // Every contender computes the same result (checked on a prefix).
    let m = n.min(1_000_000);
    let seq: u64 = (0..m).map(cost).sum();
    let fil = ex.block_on(ex.par_reduce(0..m, || 0, move |a, i| a + cost(i), |a, b| a + b));
    let ray: u64 = pool.install(|| (0..m).into_par_iter().map(cost).sum());
    assert_eq!((fil, ray), (seq, seq), "{group}: results differ");

    let mut g = c.benchmark_group(group);
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("filch", |b| {
        b.iter(|| ex.block_on(ex.par_reduce(0..n, || 0u64, move |a, i| a + cost(i), |a, b| a + b)))
    });
    g.bench_function("rayon", |b| {
        b.iter(|| pool.install(|| (0..n).into_par_iter().map(cost).sum::<u64>()))
    });
    g.bench_function("sequential", |b| b.iter(|| (0..n).map(cost).sum::<u64>()));
    g.finish();
}

fn main() {
    let workers = bench_workers();
    let ex = filch::Executor::builder()
        .worker_threads(workers)
        .build()
        .expect("start filch");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("start rayon");

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    bench_sum(&mut c, &ex, &pool, "par_uniform_fine", UNIFORM_N, hash);
    bench_sum(&mut c, &ex, &pool, "par_skewed", SKEWED_N, skewed_cost);
    bench_sum(
        &mut c,
        &ex,
        &pool,
        "par_increasing",
        INCREASING_N,
        increasing_cost,
    );

    let f = |i: usize| i as u64 * 3;
    let mut g = c.benchmark_group(MAP_GROUP);
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("filch", |b| b.iter(|| ex.block_on(ex.par_map(0..MAP_N, f))));
    g.bench_function("rayon", |b| {
        b.iter(|| pool.install(|| (0..MAP_N).into_par_iter().map(f).collect::<Vec<_>>()))
    });
    g.bench_function("sequential", |b| {
        b.iter(|| (0..black_box(MAP_N)).map(f).collect::<Vec<_>>())
    });
    g.finish();

    c.final_summary();
    print_table(workers);
}

fn fmt_time(ns: Option<f64>) -> String {
    match ns {
        None => "-".into(),
        Some(ns) if ns >= 1e9 => format!("{:.3} s", ns / 1e9),
        Some(ns) if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) if ns >= 1e3 => format!("{:.1} µs", ns / 1e3),
        Some(ns) => format!("{ns:.0} ns"),
    }
}

fn fmt_ratio(r: Option<f64>) -> String {
    r.filter(|r| r.is_finite())
        .map_or("-".into(), |r| format!("{r:.2}"))
}

/// A Markdown table of medians: filch, rayon, sequential, ideal (= sequential / workers),
/// filch/rayon and filch/ideal, with each row's target.
fn print_table(workers: usize) {
    println!("\nMedians (criterion), workers = {workers}:\n");
    println!(
        "| workload | filch | rayon | sequential | ideal | filch/rayon | filch/ideal | target |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    let rows = [
        ("par_uniform_fine", "uniform_fine", "<= 1.05x rayon"),
        ("par_skewed", "skewed", "<= 1.1x ideal"),
        ("par_increasing", "increasing", "<= 1.05x ideal"),
        (MAP_GROUP, "par_map", "<= 1.1x rayon"),
    ];
    for (group, name, target) in rows {
        let filch = median_ns(group, "filch");
        let rayon = median_ns(group, "rayon");
        let seq = median_ns(group, "sequential");
        let ideal = seq.map(|s| s / workers as f64);
        let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {target} |",
            fmt_time(filch),
            fmt_time(rayon),
            fmt_time(seq),
            fmt_time(ideal),
            fmt_ratio(ratio(filch, rayon)),
            fmt_ratio(ratio(filch, ideal)),
        );
    }
}
