//! The loop futures are lazy: nothing runs until the first poll, and the free functions pick
//! their executor at that poll (the polling thread's current one), not where they were built.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{named_executor, watchdog};
use crate::par_common::Threads;

#[test]
fn building_without_polling_calls_nothing() {
    watchdog(30, "building_without_polling_calls_nothing", || {
        let ex = named_executor(2, "lazy");
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = |calls: &Arc<AtomicUsize>| {
            let c = Arc::clone(calls);
            move |i: usize| {
                c.fetch_add(1, Ordering::SeqCst);
                i
            }
        };
        let identity = {
            let c = Arc::clone(&calls);
            move || {
                c.fetch_add(1, Ordering::SeqCst);
                0usize
            }
        };
        let f1 = filch::par_range(0..1000, {
            let f = counted(&calls);
            move |i| {
                f(i);
            }
        });
        let f2 = ex.par_map(0..1000, counted(&calls));
        let f3 = ex
            .handle()
            .par_reduce(0..1000, identity.clone(), |a, i| a + i, |a, b| a + b);
        // An empty range too: identity() is not called before the first poll.
        let f4 = filch::par_reduce(0..0, identity, |a, i| a + i, |a, b| a + b);
        thread::sleep(Duration::from_millis(100));
        assert_eq!(
            calls.load(Ordering::SeqCst),
            0,
            "a loop ran before its first poll"
        );
        drop((f1, f2, f3, f4));
        thread::sleep(Duration::from_millis(50));
        assert_eq!(
            calls.load(Ordering::SeqCst),
            0,
            "a dropped, never-polled loop ran"
        );
    });
}

#[test]
fn a_loop_built_outside_runs_on_the_executor_that_polls_it() {
    watchdog(
        30,
        "a_loop_built_outside_runs_on_the_executor_that_polls_it",
        || {
            let ex = named_executor(2, "lazy-here");
            let other = named_executor(2, "lazy-other");

            // Built on the test thread, outside any executor, awaited in ex.block_on.
            let threads = Threads::new();
            let t = Arc::clone(&threads);
            let fut = filch::par_range(0..2000, move |i| t.record(i));
            ex.block_on(fut);
            assert!(!threads.names().is_empty(), "nothing ran");
            threads.assert_all_workers_of("lazy-here", "built outside, awaited in ex.block_on");

            // Built inside another executor's block_on, awaited in a task of ex.
            let threads = Threads::new();
            let t = Arc::clone(&threads);
            // The loop is returned unpolled on purpose: it must not bind to `other`.
            #[allow(clippy::async_yields_async)]
            let fut =
                other.block_on(async move { filch::par_range(0..2000, move |i| t.record(i)) });
            ex.block_on(ex.spawn(fut)).expect("the task failed");
            threads.assert_all_workers_of(
                "lazy-here",
                "built in other.block_on, awaited in ex's task",
            );

            // Built on a foreign thread, awaited in ex.block_on.
            let threads = Threads::new();
            let t = Arc::clone(&threads);
            let fut = thread::spawn(move || {
                filch::par_map(0..2000, move |i| {
                    t.record(i);
                    i
                })
            })
            .join()
            .unwrap();
            let v = ex.block_on(fut);
            assert_eq!(v, (0..2000).collect::<Vec<_>>());
            threads.assert_all_workers_of("lazy-here", "built on a foreign thread");
        },
    );
}
