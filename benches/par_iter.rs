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
//! - `nbody_1000x10`: 10 steps of a 1,000-body gravity simulation, each step a
//!   `par_iter().map(..).collect()` of the new bodies, every body against all others
//!   (rayon-demo's nbody, reduced to its parallel loop);
//! - `life_256_200`: 200 generations of Conway's life on a 256×256 torus, each generation a
//!   `par_chunks_mut(256).enumerate().for_each(..)` writing the next grid row by row
//!   (rayon-demo's life);
//! - `tree_prefix_collect_1e5`, `tree_postfix_sum_1e5`: a tree of 10⁵ nodes (each a range
//!   of numbers, its children the halves of the rest) walked by `walk_tree_prefix` into a
//!   `Vec` and by `walk_tree_postfix` into a sum (rayon-demo's tree walks, unindexed);
//! - `str_split_1e6`: `par_split(' ')` of a shuffled 1 MB string of words, counted
//!   (rayon-demo's `str_split`, unindexed);
//! - the sorts (`par_sort_unstable` of 10⁷ u64, `par_sort` of 10⁶ `String`s) are
//!   `benches/sort.rs`'s rows.
//!
//! After the table, the memory of `collect`: the peak of live heap bytes above what was live
//! before, while `(0..10⁷).into_par_iter().map(..).collect::<Vec<u64>>()` runs, for each
//! contender, against the output's 80 MB (a counting global allocator; issue 35's goal:
//! ≤ 1.1x the output). The unindexed collect (with a `filter`) is shown beside it.
//!
//! Each contender runs its timing loop inside its pool (filch's and rayon's `install`), as a
//! program that is already parallel would run its chains.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use common::rounds::{fmt, median, ratio, time_iters};
use common::runtimes::bench_workers;

/// The system allocator, counting the live heap bytes and their peak (for the memory of
/// `collect`). Relaxed: statistics, read after the measured call has returned (its joins
/// synchronise with every thread that allocated for it).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; the counters only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded as is (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is (see the impl).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
            PEAK.fetch_max(live, Relaxed);
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of live heap bytes above those live before, while `f` runs.
fn peak_above<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (PEAK.load(Relaxed).saturating_sub(before), out)
}

/// The contenders, in the order of the table's columns.
const CONTENDERS: [&str; 3] = ["sequential", "filch", "rayon"];

struct Pools {
    filch: filch::Executor,
    rayon: rayon::ThreadPool,
}

/// Times `iters` runs of a workload on contender `who` and returns the time of one run.
type Workload = Box<dyn Fn(&Pools, usize, u32) -> Duration>;

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
    let keep = |x: &u64| !x.is_multiple_of(3);
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

/// One body of the n-body simulation.
#[derive(Clone, Copy)]
struct Body {
    pos: [f64; 3],
    vel: [f64; 3],
}

/// `b` one time step later, pulled by every body of `all`.
#[inline]
fn advance(b: &Body, all: &[Body]) -> Body {
    const DT: f64 = 0.01;
    let mut acc = [0.0f64; 3];
    for o in all {
        let d = [
            o.pos[0] - b.pos[0],
            o.pos[1] - b.pos[1],
            o.pos[2] - b.pos[2],
        ];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-3;
        let inv = 1.0 / (r2 * r2.sqrt());
        for k in 0..3 {
            acc[k] += d[k] * inv;
        }
    }
    let vel = [
        b.vel[0] + acc[0] * DT,
        b.vel[1] + acc[1] * DT,
        b.vel[2] + acc[2] * DT,
    ];
    Body {
        pos: [
            b.pos[0] + vel[0] * DT,
            b.pos[1] + vel[1] * DT,
            b.pos[2] + vel[2] * DT,
        ],
        vel,
    }
}

fn nbody(n: usize, steps: usize) -> Workload {
    let start: Vec<Body> = (0..n)
        .map(|i| {
            let h = step(i as u64);
            let c = |s: u32| ((h >> s) & 0xffff) as f64 / 65536.0;
            Body {
                pos: [c(0), c(16), c(32)],
                vel: [0.0; 3],
            }
        })
        .collect();
    let run_seq = move |start: &[Body]| {
        let mut bodies = start.to_vec();
        for _ in 0..steps {
            bodies = bodies.iter().map(|b| advance(b, &bodies)).collect();
        }
        bodies
    };
    let expect = run_seq(&start);
    let same = move |got: Vec<Body>| {
        assert!(got
            .iter()
            .zip(&expect)
            .all(|(a, b)| a.pos == b.pos && a.vel == b.vel));
    };
    Box::new(move |pools, who, iters| match who {
        0 => time_iters(iters, || same(run_seq(black_box(&start)))),
        1 => pools.filch.install(|| {
            use filch::par::prelude::*;
            time_iters(iters, || {
                let mut bodies = black_box(&start).clone();
                for _ in 0..steps {
                    bodies = bodies.par_iter().map(|b| advance(b, &bodies)).collect();
                }
                same(bodies);
            })
        }),
        _ => pools.rayon.install(|| {
            use rayon::prelude::*;
            time_iters(iters, || {
                let mut bodies = black_box(&start).clone();
                for _ in 0..steps {
                    bodies = bodies.par_iter().map(|b| advance(b, &bodies)).collect();
                }
                same(bodies);
            })
        }),
    })
}

