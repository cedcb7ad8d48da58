//! The sorts sort: every length (0, 1, small, across the sequential cut-offs, large), few
//! and many distinct values, pre-sorted runs, reversed input, zero-sized types, a random
//! comparator (no panic, a permutation), and every public sort method against std's.

use std::cmp::Ordering::{self, Equal, Greater, Less};

use filch::par::slice::ParallelSliceMut;

use crate::slice_common::Rng;

// origin: rayon src/slice/test.rs (the `sort!` macro: test_par_sort, test_par_sort_unstable)
macro_rules! sort {
    ($f:ident, $name:ident) => {
        #[test]
        fn $name() {
            let rng = &mut Rng::new(stringify!($name).len() as u64);

            for len in (0..25).chain(500..501) {
                for &modulus in &[5, 10, 100] {
                    for _ in 0..100 {
                        let v: Vec<i32> = rng
                            .values(len, modulus)
                            .into_iter()
                            .map(|x| x as i32)
                            .collect();

                        // Sort using the `<` order.
                        let mut tmp = v.clone();
                        tmp.$f(|a, b| a.cmp(b));
                        assert!(tmp.windows(2).all(|w| w[0] <= w[1]));

                        // Sort using the `>` order.
                        let mut tmp = v.clone();
                        tmp.$f(|a, b| b.cmp(a));
                        assert!(tmp.windows(2).all(|w| w[0] >= w[1]));
                    }
                }
            }

            // Many duplicates.
            for &len in &[1_000, 10_000, 100_000] {
                for &modulus in &[5, 10, 100, 10_000] {
                    let mut v = rng.values(len, modulus);
                    v.$f(|a, b| a.cmp(b));
                    assert!(v.windows(2).all(|w| w[0] <= w[1]));
                }
            }

            // Many pre-sorted runs: a reversed sorted slice with a few stretches reversed
            // back or pairs swapped.
            for &len in &[1_000, 10_000, 100_000] {
                for &modulus in &[5, 10, 1000, 50_000] {
                    let mut v = rng.values(len, modulus);
                    v.sort();
                    v.reverse();
                    for _ in 0..5 {
                        let a = rng.below(len as u64) as usize;
                        let b = rng.below(len as u64) as usize;
                        if a < b {
                            v[a..b].reverse();
                        } else {
                            v.swap(a, b);
                        }
                    }
                    v.$f(|a, b| a.cmp(b));
                    assert!(v.windows(2).all(|w| w[0] <= w[1]));
                }
            }

            // A random comparison: the elements end in some order, without a panic.
            let mut v: Vec<usize> = (0..100).collect();
            let coin = std::sync::Mutex::new(Rng::new(7));
            v.$f(|_, _| [Less, Equal, Greater][coin.lock().unwrap().below(3) as usize]);
            v.$f(|a, b| a.cmp(b));
            for (i, x) in v.iter().enumerate() {
                assert_eq!(*x, i);
            }

            // Must not panic.
            [0i32; 0].$f(|a, b| a.cmp(b));
            [(); 10].$f(|a, b| a.cmp(b));
            [(); 100].$f(|a, b| a.cmp(b));

            let mut v = [0xDEAD_BEEFu64];
            v.$f(|a, b| a.cmp(b));
            assert!(v == [0xDEAD_BEEF]);
        }
    };
}

sort!(par_sort_by, test_par_sort);
sort!(par_sort_unstable_by, test_par_sort_unstable);

