//! Helpers shared by the data-parallel loop tests (the modules of `tests/par/`): per-index
//! counters that check "every index exactly once", a record of which thread ran each index,
//! and CPU work that cannot be optimised away. The watchdog, the executors and the mixer are the ones in
//! `tests/common`, which `main.rs` declares beside this module.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::common::mix;

/// One `AtomicU8` per index of `range` (which may lie anywhere in `0..=usize::MAX`): how many
/// times the body ran on it.
pub struct Counters {
    start: usize,
    counts: Vec<AtomicU8>,
}

impl Counters {
    /// Counters for `range`; a reversed range has none.
    pub fn new(range: Range<usize>) -> Arc<Counters> {
        let len = range.end.saturating_sub(range.start);
        Arc::new(Counters {
            start: range.start,
            counts: (0..len).map(|_| AtomicU8::new(0)).collect(),
        })
    }

    /// Counts one run of the body on `index`; panics on an index outside the range.
    pub fn hit(&self, index: usize) {
        let slot = index
            .checked_sub(self.start)
            .and_then(|off| self.counts.get(off))
            .unwrap_or_else(|| {
                panic!(
                    "index {index} is outside {}..{}",
                    self.start,
                    self.start + self.counts.len()
                )
            });
        // Saturate instead of wrapping so 256 runs cannot read as 0.
        let _ = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1));
    }

    /// Total runs so far, over all indices.
    pub fn total(&self) -> usize {
        self.counts
            .iter()
            .map(|c| usize::from(c.load(Ordering::Relaxed)))
            .sum()
    }

    /// Asserts that every index ran exactly once, naming the first few that did not.
    pub fn assert_each_once(&self, what: &str) {
        let bad: Vec<(usize, u8)> = self
            .counts
            .iter()
            .enumerate()
            .filter_map(|(off, c)| {
                let n = c.load(Ordering::Relaxed);
                (n != 1).then_some((self.start + off, n))
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{what}: {} of {} indices did not run exactly once; first (index, runs): {:?}",
            bad.len(),
            self.counts.len(),
            &bad[..bad.len().min(10)]
        );
    }
}

/// Records the name of the thread that ran each index.
#[derive(Default)]
pub struct Threads {
    names: Mutex<Vec<(usize, String)>>,
}

impl Threads {
    pub fn new() -> Arc<Threads> {
        Arc::new(Threads::default())
    }

    /// Records that the current thread ran `index`.
    pub fn record(&self, index: usize) {
        let name = thread::current().name().unwrap_or("<unnamed>").to_string();
        self.names.lock().unwrap().push((index, name));
    }

    /// The distinct thread names that ran an index for which `pick` holds.
    pub fn names_where(&self, pick: impl Fn(usize) -> bool) -> BTreeSet<String> {
        self.names
            .lock()
            .unwrap()
            .iter()
            .filter(|(i, _)| pick(*i))
            .map(|(_, n)| n.clone())
            .collect()
    }

    /// All distinct thread names.
    pub fn names(&self) -> BTreeSet<String> {
        self.names_where(|_| true)
    }

    /// Asserts that every recorded thread is a worker of the executor named `prefix`
    /// (`"{prefix}-{index}"`, not `"{prefix}-blocking-{n}"`).
    pub fn assert_all_workers_of(&self, prefix: &str, what: &str) {
        for name in self.names() {
            let is_worker = name
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|n| n.parse::<usize>().is_ok());
            assert!(
                is_worker,
                "{what}: a body ran on thread {name:?}, which is no worker of executor {prefix:?}"
            );
        }
    }
}

/// CPU work: `rounds` dependent mixing steps seeded with `seed` (a few ns each in release,
/// tens of ns in debug).
pub fn spin(seed: u64, rounds: u32) -> u64 {
    let mut x = seed;
    for _ in 0..rounds {
        x = mix(std::hint::black_box(x));
    }
    x
}
