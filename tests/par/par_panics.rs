//! A panic in a loop's user code (`par_range`'s body, `par_map`'s `f`, `par_reduce`'s
//! `identity`, `fold` or `reduce`) is resumed in the awaiting task with its original payload,
//! once the bodies already running have returned; items not yet started are skipped; the
//! executor keeps working.

use std::any::Any;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{named_executor, watchdog};
use crate::par_common::Counters;

/// Runs `f` and returns its panic payload; fails the test if it returns.
fn panic_of<R>(what: &str, f: impl FnOnce() -> R) -> Box<dyn Any + Send> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("{what}: completed, but user code panicked"),
        Err(payload) => payload,
    }
}

/// The executor still runs loops and tasks.
fn assert_still_works(ex: &filch::Executor, what: &str) {
    let counters = Counters::new(0..5000);
    let c = Arc::clone(&counters);
    ex.block_on(ex.par_range(0..5000, move |i| c.hit(i)));
    counters.assert_each_once(&format!("a loop after {what}"));
    assert_eq!(
        ex.block_on(ex.spawn(async { filch::par_map(0..4, |i| i * i).await }))
            .expect("a task after the panic"),
        vec![0, 1, 4, 9],
        "after {what}"
    );
}

#[test]
fn the_body_panic_payload_reaches_the_awaiting_task() {
    watchdog(
        60,
        "the_body_panic_payload_reaches_the_awaiting_task",
        || {
            for workers in [1, 2, 3] {
                let ex = named_executor(workers, "panic-payload");
                for at in [0, 1, 499, 999] {
                    let what = format!("panic_any(42u32) at {at} of 0..1000 on {workers} workers");
                    let payload = panic_of(&what, || {
                        ex.block_on(filch::par_range(0..1000, move |i| {
                            if i == at {
                                panic_any(42u32);
                            }
                        }))
                    });
                    assert_eq!(
                        payload.downcast_ref::<u32>(),
                        Some(&42),
                        "{what}: the payload is not the original u32"
                    );
                }
                let payload = panic_of("panic!(\"boom {i}\")", || {
                    ex.block_on(ex.par_range(0..100, |i| {
                        if i == 77 {
                            panic!("boom {i}");
                        }
                    }))
                });
                assert_eq!(
                    payload.downcast_ref::<String>().map(String::as_str),
                    Some("boom 77")
                );
                let payload = panic_of("panic!(\"static\")", || {
                    ex.block_on(ex.par_range(5..6, |_| panic!("static")))
                });
                assert_eq!(payload.downcast_ref::<&str>(), Some(&"static"));
                assert_still_works(&ex, &format!("panics on {workers} workers"));
            }
        },
    );
}

#[test]
fn items_not_started_are_skipped() {
    watchdog(60, "items_not_started_are_skipped", || {
        // One worker: index 0 is the first item, so almost nothing else may run.
        let ex = named_executor(1, "panic-skip");
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let payload = panic_of("panic at 0 of 0..1_000_000", || {
            ex.block_on(ex.par_range(0..1_000_000, move |i| {
                c.fetch_add(1, Ordering::Relaxed);
                if i == 0 {
                    panic_any("first");
                }
            }))
        });
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"first"));
        let ran = calls.load(Ordering::Relaxed);
        assert!(
            ran < 1_000,
            "1 worker: {ran} of 1,000,000 items ran after a panic at index 0"
        );
        // Nothing keeps running in the background either.
        thread::sleep(Duration::from_millis(50));
        assert_eq!(
            calls.load(Ordering::Relaxed),
            ran,
            "bodies ran after the resume"
        );
        assert_still_works(&ex, "a panic at index 0");

        // Two workers: the first item to run anywhere panics. The other worker may run items
        // while the panic unwinds (and the panic hook prints), but the loop (about 1 s of work
        // for two workers) stops long before its end.
        let ex = named_executor(2, "panic-skip2");
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let payload = panic_of("panic at the first item of 0..1_000_000", || {
            ex.block_on(ex.par_range(0..1_000_000, move |_| {
                if c.fetch_add(1, Ordering::Relaxed) == 0 {
                    panic_any("first");
                }
                busy(Duration::from_micros(2));
            }))
        });
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"first"));
        let ran = calls.load(Ordering::Relaxed);
        assert!(
            ran < 100_000,
            "2 workers: {ran} of 1,000,000 items ran after a panic at the first item"
        );
        thread::sleep(Duration::from_millis(50));
        assert_eq!(
            calls.load(Ordering::Relaxed),
            ran,
            "bodies ran after the resume"
        );
        assert_still_works(&ex, "a panic at the first item");
    });
}

