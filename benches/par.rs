//! Data-parallel loops: filch's `par_reduce`/`par_map` against rayon on a pool of the same
//! size and a sequential loop, in the same run, with `FILCH_BENCH_WORKERS` workers (default 2).
//!
//! `cargo bench -p filch-benches --bench par` prints criterion's timings and, at the end, a table of medians
//! with filch's ratio to rayon and to the ideal (sequential time / workers).
//!
//! Workloads (the speed targets of issues 3 and 9):
//! - uniform_fine: sum of a ~1 ns hash over 0..100,000,000, the index `black_box`ed
//!   (target: <= 1.05x rayon);
//! - compute_fine: wrapping sum of a ~1 ns multiplicative hash (multiply-xorshift twice)
//!   over 0..100,000,000, nothing `black_box`ed, so each contender's inner loop is what the compiler makes of it
//!   (target: <= 1.05x rayon or ideal);
//! - skewed: 0..100,000, the first eighth 100x as costly as the rest (cheap ~100 ns, dear
//!   ~10 us, in rounds of a hash; target: <= 1.05x ideal);
//! - increasing: cost(i) proportional to i over 0..20,000 (target: <= 1.05x ideal);
//! - par_map: 10,000,000 values `i as u64 * 3` into a Vec (target: <= 1.05x rayon's
//!   `into_par_iter().map().collect()`);
//! - map_vec: `par_map_vec` of 10,000,000 owned `u64`s through a hash into a new Vec,
//!   against rayon's `vec.into_par_iter().map().collect()` (the input Vec is made outside
//!   the timing; target: <= 1.05x rayon);
//! - for_each_mut: `par_for_each_mut` updating 10,000,000 `u64`s in place, against rayon's
//!   `par_iter_mut().enumerate().for_each()` (target: <= 1.05x rayon).

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode};
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
const OWNED_N: usize = 10_000_000;

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

/// The ~1 ns hash of compute_fine: multiply, xorshift, multiply, xorshift, with no
/// `black_box`, so the compiler may unroll or vectorise each contender's loop as it can.
/// (The last xorshift keeps it from factoring the last multiply out of a sum of hashes,
/// which it does for an unrolled block and not for a plain loop: that would measure luck.)
#[inline]
fn mult_hash(i: usize) -> u64 {
    let x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 32)
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

