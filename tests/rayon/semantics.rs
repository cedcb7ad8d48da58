//! The semantics rayon documents and filch keeps: ties of `min`/`max` and their `_by`,
//! `_by_key` forms break as std's do, reductions combine in index order, `reduce` starts
//! each piece from the identity, `zip_eq` checks the lengths, and the indexed adaptors
//! report their lengths.

use filch::par::prelude::*;

#[test]
fn min_and_max_break_ties_as_std() {
    // Many equal keys across many pieces: the first minimum, the last maximum.
    let v: Vec<(u32, usize)> = (0..100_000).map(|i| ((i % 7) as u32, i)).collect();
    assert_eq!(
        v.par_iter().min_by_key(|p| p.0),
        v.iter().min_by_key(|p| p.0)
    );
    assert_eq!(
        v.par_iter().max_by_key(|p| p.0),
        v.iter().max_by_key(|p| p.0)
    );
    assert_eq!(
        v.par_iter().min_by(|a, b| a.0.cmp(&b.0)),
        v.iter().min_by(|a, b| a.0.cmp(&b.0))
    );
    assert_eq!(
        v.par_iter().max_by(|a, b| a.0.cmp(&b.0)),
        v.iter().max_by(|a, b| a.0.cmp(&b.0))
    );
    // `min`/`max` on items that compare equal but are told apart by address.
    #[derive(Debug)]
    struct Key(u32);
    impl PartialEq for Key {
        fn eq(&self, other: &Key) -> bool {
            self.0 == other.0
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key {
        fn cmp(&self, other: &Key) -> std::cmp::Ordering {
            self.0.cmp(&other.0)
        }
    }
    let keys: Vec<Key> = (0..50_000).map(|i| Key(i % 3)).collect();
    assert!(std::ptr::eq(
        keys.par_iter().min().unwrap(),
        keys.iter().min().unwrap()
    ));
    assert!(std::ptr::eq(
        keys.par_iter().max().unwrap(),
        keys.iter().max().unwrap()
    ));
}

#[test]
fn reductions_combine_in_index_order() {
    // String concatenation is associative but not commutative.
    let words: Vec<String> = (0..5000).map(|i| format!("{i} ")).collect();
    let seq = words.concat();
    assert_eq!(
        words.par_iter().cloned().reduce(String::new, |a, b| a + &b),
        seq
    );
    assert_eq!(
        words.par_iter().cloned().reduce_with(|a, b| a + &b),
        Some(seq.clone())
    );
    let folded: String = words
        .par_iter()
        .fold(String::new, |a, b| a + b)
        .reduce(String::new, |a, b| a + &b);
    assert_eq!(folded, seq);
    let r: Result<String, ()> = words
        .par_iter()
        .map(|w| Ok(w.clone()))
        .try_reduce(String::new, |a, b| Ok(a + &b));
    assert_eq!(r, Ok(seq.clone()));
    let s: String = words
        .par_iter()
        .filter(|_| true)
        .cloned()
        .reduce(String::new, |a, b| a + &b);
    assert_eq!(s, seq);
}

#[test]
fn reduce_of_nothing_is_the_identity() {
    assert_eq!((0..0).into_par_iter().reduce(|| 42, |a, b| a + b), 42);
    assert_eq!((0..0).into_par_iter().reduce_with(|a: i32, b| a + b), None);
    assert_eq!(
        (0..0)
            .into_par_iter()
            .map(Some)
            .try_reduce(|| 7, |a: i32, b| Some(a + b)),
        Some(7)
    );
    assert_eq!((0..0).into_par_iter().sum::<i32>(), 0);
    assert_eq!((0..0).into_par_iter().product::<i32>(), 1);
    assert_eq!((0..0).into_par_iter().min(), None::<i32>);
}

#[test]
#[should_panic(expected = "iterators must have the same length")]
fn zip_eq_panics_on_unequal_lengths() {
    let _ = (0..10).into_par_iter().zip_eq(0..11);
}

#[test]
fn indexed_adaptors_know_their_lengths() {
    let v: Vec<u32> = (0..1000).collect();
    assert_eq!(v.par_iter().len(), 1000);
    assert_eq!(v.par_iter().skip(990).len(), 10);
    assert_eq!(v.par_iter().skip(2000).len(), 0);
    assert_eq!(v.par_iter().take(10).len(), 10);
    assert_eq!(v.par_iter().take(2000).len(), 1000);
    assert_eq!(v.par_iter().step_by(3).len(), 334);
    assert_eq!(v.par_iter().chunks(7).len(), 143);
    assert_eq!(v.par_iter().rev().len(), 1000);
    assert_eq!(v.par_iter().zip(0..10).len(), 10);
    assert_eq!(v.par_iter().chain(&v).len(), 2000);
    assert_eq!(v.par_iter().interleave_shortest(&v[..3]).len(), 7);
    assert_eq!(v.par_iter().intersperse(&0).len(), 1999);
    assert_eq!(v.par_iter().map(|x| x + 1).opt_len(), Some(1000));
    assert_eq!(v.par_iter().filter(|_| true).opt_len(), None);
    assert_eq!(v.par_iter().flat_map(|_| 0..2).opt_len(), None);
    // Their items, against std's adaptors.
    let seq = |it: &mut dyn Iterator<Item = u32>| it.collect::<Vec<_>>();
    assert_eq!(
        v.par_iter()
            .copied()
            .rev()
            .skip(3)
            .step_by(7)
            .take(50)
            .collect::<Vec<_>>(),
        seq(&mut v.iter().copied().rev().skip(3).step_by(7).take(50))
    );
    assert_eq!(
        v.par_iter()
            .copied()
            .chunks(7)
            .rev()
            .map(|c| c[0])
            .collect::<Vec<_>>(),
        seq(&mut v.chunks(7).rev().map(|c| c[0]))
    );
    assert_eq!(
        v.par_iter().copied().step_by(9).rev().collect::<Vec<_>>(),
        seq(&mut v.iter().copied().step_by(9).rev())
    );
}