/// After a panic, another worker in the middle of a chunk stops within a few items: the
/// call's stop flag reaches the loops' block fold (`par/loops/watched.rs`), not only the
/// bridge's chunk boundaries. The items are nanosecond ones until a thread turns them slow
/// (1 ms), so each worker is inside a chunk sized for thousands of fast items; the first
/// slow item panics. Items that start once the panic left the body are counted: without the
/// look between blocks the other worker would run the rest of its chunk (hundreds or
/// thousands of items).
#[test]
fn another_worker_stops_inside_its_chunk_after_a_panic() {
    // Slow items a run makes at most (a failing run then ends in about this many ms).
    const SLOW_LIMIT: usize = 400;
    watchdog(
        60,
        "another_worker_stops_inside_its_chunk_after_a_panic",
        || {
            let ex = named_executor(2, "panic-chunk");
            let slow = Arc::new(AtomicBool::new(false));
            let panicked = Arc::new(AtomicBool::new(false));
            let slow_started = Arc::new(AtomicUsize::new(0));
            let after = Arc::new(AtomicUsize::new(0));
            let turn_slow = {
                let slow = Arc::clone(&slow);
                thread::spawn(move || {
                    thread::sleep(Duration::from_millis(20));
                    slow.store(true, Ordering::SeqCst);
                })
            };
            let (s, p, k, a) = (
                Arc::clone(&slow),
                Arc::clone(&panicked),
                Arc::clone(&slow_started),
                Arc::clone(&after),
            );
            let payload = panic_of("a panic at the first slow item", || {
                ex.block_on(ex.par_range(0..usize::MAX / 2, move |i| {
                    if !s.load(Ordering::Relaxed) {
                        std::hint::black_box(i);
                        return;
                    }
                    if p.load(Ordering::SeqCst) {
                        a.fetch_add(1, Ordering::SeqCst);
                    }
                    let n = k.fetch_add(1, Ordering::SeqCst);
                    if n == 0 {
                        // Marks the unwinding once it leaves the body, after the panic hook
                        // (which may take tens of ms to print a backtrace).
                        struct Unwinding(Arc<AtomicBool>);
                        impl Drop for Unwinding {
                            fn drop(&mut self) {
                                self.0.store(true, Ordering::SeqCst);
                            }
                        }
                        let _unwinding = Unwinding(Arc::clone(&p));
                        panic_any("first slow item");
                    }
                    if n < SLOW_LIMIT {
                        busy(Duration::from_millis(1));
                    }
                }))
            });
            turn_slow.join().expect("the thread that turns items slow");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"first slow item"));
            let after = after.load(Ordering::SeqCst);
            // With the look, a block at most, plus those that start while the panic unwinds from
            // the body to its piece (µs); the bound leaves room for a preempted unwinding.
            assert!(
                after < 40,
                "{after} items started after the panic (at most a few expected)"
            );
            assert_still_works(&ex, "a panic in the middle of a chunk");
        },
    );
}

