//! White-box tests of the sorts' parts: partitions, pivot choice, the bounded insertion
//! sort, heapsort, the quicksort's heapsort fallback, the merge sort's fast paths, its
//! parallel merge and its unwinding guards (for a `join` that never starts its second half
//! after the first panicked), and the cached-key sort's index widths; the searching producer
//! of the slices' splits, split every way (std's pieces, each element or pair tested once).

use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use super::cuts::CutProducer;
use super::mergesort::{
    par_mergesort, HalvesToPlace, MergesToDest, Started, Stretch, MERGE_LEN, SORT_LEN,
};
use super::predicate_split::{Boundary, ExclusiveCut, InclusiveCut};
use super::quicksort::{
    choose_pivot, heapsort, par_quicksort, par_quicksort_with_budget, partial_insertion_sort,
    partition, partition_equal, SEQUENTIAL_LEN,
};
use super::ParallelSliceMut;
use crate::par::iter::plumbing::{Folder, UnindexedProducer};

/// SplitMix64: the tests' deterministic random numbers.
fn random(seed: u64, len: usize, modulus: u64) -> Vec<u64> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % modulus
        })
        .collect()
}

/// `v` with √len pseudo-random pairs swapped (rayon-demo's "mostly ascending" shape): the
/// pivot's samples look sorted, and the partition is the block partition.
fn mostly(mut v: Vec<u64>) -> Vec<u64> {
    let len = v.len();
    let picks = random(10, 2 * len.isqrt(), len as u64);
    for pair in picks.chunks(2) {
        v.swap(pair[0] as usize, pair[1] as usize);
    }
    v
}

fn is_less(a: &u64, b: &u64) -> bool {
    a < b
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort();
    v
}

#[test]
fn partition_splits_around_the_pivot() {
    for (seed, modulus) in [(1, 10), (2, 1000), (3, u64::MAX)] {
        for len in [8, 9, 100, 1000, 5000] {
            let input = random(seed, len, modulus);
            // Both partitions: Lomuto's, and the block partition of a likely sorted piece.
            for (pivot, likely_sorted) in [0, len / 2, len - 1]
                .into_iter()
                .flat_map(|p| [(p, false), (p, true)])
            {
                let mut v = input.clone();
                let value = v[pivot];
                let (mid, _) = partition(&mut v, pivot, &is_less, likely_sorted);
                assert_eq!(v[mid], value);
                assert!(v[..mid].iter().all(|x| *x < value));
                assert!(v[mid + 1..].iter().all(|x| *x >= value));
                assert_eq!(sorted(v), sorted(input.clone()), "a permutation");
            }
        }
    }
}

#[test]
fn block_partition_splits_large_elements_around_the_pivot() {
    // 24-byte elements take the block partition; lengths around its block multiples.
    for len in [8, 255, 256, 257, 258, 383, 384, 385, 1000, 5003] {
        for modulus in [2, 3, 1000] {
            let input: Vec<[u64; 3]> = random(len as u64 + modulus, len, modulus)
                .into_iter()
                .map(|x| [x, len as u64, 0])
                .collect();
            for pivot in [0, len / 3, len - 1] {
                let mut v = input.clone();
                let value = v[pivot];
                let (mid, _) = partition(&mut v, pivot, &|a: &[u64; 3], b: &[u64; 3]| a < b, false);
                assert_eq!(v[mid], value);
                assert!(v[..mid].iter().all(|x| *x < value), "len {len}");
                assert!(v[mid + 1..].iter().all(|x| *x >= value), "len {len}");
                let mut sorted_v = v.clone();
                sorted_v.sort();
                let mut sorted_input = input.clone();
                sorted_input.sort();
                assert_eq!(sorted_v, sorted_input, "a permutation");
            }
        }
    }
}

#[test]
fn partition_reports_an_already_partitioned_slice() {
    let mut v: Vec<u64> = (0..100).collect();
    assert_eq!(partition(&mut v, 0, &is_less, false), (0, true));
    let mut v: Vec<u64> = vec![5, 1, 2, 3, 7, 8, 9];
    assert_eq!(partition(&mut v, 0, &is_less, false), (3, true));
    assert_eq!(v, [3, 1, 2, 5, 7, 8, 9]);
    let mut v: Vec<u64> = vec![5, 7, 1, 8];
    assert_eq!(partition(&mut v, 0, &is_less, false), (1, false));
}

