//! A worker that comes late to a call takes its biggest piece on offer: the oldest half of
//! the worker that published it, whichever thread put that half on the board (the worker
//! itself at a heartbeat, or the ticker in its place while the worker makes no check).
//! rayon's octillion searches (`tests/rayon/octillion.rs`) count on it: the answer is in the
//! upper half of 10²⁷ items, and a thief that took a younger, lower piece would search beside
//! the owner forever.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use filch::par::prelude::*;

use crate::common::{executor, watchdog};

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

#[test]
fn a_late_worker_takes_the_upper_half_of_a_search() {
    watchdog(
        120,
        "a_late_worker_takes_the_upper_half_of_a_search",
        || {
            // Each round keeps one worker away for 60 ms, in a poll that sleeps, while the other
            // starts the search alone: it publishes the halves of its first joins, the biggest
            // first, itself at its heartbeats until its fold stops for 5 ms (a preemption, as on
            // a busy machine), and the ticker publishes the next one in its place meanwhile.
            // Several rounds, so that each worker is likely the late one at least once.
            for round in 0..4 {
                let ex = executor(2);
                let asleep = Arc::new(AtomicBool::new(false));
                let flag = Arc::clone(&asleep);
                let late = ex.spawn(async move {
                    flag.store(true, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(60));
                });
                while !asleep.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                let start = Instant::now();
                let paused = AtomicBool::new(false);
                let found = ex.block_on(async {
                    (0..OCTILLION).into_par_iter().find_any(|x| {
                        if start.elapsed() > Duration::from_micros(1500)
                            && !paused.swap(true, Ordering::Relaxed)
                        {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        *x > OCTILLION / 2
                    })
                });
                assert!(found.is_some_and(|x| x > OCTILLION / 2), "round {round}");
                ex.block_on(late).expect("the late worker's task ends");
            }
        },
    );
}
