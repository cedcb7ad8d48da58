//! A one-worker executor where the task awaiting a loop sits on the only worker: the loop
//! must still complete (the awaiting task yields the worker to the loop's call instead of
//! blocking it), including loops awaited one after another and from several tasks.

use std::sync::Arc;

use crate::common::{named_executor, watchdog};
use crate::par_common::{Counters, Threads};

#[test]
fn a_task_on_the_only_worker_awaits_a_loop() {
    watchdog(30, "a_task_on_the_only_worker_awaits_a_loop", || {
        let ex = named_executor(1, "solo");
        let counters = Counters::new(0..10_000);
        let threads = Threads::new();
        let (c, t) = (Arc::clone(&counters), Arc::clone(&threads));
        let sum = ex
            .block_on(ex.spawn(async move {
                filch::par_range(0..10_000, move |i| {
                    c.hit(i);
                    t.record(i);
                })
                .await;
                let v = filch::par_map(0..1000, |i| i * 2).await;
                assert_eq!(v, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
                filch::par_reduce(0..1000, || 0usize, |a, i| a + i, |a, b| a + b).await
            }))
            .expect("the task failed");
        assert_eq!(sum, 999 * 500);
        counters.assert_each_once("par_range awaited on the only worker");
        assert_eq!(
            threads.names().into_iter().collect::<Vec<_>>(),
            vec!["solo-0".to_string()]
        );
    });
}

#[test]
fn many_loops_in_sequence_and_in_several_tasks_on_one_worker() {
    watchdog(
        30,
        "many_loops_in_sequence_and_in_several_tasks_on_one_worker",
        || {
            let ex = named_executor(1, "solo-many");
            let total = ex.block_on(async {
                let tasks: Vec<_> = (0..10u64)
                    .map(|t| {
                        filch::spawn(async move {
                            let mut s = 0;
                            for k in 0..20u64 {
                                s += filch::par_reduce(
                                    0..100,
                                    || 0u64,
                                    move |a, i| a + i as u64 + t + k,
                                    |a, b| a + b,
                                )
                                .await;
                            }
                            s
                        })
                    })
                    .collect();
                let mut total = 0;
                for task in tasks {
                    total += task.await.expect("a task failed");
                }
                total
            });
            // Each loop: 4950 + 100 (t + k); summed over t in 0..10, k in 0..20.
            let expected: u64 = (0..10u64)
                .flat_map(|t| (0..20u64).map(move |k| 4950 + 100 * (t + k)))
                .sum();
            assert_eq!(total, expected);
        },
    );
}