#[test]
fn partition_equal_sets_the_equal_elements_aside() {
    let input = random(4, 1000, 4)
        .iter()
        .map(|x| x + 10)
        .collect::<Vec<_>>();
    let mut v = input.clone();
    let min_at = v.iter().position(|x| *x == 10).unwrap();
    let equal = partition_equal(&mut v, min_at, &is_less);
    assert_eq!(equal, input.iter().filter(|x| **x == 10).count());
    assert!(v[..equal].iter().all(|x| *x == 10));
    assert!(v[equal..].iter().all(|x| *x > 10));
    assert_eq!(sorted(v), sorted(input));
}

#[test]
fn choose_pivot_sees_sorted_and_reversed_samples() {
    let mut v: Vec<u64> = (0..1000).collect();
    let (pivot, likely_sorted) = choose_pivot(&mut v, &is_less);
    assert!(likely_sorted);
    assert_eq!(v[pivot], 500);
    let mut v: Vec<u64> = (0..1000).rev().collect();
    let (pivot, likely_sorted) = choose_pivot(&mut v, &is_less);
    assert!(likely_sorted);
    assert!(v.is_sorted(), "a descending slice is reversed");
    assert_eq!(v[pivot], 499, "the same element, at its new index");
    let mut v = random(5, 1000, 1 << 40);
    let (pivot, likely_sorted) = choose_pivot(&mut v, &is_less);
    assert!(!likely_sorted);
    assert!(pivot < 1000);
}

#[test]
fn partial_insertion_sort_mends_a_few_pairs_only() {
    let mut v: Vec<u64> = (0..1000).collect();
    v.swap(10, 500);
    v.swap(700, 701);
    assert!(partial_insertion_sort(&mut v, &is_less));
    assert!(v.is_sorted());
    let input = random(6, 1000, 1000);
    let mut v = input.clone();
    assert!(!partial_insertion_sort(&mut v, &is_less));
    assert_eq!(sorted(v), sorted(input));
}

#[test]
fn heapsort_sorts() {
    for len in (0..30).chain([500, 1001]) {
        for modulus in [1, 5, 1000] {
            let input = random(len as u64, len, modulus);
            let mut v = input.clone();
            heapsort(&mut v, &is_less);
            assert_eq!(v, sorted(input.clone()));
            let mut v = input.clone();
            heapsort(&mut v, &|a: &u64, b: &u64| a > b);
            let mut expected = sorted(input);
            expected.reverse();
            assert_eq!(v, expected);
        }
    }
}

#[test]
fn quicksort_falls_back_to_heapsort() {
    // With no budget left, the whole slice is heapsorted: a heapsort's comparisons are
    // about 2 n log2 n, far more than the budgeted sort's on random data.
    let input = random(7, 50_000, 1 << 40);
    let count = |budget: Option<u32>| {
        let calls = AtomicUsize::new(0);
        let mut v = input.clone();
        let compare = |a: &u64, b: &u64| {
            calls.fetch_add(1, Relaxed);
            a.cmp(b)
        };
        match budget {
            Some(budget) => par_quicksort_with_budget(&mut v, &compare, budget),
            None => par_quicksort(&mut v, &compare),
        }
        assert_eq!(v, sorted(input.clone()));
        calls.into_inner()
    };
    let heap = count(Some(0));
    let normal = count(None);
    assert!(heap > normal * 3 / 2, "heapsort {heap}, quicksort {normal}");
}

#[test]
fn quicksort_handles_patterns() {
    let n = 20 * SEQUENTIAL_LEN;
    let patterns: Vec<(&str, Vec<u64>)> = vec![
        ("sorted", (0..n as u64).collect()),
        ("reversed", (0..n as u64).rev().collect()),
        ("equal", vec![7; n]),
        ("two values", random(8, n, 2)),
        ("sawtooth", (0..n as u64).map(|i| i % 1000).collect()),
        (
            "organ pipe",
            (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
        ),
        ("random", random(9, n, u64::MAX)),
        ("mostly sorted", mostly((0..n as u64).collect())),
        ("mostly reversed", mostly((0..n as u64).rev().collect())),
    ];
    for (name, input) in patterns {
        let mut v = input.clone();
        v.par_sort_unstable();
        assert_eq!(v, sorted(input), "{name}");
    }
}

#[test]
fn quicksort_takes_linear_time_on_sorted_and_reversed_input() {
    let n = 100_000u64;
    for input in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
        let calls = AtomicUsize::new(0);
        let mut v = input;
        par_quicksort(&mut v, &|a: &u64, b: &u64| {
            calls.fetch_add(1, Relaxed);
            a.cmp(b)
        });
        assert!(v.iter().copied().eq(0..n));
        assert!(calls.into_inner() < 2 * n as usize);
    }
}