/// Every public sort method gives std's result (for the stable ones, exactly std's order).
#[test]
fn every_method_matches_std() {
    let mut rng = Rng::new(11);
    let lens = [
        0, 1, 2, 3, 20, 2047, 2048, 2049, 4095, 4096, 4097, 8193, 16_385, 24_577,
    ];
    for len in lens {
        for modulus in [3, 1000, u64::MAX] {
            let input: Vec<(u64, u32)> = rng.values(len, modulus).into_iter().zip(0..).collect();
            let key = |p: &(u64, u32)| p.0;
            let by_key = |a: &(u64, u32), b: &(u64, u32)| a.0.cmp(&b.0);

            let mut expected = input.clone();
            expected.sort();
            let mut v = input.clone();
            v.par_sort();
            assert_eq!(v, expected, "par_sort, len {len}");
            let mut v = input.clone();
            v.par_sort_unstable();
            assert_eq!(v, expected, "par_sort_unstable, len {len}");
            let mut v = input.clone();
            v.par_sort_unstable_by(|a, b| a.cmp(b));
            assert_eq!(v, expected, "par_sort_unstable_by, len {len}");

            // The stable ones by the key alone: std's stable order.
            let mut expected = input.clone();
            expected.sort_by_key(key);
            let mut v = input.clone();
            v.par_sort_by(by_key);
            assert_eq!(v, expected, "par_sort_by, len {len}");
            let mut v = input.clone();
            v.par_sort_by_key(key);
            assert_eq!(v, expected, "par_sort_by_key, len {len}");
            let mut v = input.clone();
            v.par_sort_by_cached_key(key);
            assert_eq!(v, expected, "par_sort_by_cached_key, len {len}");

            // The unstable ones by the key: sorted by key, a permutation.
            let mut v = input.clone();
            v.par_sort_unstable_by_key(key);
            assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
            v.sort();
            let mut all = input.clone();
            all.sort();
            assert_eq!(
                v, all,
                "par_sort_unstable_by_key is a permutation, len {len}"
            );
        }
    }
}

/// Inputs with a shape: sorted, reversed, all equal, two values, sawtooth, organ pipe,
/// sorted with a few swaps, on both sorts, with each element a `String` (it owns memory:
/// a duplicate or a loss would show as a double free or a wrong result).
#[test]
fn patterns_with_owned_elements() {
    let n = 60_000u64;
    let mut rng = Rng::new(12);
    let mut swapped: Vec<u64> = (0..n).collect();
    for _ in 0..10 {
        let (a, b) = (rng.below(n) as usize, rng.below(n) as usize);
        swapped.swap(a, b);
    }
    let patterns: Vec<(&str, Vec<u64>)> = vec![
        ("sorted", (0..n).collect()),
        ("reversed", (0..n).rev().collect()),
        ("equal", vec![42; n as usize]),
        ("two values", rng.values(n as usize, 2)),
        ("sawtooth", (0..n).map(|i| i % 777).collect()),
        ("organ pipe", (0..n).map(|i| i.min(n - i)).collect()),
        ("sorted, ten swaps", swapped),
    ];
    for (name, values) in patterns {
        let input: Vec<String> = values.iter().map(|x| format!("{x:08}")).collect();
        let mut expected = input.clone();
        expected.sort();
        let mut v = input.clone();
        v.par_sort();
        assert_eq!(v, expected, "par_sort, {name}");
        let mut v = input;
        v.par_sort_unstable();
        assert_eq!(v, expected, "par_sort_unstable, {name}");
    }
}

/// Zero-sized elements, and a comparator that panics if it is ever called, on lengths
/// where no comparison is needed.
#[test]
fn zero_sized_and_trivial_lengths() {
    let never = |_: &(), _: &()| -> Ordering { panic!("no comparison is needed") };
    let mut units = [(); 100_000];
    units.par_sort_by(never);
    units.par_sort_unstable_by(never);
    units.par_sort();
    units.par_sort_unstable();
    assert_eq!(units.len(), 100_000);
    for len in [0, 1] {
        let mut v = vec![1u8; len];
        v.par_sort_by(|_, _| panic!("no comparison is needed"));
        v.par_sort_unstable_by(|_, _| panic!("no comparison is needed"));
        v.par_sort_by_cached_key(|_| -> u8 { panic!("no key is needed") });
    }
}

/// `par_sort_by_cached_key` computes each key once (rayon's documented promise).
#[test]
fn cached_key_computes_each_key_once() {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let mut rng = Rng::new(13);
    let mut v: Vec<i64> = rng
        .values(100_000, 1 << 20)
        .into_iter()
        .map(|x| x as i64 - (1 << 19))
        .collect();
    let mut expected = v.clone();
    expected.sort_by_cached_key(|k| k.to_string());
    let calls = AtomicUsize::new(0);
    v.par_sort_by_cached_key(|k| {
        calls.fetch_add(1, Relaxed);
        k.to_string()
    });
    assert_eq!(calls.into_inner(), 100_000);
    assert_eq!(v, expected);
}
