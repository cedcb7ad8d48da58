//! rayon-core's own tests of `broadcast` and `spawn_broadcast` (rayon-core 1.13.0,
//! `src/broadcast/test.rs`), ported to `filch::par`. rayon's global pool is filch's global
//! executor (the tests run on a thread outside every executor).
//!
//! Adapted: each test runs under the watchdog; the `spawn_broadcast_mutual` tests keep
//! `pool2` alive until the count is in (a filch pool is an `Executor`, whose drop shuts it
//! down and drops the parts it has not run, where rayon's pool outlives its handle); the
//! `_sleepy` tests sleep a tenth of rayon's sleeps (enough for the other pool's workers to
//! fall asleep, which they do after 25 µs without work; no bound on time is asserted);
//! `broadcast_sleep_race` makes a fixed number of broadcasts rather than looping for a
//! second; and the blocking broadcasts also assert that each index ran exactly once. `broadcast_after_spawn` spawns
//! from fork-join work on the global executor (rayon's `registry::in_worker` is internal).
//!
//! Not ported: `spawn_broadcast_panic_one` and `spawn_broadcast_panic_many` (no
//! `panic_handler`: filch reports a spawned closure's panic through the panic hook).
//! `broadcast_after_spawn_broadcast` and `broadcast_after_spawn` assert what rayon's order
//! gives; on filch a broadcast's part for a worker runs after the parts posted to that worker
//! before it (its mailbox is FIFO), which makes the first hold; the second holds since the
//! broadcast from outside waits for every worker, one of which ran or runs the spawn, and the
//! test then waits for the spawn's message rather than `try_recv`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::{thread, time};

use filch::par::ThreadPoolBuilder;

use crate::common::watchdog;

/// Asserts that `v` is `0..n`, each index once and in order.
fn assert_indexes(v: Vec<usize>, n: usize) {
    assert_eq!(v, (0..n).collect::<Vec<_>>());
}

// origin: rayon-core src/broadcast/test.rs::broadcast_global
#[test]
fn broadcast_global() {
    watchdog(60, "broadcast_global", || {
        let v = filch::par::broadcast(|ctx| ctx.index());
        assert_indexes(v, filch::par::current_num_threads());
    });
}

