//! A comparison (or key function) that panics partway through a sort: the panic reaches
//! the caller, and every element is dropped exactly once, in its latest version (the copy
//! that was compared last), so the slice was left a permutation of its input.

use std::cell::Cell;
use std::cmp::Ordering;
use std::panic;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::thread;

use filch::par::slice::ParallelSliceMut;

use crate::common::watchdog;
use crate::slice_common::Rng;

/// The longest input: six of the parallel merge sort's 4,096-element chunks, so that its top merges
/// run in parallel; also the size of the drop counters.
const LEN: usize = 24_000;

/// A comparator as the sorts under test take it.
type Compare<'a> = &'a (dyn Fn(&DropCounter, &DropCounter) -> Ordering + Sync);

/// A sort under test: `par_sort_by` or `par_sort_unstable_by`.
type Sort = fn(&mut [DropCounter], Compare<'_>);

/// What one test's elements count: the sum of the versions alive, and each id's drops.
/// Each test has its own, so the tests run side by side.
struct Counters {
    versions: AtomicUsize,
    drops: [AtomicUsize; LEN],
}

impl Counters {
    const fn new() -> Counters {
        Counters {
            versions: AtomicUsize::new(0),
            drops: [const { AtomicUsize::new(0) }; LEN],
        }
    }
}

static SORT_PANIC_SAFE: Counters = Counters::new();
static SORT_PANIC_SAFE_5_000: Counters = Counters::new();
static SORT_PANIC_SAFE_20_000: Counters = Counters::new();
static PARALLEL_PARTS: Counters = Counters::new();

#[derive(Clone)]
struct DropCounter {
    x: u32,
    id: usize,
    version: Cell<usize>,
    counters: &'static Counters,
}

impl Eq for DropCounter {}

impl PartialEq for DropCounter {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

#[allow(clippy::non_canonical_partial_ord_impl)]
impl PartialOrd for DropCounter {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.version.set(self.version.get() + 1);
        other.version.set(other.version.get() + 1);
        self.counters.versions.fetch_add(2, Relaxed);
        self.x.partial_cmp(&other.x)
    }
}

impl Ord for DropCounter {
    fn cmp(&self, other: &Self) -> Ordering {
        self.partial_cmp(other).unwrap()
    }
}

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.counters.drops[self.id].fetch_add(1, Relaxed);
        self.counters
            .versions
            .fetch_sub(self.version.get(), Relaxed);
    }
}

thread_local!(static SILENCE_PANIC: Cell<bool> = const { Cell::new(false) });

/// Installs (once) a panic hook that stays quiet for the panics these tests provoke.
fn quiet_provoked_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !SILENCE_PANIC.get() {
                prev(info);
            }
        }));
    });
}

/// Sorts `input` with `sort`, panicking at the `k`-th comparison for `k` stepping down from
/// the number a whole sort makes, `steps` times (every comparison if `steps` is 0); checks
/// that the sort panicked, that each element was dropped once, and in its latest version.
fn panic_at_each_step(input: &[DropCounter], sort: Sort, steps: usize) {
    let len = input.len();
    let Some(counters) = input.first().map(|c| c.counters) else {
        panic!("an empty input has no comparison to panic at");
    };
    // The number of comparisons a whole sort makes.
    let count = AtomicUsize::new(0);
    sort(&mut input.to_owned(), &|a, b| {
        count.fetch_add(1, Relaxed);
        a.cmp(b)
    });
    let mut panic_countdown = count.load(Relaxed);
    let step = panic_countdown.checked_div(steps).unwrap_or(1).max(1);

    // Then panic after each `step` comparisons.
    while panic_countdown > 0 {
        counters.versions.store(0, Relaxed);
        for counter in counters.drops.iter().take(len) {
            counter.store(0, Relaxed);
        }

        let v = input.to_owned();
        let outcome = thread::spawn(move || {
            let mut v = v;
            let countdown = AtomicUsize::new(panic_countdown);
            sort(&mut v, &|a, b| {
                if countdown.fetch_sub(1, Relaxed) == 1 {
                    SILENCE_PANIC.set(true);
                    panic!("provoked");
                }
                a.cmp(b)
            });
        })
        .join();
        assert!(outcome.is_err(), "the panic reaches the caller (len {len})");

        // Exactly what was in `v` was dropped.
        for (i, c) in counters.drops.iter().enumerate().take(len) {
            let count = c.load(Relaxed);
            assert!(
                count == 1,
                "found drop count == {count} for i == {i}, len == {len}"
            );
        }
        // The latest versions of the values were dropped.
        assert_eq!(counters.versions.load(Relaxed), 0);

        panic_countdown = panic_countdown.saturating_sub(step);
    }
}

fn stable(v: &mut [DropCounter], compare: Compare<'_>) {
    v.par_sort_by(compare);
}

fn unstable(v: &mut [DropCounter], compare: Compare<'_>) {
    v.par_sort_unstable_by(compare);
}

fn counters(
    counters: &'static Counters,
    rng: &mut Rng,
    len: usize,
    modulus: u64,
    has_runs: bool,
) -> Vec<DropCounter> {
    let mut input: Vec<DropCounter> = (0..len)
        .map(|id| DropCounter {
            x: rng.below(modulus) as u32,
            id,
            version: Cell::new(0),
            counters,
        })
        .collect();
    if has_runs {
        for c in &mut input {
            c.x = c.id as u32;
        }
        for _ in 0..5 {
            let a = rng.below(len as u64) as usize;
            let b = rng.below(len as u64) as usize;
            if a < b {
                input[a..b].reverse();
            } else {
                input.swap(a, b);
            }
        }
    }
    input
}

