//! The sorts called from a task on an executor's worker, and from many threads at once,
//! give the same results as from a plain thread.

use std::sync::Arc;

use filch::par::slice::ParallelSliceMut;

use crate::common::{executor, watchdog};
use crate::slice_common::Rng;

#[test]
fn sorts_inside_a_task() {
    watchdog(120, "sorts_inside_a_task", || {
        let ex = executor(2);
        let input = Arc::new(Rng::new(31).values(200_000, 1 << 30));
        let mut expected = (*input).clone();
        expected.sort();
        let tasks: Vec<_> = (0..4)
            .map(|k| {
                let input = Arc::clone(&input);
                ex.spawn(async move {
                    let mut v = (*input).clone();
                    if k % 2 == 0 {
                        v.par_sort();
                    } else {
                        v.par_sort_unstable();
                    }
                    v
                })
            })
            .collect();
        for task in tasks {
            assert_eq!(ex.block_on(task).unwrap(), expected);
        }
    });
}

#[test]
fn sorts_from_many_threads_at_once() {
    watchdog(120, "sorts_from_many_threads_at_once", || {
        let handles: Vec<_> = (0..4u64)
            .map(|k| {
                std::thread::spawn(move || {
                    let input = Rng::new(40 + k).values(100_000, 1000);
                    let mut expected = input.clone();
                    expected.sort();
                    let mut v = input.clone();
                    v.par_sort_unstable();
                    assert_eq!(v, expected);
                    let mut v = input;
                    v.par_sort();
                    assert_eq!(v, expected);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}