/// Spins for `d`.
fn busy(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// The panic is resumed only once every body that had started has returned.
#[test]
fn running_bodies_return_before_the_panic_is_resumed() {
    watchdog(
        60,
        "running_bodies_return_before_the_panic_is_resumed",
        || {
            for workers in [2, 3] {
                let ex = named_executor(workers, "panic-wait");
                let started = Arc::new(AtomicUsize::new(0));
                let finished = Arc::new(AtomicUsize::new(0));
                let (s, f) = (Arc::clone(&started), Arc::clone(&finished));
                let n = 3000;
                let payload = panic_of("a panic while other bodies sleep", || {
                    ex.block_on(ex.par_range(0..n, move |i| {
                        s.fetch_add(1, Ordering::SeqCst);
                        if i == 0 {
                            // Wait (bounded) for another worker to be inside a body, then panic.
                            let t = Instant::now();
                            while s.load(Ordering::SeqCst) < 2
                                && t.elapsed() < Duration::from_secs(2)
                            {
                                thread::yield_now();
                            }
                            panic_any(7i64);
                        }
                        thread::sleep(Duration::from_millis(30));
                        f.fetch_add(1, Ordering::SeqCst);
                    }))
                });
                assert_eq!(payload.downcast_ref::<i64>(), Some(&7));
                let (s, f) = (
                    started.load(Ordering::SeqCst),
                    finished.load(Ordering::SeqCst),
                );
                assert_eq!(
                    s,
                    f + 1,
                    "{workers} workers: the panic was resumed while {} bodies were still running",
                    s - f - 1
                );
                assert!(
                    s < n,
                    "{workers} workers: all {n} items ran despite the panic"
                );
            }
        },
    );
}

#[test]
fn a_spawned_task_awaiting_a_panicking_loop_gives_a_panic_join_error() {
    watchdog(60, "a_spawned_task_awaiting_a_panicking_loop", || {
        let ex = named_executor(2, "panic-task");
        let err = ex
            .block_on(ex.spawn(async {
                filch::par_range(0..10_000, |i| {
                    if i == 9_999 {
                        panic_any(9_999usize);
                    }
                })
                .await;
                "finished"
            }))
            .expect_err("the task's loop panicked");
        assert!(err.is_panic());
        assert_eq!(*err.into_panic().downcast::<usize>().unwrap(), 9_999);

        // Awaited on a foreign thread through a Handle.
        let handle = ex.handle();
        let payload = thread::spawn(move || {
            catch_unwind(AssertUnwindSafe(|| {
                futures::executor::block_on(handle.par_map(0..100, |i| {
                    if i == 50 {
                        panic_any(50u8);
                    }
                    i
                }))
            }))
        })
        .join()
        .unwrap()
        .expect_err("par_map panicked");
        assert_eq!(payload.downcast_ref::<u8>(), Some(&50));
        assert_still_works(&ex, "panics in tasks");
    });
}

#[test]
fn panics_in_par_map_and_par_reduce_closures() {
    watchdog(60, "panics_in_par_map_and_par_reduce_closures", || {
        for workers in [1, 2] {
            let ex = named_executor(workers, "panic-closures");
            let w = format!("{workers} workers");

            let p = panic_of("par_map f", || {
                ex.block_on(filch::par_map(0..10_000, |i| {
                    if i == 4321 {
                        panic_any(('m', i));
                    }
                    i.to_string()
                }))
            });
            assert_eq!(p.downcast_ref::<(char, usize)>(), Some(&('m', 4321)), "{w}");

            let p = panic_of("par_reduce identity", || {
                ex.block_on(ex.par_reduce(
                    0..10_000,
                    || -> u64 { panic_any("identity") },
                    |a, i| a + i as u64,
                    |a, b| a + b,
                ))
            });
            assert_eq!(p.downcast_ref::<&str>(), Some(&"identity"), "{w}");

            // On an empty range identity() is called by the awaiting task itself.
            let p = panic_of("par_reduce identity, empty range", || {
                ex.block_on(ex.par_reduce(
                    3..3,
                    || -> u64 { panic_any("empty identity") },
                    |a, i| a + i as u64,
                    |a, b| a + b,
                ))
            });
            assert_eq!(p.downcast_ref::<&str>(), Some(&"empty identity"), "{w}");

            let p = panic_of("par_reduce fold", || {
                ex.block_on(ex.par_reduce(
                    0..10_000,
                    || 0u64,
                    |a, i| {
                        if i == 6000 {
                            panic_any(6000u16);
                        }
                        a + i as u64
                    },
                    |a, b| a + b,
                ))
            });
            assert_eq!(p.downcast_ref::<u16>(), Some(&6000), "{w}");

            // reduce runs only when two partial results meet. Slow items make both workers
            // of a 2-worker executor take part, so there are at least two partials; a single
            // worker may fold its whole share into one partial and never call reduce.
            let reduces = Arc::new(AtomicUsize::new(0));
            let r = Arc::clone(&reduces);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                ex.block_on(ex.par_reduce(
                    0..2000,
                    || 0u64,
                    |a, i| {
                        thread::sleep(Duration::from_micros(20));
                        a + i as u64
                    },
                    move |_, _| -> u64 {
                        r.fetch_add(1, Ordering::SeqCst);
                        panic_any(String::from("reduce"))
                    },
                ))
            }));
            let reduces = reduces.load(Ordering::SeqCst);
            match outcome {
                Ok(sum) => assert!(
                    workers == 1 && reduces == 0 && sum == 1999 * 1000,
                    "{w}: reduce was called {reduces} times and panicked, yet the loop gave {sum}"
                ),
                Err(p) => {
                    assert_eq!(
                        p.downcast_ref::<String>().map(String::as_str),
                        Some("reduce"),
                        "{w}"
                    );
                    assert!(
                        (1..=workers).contains(&reduces),
                        "{w}: reduce was called {reduces} times; it should stop after a panic"
                    );
                }
            }
            assert_still_works(&ex, &format!("closure panics on {w}"));
        }
    });
}
