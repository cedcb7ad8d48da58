//! The short-circuiting consumers stop early: once a piece has its answer, the other pieces
//! take no new chunk. Checked on one worker, where the pieces run left to right, so how
//! many items were looked at is deterministic.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

use filch::par::prelude::*;

const N: usize = 100_000;

/// How many items `f` looked at through `seen`.
fn looked_at(f: impl FnOnce(&AtomicUsize)) -> usize {
    let seen = AtomicUsize::new(0);
    f(&seen);
    seen.into_inner()
}

fn items(seen: &AtomicUsize) -> impl IndexedParallelIterator<Item = usize> + '_ {
    (0..N).into_par_iter().inspect(move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    })
}

#[test]
fn searches_stop_at_their_answer() {
    crate::on_one_worker(|| {
        let n = looked_at(|s| assert_eq!(items(s).find_any(|&x| x == 10), Some(10)));
        assert!(n < N / 2, "find_any looked at {n}");
        let n = looked_at(|s| assert_eq!(items(s).find_first(|&x| x % 1000 == 999), Some(999)));
        assert!(n < N / 2, "find_first looked at {n}");
        let n = looked_at(|s| assert!(items(s).any(|x| x == 20)));
        assert!(n < N / 2, "any looked at {n}");
        let n = looked_at(|s| assert!(!items(s).all(|x| x < 30)));
        assert!(n < N / 2, "all looked at {n}");
        let n = looked_at(|s| assert_eq!(items(s).position_any(|x| x == 40), Some(40)));
        assert!(n < N / 2, "position_any looked at {n}");
        let n = looked_at(|s| {
            assert_eq!(
                items(s).find_map_any(|x| (x == 50).then_some(x * 2)),
                Some(100)
            )
        });
        assert!(n < N / 2, "find_map_any looked at {n}");
    });
}

#[test]
fn fallible_consumers_stop_at_the_first_failure() {
    crate::on_one_worker(|| {
        let n = looked_at(|s| {
            assert_eq!(
                items(s).try_for_each(|x| if x == 60 { Err(x) } else { Ok(()) }),
                Err(60)
            )
        });
        assert!(n < N / 2, "try_for_each looked at {n}");
        let n = looked_at(|s| {
            let r = items(s)
                .map(|x| if x == 70 { None } else { Some(x) })
                .try_reduce(|| 0, |a, b| Some(a + b));
            assert_eq!(r, None);
        });
        assert!(n < N / 2, "try_reduce looked at {n}");
        let n = looked_at(|s| {
            let r = items(s).try_for_each(|x| {
                if x == 80 {
                    ControlFlow::Break(x)
                } else {
                    ControlFlow::Continue(())
                }
            });
            assert_eq!(r, ControlFlow::Break(80));
        });
        assert!(n < N / 2, "try_for_each with ControlFlow looked at {n}");
        let n = looked_at(|s| {
            let r: Option<Vec<usize>> = items(s).map(|x| (x != 90).then_some(x)).collect();
            assert_eq!(r, None);
        });
        assert!(n < N / 2, "collect into Option looked at {n}");
        let n = looked_at(|s| {
            let r: Result<Vec<usize>, usize> = items(s)
                .map(|x| if x == 95 { Err(x) } else { Ok(x) })
                .collect();
            assert_eq!(r, Err(95));
        });
        assert!(n < N / 2, "collect into Result looked at {n}");
        let n = looked_at(|s| {
            let v: Vec<usize> = items(s)
                .map(|x| (x < 100).then_some(x))
                .while_some()
                .collect();
            assert!(v.len() <= 100);
        });
        assert!(n < N / 2, "while_some looked at {n}");
        let n = looked_at(|s| assert_eq!(items(s).take_any(5).count(), 5));
        assert!(n < N / 2, "take_any looked at {n}");
    });
}

/// Pieces left of a match keep going for `find_first` (a better match may be there); pieces
/// right of it stop. `find_last` is the mirror image.
#[test]
fn find_first_and_find_last_return_the_extreme_match() {
    for len in [0usize, 1, 2, 3, 100, 10_000, 1_000_000] {
        let v: Vec<usize> = (0..len).collect();
        let first = v.par_iter().find_first(|&&x| x % 7 == 3);
        let last = v.par_iter().find_last(|&&x| x % 7 == 3);
        assert_eq!(first, v.iter().find(|&&x| x % 7 == 3));
        assert_eq!(last, v.iter().rev().find(|&&x| x % 7 == 3));
        // Unindexed: positions come from halving, not from indices.
        let first = v
            .par_iter()
            .filter(|&&x| x % 2 == 1)
            .find_first(|&&x| x % 7 == 3);
        let last = v
            .par_iter()
            .filter(|&&x| x % 2 == 1)
            .find_last(|&&x| x % 7 == 3);
        assert_eq!(
            first,
            v.iter().filter(|&&x| x % 2 == 1).find(|&&x| x % 7 == 3)
        );
        assert_eq!(
            last,
            v.iter()
                .filter(|&&x| x % 2 == 1)
                .rev()
                .find(|&&x| x % 7 == 3)
        );
        let first = v.par_iter().position_first(|&x| x % 5 == 4);
        let last = v.par_iter().position_last(|&x| x % 5 == 4);
        assert_eq!(first, v.iter().position(|&x| x % 5 == 4));
        assert_eq!(last, v.iter().rposition(|&x| x % 5 == 4));
    }
}

/// A search over a tree walk stops at its answer, even in a tree without end: the walk goes
/// to the folder as one iterator, which must stop pulling nodes once the folder is full.
#[test]
fn a_search_over_an_endless_tree_walk_stops_at_its_answer() {
    use filch::par::iter::walk_tree_prefix;
    // Every node has two children, forever; the leftmost path goes 0, 1, 3, 7, 15, ...
    for workers in [1, 2] {
        crate::common::watchdog(60, "an endless tree walk", move || {
            let pool = filch::par::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let seen = AtomicUsize::new(0);
            let found = pool.install(|| {
                walk_tree_prefix(0u64, |&n: &u64| [2 * n + 1, 2 * n + 2])
                    .inspect(|_| {
                        seen.fetch_add(1, Ordering::Relaxed);
                    })
                    .find_any(|&n| n == 1023)
            });
            assert_eq!(found, Some(1023), "{workers} workers");
            assert!(seen.into_inner() >= 10, "{workers} workers");
        });
    }
}
