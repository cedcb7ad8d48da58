//! The order in which a worker runs its tasks: fork-join by spawning runs depth-first on
//! each worker (the owner takes its newest task, a child's completion hands the worker
//! straight to its parent), so the tasks spawned and not yet finished stay few: about two
//! per level of the tree on each worker, where a breadth-first order holds a whole level.
//! That holds whether the nodes fork in their first poll or after an await that gave the
//! worker back first (`yield_now`, a spent cooperative budget: filch's timers, IO and
//! `consume_budget` spend it). The tasks a task spawns in its later polls (a generator's
//! requests) run in the order they were spawned.
//!
//! Nothing here is timed: peaks and orders are counts, whatever the machine's load.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{own_loop_executor, watchdog, POLICIES};

/// Tasks spawned and not yet finished, and the most there were at once.
#[derive(Default)]
struct Outstanding {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// What a node awaits before it spawns its children.
#[derive(Clone, Copy, Debug)]
enum Before {
    /// Nothing: the children are spawned in the node's first poll.
    Nothing,
    /// `filch::yield_now().await`.
    YieldNow,
    /// `filch::consume_budget().await` until the budget (128 units) runs out and the node
    /// yields.
    SpentBudget,
    /// Timers that are due at once (`sleep(ZERO)`): each spends a unit of the budget, so the
    /// node yields inside one of them (an await on a ready IO object or timer).
    ReadyTimers,
}

const BEFORE: [Before; 4] = [
    Before::Nothing,
    Before::YieldNow,
    Before::SpentBudget,
    Before::ReadyTimers,
];

/// A node of a binary tree of tasks: awaits what `before` says, then spawns its two children
/// and awaits both.
fn node(
    depth: u32,
    before: Before,
    count: Arc<Outstanding>,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        match before {
            Before::Nothing => {}
            Before::YieldNow => filch::yield_now().await,
            Before::SpentBudget => {
                for _ in 0..200 {
                    filch::consume_budget().await;
                }
            }
            Before::ReadyTimers => {
                for _ in 0..200 {
                    filch::time::sleep(Duration::ZERO).await;
                }
            }
        }
        if depth == 0 {
            return;
        }
        let mut children = Vec::with_capacity(2);
        for _ in 0..2 {
            let now = count.now.fetch_add(1, SeqCst) + 1;
            count.peak.fetch_max(now, SeqCst);
            let (child, count) = (
                node(depth - 1, before, Arc::clone(&count)),
                Arc::clone(&count),
            );
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
fn fork_join_by_spawning_runs_depth_first_whatever_the_nodes_await_before_they_fork() {
    const DEPTH: u32 = 10;
    watchdog(120, "fork-join by spawning runs depth-first", || {
        for workers in [1, 2] {
            for policy in POLICIES {
                for before in BEFORE {
                    let ex = own_loop_executor(workers, policy);
                    let count = Arc::new(Outstanding::default());
                    ex.block_on(ex.spawn(node(DEPTH, before, Arc::clone(&count))))
                        .unwrap();
                    assert_eq!(
                        count.now.load(SeqCst),
                        0,
                        "a task of the tree did not finish"
                    );
                    let peak = count.peak.load(SeqCst);
                    // Depth-first: on one worker, the path from the root and one sibling per
                    // level. On more, thieves add the subtrees they are in the middle of (a
                    // batch stolen from a deque holds siblings whose parents the victim's
                    // path has left). Breadth-first holds a thousand (a level has 2^10 nodes).
                    let bound = match workers {
                        1 => 2 * DEPTH as usize,
                        _ => 4 * DEPTH as usize * workers,
                    };
                    assert!(
                        peak <= bound,
                        "{workers} worker(s), {policy:?}, {before:?} before the fork: {peak} \
                         tasks of a tree of depth {DEPTH} were outstanding at once (at most \
                         {bound} depth-first)"
                    );
                }
            }
        }
    });
}

#[test]
fn the_tasks_a_task_spawns_in_its_later_polls_run_in_spawn_order() {
    watchdog(30, "a generator's requests run in spawn order", || {
        for policy in POLICIES {
            for burst in [2, 5, 40] {
                // One worker: the order is the worker's, with no thief.
                let ex = own_loop_executor(1, policy);
                let ran = Arc::new(Mutex::new(Vec::new()));
                let generator = ex.spawn({
                    let ran = Arc::clone(&ran);
                    async move {
                        // The first poll that spawns: a fork, awaited.
                        filch::spawn(async {}).await.unwrap();
                        // A later poll: a generator's requests, not awaited.
                        for i in 0..burst {
                            let ran = Arc::clone(&ran);
                            drop(filch::spawn(async move { ran.lock().unwrap().push(i) }));
                        }
                    }
                });
                ex.block_on(generator).unwrap();
                crate::common::wait_until(10, "every request to run", || {
                    ran.lock().unwrap().len() == burst
                });
                let ran = ran.lock().unwrap().clone();
                assert_eq!(
                    ran,
                    (0..burst).collect::<Vec<_>>(),
                    "{policy:?}: the requests of a burst of {burst} ran out of spawn order"
                );
            }
        }
    });
}
