//! The stable sorts keep equal elements in their order, across every piece and merge.

use filch::par::slice::ParallelSliceMut;

use crate::slice_common::Rng;

// origin: rayon src/slice/test.rs (test_par_sort_stability)
#[test]
fn test_par_sort_stability() {
    let mut rng = Rng::new(21);
    for len in (2..25).chain(500..510).chain(50_000..50_010) {
        for _ in 0..10 {
            let mut counts = [0; 10];

            // A vector like [(6, 1), (5, 1), (6, 2), ...]: the first item of each pair is
            // random, the second counts the occurrences of that first item so far, so the
            // second items of equal first items are in increasing order.
            let mut v: Vec<_> = (0..len)
                .map(|_| {
                    let n = rng.below(10) as usize;
                    counts[n] += 1;
                    (n, counts[n])
                })
                .collect();

            // Sort on the first item only: an unstable sort may mix up the counts.
            v.par_sort_by(|&(a, _), &(b, _)| a.cmp(&b));

            // Comparing whole pairs asserts that equal first items kept their order.
            assert!(v.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}

/// The same for `par_sort_by_key` and `par_sort_by_cached_key`, on lengths that cut the
/// slice into many pieces and merges, with two keys only (every cut falls among equals).
#[test]
fn by_key_and_cached_key_are_stable() {
    let mut rng = Rng::new(22);
    for len in [4097, 20_000, 123_457] {
        let input: Vec<(u64, usize)> = rng.values(len, 2).into_iter().zip(0..).collect();
        let mut v = input.clone();
        v.par_sort_by_key(|p| p.0);
        assert!(
            v.windows(2).all(|w| w[0] < w[1]),
            "par_sort_by_key, len {len}"
        );
        let mut v = input;
        v.par_sort_by_cached_key(|p| p.0);
        assert!(
            v.windows(2).all(|w| w[0] < w[1]),
            "par_sort_by_cached_key, len {len}"
        );
    }
}
