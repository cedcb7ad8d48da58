//! The producers of the indexed slice iterators split at every index into pieces that
//! yield exactly the items of the whole, in order and in reverse.

use std::fmt::Debug;

use filch::par::iter::plumbing::*;
use filch::par::prelude::*;

// origin: rayon tests/producer_split_at.rs (the harness: check, map_triples, Split)

/// Stress-test indexes for `Producer::split_at`.
fn check<F, I>(expected: &[I::Item], mut f: F)
where
    F: FnMut() -> I,
    I: IntoParallelIterator<Iter: IndexedParallelIterator, Item: PartialEq + Debug>,
{
    map_triples(expected.len() + 1, |i, j, k| {
        Split::forward(f(), i, j, k, expected);
        Split::reverse(f(), i, j, k, expected);
    });
}

fn map_triples<F>(end: usize, mut f: F)
where
    F: FnMut(usize, usize, usize),
{
    for i in 0..end {
        for j in i..end {
            for k in j..end {
                f(i, j, k);
            }
        }
    }
}

#[derive(Debug)]
struct Split {
    i: usize,
    j: usize,
    k: usize,
    reverse: bool,
}

impl Split {
    fn forward<I>(iter: I, i: usize, j: usize, k: usize, expected: &[I::Item])
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator, Item: PartialEq + Debug>,
    {
        let result = iter.into_par_iter().with_producer(Split {
            i,
            j,
            k,
            reverse: false,
        });
        assert_eq!(result, expected);
    }

    fn reverse<I>(iter: I, i: usize, j: usize, k: usize, expected: &[I::Item])
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator, Item: PartialEq + Debug>,
    {
        let result = iter.into_par_iter().with_producer(Split {
            i,
            j,
            k,
            reverse: true,
        });
        assert!(result.iter().eq(expected.iter().rev()));
    }
}

impl<T> ProducerCallback<T> for Split {
    type Output = Vec<T>;

    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>,
    {
        // Splitting the outer indexes first gets an arbitrary middle piece, which is then
        // split further for full coverage.
        let (left, d) = producer.split_at(self.k);
        let (a, mid) = left.split_at(self.i);
        let (b, c) = mid.split_at(self.j - self.i);

        let a = a.into_iter();
        let b = b.into_iter();
        let c = c.into_iter();
        let d = d.into_iter();

        check_len(&a, self.i);
        check_len(&b, self.j - self.i);
        check_len(&c, self.k - self.j);

        let chain = a.chain(b).chain(c).chain(d);
        if self.reverse {
            chain.rev().collect()
        } else {
            chain.collect()
        }
    }
}

fn check_len<I: ExactSizeIterator>(iter: &I, len: usize) {
    assert_eq!(iter.size_hint(), (len, Some(len)));
    assert_eq!(iter.len(), len);
}

// origin: rayon tests/producer_split_at.rs (slice_chunks)
#[test]
fn slice_chunks() {
    let s: Vec<_> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<_> = s.chunks(len).collect();
        check(&v, || s.par_chunks(len));
    }
}

// origin: rayon tests/producer_split_at.rs (slice_chunks_exact)
#[test]
fn slice_chunks_exact() {
    let s: Vec<_> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<_> = s.chunks_exact(len).collect();
        check(&v, || s.par_chunks_exact(len));
    }
}

// origin: rayon tests/producer_split_at.rs (slice_chunks_mut)
#[test]
fn slice_chunks_mut() {
    let mut s: Vec<_> = (0..10).collect();
    let mut v: Vec<_> = s.clone();
    for len in 1..s.len() + 2 {
        let expected: Vec<_> = v.chunks_mut(len).collect();
        map_triples(expected.len() + 1, |i, j, k| {
            Split::forward(s.par_chunks_mut(len), i, j, k, &expected);
            Split::reverse(s.par_chunks_mut(len), i, j, k, &expected);
        });
    }
}

// origin: rayon tests/producer_split_at.rs (slice_chunks_exact_mut)
#[test]
fn slice_chunks_exact_mut() {
    let mut s: Vec<_> = (0..10).collect();
    let mut v: Vec<_> = s.clone();
    for len in 1..s.len() + 2 {
        let expected: Vec<_> = v.chunks_exact_mut(len).collect();
        map_triples(expected.len() + 1, |i, j, k| {
            Split::forward(s.par_chunks_exact_mut(len), i, j, k, &expected);
            Split::reverse(s.par_chunks_exact_mut(len), i, j, k, &expected);
        });
    }
}

// origin: rayon tests/producer_split_at.rs (slice_rchunks)
#[test]
fn slice_rchunks() {
    let s: Vec<_> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<_> = s.rchunks(len).collect();
        check(&v, || s.par_rchunks(len));
    }
}

// origin: rayon tests/producer_split_at.rs (slice_rchunks_exact)
#[test]
fn slice_rchunks_exact() {
    let s: Vec<_> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<_> = s.rchunks_exact(len).collect();
        check(&v, || s.par_rchunks_exact(len));
    }
}

// origin: rayon tests/producer_split_at.rs (slice_rchunks_mut)
#[test]
fn slice_rchunks_mut() {
    let mut s: Vec<_> = (0..10).collect();
    let mut v: Vec<_> = s.clone();
    for len in 1..s.len() + 2 {
        let expected: Vec<_> = v.rchunks_mut(len).collect();
        map_triples(expected.len() + 1, |i, j, k| {
            Split::forward(s.par_rchunks_mut(len), i, j, k, &expected);
            Split::reverse(s.par_rchunks_mut(len), i, j, k, &expected);
        });
    }
}

// origin: rayon tests/producer_split_at.rs (slice_rchunks_exact_mut)
#[test]
fn slice_rchunks_exact_mut() {
    let mut s: Vec<_> = (0..10).collect();
    let mut v: Vec<_> = s.clone();
    for len in 1..s.len() + 2 {
        let expected: Vec<_> = v.rchunks_exact_mut(len).collect();
        map_triples(expected.len() + 1, |i, j, k| {
            Split::forward(s.par_rchunks_exact_mut(len), i, j, k, &expected);
            Split::reverse(s.par_rchunks_exact_mut(len), i, j, k, &expected);
        });
    }
}

// origin: rayon tests/producer_split_at.rs (slice_windows)
#[test]
fn slice_windows() {
    let s: Vec<_> = (0..10).collect();
    let v: Vec<_> = s.windows(2).collect();
    check(&v, || s.par_windows(2));
}

// origin: rayon tests/producer_split_at.rs (slice_array_windows)
#[test]
fn slice_array_windows() {
    let s: Vec<_> = (0..10).collect();
    let v: Vec<&[_; 2]> = s.windows(2).map(|w| w.try_into().unwrap()).collect();
    check(&v, || s.par_array_windows::<2>());
}

/// Windows wider than two, and wider than the slice.
#[test]
fn slice_wide_windows() {
    let s: Vec<_> = (0..10).collect();
    for size in 1..13 {
        let v: Vec<_> = s.windows(size).collect();
        check(&v, || s.par_windows(size));
    }
}
