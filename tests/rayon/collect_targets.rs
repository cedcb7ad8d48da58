//! Every `collect` target of the contract, from an indexed and from an unindexed chain, in
//! order where the target has one; and `par_extend` of each.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use filch::par::iter::Either;
use filch::par::prelude::*;

const N: u32 = 10_000;

fn indexed() -> impl IndexedParallelIterator<Item = u32> {
    (0..N).into_par_iter()
}

fn unindexed() -> impl ParallelIterator<Item = u32> {
    (0..N).into_par_iter().filter(|_| true)
}

fn expected() -> Vec<u32> {
    (0..N).collect()
}

#[test]
fn sequences_keep_the_order() {
    let e = expected();
    assert_eq!(indexed().collect::<Vec<_>>(), e);
    assert_eq!(unindexed().collect::<Vec<_>>(), e);
    assert_eq!(
        indexed().collect::<VecDeque<_>>(),
        VecDeque::from(e.clone())
    );
    assert_eq!(
        unindexed().collect::<VecDeque<_>>(),
        VecDeque::from(e.clone())
    );
    assert_eq!(*indexed().collect::<Box<[_]>>(), *e);
    assert_eq!(*unindexed().collect::<Rc<[_]>>(), *e);
    assert_eq!(*indexed().collect::<Arc<[_]>>(), *e);
    assert_eq!(
        indexed().collect::<LinkedList<_>>(),
        e.iter().copied().collect::<LinkedList<_>>()
    );
    assert_eq!(
        unindexed().collect::<LinkedList<_>>(),
        e.iter().copied().collect::<LinkedList<_>>()
    );
    assert_eq!(
        indexed().collect::<Cow<'_, [u32]>>(),
        Cow::<[u32]>::Owned(e.clone())
    );
    let list = unindexed().collect_vec_list();
    assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), e);
}

#[test]
fn sets_and_maps_hold_every_item() {
    let e = expected();
    assert_eq!(
        indexed().collect::<HashSet<_>>(),
        e.iter().copied().collect()
    );
    assert_eq!(
        unindexed().collect::<BTreeSet<_>>(),
        e.iter().copied().collect()
    );
    assert_eq!(
        indexed().map(|x| (x, x * 2)).collect::<HashMap<_, _>>(),
        e.iter().map(|&x| (x, x * 2)).collect()
    );
    assert_eq!(
        unindexed().map(|x| (x, x * 2)).collect::<BTreeMap<_, _>>(),
        e.iter().map(|&x| (x, x * 2)).collect()
    );
    let heap: BinaryHeap<u32> = unindexed().collect();
    assert_eq!(heap.into_sorted_vec(), e);
    // Later values win for equal keys, as `Iterator::collect` does.
    let m: HashMap<u32, u32> = indexed().map(|x| (x % 10, x)).collect();
    assert_eq!(m[&3], N - 7);
    let m: BTreeMap<u32, u32> = unindexed().map(|x| (x % 10, x)).collect();
    assert_eq!(m[&3], N - 7);
}

