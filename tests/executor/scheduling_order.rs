//! The order in which a worker runs its tasks: fork-join by spawning runs depth-first on
//! each worker (the owner takes its newest task, a child's completion hands the worker
//! straight to its parent), so the tasks spawned and not yet finished stay few: about two
//! per level of the tree on each worker, where a breadth-first order holds a whole level.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use crate::common::{executor_with, watchdog, POLICIES};

/// Tasks spawned and not yet finished, and the most there were at once.
#[derive(Default)]
struct Outstanding {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// A node of a binary tree of tasks: spawns its two children and awaits both.
fn node(depth: u32, count: Arc<Outstanding>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        if depth == 0 {
            return;
        }
        let mut children = Vec::with_capacity(2);
        for _ in 0..2 {
            let now = count.now.fetch_add(1, SeqCst) + 1;
            count.peak.fetch_max(now, SeqCst);
            let (child, count) = (node(depth - 1, Arc::clone(&count)), Arc::clone(&count));
            children.push(filch::spawn(async move {
                child.await;
                count.now.fetch_sub(1, SeqCst);
            }));
        }
        for child in children {
            child.await.unwrap();
        }
    })
}

#[test]
fn fork_join_by_spawning_runs_depth_first() {
    const DEPTH: u32 = 12;
    watchdog(60, "fork-join by spawning runs depth-first", || {
        for workers in [1, 2] {
            for policy in POLICIES {
                let ex = executor_with(workers, policy);
                let count = Arc::new(Outstanding::default());
                ex.block_on(ex.spawn(node(DEPTH, Arc::clone(&count))))
                    .unwrap();
                assert_eq!(
                    count.now.load(SeqCst),
                    0,
                    "a task of the tree did not finish"
                );
                let peak = count.peak.load(SeqCst);
                // Depth-first: two per level on each worker, plus the subtrees thieves are
                // in the middle of. Breadth-first holds thousands (a level has 2^12 nodes).
                let bound = 4 * DEPTH as usize * workers;
                assert!(
                    peak <= bound,
                    "{workers} workers, {policy:?}: {peak} tasks of a tree of depth {DEPTH} \
                     were outstanding at once (at most {bound} depth-first)"
                );
            }
        }
    });
}
