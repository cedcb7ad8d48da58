//! Every source of the contract yields its items (in order where it has one), by value
//! and by reference, indexed where rayon's is.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

use filch::par::iter::{empty, once, repeat, repeat_n, split, walk_tree_postfix, walk_tree_prefix};
use filch::par::prelude::*;

fn is_indexed<I: IndexedParallelIterator>(_: &I) {}

macro_rules! check_ranges {
    ($($t:ty),*) => {$(
        let v: Vec<$t> = (1 as $t..100).into_par_iter().collect();
        assert_eq!(v, (1 as $t..100).collect::<Vec<_>>(), stringify!($t));
        let v: Vec<$t> = (1 as $t..=100).into_par_iter().collect::<Vec<_>>();
        assert_eq!(v, (1 as $t..=100).collect::<Vec<_>>(), stringify!($t));
        assert_eq!((<$t>::MAX - 3..=<$t>::MAX).into_par_iter().count(), 4, stringify!($t));
        assert_eq!((<$t>::MIN..<$t>::MIN + 5).into_par_iter().max(), Some(<$t>::MIN + 4));
        assert_eq!((5 as $t..5).into_par_iter().count(), 0);
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = (5 as $t..=4).into_par_iter().count();
        assert_eq!(reversed, 0);
    )*};
}

#[test]
fn ranges_of_every_integer_type() {
    check_ranges!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
    is_indexed(&(0u8..1).into_par_iter());
    is_indexed(&(0i32..1).into_par_iter());
    is_indexed(&(0usize..1).into_par_iter());
    is_indexed(&(0u16..=1).into_par_iter());
    let v: Vec<i8> = (i8::MIN..=i8::MAX).into_par_iter().rev().collect();
    assert_eq!(v, (i8::MIN..=i8::MAX).rev().collect::<Vec<_>>());
    // As in rayon: the wide types are unindexed but know their length when it fits.
    assert_eq!(
        (0..u64::MAX).into_par_iter().opt_len(),
        Some(u64::MAX as usize)
    );
    assert_eq!((0..=u128::MAX).into_par_iter().opt_len(), None);
    assert_eq!((i64::MIN..i64::MAX).into_par_iter().take_any(3).count(), 3);
    let v: Vec<u64> = (0..1000u64).into_par_iter().collect();
    assert_eq!(v, (0..1000).collect::<Vec<_>>());
}

#[test]
fn char_ranges_skip_the_surrogates() {
    let par: Vec<char> = ('\u{D000}'..'\u{F000}').into_par_iter().collect();
    assert_eq!(par, ('\u{D000}'..'\u{F000}').collect::<Vec<_>>());
    let par: Vec<char> = ('a'..='z').into_par_iter().rev().collect();
    assert_eq!(par, ('a'..='z').rev().collect::<Vec<_>>());
    assert_eq!(('\u{10FFF0}'..=char::MAX).into_par_iter().count(), 16);
    assert_eq!(('\u{D7FF}'..='\u{E000}').into_par_iter().len(), 2);
}

#[test]
fn vectors_slices_arrays_and_boxes() {
    let mut v: Vec<u32> = (0..1000).collect();
    assert_eq!(v.par_iter().copied().collect::<Vec<_>>(), v);
    v.par_iter_mut().for_each(|x| *x *= 2);
    assert_eq!(v[999], 1998);
    assert_eq!(v[..10].par_iter().count(), 10);
    v[..10].par_iter_mut().for_each(|x| *x = 0);
    assert_eq!(v[9], 0);
    let boxed: Box<[u32]> = v.clone().into_boxed_slice();
    assert_eq!(boxed.into_par_iter().collect::<Vec<_>>(), v);
    assert_eq!(
        v.clone()
            .into_par_iter()
            .rev()
            .skip(1)
            .step_by(500)
            .collect::<Vec<_>>(),
        [1996, 996]
    );

    let mut a = [1, 2, 3, 4];
    assert_eq!(a.par_iter().sum::<i32>(), 10);
    a.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(a.into_par_iter().collect::<Vec<_>>(), [2, 3, 4, 5]);
    let strings = ["a".to_string(), "b".to_string()];
    assert_eq!(strings.into_par_iter().collect::<String>(), "ab");
}

