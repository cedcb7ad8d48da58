//! The chunk iterators (`par_chunks`, `par_chunks_exact`, `par_rchunks`,
//! `par_rchunks_exact` and the `_mut` forms) yield std's chunks in std's order, for every
//! length and chunk size, however the work is split; the exact ones keep their remainder.

use filch::par::prelude::*;

// origin: rayon src/slice/test.rs (test_par_chunks_exact_remainder)
#[test]
fn test_par_chunks_exact_remainder() {
    let v: &[i32] = &[0, 1, 2, 3, 4];
    let c = v.par_chunks_exact(2);
    assert_eq!(c.remainder(), &[4]);
    assert_eq!(c.len(), 2);
}

// origin: rayon src/slice/test.rs (test_par_chunks_exact_mut_remainder)
#[test]
fn test_par_chunks_exact_mut_remainder() {
    let v: &mut [i32] = &mut [0, 1, 2, 3, 4];
    let mut c = v.par_chunks_exact_mut(2);
    assert_eq!(c.remainder(), &[4]);
    assert_eq!(c.len(), 2);
    assert_eq!(c.into_remainder(), &[4]);

    let mut c = v.par_chunks_exact_mut(2);
    assert_eq!(c.take_remainder(), &[4]);
    assert_eq!(c.take_remainder(), &[] as &[i32]);
    assert_eq!(c.len(), 2);
}

// origin: rayon src/slice/test.rs (test_par_rchunks_exact_remainder)
#[test]
fn test_par_rchunks_exact_remainder() {
    let v: &[i32] = &[0, 1, 2, 3, 4];
    let c = v.par_rchunks_exact(2);
    assert_eq!(c.remainder(), &[0]);
    assert_eq!(c.len(), 2);
}

// origin: rayon src/slice/test.rs (test_par_rchunks_exact_mut_remainder)
#[test]
fn test_par_rchunks_exact_mut_remainder() {
    let v: &mut [i32] = &mut [0, 1, 2, 3, 4];
    let mut c = v.par_rchunks_exact_mut(2);
    assert_eq!(c.remainder(), &[0]);
    assert_eq!(c.len(), 2);
    assert_eq!(c.into_remainder(), &[0]);

    let mut c = v.par_rchunks_exact_mut(2);
    assert_eq!(c.take_remainder(), &[0]);
    assert_eq!(c.take_remainder(), &[] as &[i32]);
    assert_eq!(c.len(), 2);
}

/// Every shared chunk iterator, against std's, on lengths 0..40 and sizes 1..12 (and a
/// size beyond the length), one item per piece (`with_max_len(1)`) and unbounded.
#[test]
fn shared_chunks_match_std() {
    let data: Vec<u32> = (0..40).collect();
    for len in 0..=data.len() {
        let v = &data[..len];
        for size in (1..12).chain([len + 1]) {
            let std_chunks: Vec<&[u32]> = v.chunks(size).collect();
            assert_eq!(v.par_chunks(size).len(), std_chunks.len());
            assert_eq!(v.par_chunks(size).collect::<Vec<_>>(), std_chunks);
            assert_eq!(
                v.par_chunks(size).with_max_len(1).collect::<Vec<_>>(),
                std_chunks
            );
            let std_exact: Vec<&[u32]> = v.chunks_exact(size).collect();
            let exact = v.par_chunks_exact(size);
            assert_eq!(exact.remainder(), v.chunks_exact(size).remainder());
            assert_eq!(exact.len(), std_exact.len());
            assert_eq!(exact.with_max_len(1).collect::<Vec<_>>(), std_exact);
            let std_r: Vec<&[u32]> = v.rchunks(size).collect();
            assert_eq!(v.par_rchunks(size).len(), std_r.len());
            assert_eq!(
                v.par_rchunks(size).with_max_len(1).collect::<Vec<_>>(),
                std_r
            );
            let std_r_exact: Vec<&[u32]> = v.rchunks_exact(size).collect();
            let r_exact = v.par_rchunks_exact(size);
            assert_eq!(r_exact.remainder(), v.rchunks_exact(size).remainder());
            assert_eq!(r_exact.len(), std_r_exact.len());
            assert_eq!(r_exact.with_max_len(1).collect::<Vec<_>>(), std_r_exact);
            // Indexed adaptors on top: reversed, enumerated.
            let rev: Vec<&[u32]> = v.par_chunks(size).rev().collect();
            assert!(rev.iter().eq(std_chunks.iter().rev()));
            let indexed: Vec<(usize, &[u32])> = v.par_rchunks(size).enumerate().collect();
            assert_eq!(
                indexed,
                std_r.iter().copied().enumerate().collect::<Vec<_>>()
            );
        }
    }
}

