//! Loom models of the work-stealing index range (`steal_range.rs`):
//! every index is handed out exactly once (at most once after a stop) and the
//! end of the loop is observed exactly once, under every interleaving loom
//! explores.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib loom`

use std::ops::Range;

use super::batch::BatchSize;
use super::steal_range::Partition;
use loom::sync::Arc;
use loom::thread;

/// What one thread did: the batches it got and how many of its `complete`
/// (or `stop`) calls returned `true`.
type Split = (Vec<Range<usize>>, usize);

/// Joins the threads and checks that `0..n` was handed out exactly once (or at
/// most once, if `stopped`) and that exactly one call saw the end.
fn check(n: usize, handles: Vec<thread::JoinHandle<Split>>, stopped: bool) {
    let mut counts = vec![0u32; n];
    let mut ends = 0;
    for h in handles {
        let (batches, trues) = h.join().expect("a model thread panicked");
        ends += trues;
        for b in batches {
            for i in b {
                counts[i] += 1;
            }
        }
    }
    if stopped {
        assert!(counts.iter().all(|&c| c <= 1), "{counts:?}");
    } else {
        assert!(counts.iter().all(|&c| c == 1), "{counts:?}");
    }
    // The one `true` is the decrement that brought the count to zero.
    assert_eq!(ends, 1, "the end of the loop must be observed exactly once");
}

/// A worker: take batches until none is left, completing each. A `me` beyond
/// the partition's slices only steals.
fn worker(p: &Partition, me: usize) -> Split {
    let (mut rng, mut sizes) = (me as u64 + 1, BatchSize::default());
    let mut got = Vec::new();
    let mut trues = 0;
    while let Some(b) = p.next_batch(me, &mut rng, &mut sizes) {
        trues += usize::from(p.complete(b.len()));
        got.push(b);
    }
    (got, trues)
}

/// One owner claiming from the low end, two thieves stealing from the high end
/// of the same slice; they contend for the last items.
#[test]
fn one_owner_two_thieves() {
    loom::model(|| {
        let n = 4;
        let p = Arc::new(Partition::new(0..n, 1));
        let mut handles = Vec::new();
        for me in 0..3 {
            let p = Arc::clone(&p);
            handles.push(thread::spawn(move || worker(&p, me)));
        }
        check(n, handles, false);
    });
}

/// Three workers, each owner of one slice and thief of the others; a thief
/// installs what it stole as its own slice, where it can be stolen again.
#[test]
fn three_workers_steal_and_reinstall() {
    loom::model(|| {
        let n = 7;
        let p = Arc::new(Partition::new(0..n, 3));
        let handles = (0..3)
            .map(|me| {
                let p = Arc::clone(&p);
                thread::spawn(move || worker(&p, me))
            })
            .collect();
        check(n, handles, false);
    });
}

/// Two workers race a stop: no index twice, and exactly one of the
/// completions and the stop observes the end.
#[test]
fn stop_races_workers() {
    loom::model(|| {
        let n = 6;
        let p = Arc::new(Partition::new(0..n, 2));
        let mut handles: Vec<thread::JoinHandle<Split>> = (0..2)
            .map(|me| {
                let p = Arc::clone(&p);
                thread::spawn(move || worker(&p, me))
            })
            .collect();
        let stopper = Arc::clone(&p);
        handles.push(thread::spawn(move || {
            (Vec::new(), usize::from(stopper.stop()))
        }));
        check(n, handles, true);
    });
}
