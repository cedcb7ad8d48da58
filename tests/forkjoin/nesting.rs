//! Nested calls on one worker: `join` in `scope` in `join`, 20 deep, and the same with
//! borrowed data at every level.

use crate::common::{executor, watchdog};

fn nest(depth: u32, out: &mut Vec<u32>) {
    if depth == 0 {
        return;
    }
    let mut left = Vec::new();
    let mut right = Vec::new();
    filch::par::join(
        || {
            filch::par::scope(|s| {
                s.spawn(|_| nest(depth - 1, &mut left));
            })
        },
        || right.push(depth),
    );
    out.extend(left);
    out.extend(right);
}

#[test]
fn join_in_scope_in_join_20_deep_on_one_worker() {
    watchdog(60, "join in scope in join, 20 deep", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            let mut out = Vec::new();
            ex.install(|| nest(20, &mut out));
            assert_eq!(out, (1..=20).collect::<Vec<_>>());
        }
    });
}

#[test]
fn the_same_from_a_task_and_from_outside() {
    watchdog(60, "nesting from a task and from outside", || {
        let ex = executor(1);
        let from_task = ex.block_on(ex.spawn(async {
            let mut out = Vec::new();
            nest(20, &mut out);
            out
        }));
        assert_eq!(from_task.unwrap().len(), 20);
        let _enter = ex.enter();
        let mut out = Vec::new();
        nest(20, &mut out);
        assert_eq!(out.len(), 20);
    });
}
