//! IO and timers are served while every worker's task is inside a `join` recursion: the
//! occupied workers' stand-ins take their places. Each recursion goes on until a timer has
//! fired and a TCP echo has come back, so if neither were served the recursions would never
//! end (the watchdog then fails the test): the check is of order, not of timing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::common::{executor, watchdog};

/// Joins until `stop` is set, counting leaves.
fn busy(stop: &AtomicBool, leaves: &AtomicU64, depth: u32) {
    if stop.load(Ordering::Relaxed) {
        return;
    }
    if depth == 0 {
        // A leaf of a few microseconds.
        let mut x = 0u64;
        for i in 0..2_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        leaves.fetch_add(1, Ordering::Relaxed);
        return;
    }
    filch::par::join(
        || busy(stop, leaves, depth - 1),
        || busy(stop, leaves, depth - 1),
    );
}

fn check(workers: usize) {
    let ex = executor(workers);
    let stop = Arc::new(AtomicBool::new(false));
    let leaves = Arc::new(AtomicU64::new(0));
    let joiners: Vec<_> = (0..workers)
        .map(|_| {
            let (stop, leaves) = (Arc::clone(&stop), Arc::clone(&leaves));
            ex.spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    busy(&stop, &leaves, 12);
                }
            })
        })
        .collect();
    // Wait until the recursions run, so that the timer and the echo start while every
    // worker is inside one.
    while leaves.load(Ordering::Relaxed) < 100 {
        std::thread::yield_now();
    }
    crate::held_polls::timer_and_echo(&ex);
    stop.store(true, Ordering::Relaxed);
    for joiner in joiners {
        ex.block_on(joiner).unwrap();
    }
}

#[test]
fn a_timer_and_a_tcp_echo_are_served_while_every_worker_joins() {
    for workers in [1, 2] {
        watchdog(
            60,
            &format!("served while joining, {workers} workers"),
            move || check(workers),
        );
    }
}
