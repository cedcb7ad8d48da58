//! Unit tests of the work-stealing range: exactly once under concurrent
//! owners, thieves and stops, the ends of `usize`, the grains of huge ranges,
//! and the shape of owner batches and steals (with the real batch controller).

use super::*;
use crate::par::loops::batch::{MAX_BATCH, SHRINK};
use crate::util::sync::{AtomicU8, Mutex};
use std::thread;
use std::time::Duration;

/// Whether every index of `p` is finished or swept.
fn is_done(p: &Partition) -> bool {
    p.remaining.load(Ordering::Acquire) == 0
}

/// A thief's steal from `r`, in indices.
fn steal(r: &StealRange) -> Option<Range<usize>> {
    r.steal_grains().map(|(lo, hi)| r.grains.indices(lo, hi))
}

/// The unclaimed indices of `r`, as of some moment.
fn unclaimed(r: &StealRange) -> usize {
    let w = Word(r.word.load(Ordering::Acquire));
    if w.len() == 0 {
        0
    } else {
        r.grains.indices(w.lo(), w.hi()).len()
    }
}

/// Runs `threads` workers of a `workers`-slice partition of `range` to the
/// end; checks every index ran exactly once and completion was seen once.
fn hammer(range: Range<usize>, workers: usize, threads: usize) {
    let p = Partition::new(range.clone(), workers);
    let len = range.end.saturating_sub(range.start);
    assert_eq!(p.grains.len, len);
    let counts: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
    let trues = AtomicUsize::new(0);
    thread::scope(|s| {
        for me in 0..threads {
            let (p, counts, trues) = (&p, &counts, &trues);
            let start = range.start;
            s.spawn(move || {
                let (mut rng, mut sizes) = (me as u64 + 1, BatchSize::default());
                while let Some(batch) = p.next_batch(me, &mut rng, &mut sizes) {
                    assert!(!batch.is_empty());
                    for i in batch.clone() {
                        counts[i - start].fetch_add(1, Ordering::Relaxed);
                    }
                    if p.complete(batch.len()) {
                        trues.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    for (k, c) in counts.iter().enumerate() {
        assert_eq!(
            c.load(Ordering::Relaxed),
            1,
            "index {} of {range:?}",
            range.start + k
        );
    }
    assert_eq!(trues.load(Ordering::Relaxed), usize::from(len > 0));
    assert!(is_done(&p));
}

#[test]
fn every_index_exactly_once() {
    for &n in &[0, 1, 2, 3, 7, 64, 1000, 4099, 100_003] {
        for threads in 1..=4 {
            for _ in 0..if n < 5000 { 20 } else { 2 } {
                hammer(0..n, threads, threads);
            }
        }
    }
}

#[test]
fn absent_workers_are_stolen_from() {
    // Slices for 4 workers, but only 1 or 2 ever show up.
    for threads in 1..=2 {
        for &n in &[1, 5, 1000, 4099] {
            hammer(0..n, 4, threads);
        }
    }
}

#[test]
fn ranges_at_both_ends_of_usize() {
    for threads in 1..=4 {
        hammer(usize::MAX - 1000..usize::MAX, threads, threads);
        hammer(usize::MAX - 5..usize::MAX, threads, threads);
        hammer(usize::MAX - 1..usize::MAX, threads, threads);
        hammer(0..10, threads, threads);
        hammer(0..3, threads, threads);
        hammer(1..4, threads, threads);
    }
}

#[test]
fn empty_and_reversed_ranges_hand_out_nothing() {
    #[allow(clippy::reversed_empty_ranges)] // reversed on purpose
    let ranges = [0..0, 5..5, 10..3, usize::MAX..usize::MAX, usize::MAX..0];
    for r in ranges {
        for workers in [0, 1, 3] {
            let p = Partition::new(r.clone(), workers);
            assert!(p.grains.len == 0 && is_done(&p));
            let (mut rng, mut sizes) = (7, BatchSize::default());
            for me in 0..4 {
                assert_eq!(p.next_batch(me, &mut rng, &mut sizes), None);
            }
            assert!(!p.complete(0));
            assert!(!p.stop());
        }
        let p = Partition::new(r, 1);
        assert_eq!(p.ranges[0].claim(&mut BatchSize::default()), None);
        assert_eq!(steal(&p.ranges[0]), None);
    }
}

#[test]
fn grains_cover_huge_ranges_without_overflow() {
    let g = Grains::new(0..u32::MAX as usize);
    assert_eq!((g.grain, g.count), (1, u32::MAX));
    if usize::BITS == 64 {
        let g = Grains::new(0..u32::MAX as usize + 1);
        assert_eq!((g.grain, g.count), (2, (1 << 31)));
        let g = Grains::new(0..usize::MAX);
        assert_eq!(g.count, u32::MAX);
        assert_eq!(g.index(0), 0);
        assert_eq!(g.index(g.count), usize::MAX);
        assert_eq!(g.index(u32::MAX), usize::MAX);
        let g = Grains::new(1..usize::MAX);
        assert_eq!(g.index(g.count), usize::MAX);
    }
}

#[test]
fn huge_range_batches_are_disjoint_and_accounted() {
    for range in [0..usize::MAX, usize::MAX / 3..usize::MAX, 1..usize::MAX - 1] {
        let p = Partition::new(range.clone(), 3);
        let mut held = Vec::new();
        let (mut rng, mut sizes) = (1, [BatchSize::default(); 3]);
        for round in 0..50 {
            held.extend(p.next_batch(round % 3, &mut rng, &mut sizes[round % 3]));
            held.extend(steal(&p.ranges[round % 3]));
        }
        held.sort_by_key(|r| r.start);
        for pair in held.windows(2) {
            assert!(pair[0].end <= pair[1].start, "{pair:?} overlap");
        }
        assert!(held
            .iter()
            .all(|r| range.start <= r.start && r.end <= range.end));
        // Stop sweeps the rest; the held batches keep the loop open.
        assert!(!p.stop());
        assert_eq!(p.next_batch(0, &mut rng, &mut sizes[0]), None);
        let trues = held.iter().filter(|r| p.complete(r.len())).count();
        assert_eq!(trues, 1);
        assert!(is_done(&p));
    }
}

#[test]
fn owner_batches_grow_then_shrink_toward_the_end() {
    let p = Partition::new(0..1_000_000, 1);
    let mut sizes = BatchSize::default();
    let mut next = 0;
    let mut lens = Vec::new();
    while let Some(b) = p.ranges[0].claim(&mut sizes) {
        assert_eq!(b.start, next);
        next = b.end;
        lens.push(b.len());
    }
    assert_eq!(next, 1_000_000);
    assert_eq!(&lens[..4], &[1, 2, 4, 8]);
    assert!(lens.iter().all(|&s| s <= MAX_BATCH));
    assert!(lens.len() < 1_000_000 / MAX_BATCH + 100, "{}", lens.len());
    assert_eq!(lens.last(), Some(&1));
}

#[test]
fn a_claim_is_at_least_one_grain() {
    // The controller's first limit is one index; a grain of a huge range is
    // billions of them.
    let huge = Partition::new(0..usize::MAX, 1);
    let b = huge.ranges[0].claim(&mut BatchSize::default());
    let b = b.unwrap_or(0..0);
    assert_eq!(b.len(), Grains::new(0..usize::MAX).grain);
    assert!(!huge.stop());
    assert!(huge.complete(b.len()));
}

#[test]
fn owner_shrinks_after_a_theft() {
    let p = Partition::new(0..100_000, 1);
    let r = &p.ranges[0];
    let mut sizes = BatchSize::default();
    let mut last = 0;
    for _ in 0..8 {
        last = r.claim(&mut sizes).map_or(0, |b| b.len());
    }
    assert_eq!(last, 128);
    assert!(steal(r).is_some());
    let after = r.claim(&mut sizes).map_or(0, |b| b.len());
    assert_eq!(after, 256 / SHRINK);
}

#[test]
fn thieves_take_a_fraction_from_the_high_end() {
    let p = Partition::new(0..100, 1);
    let d = STEAL_DIVISOR as usize;
    assert_eq!(steal(&p.ranges[0]), Some(100 - 100usize.div_ceil(d)..100));
    let one = Partition::new(0..1, 1);
    let one = &one.ranges[0];
    assert_eq!(steal(one), Some(0..1));
    assert_eq!(one.claim(&mut BatchSize::default()), None);
    assert_eq!(steal(one), None);
    let two = Partition::new(usize::MAX - 2..usize::MAX, 1);
    let two = &two.ranges[0];
    let claimed = two.claim(&mut BatchSize::default());
    assert_eq!(claimed, Some(usize::MAX - 2..usize::MAX - 1));
    assert_eq!(steal(two), Some(usize::MAX - 1..usize::MAX));
    assert_eq!(unclaimed(two), 0);
}

#[test]
fn stolen_chunk_becomes_stealable() {
    let p = Partition::new(0..1000, 2);
    let (mut rng, mut sizes) = (3, BatchSize::default());
    // Drain worker 1's slice so its next batch is a steal.
    let mut held = Vec::new();
    while unclaimed(&p.ranges[1]) > 0 {
        held.extend(p.next_batch(1, &mut rng, &mut sizes));
    }
    let stolen = p.next_batch(1, &mut rng, &mut sizes);
    // It kept one index and installed the rest of the stolen top of 0..500.
    let from = 500 - 500usize.div_ceil(STEAL_DIVISOR as usize);
    assert_eq!(stolen, Some(from..from + 1));
    let rest = 500 - from - 1;
    assert_eq!(unclaimed(&p.ranges[1]), rest);
    let again = 500 - rest.div_ceil(STEAL_DIVISOR as usize);
    let restolen = steal(&p.ranges[1]);
    assert_eq!(restolen, Some(again..500));
    held.extend(stolen);
    held.extend(restolen);
    assert!(!p.stop());
    let trues = held.iter().filter(|r| p.complete(r.len())).count();
    assert_eq!(trues, 1);
}

#[test]
fn complete_is_true_exactly_once() {
    let p = Partition::new(0..10, 1);
    assert!(!p.complete(3));
    assert!(!p.complete(0));
    assert!(!p.complete(6));
    assert!(p.complete(1));
    assert!(!p.complete(0));
    assert!(is_done(&p));
}

#[test]
fn stop_sweeps_unclaimed_and_waits_for_held() {
    let p = Partition::new(0..1000, 2);
    let (mut rng, mut sizes) = (1, [BatchSize::default(); 2]);
    let b = p.next_batch(0, &mut rng, &mut sizes[0]).unwrap_or(0..0);
    assert_eq!(b, 0..1);
    assert!(!p.stop());
    assert!(p.is_stopped() && !is_done(&p));
    assert_eq!(p.next_batch(0, &mut rng, &mut sizes[0]), None);
    assert_eq!(p.next_batch(1, &mut rng, &mut sizes[1]), None);
    assert_eq!(steal(&p.ranges[0]), None);
    assert_eq!(p.ranges[1].claim(&mut sizes[1]), None);
    assert!(p.complete(b.len()));
    assert!(!p.stop());

    let idle = Partition::new(0..100, 3);
    assert!(idle.stop());
    assert!(!idle.stop());
    assert!(is_done(&idle));
}

#[test]
fn install_after_stop_subtracts_the_chunk() {
    let p = Partition::new(0..100, 2);
    let mut sizes = BatchSize::default();
    let mut held = Vec::new();
    while let Some(b) = p.ranges[1].claim(&mut sizes) {
        held.push(b);
    }
    // Worker 1 steals from worker 0 ...
    let (lo, hi) = p.ranges[0].steal_grains().unwrap_or((0, 0));
    let mid = 50 - 50u32.div_ceil(STEAL_DIVISOR);
    assert_eq!((lo, hi), (mid, 50));
    // ... a stop sweeps everything in the words ...
    assert!(!p.stop());
    // ... and the install finds its own word stopped.
    let kept = p.keep_and_install(Some(&p.ranges[1]), &mut sizes, lo, hi);
    assert_eq!(kept, mid as usize..mid as usize + 1);
    held.push(kept);
    let trues = held.iter().filter(|r| p.complete(r.len())).count();
    assert_eq!(trues, 1);
}

#[test]
fn concurrent_stop_hands_out_each_index_at_most_once() {
    for threads in 1..=4 {
        for _ in 0..20 {
            let n = 20_000;
            let p = Partition::new(0..n, threads);
            let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
            let trues = AtomicUsize::new(0);
            let ran = AtomicUsize::new(0);
            thread::scope(|s| {
                for me in 0..threads {
                    let (p, counts, trues, ran) = (&p, &counts, &trues, &ran);
                    s.spawn(move || {
                        let (mut rng, mut sizes) = (me as u64 + 11, BatchSize::default());
                        while let Some(batch) = p.next_batch(me, &mut rng, &mut sizes) {
                            for i in batch.clone() {
                                if p.is_stopped() {
                                    break;
                                }
                                counts[i].fetch_add(1, Ordering::Relaxed);
                                if ran.fetch_add(1, Ordering::Relaxed) == n / 3 && p.stop() {
                                    trues.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            if p.complete(batch.len()) {
                                trues.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) <= 1));
            assert_eq!(trues.load(Ordering::Relaxed), 1);
            assert!(is_done(&p));
        }
    }
}

#[test]
fn slow_worker_is_stolen_from() {
    let threads = 4;
    let n = 4000;
    let p = Partition::new(0..n, threads);
    let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let per_thread = Mutex::new(vec![0usize; threads]);
    thread::scope(|s| {
        for me in 0..threads {
            let (p, counts, per_thread) = (&p, &counts, &per_thread);
            s.spawn(move || {
                let (mut rng, mut sizes) = (me as u64 + 5, BatchSize::default());
                let mut mine = 0;
                while let Some(batch) = p.next_batch(me, &mut rng, &mut sizes) {
                    for i in batch.clone() {
                        if me == 0 {
                            thread::sleep(Duration::from_micros(200));
                        }
                        counts[i].fetch_add(1, Ordering::Relaxed);
                    }
                    mine += batch.len();
                    let _ = p.complete(batch.len());
                }
                per_thread.lock()[me] = mine;
            });
        }
    });
    assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    let v = per_thread.lock().clone();
    assert_eq!(v.iter().sum::<usize>(), n);
    // Alone, worker 0 would run its 1000; the others must take most of it.
    assert!(v[0] < 250, "slow worker ran {v:?}");
    assert!(is_done(&p));
}

#[test]
fn debug_output_decodes_words() {
    let p = Partition::new(10..20, 2);
    let s = format!("{p:?}");
    assert!(s.contains("0..5") && s.contains("10..15"), "{s}");
    assert!(p.stop());
    assert!(format!("{p:?}").contains("stopped"));
}
