//! A panic in either half of a `join`, or in a scope's body or spawned closure, is resumed in
//! the caller with its own payload, once every piece already running has returned; nothing
//! is dropped twice or leaked.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{executor, panic_message, watchdog, Tally};

/// A recursion where one leaf panics; every leaf holds a probe.
fn tree(
    depth: u32,
    leaf: &mut usize,
    bad: usize,
    tally: &std::sync::Arc<Tally>,
    done: &AtomicUsize,
) {
    if depth == 0 {
        let me = *leaf;
        let _probe = tally.probe();
        if me == bad {
            panic!("leaf {me} failed");
        }
        done.fetch_add(1, Ordering::SeqCst);
        return;
    }
    let mut right_leaf = *leaf + (1 << (depth - 1));
    filch::par::join(
        || tree(depth - 1, leaf, bad, tally, done),
        || tree(depth - 1, &mut right_leaf, bad, tally, done),
    );
}

#[test]
fn a_panic_in_either_half_reaches_the_caller_with_its_payload() {
    watchdog(60, "join panics", || {
        for workers in [1, 2, 4] {
            let ex = executor(workers);
            for bad in [0, 1, 37, 63] {
                let tally = Tally::new();
                let done = AtomicUsize::new(0);
                let caught = ex.install(|| {
                    catch_unwind(AssertUnwindSafe(|| {
                        tree(6, &mut 0, bad, &tally, &done);
                    }))
                });
                let payload = caught.expect_err("the panic reached the caller");
                assert_eq!(panic_message(&*payload), format!("leaf {bad} failed"));
                tally.assert_all_dropped_once("the leaves' probes");
                // rayon's rule: the other half of each join still ran.
                assert_eq!(done.load(Ordering::SeqCst), 63);
            }
        }
    });
}

#[test]
fn a_panic_in_a_scope_reaches_the_caller_after_every_spawn_finished() {
    watchdog(60, "scope panics", || {
        let ex = executor(2);
        let finished = AtomicUsize::new(0);
        let caught = ex.install(|| {
            catch_unwind(AssertUnwindSafe(|| {
                filch::par::scope(|s| {
                    for i in 0..32 {
                        let finished = &finished;
                        s.spawn(move |_| {
                            if i == 7 {
                                panic!("spawn {i} failed");
                            }
                            finished.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                })
            }))
        });
        assert_eq!(panic_message(&*caught.unwrap_err()), "spawn 7 failed");
        assert_eq!(finished.load(Ordering::SeqCst), 31);
        let body = std::panic::catch_unwind(AssertUnwindSafe(|| {
            ex.install(|| filch::par::scope(|_| panic!("the body failed")))
        }));
        assert_eq!(panic_message(&*body.unwrap_err()), "the body failed");
    });
}
