//! The parallel sorts: filch's `par_sort_unstable` / `par_sort` against rayon's on a pool of
//! the same size and std's sequential `sort_unstable` / `sort`, with `FILCH_BENCH_WORKERS`
//! workers (default 2), interleaved: `FILCH_SORT_ROUNDS` rounds (default 10, after one
//! untimed warm-up round), each running filch, rayon and std once in a rotating order on a
//! fresh copy of the same input, so that the load of a shared machine falls on all three
//! alike. Prints a table of medians with filch's ratio to rayon and to std.
//!
//! `cargo bench -p filch-benches --bench sort` (`FILCH_SORT_ONLY=NAME` runs the rows whose
//! name contains NAME; `FILCH_SORT_CPU=1` measures CPU time instead of wall-clock time).
//!
//! Rows (the targets of issue 35: filch <= 1.0x rayon):
//! - unstable_u64: `par_sort_unstable` of 10^7 random `u64`;
//! - stable_strings: `par_sort` of 10^6 random `String`s (8 to 24 lowercase letters);
//! - stable_u64 and unstable_strings: the other sort on each input, for the record;
//! - demo_*: rayon-demo's `sort.rs` shapes, 50,000 `u64`s each, both sorts (`demo_unstable_*`,
//!   `demo_stable_*`): `ascending`, `descending`, `mostly_ascending` and `mostly_descending`
//!   (the sorted input with √n random pairs swapped), and `random`; small calls, so each
//!   gets ten times the rounds.
//!
//! filch's sorts run inside `block_on` of a filch executor (the current executor of the
//! calling thread), rayon's inside `install` of its pool.

mod common;

use std::time::{Duration, Instant};

use common::runtimes::bench_workers;

const U64_LEN: usize = 10_000_000;
const STRINGS_LEN: usize = 1_000_000;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn random_u64s(len: usize) -> Vec<u64> {
    let mut rng = Rng(1);
    (0..len).map(|_| rng.next()).collect()
}

/// rayon-demo's `gen_mostly_ascending` / `gen_mostly_descending`: `sorted` with √len random
/// pairs swapped.
fn mostly(mut sorted: Vec<u64>) -> Vec<u64> {
    let mut rng = Rng(3);
    let len = sorted.len() as u64;
    for _ in (0u64..).take_while(|x| x * x <= len) {
        let (x, y) = (rng.next() % len, rng.next() % len);
        sorted.swap(x as usize, y as usize);
    }
    sorted
}

fn random_strings(len: usize) -> Vec<String> {
    let mut rng = Rng(2);
    (0..len)
        .map(|_| {
            let n = 8 + (rng.next() % 17) as usize;
            (0..n)
                .map(|_| char::from(b'a' + (rng.next() % 26) as u8))
                .collect()
        })
        .collect()
}

/// One contender: sorts a fresh copy of the input, checks the result, and returns the time
/// of the sort alone.
type Contender<'a> = Box<dyn FnMut() -> Duration + 'a>;

