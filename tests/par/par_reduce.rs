//! `par_reduce` computes exact results for associative and commutative reductions (`u64`
//! and `u128` sums, counts, min, max, a collected set), starts every partial result from
//! `identity()` (a non-neutral-looking identity such as `u64::MAX` for `min` is honoured),
//! and calls `reduce` only on values made by `identity`/`fold`/`reduce`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{mix, named_executor, watchdog};

#[test]
fn sums_are_exact() {
    watchdog(60, "sums_are_exact", || {
        for workers in [1, 2, 3] {
            let ex = named_executor(workers, "reduce-sum");
            for n in [1usize, 2, 3, 7, 64, 1000, 4099, 100_003] {
                let what = format!("0..{n} on {workers} workers");
                let sum = ex.block_on(ex.par_reduce(
                    0..n,
                    || 0u64,
                    |acc, i| acc + i as u64,
                    |a, b| a + b,
                ));
                assert_eq!(sum, (n as u64 - 1) * n as u64 / 2, "u64 sum, {what}");

                let sum = ex.block_on(filch::par_reduce(
                    0..n,
                    || 0u128,
                    |acc, i| acc + u128::from(mix(i as u64)),
                    |a, b| a + b,
                ));
                let expected: u128 = (0..n as u64).map(|i| u128::from(mix(i))).sum();
                assert_eq!(sum, expected, "u128 sum of hashes, {what}");

                let hashes = ex.block_on(ex.par_reduce(
                    0..n,
                    || 0u64,
                    |acc, i| acc.wrapping_add(mix(i as u64)),
                    u64::wrapping_add,
                ));
                let expected = (0..n as u64).fold(0u64, |a, i| a.wrapping_add(mix(i)));
                assert_eq!(hashes, expected, "wrapping u64 sum, {what}");
            }
        }
    });
}

#[test]
fn identity_starts_every_partial() {
    watchdog(60, "identity_starts_every_partial", || {
        for workers in [1, 2, 3] {
            let ex = named_executor(workers, "reduce-id");
            let what = format!("{workers} workers");
            let n = 50_000;
            // min with identity u64::MAX: a Default-started partial (0) would win.
            let min = ex.block_on(ex.par_reduce(
                10..n,
                || u64::MAX,
                |acc, i| acc.min(mix(i as u64) | 1),
                u64::min,
            ));
            let expected = (10..n as u64).map(|i| mix(i) | 1).min().unwrap();
            assert_eq!(min, expected, "min, {what}");

            let max = ex.block_on(ex.par_reduce(
                0..n,
                || i64::MIN,
                |acc, i| acc.max(-(i as i64)),
                i64::max,
            ));
            assert_eq!(max, 0, "max, {what}");

            // Every identity() is a fresh empty Vec; together the partials hold each index once.
            let identities = Arc::new(AtomicUsize::new(0));
            let ids = Arc::clone(&identities);
            let mut all = ex.block_on(ex.par_reduce(
                0..n,
                move || {
                    ids.fetch_add(1, Ordering::SeqCst);
                    Vec::new()
                },
                |mut acc: Vec<usize>, i| {
                    acc.push(i);
                    acc
                },
                |mut a, mut b| {
                    a.append(&mut b);
                    a
                },
            ));
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "collected, {what}");
            assert!(
                identities.load(Ordering::SeqCst) >= 1,
                "identity never called"
            );

            // identity() is the only source of tags and reduce adds them, so the result
            // carries one tag per partial result that was combined: at least one, and no more
            // than identity() was called.
            let identities = Arc::new(AtomicUsize::new(0));
            let ids = Arc::clone(&identities);
            let (sum, tags) = ex.block_on(ex.par_reduce(
                0..n,
                move || {
                    ids.fetch_add(1, Ordering::SeqCst);
                    (0u64, 1u64)
                },
                |(s, t), i| (s + i as u64, t),
                |(s1, t1), (s2, t2)| (s1 + s2, t1 + t2),
            ));
            assert_eq!(sum, (n as u64 - 1) * n as u64 / 2, "tagged sum, {what}");
            let calls = identities.load(Ordering::SeqCst) as u64;
            assert!(
                (1..=calls).contains(&tags),
                "{tags} partial results combined, {calls} identity() calls, {what}"
            );
        }
    });
}