/// Row `y` of the next generation of the `side`×`side` torus `grid`.
#[inline]
fn life_row(grid: &[u8], side: usize, y: usize, row: &mut [u8]) {
    let up = (y + side - 1) % side;
    let down = (y + 1) % side;
    for (x, cell) in row.iter_mut().enumerate() {
        let left = (x + side - 1) % side;
        let right = (x + 1) % side;
        let mut n = 0;
        for yy in [up, y, down] {
            for xx in [left, x, right] {
                n += grid[yy * side + xx];
            }
        }
        let alive = grid[y * side + x];
        n -= alive;
        *cell = u8::from(n == 3 || (n == 2 && alive == 1));
    }
}

/// The children of a node of the tree walks: the node is the range's first number, its
/// children the two halves of the rest (empty ones left out).
fn tree_children(
    r: &std::ops::Range<u64>,
) -> impl DoubleEndedIterator<Item = std::ops::Range<u64>> + use<> {
    let mid = (r.start + 1 + r.end) / 2;
    [(r.start + 1)..mid, mid..r.end]
        .into_iter()
        .filter(|r| !r.is_empty())
}

/// `walk_tree_prefix` of the tree of `n` nodes into a `Vec` of the nodes' numbers (0..n in
/// order).
fn tree_prefix_collect(n: u64) -> Workload {
    let check = move |v: Vec<u64>| assert!(v.into_iter().eq(0..n));
    Box::new(move |pools, who, iters| match who {
        0 => time_iters(iters, || {
            let mut v = Vec::new();
            let root: std::ops::Range<u64> = 0..black_box(n);
            let mut stack = vec![root];
            while let Some(r) = stack.pop() {
                v.push(r.start);
                stack.extend(tree_children(&r).rev());
            }
            check(v)
        }),
        1 => pools.filch.install(|| {
            use filch::par::prelude::*;
            time_iters(iters, || {
                check(
                    filch::par::iter::walk_tree_prefix(0..black_box(n), tree_children)
                        .map(|r| r.start)
                        .collect(),
                )
            })
        }),
        _ => pools.rayon.install(|| {
            use rayon::prelude::*;
            time_iters(iters, || {
                check(
                    rayon::iter::walk_tree_prefix(0..black_box(n), tree_children)
                        .map(|r| r.start)
                        .collect(),
                )
            })
        }),
    })
}

/// `walk_tree_postfix` of the tree of `n` nodes, the nodes' numbers summed.
fn tree_postfix_sum(n: u64) -> Workload {
    let expect = n * (n - 1) / 2;
    Box::new(move |pools, who, iters| match who {
        0 => time_iters(iters, || {
            let root: std::ops::Range<u64> = 0..black_box(n);
            let (mut sum, mut stack) = (0u64, vec![root]);
            while let Some(r) = stack.pop() {
                sum += r.start;
                stack.extend(tree_children(&r));
            }
            assert_eq!(sum, expect);
        }),
        1 => pools.filch.install(|| {
            use filch::par::prelude::*;
            time_iters(iters, || {
                let sum: u64 = filch::par::iter::walk_tree_postfix(0..black_box(n), tree_children)
                    .map(|r| r.start)
                    .sum();
                assert_eq!(sum, expect);
            })
        }),
        _ => pools.rayon.install(|| {
            use rayon::prelude::*;
            time_iters(iters, || {
                let sum: u64 = rayon::iter::walk_tree_postfix(0..black_box(n), tree_children)
                    .map(|r| r.start)
                    .sum();
                assert_eq!(sum, expect);
            })
        }),
    })
}

/// `par_split(' ')` of a 1 MB string of `abcdefg ` shuffled, counted.
fn str_split(len: usize) -> Workload {
    let mut bytes: Vec<u8> = b"abcdefg ".iter().cycle().take(len).copied().collect();
    for i in (1..bytes.len()).rev() {
        let j = (step(i as u64) % (i as u64 + 1)) as usize;
        bytes.swap(i, j);
    }
    let text = String::from_utf8(bytes).expect("ASCII");
    let expect = text.split(' ').count();
    Box::new(move |pools, who, iters| match who {
        0 => time_iters(iters, || {
            assert_eq!(black_box(&text).split(' ').count(), expect)
        }),
        1 => pools.filch.install(|| {
            use filch::par::prelude::*;
            time_iters(iters, || {
                assert_eq!(black_box(&text).par_split(' ').count(), expect)
            })
        }),
        _ => pools.rayon.install(|| {
            use rayon::prelude::*;
            time_iters(iters, || {
                assert_eq!(black_box(&text).par_split(' ').count(), expect)
            })
        }),
    })
}

