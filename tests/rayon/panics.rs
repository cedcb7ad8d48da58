//! A panic in any closure stops the whole call at once (with or without `panic_fuse`),
//! comes back to the caller with its own payload, and drops every item exactly once:
//! items written into a collect, items still in a `Vec` being consumed, items of a drained
//! range (which is removed all the same).

use std::collections::VecDeque;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use filch::par::prelude::*;

use crate::common::{Probe, Tally};

/// A payload only these tests raise.
#[derive(Debug, PartialEq)]
struct Boom(usize);

fn payload_of<R>(f: impl FnOnce() -> R) -> Boom {
    let err = catch_unwind(AssertUnwindSafe(f))
        .err()
        .expect("the call panicked");
    *err.downcast::<Boom>().expect("the panic keeps its payload")
}

#[test]
fn the_panic_reaches_the_caller_with_its_payload() {
    let boom = payload_of(|| {
        (0..100_000usize).into_par_iter().for_each(|i| {
            if i == 77_777 {
                panic_any(Boom(i))
            }
        })
    });
    assert_eq!(boom, Boom(77_777));
    let boom = payload_of(|| {
        (0..1000usize)
            .into_par_iter()
            .map(|i| if i == 3 { panic_any(Boom(i)) } else { i })
            .sum::<usize>()
    });
    assert_eq!(boom, Boom(3));
    // Unindexed, and nested: the inner call's panic goes through the outer one.
    let boom = payload_of(|| {
        (0..100usize)
            .into_par_iter()
            .filter(|i| i % 2 == 0)
            .flat_map(|i| {
                (0..100usize).into_par_iter().map(move |j| {
                    if i * 100 + j == 4242 {
                        panic_any(Boom(4242))
                    } else {
                        j
                    }
                })
            })
            .count()
    });
    assert_eq!(boom, Boom(4242));
}

#[test]
fn when_every_item_panics_one_payload_comes_back() {
    let boom = payload_of(|| {
        (0..10_000usize)
            .into_par_iter()
            .for_each(|i| panic_any(Boom(i)))
    });
    assert!(boom.0 < 10_000);
}

/// On one worker the pieces run one after the other, left to right: a panic at item `n`
/// leaves exactly the items before it processed, with or without `panic_fuse`.
#[test]
fn a_panic_stops_new_pieces_at_once() {
    crate::on_one_worker(|| {
        for fuse in [false, true] {
            for max_len in [1, 16, usize::MAX] {
                let seen = AtomicUsize::new(0);
                let body = |i: usize| {
                    seen.fetch_add(1, Ordering::Relaxed);
                    if i == 5000 {
                        panic_any(Boom(i));
                    }
                };
                let iter = (0..100_000usize).into_par_iter().with_max_len(max_len);
                let boom = if fuse {
                    payload_of(|| iter.panic_fuse().for_each(body))
                } else {
                    payload_of(|| iter.for_each(body))
                };
                assert_eq!(boom, Boom(5000));
                assert_eq!(seen.into_inner(), 5001, "fuse {fuse}, max_len {max_len}");
            }
        }
    });
}

fn probes(tally: &Arc<Tally>, n: usize) -> Vec<Probe> {
    (0..n).map(|_| tally.probe()).collect()
}

#[test]
fn an_indexed_collect_drops_exactly_the_items_written() {
    let tally = Tally::new();
    let items = probes(&tally, 10_000);
    let boom = payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .map(|(i, p)| if i == 6000 { panic_any(Boom(i)) } else { p })
            .collect::<Vec<_>>()
    });
    assert_eq!(boom, Boom(6000));
    tally.assert_all_dropped_once("indexed collect");

    // collect_into_vec into a vector that held items before.
    let mut target = probes(&tally, 10);
    let items = probes(&tally, 1000);
    payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .map(|(i, p)| if i == 999 { panic_any(Boom(i)) } else { p })
            .collect_into_vec(&mut target)
    });
    drop(target);
    tally.assert_all_dropped_once("collect_into_vec");
}

