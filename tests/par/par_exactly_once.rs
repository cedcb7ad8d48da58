//! Every index of a data-parallel loop runs exactly once, for many sizes and executor widths,
//! whichever way the loop is started: the free function inside `block_on`, a `Handle` method
//! awaited on a thread foreign to filch, or from inside a spawned task.

use std::sync::Arc;

use crate::common::{named_executor, watchdog};
use crate::par_common::{Counters, Threads};

const SIZES: [usize; 9] = [0, 1, 2, 3, 7, 64, 1000, 4099, 100_003];
const WORKERS: [usize; 3] = [1, 2, 3];

/// Runs `check(ex, prefix, n)` for every executor width and size.
fn for_each_case(prefix: &'static str, check: impl Fn(&filch::Executor, &str, usize)) {
    for workers in WORKERS {
        let ex = named_executor(workers, prefix);
        for n in SIZES {
            check(&ex, prefix, n);
        }
    }
}

#[test]
fn free_functions_in_block_on() {
    watchdog(60, "free_functions_in_block_on", || {
        for_each_case("once-free", |ex, prefix, n| {
            let what = format!("par_range(0..{n}) on {} workers", ex.worker_threads());
            let counters = Counters::new(0..n);
            let threads = Threads::new();
            let (c, t) = (Arc::clone(&counters), Arc::clone(&threads));
            ex.block_on(filch::par_range(0..n, move |i| {
                c.hit(i);
                t.record(i);
            }));
            counters.assert_each_once(&what);
            threads.assert_all_workers_of(prefix, &what);

            let v = ex.block_on(filch::par_map(0..n, |i| i * 2));
            assert_eq!(
                v,
                (0..n).map(|i| i * 2).collect::<Vec<_>>(),
                "par_map, {what}"
            );

            let sum = ex.block_on(filch::par_reduce(
                0..n,
                || 0u64,
                |acc, i| acc + i as u64,
                |a, b| a + b,
            ));
            assert_eq!(sum, (0..n as u64).sum::<u64>(), "par_reduce, {what}");
        });
    });
}

#[test]
fn handle_methods_awaited_on_a_foreign_thread() {
    watchdog(60, "handle_methods_awaited_on_a_foreign_thread", || {
        for_each_case("once-handle", |ex, prefix, n| {
            let what = format!(
                "Handle::par_range(0..{n}) on {} workers, from a foreign thread",
                ex.worker_threads()
            );
            let handle = ex.handle();
            let counters = Counters::new(0..n);
            let threads = Threads::new();
            let (c, t) = (Arc::clone(&counters), Arc::clone(&threads));
            let (v, sum) = std::thread::spawn(move || {
                // A plain futures executor: the awaiting thread knows nothing of filch.
                futures::executor::block_on(async move {
                    handle
                        .par_range(0..n, move |i| {
                            c.hit(i);
                            t.record(i);
                        })
                        .await;
                    let v = handle.par_map(0..n, |i| i.to_string()).await;
                    let sum = handle
                        .par_reduce(0..n, || 0u64, |acc, i| acc + i as u64, |a, b| a + b)
                        .await;
                    (v, sum)
                })
            })
            .join()
            .expect("the foreign thread panicked");
            counters.assert_each_once(&what);
            threads.assert_all_workers_of(prefix, &what);
            assert_eq!(
                v,
                (0..n).map(|i| i.to_string()).collect::<Vec<_>>(),
                "par_map, {what}"
            );
            assert_eq!(sum, (0..n as u64).sum::<u64>(), "par_reduce, {what}");
        });
    });
}

#[test]
fn executor_methods_awaited_on_a_foreign_thread() {
    watchdog(60, "executor_methods_awaited_on_a_foreign_thread", || {
        let ex = Arc::new(named_executor(2, "once-exec"));
        for n in SIZES {
            let counters = Counters::new(0..n);
            let c = Arc::clone(&counters);
            let ex2 = Arc::clone(&ex);
            let v = std::thread::spawn(move || {
                futures::executor::block_on(async move {
                    ex2.par_range(0..n, move |i| c.hit(i)).await;
                    ex2.par_map(0..n, |i| i + 1).await
                })
            })
            .join()
            .expect("the foreign thread panicked");
            counters.assert_each_once(&format!("Executor::par_range(0..{n})"));
            assert_eq!(v, (1..=n).collect::<Vec<_>>());
            let sum = ex.block_on(ex.par_reduce(0..n, || 0usize, |a, i| a + i, |a, b| a + b));
            assert_eq!(sum, (0..n).sum::<usize>());
        }
    });
}

#[test]
fn free_functions_inside_a_spawned_task() {
    watchdog(60, "free_functions_inside_a_spawned_task", || {
        for_each_case("once-task", |ex, prefix, n| {
            let what = format!(
                "par_range(0..{n}) on {} workers, in a spawned task",
                ex.worker_threads()
            );
            let counters = Counters::new(0..n);
            let threads = Threads::new();
            let (c, t) = (Arc::clone(&counters), Arc::clone(&threads));
            let task = ex.spawn(async move {
                filch::par_range(0..n, move |i| {
                    c.hit(i);
                    t.record(i);
                })
                .await;
                let v = filch::par_map(0..n, |i| i as u64 * 3).await;
                let sum =
                    filch::par_reduce(0..n, || 0u64, |acc, i| acc + i as u64, |a, b| a + b).await;
                (v, sum)
            });
            let (v, sum) = ex.block_on(task).expect("the task failed");
            counters.assert_each_once(&what);
            threads.assert_all_workers_of(prefix, &what);
            assert_eq!(
                v,
                (0..n as u64).map(|i| i * 3).collect::<Vec<_>>(),
                "par_map, {what}"
            );
            assert_eq!(sum, (0..n as u64).sum::<u64>(), "par_reduce, {what}");
        });
    });
}