// origin: rayon tests/sort-panic-safe.rs (its lengths up to 500; the longer ones below)
#[test]
fn sort_panic_safe() {
    sort_panic_safe_over(
        "sort_panic_safe",
        &SORT_PANIC_SAFE,
        51,
        &[1, 2, 3, 4, 5, 10, 20, 100, 500],
    );
}

// origin: rayon tests/sort-panic-safe.rs (its length 5,000)
#[test]
fn sort_panic_safe_5_000() {
    sort_panic_safe_over(
        "sort_panic_safe_5_000",
        &SORT_PANIC_SAFE_5_000,
        53,
        &[5_000],
    );
}

// origin: rayon tests/sort-panic-safe.rs (its length 20,000)
#[test]
fn sort_panic_safe_20_000() {
    sort_panic_safe_over(
        "sort_panic_safe_20_000",
        &SORT_PANIC_SAFE_20_000,
        54,
        &[20_000],
    );
}

/// rayon's scenario over `lens`: for each length, key modulus and with or without runs, both
/// sorts panic at every comparison (lengths up to 100) or at ten points spread over the
/// sort. The lengths are split over three tests so that they run side by side.
fn sort_panic_safe_over(
    name: &str,
    counters_of_test: &'static Counters,
    seed: u64,
    lens: &'static [usize],
) {
    quiet_provoked_panics();
    watchdog(600, name, move || {
        let mut rng = Rng::new(seed);
        for &len in lens {
            for &modulus in &[5, 30, 1_000, 20_000] {
                for &has_runs in &[false, true] {
                    let input = counters(counters_of_test, &mut rng, len, modulus, has_runs);
                    let steps = if len <= 100 { 0 } else { 10 };
                    panic_at_each_step(&input, stable, steps);
                    panic_at_each_step(&input, unstable, steps);
                }
            }
        }
    });
}

/// Longer slices, so that a panic falls in every part of the parallel sorts: the pieces,
/// the parallel merges and their fast paths (two halves already in order, or in reverse
/// order), the partitions.
#[test]
fn panics_in_the_parallel_parts() {
    quiet_provoked_panics();
    watchdog(600, "panics_in_the_parallel_parts", || {
        let mut rng = Rng::new(52);
        let random = counters(&PARALLEL_PARTS, &mut rng, LEN, 1 << 20, false);
        let few = counters(&PARALLEL_PARTS, &mut rng, LEN, 3, false);
        // The upper half first, each half sorted: the top merge moves the halves only.
        let swapped_halves: Vec<DropCounter> = (0..LEN)
            .map(|id| DropCounter {
                x: ((id + LEN / 2) % LEN) as u32,
                id,
                version: Cell::new(0),
                counters: &PARALLEL_PARTS,
            })
            .collect();
        for input in [&random, &few, &swapped_halves] {
            panic_at_each_step(input, stable, 19);
            panic_at_each_step(input, unstable, 19);
        }
    });
}

/// A key function that panics: `par_sort_by_cached_key` leaves the slice as it was, and
/// drops every key it made exactly once; the other key sorts leave a permutation.
#[test]
fn key_function_panics() {
    quiet_provoked_panics();
    static KEYS_MADE: AtomicUsize = AtomicUsize::new(0);
    static KEYS_DROPPED: AtomicUsize = AtomicUsize::new(0);
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Key(u64);
    impl Drop for Key {
        fn drop(&mut self) {
            KEYS_DROPPED.fetch_add(1, Relaxed);
        }
    }
    watchdog(300, "key_function_panics", || {
        let input = Rng::new(53).values(30_000, 1000);
        for at in [1, 2, 1000, 15_000, 29_999, 30_000] {
            KEYS_MADE.store(0, Relaxed);
            KEYS_DROPPED.store(0, Relaxed);
            let v = input.clone();
            let outcome = thread::spawn(move || {
                let mut v = v;
                let countdown = AtomicUsize::new(at);
                let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
                    v.par_sort_by_cached_key(|x| {
                        if countdown.fetch_sub(1, Relaxed) == 1 {
                            SILENCE_PANIC.set(true);
                            panic!("provoked");
                        }
                        KEYS_MADE.fetch_add(1, Relaxed);
                        Key(*x)
                    })
                }));
                (result.is_err(), v)
            })
            .join()
            .unwrap();
            assert!(outcome.0, "the panic reaches the caller");
            assert_eq!(outcome.1, input, "the slice is as it was");
            assert_eq!(
                KEYS_DROPPED.load(Relaxed),
                KEYS_MADE.load(Relaxed),
                "every key made is dropped once"
            );

            for sort in [
                |v: &mut [u64], f: &(dyn Fn(&u64) -> u64 + Sync)| v.par_sort_by_key(f),
                |v: &mut [u64], f: &(dyn Fn(&u64) -> u64 + Sync)| v.par_sort_unstable_by_key(f),
            ] {
                let mut v = input.clone();
                let countdown = AtomicUsize::new(at);
                let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
                    sort(&mut v, &|x| {
                        if countdown.fetch_sub(1, Relaxed) == 1 {
                            SILENCE_PANIC.set(true);
                            panic!("provoked");
                        }
                        *x
                    })
                }));
                assert!(result.is_err());
                v.sort();
                let mut all = input.clone();
                all.sort();
                assert_eq!(v, all, "a permutation");
            }
        }
    });
}