#[test]
fn an_unindexed_collect_drops_every_item_once() {
    let tally = Tally::new();
    let items = probes(&tally, 10_000);
    payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .filter(|(i, _)| i % 3 != 0)
            .map(|(i, p)| if i == 7001 { panic_any(Boom(i)) } else { p })
            .collect::<Vec<_>>()
    });
    tally.assert_all_dropped_once("unindexed collect");

    let items = probes(&tally, 1000);
    payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .flat_map_iter(|(i, p)| {
                if i == 500 {
                    panic_any(Boom(i))
                } else {
                    vec![p]
                }
            })
            .collect::<std::collections::LinkedList<_>>()
    });
    tally.assert_all_dropped_once("linked list collect");
}

#[test]
fn a_consumed_vec_drops_the_items_not_reached() {
    let tally = Tally::new();
    for at in [0, 1, 4999, 9999] {
        let items = probes(&tally, 10_000);
        payload_of(|| {
            items.into_par_iter().enumerate().for_each(|(i, p)| {
                if i == at {
                    panic_any(Boom(i));
                }
                drop(p);
            })
        });
        tally.assert_all_dropped_once("Vec::into_par_iter");
    }
    let array: [Probe; 64] = std::array::from_fn(|_| tally.probe());
    payload_of(|| {
        array.into_par_iter().enumerate().for_each(|(i, _)| {
            if i == 30 {
                panic_any(Boom(i))
            }
        })
    });
    tally.assert_all_dropped_once("array into_par_iter");
    // Items after a `take` are never run but are dropped; the skipped ones run.
    let items = probes(&tally, 1000);
    let kept: Vec<Probe> = items.into_par_iter().skip(100).take(500).collect();
    assert_eq!(kept.len(), 500);
    drop(kept);
    tally.assert_all_dropped_once("skip and take");
}

#[test]
fn par_drain_removes_its_range_even_on_a_panic() {
    let tally = Tally::new();
    let mut v: Vec<(usize, Probe)> = (0..1000).map(|i| (i, tally.probe())).collect();
    payload_of(|| {
        v.par_drain(100..900).for_each(|(i, _)| {
            if i == 500 {
                panic_any(Boom(i))
            }
        })
    });
    let left: Vec<usize> = v.iter().map(|(i, _)| *i).collect();
    assert_eq!(left, (0..100).chain(900..1000).collect::<Vec<_>>());
    drop(v);
    tally.assert_all_dropped_once("Vec::par_drain");

    let mut d: VecDeque<(usize, Probe)> = (0..1000).map(|i| (i, tally.probe())).collect();
    d.rotate_left(300); // make the deque wrap around its buffer
    payload_of(|| {
        d.par_drain(10..990).for_each(|(i, _)| {
            if i == 700 {
                panic_any(Boom(i))
            }
        })
    });
    assert_eq!(d.len(), 20);
    drop(d);
    tally.assert_all_dropped_once("VecDeque::par_drain");

    // A drain dropped unrun removes its range too.
    let mut v: Vec<Probe> = probes(&tally, 100);
    drop(v.par_drain(10..20));
    assert_eq!(v.len(), 90);
    drop(v);
    tally.assert_all_dropped_once("an unrun drain");
}

#[test]
fn a_panicking_reduction_or_fold_drops_every_item_once() {
    let tally = Tally::new();
    let items = probes(&tally, 5000);
    payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .map(|(i, p)| (i, vec![p]))
            .reduce_with(|mut a, b| {
                if a.0 >= 2000 {
                    panic_any(Boom(a.0));
                }
                a.1.extend(b.1);
                a
            })
    });
    tally.assert_all_dropped_once("reduce_with");

    let items = probes(&tally, 5000);
    payload_of(|| {
        items
            .into_par_iter()
            .enumerate()
            .fold(Vec::new, |mut acc, (i, p)| {
                if i == 4321 {
                    panic_any(Boom(i));
                }
                acc.push(p);
                acc
            })
            .collect::<Vec<_>>()
    });
    tally.assert_all_dropped_once("fold");
}

#[test]
fn a_bridged_iterator_that_panics_stops_every_piece() {
    let pulled = AtomicUsize::new(0);
    let boom = payload_of(|| {
        (0..usize::MAX)
            .map(|i| {
                pulled.fetch_add(1, Ordering::Relaxed);
                if i == 1000 {
                    panic_any(Boom(i));
                }
                i
            })
            .par_bridge()
            .for_each(drop)
    });
    assert_eq!(boom, Boom(1000));
    // The iterator is left out after its panic: nobody pulls from it again.
    assert_eq!(pulled.into_inner(), 1001);
}
