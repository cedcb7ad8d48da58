//! `par_chunk_by` and `par_chunk_by_mut` yield std's runs in order, testing each pair of
//! neighbours once.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use filch::par::prelude::*;

use crate::slice_common::Rng;

// origin: rayon src/slice/test.rs (slice_chunk_by)
#[test]
fn slice_chunk_by() {
    let v: Vec<_> = (0..1000).collect();
    assert_eq!(v[..0].par_chunk_by(|_, _| todo!()).count(), 0);
    assert_eq!(v[..1].par_chunk_by(|_, _| todo!()).count(), 1);
    assert_eq!(v[..2].par_chunk_by(|_, _| true).count(), 1);
    assert_eq!(v[..2].par_chunk_by(|_, _| false).count(), 2);

    let count = AtomicUsize::new(0);
    let par: Vec<_> = v
        .par_chunk_by(|x, y| {
            count.fetch_add(1, Relaxed);
            (x % 10 < 3) == (y % 10 < 3)
        })
        .collect();
    assert_eq!(count.into_inner(), v.len() - 1);

    let seq: Vec<_> = v.chunk_by(|x, y| (x % 10 < 3) == (y % 10 < 3)).collect();
    assert_eq!(par, seq);
}

// origin: rayon src/slice/test.rs (slice_chunk_by_mut)
#[test]
fn slice_chunk_by_mut() {
    let mut v: Vec<_> = (0..1000).collect();
    assert_eq!(v[..0].par_chunk_by_mut(|_, _| todo!()).count(), 0);
    assert_eq!(v[..1].par_chunk_by_mut(|_, _| todo!()).count(), 1);
    assert_eq!(v[..2].par_chunk_by_mut(|_, _| true).count(), 1);
    assert_eq!(v[..2].par_chunk_by_mut(|_, _| false).count(), 2);

    let mut v2 = v.clone();
    let count = AtomicUsize::new(0);
    let par: Vec<_> = v
        .par_chunk_by_mut(|x, y| {
            count.fetch_add(1, Relaxed);
            (x % 10 < 3) == (y % 10 < 3)
        })
        .collect();
    assert_eq!(count.into_inner(), v2.len() - 1);

    let seq: Vec<_> = v2
        .chunk_by_mut(|x, y| (x % 10 < 3) == (y % 10 < 3))
        .collect();
    assert_eq!(par, seq);
}

/// Long slices with runs of every length, including one run of the whole slice and runs
/// of one element: std's runs, each pair tested once.
#[test]
fn long_slices_match_std() {
    let mut rng = Rng::new(61);
    let inputs: Vec<Vec<u64>> = vec![
        rng.values(200_000, 2),
        rng.values(200_000, 1000),
        vec![5; 100_000],
        (0..100_000).collect(),
    ];
    for v in &inputs {
        let count = AtomicUsize::new(0);
        let par: Vec<&[u64]> = v
            .par_chunk_by(|a, b| {
                count.fetch_add(1, Relaxed);
                a <= b
            })
            .collect();
        assert_eq!(count.into_inner(), v.len() - 1);
        assert_eq!(par, v.chunk_by(|a, b| a <= b).collect::<Vec<_>>());
        let mut w = v.clone();
        w.par_chunk_by_mut(|a, b| a == b)
            .for_each(|run| run[0] += 1);
        let mut want = v.clone();
        want.chunk_by_mut(|a, b| a == b).for_each(|run| run[0] += 1);
        assert_eq!(w, want);
    }
}
