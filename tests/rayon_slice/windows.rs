//! `par_windows` and `par_array_windows` yield std's windows in order, for every length and
//! window size, however the work is split.

use filch::par::prelude::*;

#[test]
fn windows_match_std() {
    let data: Vec<u32> = (0..30).collect();
    for len in 0..=data.len() {
        let v = &data[..len];
        for size in 1..=len + 2 {
            let want: Vec<&[u32]> = v.windows(size).collect();
            assert_eq!(v.par_windows(size).len(), want.len());
            assert_eq!(v.par_windows(size).collect::<Vec<_>>(), want);
            assert_eq!(
                v.par_windows(size).with_max_len(1).collect::<Vec<_>>(),
                want
            );
            let rev: Vec<&[u32]> = v.par_windows(size).with_max_len(1).rev().collect();
            assert!(rev.iter().eq(want.iter().rev()));
        }
        let want: Vec<&[u32; 3]> = v.windows(3).map(|w| w.try_into().unwrap()).collect();
        assert_eq!(v.par_array_windows::<3>().len(), want.len());
        let got: Vec<&[u32; 3]> = v.par_array_windows().with_max_len(1).collect();
        assert_eq!(got, want);
        let got: Vec<&[u32; 1]> = v.par_array_windows().collect();
        assert_eq!(got.len(), len);
    }
}

#[test]
fn large_windows_in_order() {
    let v: Vec<u64> = (0..1_000_000).collect();
    let sums: Vec<u64> = v.par_windows(3).map(|w| w.iter().sum()).collect();
    assert_eq!(sums.len(), 999_998);
    assert!(sums.iter().enumerate().all(|(i, s)| *s == 3 * i as u64 + 3));
    let pairs: u64 = v.par_array_windows().map(|[a, b]| b - a).sum();
    assert_eq!(pairs, 999_999);
}

#[test]
#[should_panic(expected = "window size must be non-zero")]
fn window_size_zero_panics() {
    let _ = [1, 2, 3].par_windows(0);
}

#[test]
#[should_panic(expected = "window size must be non-zero")]
fn array_window_size_zero_panics() {
    let _ = [1, 2, 3].par_array_windows::<0>();
}