#[test]
fn options_and_results() {
    let mut some = Some(3);
    assert_eq!(some.par_iter().count(), 1);
    some.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(some.into_par_iter().collect::<Vec<_>>(), [4]);
    assert_eq!(None::<i32>.into_par_iter().count(), 0);
    let mut ok: Result<i32, ()> = Ok(5);
    ok.par_iter_mut().for_each(|x| *x *= 2);
    assert_eq!(ok.par_iter().copied().sum::<i32>(), 10);
    assert_eq!(Err::<i32, &str>("no").into_par_iter().count(), 0);
    is_indexed(&Some(1).into_par_iter());
}

#[test]
fn std_collections() {
    let n = 1000u32;
    let mut hm: HashMap<u32, u32> = (0..n).map(|i| (i, i)).collect();
    hm.par_iter_mut().for_each(|(_, v)| *v += 1);
    assert_eq!(
        hm.par_iter().map(|(_, v)| *v).sum::<u32>(),
        (1..=n).sum::<u32>()
    );
    assert_eq!(hm.clone().into_par_iter().count(), n as usize);
    assert_eq!(hm.par_drain().count(), n as usize);
    assert!(hm.is_empty());

    let mut hs: HashSet<u32> = (0..n).collect();
    assert_eq!(hs.par_iter().copied().max(), Some(n - 1));
    assert_eq!(hs.clone().into_par_iter().count(), n as usize);
    assert_eq!(hs.par_drain().sum::<u32>(), (0..n).sum::<u32>());
    assert!(hs.is_empty());

    let mut bm: BTreeMap<u32, u32> = (0..n).map(|i| (i, i)).collect();
    bm.par_iter_mut().for_each(|(k, v)| *v = *k * 2);
    assert_eq!(
        bm.par_iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        (0..n).collect::<Vec<_>>()
    );
    assert_eq!(
        bm.into_par_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        (0..n).map(|i| i * 2).collect::<Vec<_>>()
    );

    let bs: BTreeSet<u32> = (0..n).collect();
    assert_eq!(
        bs.par_iter().copied().collect::<Vec<_>>(),
        (0..n).collect::<Vec<_>>()
    );
    assert_eq!(
        bs.into_par_iter().collect::<Vec<_>>(),
        (0..n).collect::<Vec<_>>()
    );

    let mut heap: BinaryHeap<u32> = (0..n).collect();
    assert_eq!(heap.par_iter().count(), n as usize);
    assert_eq!(
        heap.clone().into_par_iter().sum::<u32>(),
        (0..n).sum::<u32>()
    );
    assert_eq!(heap.par_drain().count(), n as usize);
    assert!(heap.is_empty());

    let mut list: LinkedList<u32> = (0..n).collect();
    list.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(
        list.par_iter().copied().collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>()
    );
    assert_eq!(
        list.into_par_iter().collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>()
    );

    let mut deque: VecDeque<u32> = (0..n).collect();
    deque.rotate_left(300);
    let seq: Vec<u32> = deque.iter().copied().collect();
    assert_eq!(deque.par_iter().copied().collect::<Vec<_>>(), seq);
    deque.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(
        deque.par_iter().rev().copied().collect::<Vec<_>>(),
        seq.iter().rev().map(|x| x + 1).collect::<Vec<_>>()
    );
    is_indexed(&deque.par_iter());
    assert_eq!(deque.par_drain(..10).count(), 10);
    assert_eq!(deque.len(), n as usize - 10);
    assert_eq!(deque.into_par_iter().count(), n as usize - 10);
}

