//! The loom model of the steal range (`../steal_range.rs`), on the shipped code: an owner
//! takes index after index while two thieves steal, and each thief works through what it
//! stole as the owner of a range of its own. Every index is taken exactly once, including the last one, which the owner and a thief
//! race for.

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;
use std::sync::Arc;

use super::StealRange;

/// A thief's life: steal from `range` until nothing is left to steal, working through each
/// stolen part as the owner of a range of its own.
fn thief(range: &StealRange, hits: &[AtomicUsize]) {
    while let Some((start, end)) = range.steal() {
        let own = StealRange::new(start, end);
        while let Some(i) = own.take() {
            hits[i as usize].fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn owner_take_thief_steal_and_the_last_index_each_index_once() {
    loom::model(|| {
        const LEN: u32 = 4;
        let range = Arc::new(StealRange::new(0, LEN));
        let hits: Arc<Vec<AtomicUsize>> = Arc::new((0..LEN).map(|_| AtomicUsize::new(0)).collect());
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let range = Arc::clone(&range);
                let hits = Arc::clone(&hits);
                thread::spawn(move || thief(&range, &hits))
            })
            .collect();
        while let Some(i) = range.take() {
            hits[i as usize].fetch_add(1, Ordering::Relaxed);
        }
        for t in thieves {
            t.join().unwrap();
        }
        for (i, hit) in hits.iter().enumerate() {
            assert_eq!(hit.load(Ordering::Relaxed), 1, "index {i}");
        }
    });
}