#[test]
fn mergesort_takes_one_pass_over_sorted_and_descending_input() {
    let n = 100_000u64;
    for input in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
        let calls = AtomicUsize::new(0);
        let mut v = input;
        par_mergesort(&mut v, &|a: &u64, b: &u64| {
            calls.fetch_add(1, Relaxed);
            a.cmp(b)
        });
        assert!(v.iter().copied().eq(0..n));
        assert_eq!(calls.into_inner(), n as usize - 1);
    }
}

#[test]
fn mergesort_is_stable_across_pieces_and_merges() {
    // Sizes that cut pieces and merges unevenly; few distinct keys, so equal keys cross
    // every cut.
    for len in [SORT_LEN + 1, 3 * SORT_LEN + 7, MERGE_LEN * 5 + 3, 100_003] {
        for modulus in [2, 10, 1000] {
            let keys = random(len as u64 ^ modulus, len, modulus);
            let mut v: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
            v.par_sort_by_key(|p| p.0);
            assert!(
                v.windows(2).all(|w| w[0] < w[1]),
                "len {len}, modulus {modulus}"
            );
        }
    }
}

#[test]
fn mergesort_fast_paths_for_halves_in_and_out_of_order() {
    let n = 4 * MERGE_LEN;
    // Each half sorted, the right one wholly below the left: the top merge only moves.
    let mut v: Vec<u64> = (n as u64 / 2..n as u64).chain(0..n as u64 / 2).collect();
    v.par_sort();
    assert!(v.iter().copied().eq(0..n as u64));
    // Equal keys on both sides of the top cut, the right half below: stability holds.
    let mut v: Vec<(u64, usize)> = (0..n).map(|i| (u64::from(i < n / 2), i)).collect();
    v.par_sort_by_key(|p| p.0);
    assert!(v.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn sorts_elements_with_destructors_and_big_elements() {
    let n = 3 * MERGE_LEN + 11;
    let input: Vec<String> = random(10, n, 5000)
        .iter()
        .map(|x| format!("{x:05}"))
        .collect();
    let mut expected = input.clone();
    expected.sort();
    let mut v = input.clone();
    v.par_sort();
    assert_eq!(v, expected);
    let mut v = input.clone();
    v.par_sort_unstable();
    assert_eq!(v, expected);
    let big: Vec<[u64; 9]> = random(11, n, 100).iter().map(|&x| [x; 9]).collect();
    let mut v = big.clone();
    v.par_sort_by(|a, b| a[0].cmp(&b[0]));
    let mut expected = big;
    expected.sort_by(|a, b| a[0].cmp(&b[0]));
    assert_eq!(v, expected);
}

#[test]
fn cached_key_sort_uses_each_index_width() {
    // 200 fits u8, 60_000 u16, 100_000 u32; each key is computed exactly once.
    for len in [200usize, 60_000, 100_000] {
        let input = random(len as u64, len, 50);
        let calls = AtomicUsize::new(0);
        let mut v: Vec<(u64, usize)> = input.into_iter().zip(0..).collect();
        v.par_sort_by_cached_key(|p| {
            calls.fetch_add(1, Relaxed);
            p.0 as u8
        });
        assert_eq!(calls.into_inner(), len);
        assert!(v.windows(2).all(|w| w[0] < w[1]), "stable, len {len}");
    }
}

#[test]
fn comparator_results_are_honoured_both_ways() {
    let input = random(12, 50_000, 300);
    let mut down = input.clone();
    down.par_sort_unstable_by(|a, b| b.cmp(a));
    let mut expected = sorted(input.clone());
    expected.reverse();
    assert_eq!(down, expected);
    let mut down = input;
    down.par_sort_by(|a, b| match b.cmp(a) {
        Ordering::Equal => Ordering::Equal,
        other => other,
    });
    assert_eq!(down, expected);
}

/// The strings `"0"`, `"1"`, … as an owned `Vec`, and a run over them.
fn strings(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

fn run_of(v: &mut Vec<String>, from: usize, len: usize) -> Stretch<String> {
    Stretch {
        ptr: v.as_mut_ptr().wrapping_add(from),
        len,
    }
}

/// Takes back the `n` elements moved into `v`'s capacity.
///
/// # Safety
/// The first `n` slots of `v`'s capacity hold initialised elements, each moved in once.
unsafe fn take_back(v: &mut Vec<String>, n: usize) -> Vec<String> {
    // SAFETY: the caller's contract.
    unsafe { v.set_len(n) };
    std::mem::take(v)
}

#[test]
fn a_merge_that_never_started_has_its_inputs_moved_on_unwind() {
    // A split merge of left = src[0..2] and right = src[2..4]: the first merge (src[0],
    // src[2] into dest[0..2]) ran, the second (src[1], src[3] into dest[2..4]) never started.
    let mut src = strings(4);
    let mut dest: Vec<String> = Vec::with_capacity(4);
    let (s, d) = (&mut src, &mut dest);
    let (a_left, b_left) = (run_of(s, 0, 1), run_of(s, 1, 1));
    let (a_right, b_right) = (run_of(s, 2, 1), run_of(s, 3, 1));
    let (dest_a, dest_b) = run_of(d, 0, 4).split_at(2);
    // SAFETY: the first merge's work: its inputs to its output, each element moved once.
    unsafe {
        std::ptr::copy_nonoverlapping(a_left.ptr, dest_a.ptr, 1);
        std::ptr::copy_nonoverlapping(a_right.ptr, dest_a.ptr.add(1), 1);
    }
    let started = Started::new();
    started.set(0);
    drop(MergesToDest {
        merges: [(a_left, a_right, dest_a), (b_left, b_right, dest_b)],
        started: &started,
    });
    // SAFETY: every element of `src` was moved to `dest` once: `src` gives them up, `dest`
    // takes them.
    let dest = unsafe {
        src.set_len(0);
        take_back(&mut dest, 4)
    };
    assert_eq!(dest, ["0", "2", "1", "3"]);
}

#[test]
fn halves_that_never_started_are_moved_to_the_place_on_unwind() {
    for into_spare in [false, true] {
        // A sort of home = v[0..4] with spare = buf[0..4]: the left half (v[0..2]) ran and
        // left its elements in the halves' place (the other of home and spare); the right
        // half never started, so its elements are still in home.
        let mut v = strings(4);
        let mut buf: Vec<String> = Vec::with_capacity(4);
        let (home, spare) = (run_of(&mut v, 0, 4), run_of(&mut buf, 0, 4));
        let (place, halves_place) = if into_spare {
            (spare, home)
        } else {
            (home, spare)
        };
        let (home_l, home_r) = home.split_at(2);
        let (halves_l, halves_r) = halves_place.split_at(2);
        if halves_l.ptr != home_l.ptr {
            // SAFETY: the left half's work: its elements to its place, moved once.
            unsafe { std::ptr::copy_nonoverlapping(home_l.ptr, halves_l.ptr, 2) };
        }
        let started = Started::new();
        started.set(0);
        drop(HalvesToPlace {
            halves: [(home_l, halves_l), (home_r, halves_r)],
            place: [place.split_at(2).0, place.split_at(2).1],
            started: &started,
        });
        let sorted = if into_spare {
            // SAFETY: every element of `v` was moved to `buf` once: `v` gives them up, `buf`
            // takes them.
            unsafe {
                v.set_len(0);
                take_back(&mut buf, 4)
            }
        } else {
            v
        };
        assert_eq!(sorted, ["0", "1", "2", "3"], "into_spare: {into_spare}");
    }
}

/// A folder that collects the pieces it is fed.
struct Collect<T>(Vec<T>);

impl<T> Folder<T> for Collect<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

/// Whether to split a producer, from its depth and its path (bit `k` set: it descends from
/// the right half of the split at depth `k`).
type Policy = Box<dyn Fn(u32, u64) -> bool>;

/// The pieces of `producer` (at `depth`, on `path`) when it is split recursively wherever
/// `split_here` says, and the leaves folded in order.
fn pieces_at<P: UnindexedProducer>(
    producer: P,
    depth: u32,
    path: u64,
    split_here: &Policy,
) -> Vec<P::Item> {
    if depth < 64 && split_here(depth, path) {
        let (left, right) = producer.split();
        let mut out = pieces_at(left, depth + 1, path, split_here);
        if let Some(right) = right {
            out.extend(pieces_at(right, depth + 1, path | 1 << depth, split_here));
        }
        return out;
    }
    producer.fold_with(Collect(Vec::new())).complete()
}

fn pieces<P: UnindexedProducer>(producer: P, split_here: &Policy) -> Vec<P::Item> {
    pieces_at(producer, 0, 0, split_here)
}

/// Splitting policies: never, always (to the end), the first few levels, a pseudo-random
/// pattern, and the bridge's when nobody wants work (fold the left half, split the right
/// one again), and its mirror.
fn policies() -> Vec<Policy> {
    vec![
        Box::new(|_, _| false),
        Box::new(|_, _| true),
        Box::new(|depth, _| depth < 1),
        Box::new(|depth, _| depth < 3),
        Box::new(|depth, path| (depth * 7 + 3 + path.count_ones()) % 5 != 0),
        Box::new(|depth, path| path.count_ones() == depth),
        Box::new(|_, path| path == 0),
    ]
}

#[test]
fn cut_producer_splits_as_std_splits_slices() {
    let inputs: Vec<Vec<u64>> = vec![
        vec![],
        vec![0],
        vec![1],
        vec![0, 0, 0],
        vec![1, 2, 3],
        random(20, 100, 4),
        random(21, 1000, 10),
        random(22, 1000, 2),
        (0..200).map(|i| u64::from(i % 17 == 0)).collect(),
    ];
    for v in &inputs {
        let sep = |x: &u64| *x == 0;
        for split_here in policies() {
            let kind = ExclusiveCut::new(sep);
            let got = pieces(CutProducer::new(&v[..], &kind), &split_here);
            assert_eq!(got, v.split(sep).collect::<Vec<_>>(), "split {v:?}");
            let kind = InclusiveCut::new(sep);
            let got = pieces(CutProducer::new(&v[..], &kind), &split_here);
            assert_eq!(
                got,
                v.split_inclusive(sep).collect::<Vec<_>>(),
                "inclusive {v:?}"
            );
            let mut w = v.clone();
            let mut expected = v.clone();
            let kind = ExclusiveCut::new(sep);
            let got = pieces(CutProducer::new(&mut w[..], &kind), &split_here);
            assert_eq!(
                got,
                expected.split_mut(sep).collect::<Vec<_>>(),
                "split_mut {v:?}"
            );
        }
    }
}

#[test]
fn cut_producer_tests_each_pair_of_chunk_by_once() {
    for (seed, len) in [(30, 0), (31, 1), (32, 2), (33, 10), (34, 1000), (35, 4097)] {
        let v = random(seed, len, 3);
        for split_here in policies() {
            let calls = AtomicUsize::new(0);
            let same = |a: &u64, b: &u64| {
                calls.fetch_add(1, Relaxed);
                a == b
            };
            let kind = Boundary::new(same);
            let got = pieces(CutProducer::new(&v[..], &kind), &split_here);
            assert_eq!(got, v.chunk_by(|a, b| a == b).collect::<Vec<_>>());
            assert_eq!(calls.into_inner(), len.saturating_sub(1), "len {len}");
        }
    }
}

#[test]
fn cut_producer_tests_each_element_of_a_split_once() {
    for (seed, len) in [(40, 0), (41, 1), (42, 10), (43, 1000), (44, 5000)] {
        let v = random(seed, len, 5);
        for split_here in policies() {
            let calls = AtomicUsize::new(0);
            let sep = |x: &u64| {
                calls.fetch_add(1, Relaxed);
                *x == 0
            };
            let kind = ExclusiveCut::new(sep);
            let got = pieces(CutProducer::new(&v[..], &kind), &split_here);
            assert_eq!(got, v.split(|x| *x == 0).collect::<Vec<_>>());
            assert_eq!(calls.into_inner(), len, "len {len}");
        }
    }
}