// origin: rayon-core src/broadcast/test.rs::spawn_broadcast_global
#[test]
fn spawn_broadcast_global() {
    watchdog(60, "spawn_broadcast_global", || {
        let (tx, rx) = channel();
        filch::par::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());

        let mut v: Vec<_> = rx.into_iter().collect();
        v.sort_unstable();
        assert_indexes(v, filch::par::current_num_threads());
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_pool
#[test]
fn broadcast_pool() {
    watchdog(60, "broadcast_pool", || {
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let v = pool.broadcast(|ctx| ctx.index());
        assert_indexes(v, 7);
        // Each part ran on the worker it names.
        let v = pool.broadcast(|ctx| (ctx.index(), filch::par::current_thread_index()));
        assert!(v.iter().all(|&(i, on)| on == Some(i)), "{v:?}");
    });
}

// origin: rayon-core src/broadcast/test.rs::spawn_broadcast_pool
#[test]
fn spawn_broadcast_pool() {
    watchdog(60, "spawn_broadcast_pool", || {
        let (tx, rx) = channel();
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());

        let mut v: Vec<_> = rx.into_iter().collect();
        v.sort_unstable();
        assert_indexes(v, 7);
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_self
#[test]
fn broadcast_self() {
    watchdog(60, "broadcast_self", || {
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let v = pool.install(|| filch::par::broadcast(|ctx| ctx.index()));
        assert_indexes(v, 7);
    });
}

// origin: rayon-core src/broadcast/test.rs::spawn_broadcast_self
#[test]
fn spawn_broadcast_self() {
    watchdog(60, "spawn_broadcast_self", || {
        let (tx, rx) = channel();
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool.spawn(|| filch::par::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap()));

        let mut v: Vec<_> = rx.into_iter().collect();
        v.sort_unstable();
        assert_indexes(v, 7);
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_mutual
#[test]
fn broadcast_mutual() {
    watchdog(60, "broadcast_mutual", || {
        let count = AtomicUsize::new(0);
        let pool1 = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let pool2 = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool1.install(|| {
            pool2.broadcast(|_| {
                pool1.broadcast(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                })
            })
        });
        assert_eq!(count.into_inner(), 3 * 7);
    });
}

// origin: rayon-core src/broadcast/test.rs::spawn_broadcast_mutual
#[test]
fn spawn_broadcast_mutual() {
    watchdog(60, "spawn_broadcast_mutual", || {
        let (tx, rx) = channel();
        let pool1 = Arc::new(ThreadPoolBuilder::new().num_threads(3).build().unwrap());
        let pool2 = Arc::new(ThreadPoolBuilder::new().num_threads(7).build().unwrap());
        pool1.spawn({
            let pool1 = Arc::clone(&pool1);
            let pool2 = Arc::clone(&pool2);
            move || {
                pool2.spawn_broadcast(move |_| {
                    let tx = tx.clone();
                    pool1.spawn_broadcast(move |_| tx.send(()).unwrap())
                })
            }
        });
        assert_eq!(rx.into_iter().count(), 3 * 7);
        drop(pool2);
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_mutual_sleepy
// rayon's sleeps are ten times as long (1 s and 100 ms); a filch worker parks after 25 µs
// without work, so a tenth of them still finds every worker asleep.
#[test]
fn broadcast_mutual_sleepy() {
    watchdog(60, "broadcast_mutual_sleepy", || {
        let count = AtomicUsize::new(0);
        let pool1 = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let pool2 = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool1.install(|| {
            thread::sleep(time::Duration::from_millis(100));
            pool2.broadcast(|_| {
                thread::sleep(time::Duration::from_millis(100));
                pool1.broadcast(|_| {
                    thread::sleep(time::Duration::from_millis(10));
                    count.fetch_add(1, Ordering::Relaxed);
                })
            })
        });
        assert_eq!(count.into_inner(), 3 * 7);
    });
}

// origin: rayon-core src/broadcast/test.rs::spawn_broadcast_mutual_sleepy
// rayon's sleeps are ten times as long (1 s and 100 ms); a filch worker parks after 25 µs
// without work, so a tenth of them still finds every worker asleep.
#[test]
fn spawn_broadcast_mutual_sleepy() {
    watchdog(60, "spawn_broadcast_mutual_sleepy", || {
        let (tx, rx) = channel();
        let pool1 = Arc::new(ThreadPoolBuilder::new().num_threads(3).build().unwrap());
        let pool2 = Arc::new(ThreadPoolBuilder::new().num_threads(7).build().unwrap());
        pool1.spawn({
            let pool1 = Arc::clone(&pool1);
            let pool2 = Arc::clone(&pool2);
            move || {
                thread::sleep(time::Duration::from_millis(100));
                pool2.spawn_broadcast(move |_| {
                    let tx = tx.clone();
                    thread::sleep(time::Duration::from_millis(100));
                    pool1.spawn_broadcast(move |_| {
                        thread::sleep(time::Duration::from_millis(10));
                        tx.send(()).unwrap();
                    })
                })
            }
        });
        assert_eq!(rx.into_iter().count(), 3 * 7);
        drop(pool2);
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_panic_one
#[test]
fn broadcast_panic_one() {
    watchdog(60, "broadcast_panic_one", || {
        let count = AtomicUsize::new(0);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.broadcast(|ctx| {
                count.fetch_add(1, Ordering::Relaxed);
                if ctx.index() == 3 {
                    panic!("Hello, world!");
                }
            })
        }));
        assert_eq!(count.into_inner(), 7);
        assert!(result.is_err(), "broadcast panic should propagate!");
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_panic_many
#[test]
fn broadcast_panic_many() {
    watchdog(60, "broadcast_panic_many", || {
        let count = AtomicUsize::new(0);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.broadcast(|ctx| {
                count.fetch_add(1, Ordering::Relaxed);
                if ctx.index() % 2 == 0 {
                    panic!("Hello, world!");
                }
            })
        }));
        assert_eq!(count.into_inner(), 7);
        assert!(result.is_err(), "broadcast panic should propagate!");
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_sleep_race
#[test]
fn broadcast_sleep_race() {
    watchdog(60, "broadcast_sleep_race", || {
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        for _ in 0..200 {
            let v = pool.broadcast(|ctx| {
                // A slight spread of sleep duration increases the chance that one
                // of the threads will race in the pool's idle sleep afterward.
                thread::sleep(time::Duration::from_micros(ctx.index() as u64));
                ctx.index()
            });
            assert_indexes(v, 7);
        }
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_after_spawn_broadcast
#[test]
fn broadcast_after_spawn_broadcast() {
    watchdog(60, "broadcast_after_spawn_broadcast", || {
        let (tx, rx) = channel();

        // Queue a non-blocking spawn_broadcast.
        filch::par::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());

        // This blocking broadcast runs after all prior broadcasts.
        filch::par::broadcast(|_| {});

        // The spawn_broadcast **must** have run by now on all threads.
        let mut v: Vec<_> = rx.try_iter().collect();
        v.sort_unstable();
        assert_indexes(v, filch::par::current_num_threads());
    });
}

// origin: rayon-core src/broadcast/test.rs::broadcast_after_spawn
#[test]
fn broadcast_after_spawn() {
    watchdog(60, "broadcast_after_spawn", || {
        let (tx, rx) = channel();

        // Queue a regular spawn, from fork-join work on the global executor.
        filch::par::scope(|_| filch::par::spawn(move || tx.send(22).unwrap()));

        filch::par::broadcast(|_| {});

        assert_eq!(22, rx.recv().unwrap());
    });
}

/// Two calls on the two workers of a pool, each making a broadcast (blocking, or a scope's
/// `spawn_broadcast`) at the same time: each worker waits in its own call for its part on
/// the other worker, which only that worker's thread may run. A worker that has waited a
/// tick runs the parts addressed to it whatever they belong to, so both finish (rayon's
/// `scope_spawn_broadcast` and `scope_fifo_spawn_broadcast` hung this way when the test
/// harness ran them side by side on the global pool).
#[test]
fn broadcasts_made_on_two_workers_at_once_both_finish() {
    watchdog(60, "crossed broadcasts", || {
        let pool = Arc::new(ThreadPoolBuilder::new().num_threads(2).build().unwrap());
        for round in 0..100 {
            let barrier = Arc::new(std::sync::Barrier::new(2));
            let callers: Vec<_> = (0..2)
                .map(|caller| {
                    let (pool, barrier) = (Arc::clone(&pool), Arc::clone(&barrier));
                    thread::spawn(move || {
                        let runs = AtomicUsize::new(0);
                        pool.install(|| {
                            barrier.wait();
                            if (round + caller) % 2 == 0 {
                                let seen = filch::par::broadcast(|ctx| ctx.index());
                                assert_indexes(seen, 2);
                            } else {
                                filch::par::scope(|s| {
                                    s.spawn_broadcast(|_, _| {
                                        runs.fetch_add(1, Ordering::Relaxed);
                                    });
                                });
                                assert_eq!(runs.load(Ordering::Relaxed), 2);
                            }
                        });
                    })
                })
                .collect();
            for caller in callers {
                caller.join().unwrap();
            }
        }
    });
}