/// Times `f`: wall-clock time, or with `FILCH_SORT_CPU=1` the CPU time all threads of the
/// process spent meanwhile (Linux), which a loaded machine distorts much less; it compares
/// the contenders' work, not their speedup.
fn timed(f: impl FnOnce()) -> Duration {
    if std::env::var_os("FILCH_SORT_CPU").is_some() {
        let start = process_cpu_ns();
        f();
        return Duration::from_nanos(process_cpu_ns().saturating_sub(start));
    }
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The CPU time of every thread of this process so far, in ns, from
/// `/proc/self/task/*/schedstat` (0 where it cannot be read).
fn process_cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The three contenders of one row: filch's sort, rayon's, std's, each on a clone of `input`
/// made outside the timing; each result is checked against std's (outside the timing too).
fn row<'a, T: Ord + Clone + Send + 'static>(
    ex: &'a filch::Executor,
    pool: &'a rayon::ThreadPool,
    input: &'a [T],
    stable: bool,
) -> [Contender<'a>; 3] {
    let mut expected = input.to_vec();
    expected.sort();
    let expected = std::rc::Rc::new(expected);
    let check = move |v: Vec<T>, who: &str| assert!(v == *expected, "{who} sorts");
    let (check_filch, check_rayon) = (check.clone(), check.clone());
    [
        Box::new(move || {
            let mut v = input.to_vec();
            let t = timed(|| {
                ex.block_on(async {
                    if stable {
                        filch::par::slice::ParallelSliceMut::par_sort(&mut v[..]);
                    } else {
                        filch::par::slice::ParallelSliceMut::par_sort_unstable(&mut v[..]);
                    }
                })
            });
            check_filch(v, "filch");
            t
        }),
        Box::new(move || {
            let mut v = input.to_vec();
            let t = timed(|| {
                pool.install(|| {
                    if stable {
                        rayon::slice::ParallelSliceMut::par_sort(&mut v[..]);
                    } else {
                        rayon::slice::ParallelSliceMut::par_sort_unstable(&mut v[..]);
                    }
                })
            });
            check_rayon(v, "rayon");
            t
        }),
        Box::new(move || {
            let mut v = input.to_vec();
            let t = timed(|| {
                if stable {
                    v.sort();
                } else {
                    v.sort_unstable();
                }
            });
            check(v, "std");
            t
        }),
    ]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let workers = bench_workers();
    let rounds = std::env::var("FILCH_SORT_ROUNDS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(10);
    let only = std::env::var("FILCH_SORT_ONLY").unwrap_or_default();
    let ex = filch::Executor::builder()
        .worker_threads(workers)
        .build()
        .expect("start filch");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("start rayon");

    let u64s = random_u64s(U64_LEN);
    let strings = random_strings(STRINGS_LEN);

    println!("\nMedians of {rounds} interleaved rounds, workers = {workers}:\n");
    println!("| row | filch | rayon | std (sequential) | filch/rayon | filch/std |");
    println!("|---|---:|---:|---:|---:|---:|");
    let wanted = |name: &str| name.contains(&only);
    if wanted("unstable_u64") {
        report("unstable_u64", row(&ex, &pool, &u64s, false), rounds);
    }
    if wanted("stable_strings") {
        report("stable_strings", row(&ex, &pool, &strings, true), rounds);
    }
    if wanted("stable_u64") {
        report("stable_u64", row(&ex, &pool, &u64s, true), rounds);
    }
    if wanted("unstable_strings") {
        report("unstable_strings", row(&ex, &pool, &strings, false), rounds);
    }
    let ascending: Vec<u64> = (0..DEMO_LEN as u64).collect();
    let descending: Vec<u64> = ascending.iter().rev().copied().collect();
    let demo = [
        ("ascending", ascending.clone()),
        ("descending", descending.clone()),
        ("mostly_ascending", mostly(ascending)),
        ("mostly_descending", mostly(descending)),
        ("random", random_u64s(DEMO_LEN)),
    ];
    for (stable, kind) in [(false, "unstable"), (true, "stable")] {
        for (shape, input) in &demo {
            let name = format!("demo_{kind}_{shape}");
            if wanted(&name) {
                report(&name, row(&ex, &pool, input, stable), rounds * 10);
            }
        }
    }
}

/// The length of rayon-demo's sort inputs.
const DEMO_LEN: usize = 50_000;

/// Runs one row's warm-up round and `rounds` timed rounds, and prints its line.
fn report(name: &str, mut contenders: [Contender<'_>; 3], rounds: usize) {
    for c in contenders.iter_mut() {
        c();
    }
    let mut times = [vec![], vec![], vec![]];
    for round in 0..rounds {
        for k in 0..3 {
            let which = (round + k) % 3;
            times[which].push(contenders[which]().as_secs_f64());
        }
    }
    let [filch, rayon, std] = times.map(|mut t| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    });
    println!(
        "| {name} | {} | {} | {} | {:.2} | {:.2} |",
        fmt_time(filch),
        fmt_time(rayon),
        fmt_time(std),
        filch / rayon,
        filch / std,
    );
}

fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}
