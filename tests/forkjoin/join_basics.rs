//! `join` computes what the sequential code computes, wherever it is called from: outside
//! the workers, inside a task's poll, nested, on one worker and on several.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{executor, watchdog};

struct Node {
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
    value: u64,
}

fn tree(depth: u32) -> Node {
    Node {
        left: (depth > 1).then(|| Box::new(tree(depth - 1))),
        right: (depth > 1).then(|| Box::new(tree(depth - 1))),
        value: 1,
    }
}

fn sum(node: &Node) -> u64 {
    let (l, r) = filch::par::join(
        || node.left.as_deref().map_or(0, sum),
        || node.right.as_deref().map_or(0, sum),
    );
    node.value + l + r
}

#[test]
fn tree_sum_from_outside_the_workers() {
    watchdog(60, "tree_sum_from_outside_the_workers", || {
        let t = tree(16);
        let ex = executor(2);
        let _enter = ex.enter();
        for _ in 0..20 {
            assert_eq!(sum(&t), (1 << 16) - 1);
        }
    });
}

#[test]
fn tree_sum_inside_tasks() {
    watchdog(60, "tree_sum_inside_tasks", || {
        for workers in [1, 2, 4] {
            let ex = executor(workers);
            let t = std::sync::Arc::new(tree(16));
            let tasks: Vec<_> = (0..8)
                .map(|_| {
                    let t = std::sync::Arc::clone(&t);
                    ex.spawn(async move { sum(&t) })
                })
                .collect();
            for task in tasks {
                assert_eq!(ex.block_on(task).unwrap(), (1 << 16) - 1);
            }
        }
    });
}

#[test]
fn every_leaf_runs_exactly_once() {
    watchdog(60, "every_leaf_runs_exactly_once", || {
        let ex = executor(2);
        let hits: Vec<AtomicUsize> = (0..1 << 14).map(|_| AtomicUsize::new(0)).collect();
        fn visit(hits: &[AtomicUsize]) {
            if hits.len() == 1 {
                hits[0].fetch_add(1, Ordering::Relaxed);
                return;
            }
            let (a, b) = hits.split_at(hits.len() / 2);
            filch::par::join(|| visit(a), || visit(b));
        }
        ex.install_compat(|| visit(&hits));
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    });
}

trait InstallCompat {
    fn install_compat<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R;
}

impl InstallCompat for filch::Executor {
    fn install_compat<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        let _enter = self.enter();
        let (r, ()) = filch::par::join(op, || ());
        r
    }
}
