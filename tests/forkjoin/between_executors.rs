//! Fork-join calls that cross executors (`pool_b.install` inside `pool_a`'s work, scopes of
//! several pools): the work of a call made by a worker descends from that worker's wait, so
//! a worker that waits for another executor runs its own executor's share of that call
//! (`src/runtime/scheduler/forkjoin/inject.rs`, "Calls between executors"), and its tasks
//! are served meanwhile.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier};

use filch::par::{join, scope, Scope, ThreadPool, ThreadPoolBuilder};

use crate::common::{executor, panic_message, watchdog, Tally};

/// A worker of a 1-worker executor blocked in a call into another executor has its place
/// taken: a task spawned on its executor meanwhile runs (here it is what ends the call).
#[test]
fn a_worker_waiting_for_another_executor_has_its_tasks_served() {
    watchdog(
        60,
        "a_worker_waiting_for_another_executor_has_its_tasks_served",
        || {
            let x = executor(1);
            let y = executor(1);
            let y_handle = y.handle();
            let (started_tx, started_rx) = mpsc::channel();
            let (tx, rx) = mpsc::channel::<u32>();
            let waiting = x.spawn(async move {
                started_tx.send(()).unwrap();
                y_handle.install(move || rx.recv().unwrap())
            });
            // The waiting task is in its poll, inside the call, on x's only worker.
            started_rx.recv().unwrap();
            let sender = x.spawn(async move { tx.send(7).unwrap() });
            assert_eq!(x.block_on(waiting).unwrap(), 7);
            x.block_on(sender).unwrap();
        },
    );
}

/// Two 1-worker pools call into each other 16 deep, with a `join` at each level whose halves
/// both cross: each pool's only worker waits for the other pool while that pool's work needs
/// it back.
#[test]
fn install_ping_pong_between_one_worker_pools() {
    watchdog(120, "install_ping_pong_between_one_worker_pools", || {
        fn ping(depth: u32, pools: &[ThreadPool; 2]) -> u32 {
            if depth == 0 {
                return 1;
            }
            let next = &pools[depth as usize % 2];
            let (a, b) = join(
                || next.install(|| ping(depth - 1, pools)),
                || next.install(|| 1),
            );
            a + b
        }
        let pools = [0, 1].map(|_| ThreadPoolBuilder::new().num_threads(1).build().unwrap());
        // Many rounds: a wrong lineage (a frame published as the child of a piece it is not
        // part of) hangs only some of them, when a heartbeat publishes an outer frame while
        // its thread waits deeper.
        for _ in 0..500 {
            for depth in [1, 4, 16] {
                // Each level adds its left result and 1.
                assert_eq!(pools[0].install(|| ping(depth, &pools)), depth + 1);
            }
        }
    });
}

/// The only worker of pool `b` waits inside a call into pool `a`, whose work calls back into
/// `b` from a plain thread (no lineage: the call reaches `b` as a task, not as a piece the
/// waiting worker would run). A worker waiting for another executor will not come back to
/// the board until that call ends, so `b`'s stand-in runs the call in its place.
#[test]
fn a_call_without_lineage_into_a_pool_whose_worker_waits_for_another_pool() {
    watchdog(
        60,
        "a_call_without_lineage_into_a_pool_whose_worker_waits_for_another_pool",
        || {
            let a = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let b = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            for round in 0..20 {
                let got = b.install(|| {
                    a.install(|| {
                        std::thread::scope(|s| s.spawn(|| b.install(|| round)).join().unwrap())
                    })
                });
                assert_eq!(got, round);
            }
        },
    );
}

/// A closure spawned into a scope by a thread whose own work does not descend from the scope
/// (a worker of another executor that got the scope through a std thread) still runs: the
/// scope's owner, the one worker of its pool, finds it among the scope's work.
#[test]
fn scope_spawn_from_outside_the_scopes_lineage() {
    watchdog(60, "scope_spawn_from_outside_the_scopes_lineage", || {
        let p = executor(1);
        let q = executor(2);
        let hits = AtomicUsize::new(0);
        let barrier = Barrier::new(2);
        p.install(|| {
            scope(|s| {
                std::thread::scope(|ts| {
                    ts.spawn(|| {
                        q.install(|| {
                            // `b` runs on q's other worker (`a` waits for it): its lineage
                            // is its own half, outside `s`.
                            join(
                                || barrier.wait(),
                                || {
                                    barrier.wait();
                                    s.spawn(|_| {
                                        hits.fetch_add(1, Ordering::SeqCst);
                                    });
                                },
                            )
                        });
                    });
                });
            });
        });
        assert_eq!(hits.load(Ordering::SeqCst), 1);
    });
}

/// rayon's `nested_scopes` (`src/thread_pool/test.rs`), each closure owning a probe, with a
/// panic in one of them: the panic reaches the caller of the outermost scope, every other
/// closure ran, and every probe is dropped exactly once.
#[test]
fn nested_scopes_with_a_panic() {
    watchdog(60, "nested_scopes_with_a_panic", || {
        fn nest<'scope, OP>(pools: &[ThreadPool], scopes: Vec<&Scope<'scope>>, op: OP)
        where
            OP: FnOnce(&[&Scope<'scope>]) + Send,
        {
            if let Some((pool, tail)) = pools.split_first() {
                pool.scope(move |s| {
                    let mut scopes = scopes;
                    scopes.push(s);
                    nest(tail, scopes, op)
                })
            } else {
                (op)(&scopes)
            }
        }

        let pools: Vec<_> = (0..4)
            .map(|_| ThreadPoolBuilder::new().num_threads(1).build().unwrap())
            .collect();
        let tally = Tally::new();
        let counter = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            nest(&pools, vec![], |scopes| {
                for (i, &s) in scopes.iter().enumerate() {
                    let owned = tally.probe();
                    let counter = &counter;
                    s.spawn(move |_| {
                        let _owned = owned;
                        if i == 1 {
                            panic!("Hello, world!");
                        }
                        counter.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }));
        let payload = result.expect_err("the panic of a spawned closure was lost");
        assert_eq!(panic_message(&*payload), "Hello, world!");
        assert_eq!(counter.into_inner(), pools.len() - 1);
        tally.assert_all_dropped_once("nested_scopes_with_a_panic");
    });
}
