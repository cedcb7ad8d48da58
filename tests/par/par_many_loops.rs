//! Many loops at once: 50 tasks each awaiting a `par_map` (and a `par_reduce`) on a
//! 2-worker executor, plus loops started from several foreign threads at the same time.

use std::sync::Arc;
use std::thread;

use crate::common::{named_executor, watchdog};
use crate::par_common::Counters;

#[test]
fn fifty_tasks_each_awaiting_a_par_map() {
    watchdog(60, "fifty_tasks_each_awaiting_a_par_map", || {
        let ex = named_executor(2, "many");
        let results = ex.block_on(async {
            let tasks: Vec<_> = (0..50usize)
                .map(|t| {
                    filch::spawn(async move {
                        let v = filch::par_map(0..2000, move |i| (t * 10_000 + i) as u64).await;
                        let s = filch::par_reduce(
                            0..2000,
                            || 0u64,
                            move |a, i| a + (t * i) as u64,
                            |a, b| a + b,
                        )
                        .await;
                        (t, v, s)
                    })
                })
                .collect();
            let mut out = Vec::new();
            for task in tasks {
                out.push(task.await.expect("a task failed"));
            }
            out
        });
        assert_eq!(results.len(), 50);
        for (t, v, s) in results {
            let expected: Vec<u64> = (0..2000).map(|i| (t * 10_000 + i) as u64).collect();
            assert_eq!(v, expected, "task {t}'s par_map");
            assert_eq!(s, (t as u64) * 1999 * 1000, "task {t}'s par_reduce");
        }
    });
}

#[test]
fn loops_from_several_threads_and_tasks_at_once() {
    watchdog(60, "loops_from_several_threads_and_tasks_at_once", || {
        let ex = Arc::new(named_executor(3, "many-threads"));
        let counters: Vec<_> = (0..8)
            .map(|k| Counters::new(k * 5000..(k + 1) * 5000))
            .collect();
        let threads: Vec<_> = counters
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let ex = Arc::clone(&ex);
                let c = Arc::clone(c);
                let range = k * 5000..(k + 1) * 5000;
                thread::spawn(move || {
                    if k % 2 == 0 {
                        ex.block_on(ex.par_range(range, move |i| c.hit(i)));
                    } else {
                        let task = ex.spawn(filch::par_range(range, move |i| c.hit(i)));
                        ex.block_on(task).expect("the task failed");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("a thread panicked");
        }
        for (k, c) in counters.iter().enumerate() {
            c.assert_each_once(&format!("loop {k}"));
        }
    });
}