fn life(side: usize, generations: usize) -> Workload {
    let start: Vec<u8> = (0..side * side)
        .map(|i| u8::from(step(i as u64).is_multiple_of(3)))
        .collect();
    let run_seq = move |start: &[u8]| {
        let (mut grid, mut next) = (start.to_vec(), vec![0u8; side * side]);
        for _ in 0..generations {
            for (y, row) in next.chunks_mut(side).enumerate() {
                life_row(&grid, side, y, row);
            }
            std::mem::swap(&mut grid, &mut next);
        }
        grid
    };
    let expect = run_seq(&start);
    Box::new(move |pools, who, iters| match who {
        0 => time_iters(iters, || assert!(run_seq(black_box(&start)) == expect)),
        1 => pools.filch.install(|| {
            use filch::par::prelude::*;
            time_iters(iters, || {
                let (mut grid, mut next) = (black_box(&start).clone(), vec![0u8; side * side]);
                for _ in 0..generations {
                    next.par_chunks_mut(side)
                        .enumerate()
                        .for_each(|(y, row)| life_row(&grid, side, y, row));
                    std::mem::swap(&mut grid, &mut next);
                }
                assert!(grid == expect);
            })
        }),
        _ => pools.rayon.install(|| {
            use rayon::prelude::*;
            time_iters(iters, || {
                let (mut grid, mut next) = (black_box(&start).clone(), vec![0u8; side * side]);
                for _ in 0..generations {
                    next.par_chunks_mut(side)
                        .enumerate()
                        .for_each(|(y, row)| life_row(&grid, side, y, row));
                    std::mem::swap(&mut grid, &mut next);
                }
                assert!(grid == expect);
            })
        }),
    })
}

/// Runs one contender's collect and returns its peak above the start.
type PeakOf<'a> = Box<dyn Fn(usize) -> usize + 'a>;

/// The memory of `collect` (module docs): the peak above the live bytes while each
/// contender collects 10⁷ `u64`s, indexed and unindexed, against the output's size.
fn print_collect_memory(pools: &Pools) {
    const N: usize = 10_000_000;
    let output = N * std::mem::size_of::<u64>();
    let keep = |x: &u64| !x.is_multiple_of(8);
    let rows: [(&str, PeakOf); 2] = [
        (
            "collect 10⁷ u64 (indexed)",
            Box::new(|who| match who {
                0 => peak_above(|| (0..N as u64).map(step).collect::<Vec<u64>>()).0,
                1 => pools.filch.install(|| {
                    use filch::par::prelude::*;
                    peak_above(|| {
                        (0..N)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .collect::<Vec<u64>>()
                    })
                    .0
                }),
                _ => pools.rayon.install(|| {
                    use rayon::prelude::*;
                    peak_above(|| {
                        (0..N)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .collect::<Vec<u64>>()
                    })
                    .0
                }),
            }),
        ),
        (
            "collect 10⁷ u64 with filter",
            Box::new(move |who| match who {
                0 => peak_above(|| (0..N as u64).map(step).filter(keep).collect::<Vec<u64>>()).0,
                1 => pools.filch.install(|| {
                    use filch::par::prelude::*;
                    peak_above(|| {
                        (0..N)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .filter(keep)
                            .collect::<Vec<u64>>()
                    })
                    .0
                }),
                _ => pools.rayon.install(|| {
                    use rayon::prelude::*;
                    peak_above(|| {
                        (0..N)
                            .into_par_iter()
                            .map(|i| step(i as u64))
                            .filter(keep)
                            .collect::<Vec<u64>>()
                    })
                    .0
                }),
            }),
        ),
    ];
    println!(
        "\nmemory of collect: the peak of live heap above the start, in MB and as a multiple \
         of the 80 MB of 10⁷ u64 (the filtered output keeps 7/8 of them)\n"
    );
    println!(
        "| {:<30} | {:>16} | {:>16} | {:>16} |",
        "call", CONTENDERS[0], CONTENDERS[1], CONTENDERS[2]
    );
    println!("|---|---:|---:|---:|");
    for (name, run) in &rows {
        let cells: Vec<String> = (0..CONTENDERS.len())
            .map(|who| {
                let peak = run(who);
                format!(
                    "{:.1} MB ({:.2}x)",
                    peak as f64 / 1e6,
                    peak as f64 / output as f64
                )
            })
            .collect();
        println!(
            "| {:<30} | {:>16} | {:>16} | {:>16} |",
            name, cells[0], cells[1], cells[2]
        );
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
        ("nbody_1000x10", nbody(1_000, 10), 1),
        ("life_256_200", life(256, 200), 1),
        ("tree_prefix_collect_1e5", tree_prefix_collect(100_000), 20),
        ("tree_postfix_sum_1e5", tree_postfix_sum(100_000), 20),
        ("str_split_1e6", str_split(1_000_000), 10),
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
    if only.as_deref().is_none_or(|o| "collect_memory".contains(o)) {
        print_collect_memory(&pools);
    }
}
