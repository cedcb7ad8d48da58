use filch::par::prelude::*;

#[test]
fn smoke() {
    let v: Vec<u64> = (0..10_000u64).into_par_iter().map(|x| x * 2).collect();
    assert_eq!(v, (0..10_000u64).map(|x| x * 2).collect::<Vec<_>>());
    let s: u64 = v.par_iter().sum();
    assert_eq!(s, (0..10_000u64).map(|x| x * 2).sum());
    let f: Vec<u64> = v.par_iter().copied().filter(|x| x % 3 == 0).collect();
    assert_eq!(
        f,
        v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        (0..1000).into_par_iter().find_first(|&x| x > 500),
        Some(501)
    );
    assert_eq!((0..1000).into_par_iter().find_last(|&x| x < 500), Some(499));
}