#[test]
fn strings_from_every_kind_of_piece() {
    let words: Vec<String> = (0..1000).map(|i| format!("w{i},")).collect();
    let joined: String = words.concat();
    let chars: Vec<char> = joined.chars().collect();
    assert_eq!(chars.par_iter().copied().collect::<String>(), joined);
    assert_eq!(chars.par_iter().collect::<String>(), joined);
    assert_eq!(
        words.par_iter().map(String::as_str).collect::<String>(),
        joined
    );
    assert_eq!(words.par_iter().cloned().collect::<String>(), joined);
    assert_eq!(
        words
            .par_iter()
            .map(|w| w.clone().into_boxed_str())
            .collect::<String>(),
        joined
    );
    assert_eq!(
        words
            .par_iter()
            .map(|w| Cow::Borrowed(w.as_str()))
            .collect::<String>(),
        joined
    );
    assert_eq!(
        &*words
            .par_iter()
            .cloned()
            .filter(|_| true)
            .collect::<Box<str>>(),
        joined.as_str()
    );
    assert_eq!(chars.par_iter().copied().collect::<Cow<'_, str>>(), joined);
}

#[test]
fn unit_option_and_result() {
    let () = indexed().map(|_| ()).collect();
    let all: Option<Vec<u32>> = indexed().map(Some).collect();
    assert_eq!(all, Some(expected()));
    let none: Option<Vec<u32>> = indexed().map(|x| (x != 5000).then_some(x)).collect();
    assert_eq!(none, None);
    let ok: Result<Vec<u32>, String> = unindexed().map(Ok).collect();
    assert_eq!(ok, Ok(expected()));
    let err: Result<Vec<u32>, u32> = unindexed()
        .map(|x| if x % 4000 == 3999 { Err(x) } else { Ok(x) })
        .collect();
    assert!(matches!(err, Err(3999 | 7999)));
    let nested: Result<Option<HashSet<u32>>, ()> = indexed().map(|x| Ok(Some(x))).collect();
    assert_eq!(nested.unwrap().unwrap().len(), N as usize);
    let unit: Result<(), u32> = indexed()
        .map(|x| if x == 7 { Err(x) } else { Ok(()) })
        .collect();
    assert_eq!(unit, Err(7));
}

#[test]
fn pairs_and_eithers_fill_two_collections() {
    let (a, b): (Vec<u32>, HashSet<u32>) = indexed().map(|x| (x, x / 2)).collect();
    assert_eq!(a, expected());
    assert_eq!(b.len(), (N / 2) as usize);
    let (a, b): (Vec<u32>, Vec<u32>) = unindexed().map(|x| (x, x + 1)).unzip();
    assert_eq!((a[9], b[9]), (9, 10));
    let (l, r): (Vec<u32>, Vec<String>) = unindexed()
        .map(|x| {
            if x % 2 == 0 {
                Either::Left(x)
            } else {
                Either::Right(x.to_string())
            }
        })
        .collect();
    assert_eq!((l.len(), r.len(), &r[0][..]), (5000, 5000, "1"));
    let (mut left, mut right) = (vec![1], vec![2]);
    indexed()
        .map(|x| (x, x))
        .unzip_into_vecs(&mut left, &mut right);
    assert_eq!((left, right), (expected(), expected()));
    let (evens, odds): (VecDeque<u32>, LinkedList<u32>) = indexed().partition(|x| x % 2 == 0);
    assert_eq!(
        (evens.len(), odds.len(), evens[1], *odds.front().unwrap()),
        (5000, 5000, 2, 1)
    );
}

#[test]
fn par_extend_appends_in_order() {
    let mut v = vec![u32::MAX];
    v.par_extend(indexed());
    v.par_extend(unindexed());
    assert_eq!(v.len(), 2 * N as usize + 1);
    assert_eq!(v[1..=N as usize], *expected());
    let mut v2: Vec<u32> = Vec::new();
    v2.par_extend(&expected());
    assert_eq!(v2, expected());
    let mut d = VecDeque::from(vec![7]);
    d.par_extend(unindexed());
    assert_eq!((d.len(), d[0], d[1]), (N as usize + 1, 7, 0));
    let mut s = String::from(">");
    s.par_extend(['a', 'b', 'c'].par_iter());
    s.par_extend(vec!["de", "f"]);
    assert_eq!(s, ">abcdef");
    let mut l = LinkedList::new();
    l.par_extend(unindexed());
    assert_eq!(l.len(), N as usize);
    let mut m = BTreeMap::new();
    m.par_extend(indexed().map(|x| (x % 3, x)));
    assert_eq!(m.len(), 3);
    let mut either: Either<Vec<u32>, HashSet<u32>> = Either::Right(HashSet::new());
    either.par_extend(indexed());
    assert_eq!(either.right().unwrap().len(), N as usize);
}

/// An item that counts its drops.
struct Counted<'a>(u64, &'a std::sync::atomic::AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// An unindexed collect big enough that the workers append the pieces' vectors
/// (`par/iter/collect/append.rs`, from 256 KiB): every item once, in order, after what the
/// target held; on two workers and on one.
#[test]
fn a_big_unindexed_collect_keeps_every_item_once_in_order() {
    const BIG: u64 = 300_000;
    let keep = |x: &u64| x % 3 != 0;
    let expected: Vec<u64> = (0..BIG).filter(keep).collect();
    for workers in [2, 1] {
        let pool = filch::par::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        pool.install(|| {
            let collected: Vec<u64> = (0..BIG).into_par_iter().filter(keep).collect();
            assert_eq!(collected, expected, "{workers} workers");
            let mut extended = vec![u64::MAX; 3];
            extended.par_extend((0..BIG).into_par_iter().filter(keep));
            assert_eq!(extended[..3], [u64::MAX; 3], "{workers} workers");
            assert_eq!(extended[3..], expected[..], "{workers} workers");
        });
    }
}

/// The items of a big unindexed collect are dropped exactly once: the filtered-out ones
/// during the call, the kept ones with the vector (none twice through the append's
/// copies, none lost).
#[test]
fn a_big_unindexed_collect_drops_every_item_exactly_once() {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    const BIG: u64 = 100_000;
    let pool = filch::par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let drops = AtomicUsize::new(0);
    let collected: Vec<Counted<'_>> = pool.install(|| {
        (0..BIG)
            .into_par_iter()
            .map(|i| Counted(i, &drops))
            .filter(|c| c.0 % 3 != 0)
            .collect()
    });
    let kept = (0..BIG).filter(|x| x % 3 != 0).count();
    assert_eq!(drops.load(Relaxed), BIG as usize - kept);
    assert_eq!(collected.len(), kept);
    assert!(collected.windows(2).all(|w| w[0].0 < w[1].0));
    drop(collected);
    assert_eq!(drops.load(Relaxed), BIG as usize);
}

/// `par_extend` of an unindexed chain keeps the capacity the target reserved, as std's
/// `extend` does (a one-piece list is moved into a target only when it holds no buffer).
#[test]
fn par_extend_keeps_a_reserved_buffer() {
    let pool = filch::par::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let mut v: Vec<u32> = Vec::with_capacity(1000);
        let buffer = v.as_ptr();
        // One piece (no split below ten items): a list of one vector.
        v.par_extend((0..10u32).into_par_iter().with_min_len(10).filter(|_| true));
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        assert!(v.capacity() >= 1000);
        assert_eq!(v.as_ptr(), buffer, "the reserved buffer is kept");
    });
}