#[test]
fn drains() {
    let mut v: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let drained: Vec<String> = v.par_drain(10..=19).collect();
    assert_eq!(drained, (10..20).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(v.len(), 90);
    assert_eq!(
        v.par_drain(..).rev().take(3).collect::<Vec<_>>(),
        ["99", "98", "97"]
    );
    assert!(v.is_empty());

    let mut s = String::from("héllo wörld ✓");
    let chars: String = s.par_drain(1..10).collect();
    assert_eq!(chars, "éllo wö");
    assert_eq!(s, "hrld ✓");
    drop(s.par_drain(..1));
    assert_eq!(s, "rld ✓");
}

#[test]
fn bridged_iterators() {
    crate::common::watchdog(120, "bridged iterators", || {
        let mut v: Vec<u32> = (0..10_000u32)
            .collect::<Vec<_>>()
            .into_iter()
            .par_bridge()
            .collect();
        v.sort_unstable();
        assert_eq!(v, (0..10_000).collect::<Vec<_>>());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for i in 0..1000u64 {
                tx.send(i).unwrap();
            }
        });
        assert_eq!(
            rx.into_iter().par_bridge().map(|x| x * 2).sum::<u64>(),
            999_000
        );
        assert_eq!(
            (0..u64::MAX).par_bridge().find_any(|&x| x == 500),
            Some(500)
        );
    });
}

#[test]
fn generated_sources() {
    assert_eq!(empty::<u8>().count(), 0);
    assert_eq!(empty::<u8>().len(), 0);
    assert_eq!(once(5).chain(once(6)).collect::<Vec<_>>(), [5, 6]);
    assert_eq!(repeat("x").take(3).collect::<String>(), "xxx");
    assert_eq!(
        repeat(1).zip(0..5).map(|(a, b)| a + b).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(repeat(7).find_any(|_| true), Some(7));
    assert_eq!(repeat_n(vec![1], 4).flatten().count(), 4);
    let pieces: Vec<Vec<u32>> = split((0..1000u32).collect::<Vec<_>>(), |mut v| {
        if v.len() <= 10 {
            (v, None)
        } else {
            let right = v.split_off(v.len() / 2);
            (v, Some(right))
        }
    })
    .collect();
    // The pieces are split as far as the work needs (not always down to 10), in order.
    assert_eq!(pieces.concat(), (0..1000).collect::<Vec<_>>());

    // A tree of depth 10: node n has children 2n+1 and 2n+2 below 1023.
    let children = |&n: &u32| {
        if n < 511 {
            vec![2 * n + 1, 2 * n + 2]
        } else {
            vec![]
        }
    };
    let prefix: Vec<u32> = walk_tree_prefix(0u32, children).collect();
    let postfix: Vec<u32> = walk_tree_postfix(0u32, children).collect();
    let mut seq_prefix = Vec::new();
    let mut seq_postfix = Vec::new();
    fn walk(n: u32, pre: &mut Vec<u32>, post: &mut Vec<u32>) {
        pre.push(n);
        if n < 511 {
            walk(2 * n + 1, pre, post);
            walk(2 * n + 2, pre, post);
        }
        post.push(n);
    }
    walk(0, &mut seq_prefix, &mut seq_postfix);
    assert_eq!(prefix, seq_prefix);
    assert_eq!(postfix, seq_postfix);
}

#[test]
fn tuples_zip_their_iterators() {
    let a = vec![1, 2, 3];
    let mut b = vec![10, 20, 30, 40];
    let sums: Vec<i32> = (&a, &b).into_par_iter().map(|(x, y)| x + y).collect();
    assert_eq!(sums, [11, 22, 33]);
    (&a, &mut b).into_par_iter().for_each(|(x, y)| *y += x);
    assert_eq!(b, [11, 22, 33, 40]);
    let t: Vec<(i32, u8, char)> = (a.clone(), 0..3u8, vec!['a', 'b', 'c'])
        .into_par_iter()
        .collect();
    assert_eq!(t[2], (3, 2, 'c'));
}
