//! The slices' `par_split`, `par_split_inclusive` and their `_mut` forms yield std's pieces
//! in order, on short and long slices; `par_split` tests each element once.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use filch::par::prelude::*;

use crate::slice_common::Rng;

#[test]
fn short_slices_match_std() {
    let inputs: [&[u32]; 9] = [
        &[],
        &[0],
        &[1],
        &[0, 0],
        &[1, 0, 1],
        &[0, 1, 1, 0],
        &[1, 2, 3, 0, 2, 4, 8, 0, 3, 6, 9],
        &[0, 0, 0, 0, 7],
        &[7, 0, 0, 0, 0],
    ];
    for v in inputs {
        let sep = |x: &u32| *x == 0;
        assert_eq!(
            v.par_split(sep).collect::<Vec<_>>(),
            v.split(sep).collect::<Vec<_>>()
        );
        assert_eq!(
            v.par_split_inclusive(sep).collect::<Vec<_>>(),
            v.split_inclusive(sep).collect::<Vec<_>>()
        );
        let (mut a, mut b) = (v.to_vec(), v.to_vec());
        let par: Vec<&mut [u32]> = a.par_split_mut(sep).collect();
        assert_eq!(par, b.split_mut(sep).collect::<Vec<_>>());
        let par: Vec<&mut [u32]> = a.par_split_inclusive_mut(sep).collect();
        assert_eq!(par, b.split_inclusive_mut(sep).collect::<Vec<_>>());
    }
}

#[test]
fn long_slices_match_std() {
    let mut rng = Rng::new(71);
    let inputs: Vec<Vec<u64>> = vec![
        rng.values(300_000, 3),
        rng.values(300_000, 5000),
        vec![0; 50_000],
        vec![1; 50_000],
    ];
    for v in &inputs {
        let count = AtomicUsize::new(0);
        let sep = |x: &u64| {
            count.fetch_add(1, Relaxed);
            *x == 0
        };
        let par: Vec<&[u64]> = v.par_split(sep).collect();
        assert_eq!(count.swap(0, Relaxed), v.len(), "each element tested once");
        assert_eq!(par, v.split(|x| *x == 0).collect::<Vec<_>>());
        // An inclusive split may test again the separator that ends a sequential piece's
        // stretch (rayon's does too): at most once more per piece.
        let par: Vec<&[u64]> = v.par_split_inclusive(sep).collect();
        let calls = count.swap(0, Relaxed);
        assert!(
            calls >= v.len() && calls <= v.len() + par.len(),
            "{calls} tests"
        );
        assert_eq!(par, v.split_inclusive(|x| *x == 0).collect::<Vec<_>>());

        let mut w = v.clone();
        w.par_split_mut(|x| *x == 0)
            .for_each(|piece| piece.reverse());
        let mut want = v.clone();
        want.split_mut(|x| *x == 0)
            .for_each(|piece| piece.reverse());
        assert_eq!(w, want);
        let mut w = v.clone();
        w.par_split_inclusive_mut(|x| *x == 0)
            .for_each(|piece| piece.reverse());
        let mut want = v.clone();
        want.split_inclusive_mut(|x| *x == 0)
            .for_each(|piece| piece.reverse());
        assert_eq!(w, want);
    }
}

/// Short-circuiting consumers stop early and still give std's answer.
#[test]
fn find_first_and_any_on_pieces() {
    let v: Vec<u64> = (0..100_000).map(|i| i % 100).collect();
    let first = v.par_split(|x| *x == 0).find_first(|p| p.len() == 99);
    assert_eq!(first, v.split(|x| *x == 0).find(|p| p.len() == 99));
    let any = v.par_split(|x| *x == 0).find_any(|p| p.first() == Some(&1));
    assert!(any.is_some());
    assert_eq!(v.par_split(|x| *x == 0).count(), 1001);
}