/// Benchmarks one sum workload: `cost` summed (wrapping) over `0..n` by filch, rayon and a
/// sequential loop. Generic over the cost function (a fn item, zero-sized) so that each contender calls
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
    let seq: u64 = (0..m).map(cost).fold(0, u64::wrapping_add);
    let fil = ex.block_on(ex.par_reduce(
        0..m,
        || 0,
        move |a, i| a.wrapping_add(cost(i)),
        u64::wrapping_add,
    ));
    let ray: u64 = pool.install(|| {
        (0..m)
            .into_par_iter()
            .map(cost)
            .reduce(|| 0, u64::wrapping_add)
    });
    assert_eq!((fil, ray), (seq, seq), "{group}: results differ");

    let mut g = c.benchmark_group(group);
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("filch", |b| {
        b.iter(|| {
            ex.block_on(ex.par_reduce(
                0..black_box(n),
                || 0u64,
                move |a, i| a.wrapping_add(cost(i)),
                u64::wrapping_add,
            ))
        })
    });
    g.bench_function("rayon", |b| {
        b.iter(|| {
            pool.install(|| {
                (0..black_box(n))
                    .into_par_iter()
                    .map(cost)
                    .reduce(|| 0, u64::wrapping_add)
            })
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| (0..black_box(n)).map(cost).fold(0, u64::wrapping_add))
    });
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

    if let Some(rounds) = std::env::var("FILCH_PAR_ROUNDS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
    {
        let only = std::env::var("FILCH_PAR_ONLY").unwrap_or_default();
        interleaved(&ex, &pool, workers, rounds, &only);
        return;
    }

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    bench_sum(&mut c, &ex, &pool, "par_uniform_fine", UNIFORM_N, hash);
    bench_sum(&mut c, &ex, &pool, "par_compute_fine", UNIFORM_N, mult_hash);
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

    bench_owned(&mut c, &ex, &pool);

    c.final_summary();
    print_table(workers);
}

const MAP_VEC_GROUP: &str = "par_map_vec";
const FOR_EACH_MUT_GROUP: &str = "par_for_each_mut";

/// The owned loops: `par_map_vec` against `into_par_iter().map().collect()`, and
/// `par_for_each_mut` against `par_iter_mut().enumerate().for_each()`.
fn bench_owned(c: &mut Criterion, ex: &filch::Executor, pool: &rayon::ThreadPool) {
    let input: Vec<u64> = (0..OWNED_N as u64).collect();
    let f = |x: u64| mult_hash(x as usize);
    let expected: Vec<u64> = input.iter().map(|&x| f(x)).collect();
    assert_eq!(ex.block_on(ex.par_map_vec(input.clone(), f)), expected);

    let mut g = c.benchmark_group(MAP_VEC_GROUP);
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("filch", |b| {
        b.iter_batched(
            || input.clone(),
            |v| ex.block_on(ex.par_map_vec(v, f)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("rayon", |b| {
        b.iter_batched(
            || input.clone(),
            |v| pool.install(|| v.into_par_iter().map(f).collect::<Vec<_>>()),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("sequential", |b| {
        b.iter_batched(
            || input.clone(),
            |v| v.into_iter().map(f).collect::<Vec<_>>(),
            BatchSize::LargeInput,
        )
    });
    g.finish();

    let step = |k: usize, x: &mut u64| *x = (*x ^ k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut check = input.clone();
    check.iter_mut().enumerate().for_each(|(k, x)| step(k, x));
    assert_eq!(ex.block_on(ex.par_for_each_mut(input.clone(), step)), check);
    drop(check);

    let mut g = c.benchmark_group(FOR_EACH_MUT_GROUP);
    g.sampling_mode(SamplingMode::Flat);
    // One Vec, updated again and again (values wrap; only the time matters).
    let mut data = input;
    g.bench_function("filch", |b| {
        b.iter(|| {
            let v = std::mem::take(&mut data);
            data = ex.block_on(ex.par_for_each_mut(v, step));
        })
    });
    g.bench_function("rayon", |b| {
        b.iter(|| {
            pool.install(|| {
                data.par_iter_mut()
                    .enumerate()
                    .for_each(|(k, x)| step(k, x))
            })
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| data.iter_mut().enumerate().for_each(|(k, x)| step(k, x)))
    });
    g.finish();
}

/// One contender of a workload: runs it once and returns the time of the part to measure.
type Contender<'a> = Box<dyn FnMut() -> Duration + 'a>;

/// Times `f` once: wall-clock time, or with `FILCH_PAR_CPU=1` the CPU time all threads of
/// the process spent meanwhile (Linux), which a loaded machine distorts much less; it
/// compares the contenders' efficiency, not their speedup (spinning counts as work).
fn timed<R>(f: impl FnOnce() -> R) -> Duration {
    if std::env::var_os("FILCH_PAR_CPU").is_some() {
        let start = process_cpu_ns();
        black_box(f());
        return Duration::from_nanos(process_cpu_ns().saturating_sub(start));
    }
    let start = std::time::Instant::now();
    black_box(f());
    start.elapsed()
}

/// The CPU time of every thread of this process so far, in ns, from
/// `/proc/self/task/*/schedstat` (0 where it cannot be read). Threads that exited are
/// missing: the pools' threads live for the whole run.
fn process_cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The interleaved mode (`FILCH_PAR_ROUNDS=n`): every workload whose name contains
/// `FILCH_PAR_ONLY` runs `n` rounds, each round filch, rayon and the sequential loop once
/// in a rotating order (after one untimed warm-up round), so that the load of a shared
/// machine falls on all three alike; prints the table of medians.
fn interleaved(
    ex: &filch::Executor,
    pool: &rayon::ThreadPool,
    workers: usize,
    rounds: usize,
    only: &str,
) {
    fn sum_contenders<'a, C>(
        ex: &'a filch::Executor,
        pool: &'a rayon::ThreadPool,
        n: usize,
        cost: C,
    ) -> [Contender<'a>; 3]
    where
        C: Fn(usize) -> u64 + Copy + Send + Sync + 'static,
    {
        [
            Box::new(move || {
                timed(|| {
                    ex.block_on(ex.par_reduce(
                        0..black_box(n),
                        || 0u64,
                        move |a, i| a.wrapping_add(cost(i)),
                        u64::wrapping_add,
                    ))
                })
            }),
            Box::new(move || {
                timed(|| {
                    pool.install(|| {
                        (0..black_box(n))
                            .into_par_iter()
                            .map(cost)
                            .reduce(|| 0, u64::wrapping_add)
                    })
                })
            }),
            Box::new(move || timed(|| (0..black_box(n)).map(cost).fold(0, u64::wrapping_add))),
        ]
    }
    let input: Vec<u64> = (0..OWNED_N as u64).collect();
    let map_f = |i: usize| i as u64 * 3;
    let vec_f = |x: u64| mult_hash(x as usize);
    let step = |k: usize, x: &mut u64| *x = (*x ^ k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let data = std::cell::RefCell::new(input.clone());
    let input = &input;
    let data = &data;
    let workloads: Vec<(&str, &str, [Contender<'_>; 3])> = vec![
        (
            "uniform_fine",
            "<= 1.05x rayon",
            sum_contenders(ex, pool, UNIFORM_N, hash),
        ),
        (
            "compute_fine",
            "<= 1.05x rayon or ideal",
            sum_contenders(ex, pool, UNIFORM_N, mult_hash),
        ),
        (
            "skewed",
            "<= 1.05x ideal",
            sum_contenders(ex, pool, SKEWED_N, skewed_cost),
        ),
        (
            "increasing",
            "<= 1.05x ideal",
            sum_contenders(ex, pool, INCREASING_N, increasing_cost),
        ),
        (
            "par_map",
            "<= 1.05x rayon",
            [
                Box::new(move || timed(|| ex.block_on(ex.par_map(0..black_box(MAP_N), map_f)))),
                Box::new(move || {
                    timed(|| {
                        pool.install(|| {
                            (0..black_box(MAP_N))
                                .into_par_iter()
                                .map(map_f)
                                .collect::<Vec<_>>()
                        })
                    })
                }),
                Box::new(move || timed(|| (0..black_box(MAP_N)).map(map_f).collect::<Vec<_>>())),
            ],
        ),
        (
            "map_vec",
            "<= 1.05x rayon",
            [
                Box::new(move || {
                    let v = input.clone();
                    timed(|| ex.block_on(ex.par_map_vec(v, vec_f)))
                }),
                Box::new(move || {
                    let v = input.clone();
                    timed(|| pool.install(|| v.into_par_iter().map(vec_f).collect::<Vec<_>>()))
                }),
                Box::new(move || {
                    let v = input.clone();
                    timed(|| v.into_iter().map(vec_f).collect::<Vec<_>>())
                }),
            ],
        ),
        (
            "for_each_mut",
            "<= 1.05x rayon",
            [
                Box::new(move || {
                    let v = data.take();
                    let mut back = Vec::new();
                    let t = timed(|| back = ex.block_on(ex.par_for_each_mut(v, step)));
                    *data.borrow_mut() = back;
                    t
                }),
                Box::new(move || {
                    let mut guard = data.borrow_mut();
                    let v: &mut [u64] = &mut guard;
                    timed(|| {
                        pool.install(|| v.par_iter_mut().enumerate().for_each(|(k, x)| step(k, x)))
                    })
                }),
                Box::new(move || {
                    let mut v = data.borrow_mut();
                    timed(|| v.iter_mut().enumerate().for_each(|(k, x)| step(k, x)))
                }),
            ],
        ),
    ];
    println!("\nMedians of {rounds} interleaved rounds, workers = {workers}:\n");
    println!(
        "| workload | filch | rayon | sequential | ideal | filch/rayon | filch/ideal | target |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for (name, target, mut contenders) in workloads {
        if !name.contains(only) {
            continue;
        }
        for c in contenders.iter_mut() {
            c();
        }
        let mut times = [vec![], vec![], vec![]];
        for round in 0..rounds {
            for k in 0..3 {
                let which = (round + k) % 3;
                times[which].push(contenders[which]().as_secs_f64() * 1e9);
            }
        }
        let [filch, rayon, seq] = times.map(|mut t| {
            t.sort_by(f64::total_cmp);
            Some(t[t.len() / 2])
        });
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
        (
            "par_compute_fine",
            "compute_fine",
            "<= 1.05x rayon or ideal",
        ),
        ("par_skewed", "skewed", "<= 1.05x ideal"),
        ("par_increasing", "increasing", "<= 1.05x ideal"),
        (MAP_GROUP, "par_map", "<= 1.05x rayon"),
        (MAP_VEC_GROUP, "map_vec", "<= 1.05x rayon"),
        (FOR_EACH_MUT_GROUP, "for_each_mut", "<= 1.05x rayon"),
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