/// The mutable ones: each element is reached once, through std's chunk, in place.
#[test]
fn mutable_chunks_match_std() {
    for len in 0..40usize {
        for size in (1..12).chain([len + 1]) {
            let tag = |chunks: &mut dyn FnMut(&mut [u32], usize)| {
                let mut v = vec![0u32; len];
                chunks(&mut v, size);
                v
            };
            let expected = |chunks: Vec<&mut [u32]>| {
                for (k, chunk) in chunks.into_iter().enumerate() {
                    for (i, x) in chunk.iter_mut().enumerate() {
                        *x += 1000 * k as u32 + i as u32 + 1;
                    }
                }
            };
            let mark = |(k, chunk): (usize, &mut [u32])| {
                for (i, x) in chunk.iter_mut().enumerate() {
                    *x += 1000 * k as u32 + i as u32 + 1;
                }
            };
            let mut want = vec![0u32; len];
            expected(want.chunks_mut(size).collect());
            let got = tag(&mut |v, n| {
                v.par_chunks_mut(n)
                    .with_max_len(1)
                    .enumerate()
                    .for_each(mark)
            });
            assert_eq!(got, want, "chunks_mut {len} {size}");

            let mut want = vec![0u32; len];
            expected(want.chunks_exact_mut(size).collect());
            let got = tag(&mut |v, n| {
                v.par_chunks_exact_mut(n)
                    .with_max_len(1)
                    .enumerate()
                    .for_each(mark)
            });
            assert_eq!(got, want, "chunks_exact_mut {len} {size}");

            let mut want = vec![0u32; len];
            expected(want.rchunks_mut(size).collect());
            let got = tag(&mut |v, n| {
                v.par_rchunks_mut(n)
                    .with_max_len(1)
                    .enumerate()
                    .for_each(mark)
            });
            assert_eq!(got, want, "rchunks_mut {len} {size}");

            let mut want = vec![0u32; len];
            expected(want.rchunks_exact_mut(size).collect());
            let got = tag(&mut |v, n| {
                v.par_rchunks_exact_mut(n)
                    .with_max_len(1)
                    .enumerate()
                    .for_each(mark)
            });
            assert_eq!(got, want, "rchunks_exact_mut {len} {size}");
        }
    }
}

/// A large slice, the work split however the workers take it: sums per chunk in order.
#[test]
fn large_chunks_in_order() {
    let v: Vec<u64> = (0..1_000_003).collect();
    for size in [1, 7, 1000, 65_536] {
        let sums: Vec<u64> = v.par_chunks(size).map(|c| c.iter().sum()).collect();
        let want: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
        assert_eq!(sums, want);
        let sums: Vec<u64> = v.par_rchunks_exact(size).map(|c| c.iter().sum()).collect();
        let want: Vec<u64> = v.rchunks_exact(size).map(|c| c.iter().sum()).collect();
        assert_eq!(sums, want);
    }
    let mut w = v.clone();
    w.par_chunks_mut(1000).for_each(|c| c.reverse());
    let mut want = v;
    want.chunks_mut(1000).for_each(|c| c.reverse());
    assert_eq!(w, want);
}

/// Zero-sized elements and the largest lengths: the counts do not overflow.
#[test]
fn zero_sized_elements() {
    let units = [(); usize::MAX];
    assert_eq!(units.par_chunks(2).len(), usize::MAX / 2 + 1);
    assert_eq!(units.par_rchunks(usize::MAX).len(), 1);
    assert_eq!(units.par_chunks_exact(2).len(), usize::MAX / 2);
    assert_eq!(units.par_chunks(1 << 62).count(), 4);
    assert_eq!(
        units.par_rchunks(1 << 62).map(<[()]>::len).sum::<usize>(),
        usize::MAX
    );
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn chunk_size_zero_panics() {
    let _ = [1, 2, 3].par_chunks(0);
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn rchunk_size_zero_panics() {
    let _ = [1, 2, 3].par_rchunks_exact_mut(0);
}

/// Elements that are `Send` but not `Sync` go through the mutable iterators.
#[test]
fn send_only_elements() {
    use std::cell::Cell;
    let mut v: Vec<Cell<u32>> = (0..1000).map(Cell::new).collect();
    v.par_chunks_mut(10)
        .for_each(|c| c.iter().for_each(|x| x.set(x.get() * 2)));
    v.par_rchunks_exact_mut(7).for_each(|c| c[0].set(0));
    v.par_split_mut(|x| x.get() == 0)
        .for_each(|piece| piece.reverse());
    v.par_chunk_by_mut(|a, b| a.get() < b.get())
        .for_each(|run| run.reverse());
    v.par_sort_by_key(Cell::get);
    assert!(v.windows(2).all(|w| w[0].get() <= w[1].get()));
}
