//! Property test over random loop sizes (0..5000), starts (near 0 and near `usize::MAX`) and
//! executor widths (1..=4): every index runs exactly once, `par_map` equals the sequential
//! map and `par_reduce` equals the sequential sum. Executors are started once per width and
//! reused across cases.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::common::{self, mix, named_executor};
use crate::par_common::Counters;
use filch::Executor;
use proptest::prelude::*;

/// One executor per width 1..=4, shared by all cases.
fn executor(workers: usize) -> &'static Executor {
    static EXECUTORS: OnceLock<Vec<Executor>> = OnceLock::new();
    &EXECUTORS.get_or_init(|| (1..=4).map(|w| named_executor(w, "prop")).collect())[workers - 1]
}

/// A loop range of `len` items starting at `k` (near 0) or ending `k` below `usize::MAX`.
fn range(len: usize, k: usize, near_max: bool) -> Range<usize> {
    let start = if near_max { usize::MAX - len - k } else { k };
    start..start + len
}

fn check(workers: usize, range: Range<usize>) {
    let ex = executor(workers);
    let what = format!("{range:?} on {workers} workers");
    let r = range.clone();
    common::watchdog(30, &what.clone(), move || {
        let counters = Counters::new(r.clone());
        let c = Arc::clone(&counters);
        ex.block_on(ex.par_range(r.clone(), move |i| c.hit(i)));
        counters.assert_each_once(&what);

        let v = ex.block_on(filch::par_map(r.clone(), |i| mix(i as u64)));
        let expected: Vec<u64> = r.clone().map(|i| mix(i as u64)).collect();
        assert!(
            v == expected,
            "par_map differs from the sequential map, {what}"
        );

        let sum = ex.block_on(ex.handle().par_reduce(
            r.clone(),
            || 0u128,
            |a, i| a + i as u128,
            |a, b| a + b,
        ));
        assert_eq!(
            sum,
            r.map(|i| i as u128).sum::<u128>(),
            "par_reduce, {what}"
        );
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_index_once_and_sequential_results(
        len in prop_oneof![0usize..8, 0usize..5000],
        k in prop_oneof![Just(0usize), 0usize..4, 0usize..100_000],
        near_max in any::<bool>(),
        workers in 1usize..=4,
    ) {
        check(workers, range(len, k, near_max));
    }
}
