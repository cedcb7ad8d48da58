//! rayon-core's own tests of `join` and `join_context` (rayon-core 1.13.0,
//! `src/join/test.rs`), ported to `filch::par`. rayon's "no pool" is filch's global executor
//! (the tests run on a thread outside every executor); rayon's `ThreadPool` is filch's.
//!
//! Adapted: rayon's seeded `XorShiftRng` data is SplitMix data (`common::mix`); each test runs
//! under the watchdog; the panic tests also count the drops of what the closures own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Barrier;

use filch::par::{join, join_context, ThreadPoolBuilder};

use crate::common::{mix, panic_message, watchdog, Tally};

fn quick_sort<T: PartialOrd + Send>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }

    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    join(|| quick_sort(lo), || quick_sort(hi));
}

fn partition<T: PartialOrd + Send>(v: &mut [T]) -> usize {
    let pivot = v.len() - 1;
    let mut i = 0;
    for j in 0..pivot {
        if v[j] <= v[pivot] {
            v.swap(i, j);
            i += 1;
        }
    }
    v.swap(i, pivot);
    i
}

/// `n` pseudo-random values, the same on every run (rayon's `seeded_rng` samples).
fn seeded_data(n: usize) -> Vec<u32> {
    (0..n as u64).map(|i| mix(i) as u32).collect()
}

// origin: rayon-core src/join/test.rs::sort
#[test]
fn sort() {
    watchdog(60, "sort", || {
        let mut data = seeded_data(6 * 1024);
        let mut sorted_data = data.clone();
        sorted_data.sort();
        quick_sort(&mut data);
        assert_eq!(data, sorted_data);
    });
}

// origin: rayon-core src/join/test.rs::sort_in_pool
#[test]
fn sort_in_pool() {
    watchdog(60, "sort_in_pool", || {
        let mut data = seeded_data(12 * 1024);

        let pool = ThreadPoolBuilder::new().build().unwrap();
        let mut sorted_data = data.clone();
        sorted_data.sort();
        pool.install(|| quick_sort(&mut data));
        assert_eq!(data, sorted_data);
    });
}

// origin: rayon-core src/join/test.rs::panic_propagate_a
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_a() {
    watchdog(60, "panic_propagate_a", || {
        join(|| panic!("Hello, world!"), || ());
    });
}

// origin: rayon-core src/join/test.rs::panic_propagate_b
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_b() {
    watchdog(60, "panic_propagate_b", || {
        join(|| (), || panic!("Hello, world!"));
    });
}

// origin: rayon-core src/join/test.rs::panic_propagate_both
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_both() {
    watchdog(60, "panic_propagate_both", || {
        join(|| panic!("Hello, world!"), || panic!("Goodbye, world!"));
    });
}

// origin: rayon-core src/join/test.rs::panic_b_still_executes
#[test]
fn panic_b_still_executes() {
    watchdog(60, "panic_b_still_executes", || {
        let tally = Tally::new();
        let (a_owns, b_owns) = (tally.probe(), tally.probe());
        let mut x = false;
        let result = catch_unwind(AssertUnwindSafe(|| {
            join(
                move || {
                    let _owned = a_owns;
                    panic!("Hello, world!")
                },
                || {
                    let _owned = b_owns;
                    x = true
                },
            )
        }));
        match result {
            Ok(_) => panic!("failed to propagate panic from closure A,"),
            Err(payload) => {
                assert_eq!(panic_message(&*payload), "Hello, world!");
                assert!(x, "closure b failed to execute");
            }
        }
        tally.assert_all_dropped_once("panic_b_still_executes");
    });
}

// origin: rayon-core src/join/test.rs::join_context_both
#[test]
fn join_context_both() {
    watchdog(60, "join_context_both", || {
        // If we're not in a pool, both should be marked stolen as they're injected.
        let (a_migrated, b_migrated) = join_context(|a| a.migrated(), |b| b.migrated());
        assert!(a_migrated);
        assert!(b_migrated);
    });
}

// origin: rayon-core src/join/test.rs::join_context_neither
#[test]
fn join_context_neither() {
    watchdog(60, "join_context_neither", || {
        // If we're already in a 1-thread pool, neither job should be stolen.
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (a_migrated, b_migrated) =
            pool.install(|| join_context(|a| a.migrated(), |b| b.migrated()));
        assert!(!a_migrated);
        assert!(!b_migrated);
    });
}

// origin: rayon-core src/join/test.rs::join_context_second
#[test]
fn join_context_second() {
    watchdog(60, "join_context_second", || {
        // If we're already in a 2-thread pool, the second job should be stolen.
        let barrier = Barrier::new(2);
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (a_migrated, b_migrated) = pool.install(|| {
            join_context(
                |a| {
                    barrier.wait();
                    a.migrated()
                },
                |b| {
                    barrier.wait();
                    b.migrated()
                },
            )
        });
        assert!(!a_migrated);
        assert!(b_migrated);
    });
}

// origin: rayon-core src/join/test.rs::join_counter_overflow
#[test]
fn join_counter_overflow() {
    watchdog(300, "join_counter_overflow", || {
        // rayon's 500_000 guards a 32-bit counter of its own; filch has none, and 20_000
        // calls from outside the pool (each an injected call) hammer the same path.
        const MAX: u32 = 20_000;

        let mut i = 0;
        let mut j = 0;
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();

        // Hammer on join a bunch of times -- used to hit overflow debug-assertions
        // in JEC on 32-bit targets: https://github.com/rayon-rs/rayon/issues/797
        for _ in 0..MAX {
            pool.join(|| i += 1, || j += 1);
        }

        assert_eq!(i, MAX);
        assert_eq!(j, MAX);
    });
}
