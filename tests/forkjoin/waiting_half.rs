//! `join(a, b)` where `a` waits for something `b` does: the caller's thread, blocked in `a`,
//! makes no check that would publish `b`, so the epoch ticker publishes it in the thread's
//! place about a tick after the join began (`runtime/scheduler/forkjoin/exposed.rs`), and an
//! idle worker runs it. rayon completes the same call whenever a thread of its pool is idle
//! (its `b` is on the caller's deque); so does filch, from a task's poll, from `par::run`,
//! from outside the workers and inside a scope, whether `a` blocks or spins. On one worker no
//! worker is idle (rayon's one-thread pool deadlocks on it too): not tested.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use crate::common::{executor, watchdog};

/// `a` blocks on a channel that `b` sends on.
fn blocked_a_waits_for_b() -> u32 {
    let (tx, rx) = mpsc::channel();
    let (got, ()) = filch::par::join(move || rx.recv().unwrap(), move || tx.send(7).unwrap());
    got
}

/// `a` spins until `b` sets a flag.
fn spinning_a_waits_for_b() -> u32 {
    let flag = AtomicBool::new(false);
    let (got, ()) = filch::par::join(
        || {
            while !flag.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            7
        },
        || flag.store(true, Ordering::Release),
    );
    got
}

/// Each way of calling it, `rounds` times, on `workers` workers.
fn every_path(workers: usize, call: fn() -> u32, rounds: usize) {
    let ex = executor(workers);
    for _ in 0..rounds {
        // From a task's poll.
        assert_eq!(ex.block_on(ex.spawn(async move { call() })).unwrap(), 7);
        // From `par::run`.
        assert_eq!(ex.block_on(filch::par::run(call)), 7);
        // From outside the workers (a call injected into the executor).
        assert_eq!(ex.block_on(async move { call() }), 7);
        // Inside a scope, on a worker, beside other work.
        let got = ex.block_on(ex.spawn(async move {
            let mut got = 0;
            filch::par::scope(|s| {
                s.spawn(|_| {
                    let _ = (0..1000u64).sum::<u64>();
                });
                got = call();
            });
            got
        }));
        assert_eq!(got.unwrap(), 7);
    }
}

#[test]
fn a_blocked_first_half_gets_its_second_half_run_elsewhere() {
    for workers in [2, 4] {
        watchdog(
            60,
            &format!("blocked a waits for b, {workers} workers"),
            move || {
                every_path(workers, blocked_a_waits_for_b, 5);
            },
        );
    }
}

#[test]
fn a_spinning_first_half_gets_its_second_half_run_elsewhere() {
    for workers in [2, 4] {
        watchdog(
            60,
            &format!("spinning a waits for b, {workers} workers"),
            move || {
                every_path(workers, spinning_a_waits_for_b, 5);
            },
        );
    }
}

/// The half the ticker publishes is settled once, whether a worker ran it or the caller
/// took it back: many joins whose `a` runs a few ticks, with a `b` that counts its runs.
#[test]
fn a_half_published_by_the_ticker_runs_exactly_once() {
    watchdog(60, "ticker-published halves run once", || {
        let ex = executor(2);
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        for round in 0..40u64 {
            let runs = Arc::clone(&runs);
            let joined = ex.block_on(ex.spawn(async move {
                let (a, b) = filch::par::join(
                    || {
                        // A few ticks, asleep or spinning.
                        if round % 2 == 0 {
                            std::thread::sleep(std::time::Duration::from_millis(3));
                        } else {
                            let start = std::time::Instant::now();
                            while start.elapsed() < std::time::Duration::from_millis(3) {
                                std::hint::spin_loop();
                            }
                        }
                        round
                    },
                    || runs.fetch_add(1, Ordering::Relaxed),
                );
                assert_eq!(a, round);
                assert!(b <= round as usize);
            }));
            joined.unwrap();
        }
        assert_eq!(runs.load(Ordering::Relaxed), 40);
    });
}
