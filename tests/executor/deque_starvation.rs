//! A worker whose LIFO end keeps growing cannot starve a task spawned before its latest
//! tree. Each worker runs fork-join trees without end (every node spawns two children onto
//! its LIFO slot and deque, and awaits them), so its deque never drains; a task spawned by
//! a later poll of a tree's driver just before one of those trees (a generator's request,
//! as hyper's per-stream tasks are: where a fork would wait below the tree on the deque)
//! must still run within a bounded number of polls of every worker: a detached one (its
//! `JoinHandle` dropped: nobody joins it, as hyper's per-stream tasks) and one whose
//! handle its spawner keeps, on 1 and 2 workers, both wake policies.
//!
//! The bound is on the fewest busy polls that any worker made while the old task waited.
//! A thief's batch can carry the old task onto the other worker's deque, and on a busy
//! machine the OS can keep that worker off its core for milliseconds while the spawning
//! worker goes on polling, so the spawner's polls alone do not bound the wait. A starved
//! task waits while every worker polls without end, so the fewest polls grow past any bound.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{executor_with, wait_until, watchdog, POLICIES};

/// The fairness interval of the contract (prime, as in tokio and Go).
const INTERVAL: u64 = 61;
/// The queues the fairness check takes from, in rotation: the injector and the inbox.
const ROTATION: u64 = 2;
/// On 2 workers, how many rotations the old task may wait: tasks woken across workers
/// enter its worker's inbox ahead of it, and a thief's batch may carry it onto the other
/// worker's deque, whose rotation it then waits for (observed: up to about 10).
const ROTATIONS_ON_TWO: u64 = 50;
/// Room for the polls already under way.
const SLACK: u64 = 64;
/// The depth of each fork-join tree ([`tree`]).
const DEPTH: u32 = 12;
/// On 2 workers, the polls of one whole tree (`2^(DEPTH + 1) − 1` nodes): the other
/// worker's driver, woken into the old task's inbox ahead of it, can be taken with it in a
/// batch when the worker runs out of local work, and then forks its next tree above the old
/// task on the deque (`src/runtime/scheduler/worker/mod.rs`, "How long a runnable task
/// waits").
const TREE_AHEAD: u64 = (1 << (DEPTH + 1)) - 1;
/// How many polls the test waits for the old task before it reports it starved.
const GIVE_UP: u64 = 2_000_000;

/// Busy polls per worker (indexed by the worker's number, from its thread's name `filch-N`).
static WORKER_POLLS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// Each worker's busy polls so far.
fn worker_polls() -> [u64; 2] {
    [WORKER_POLLS[0].load(SeqCst), WORKER_POLLS[1].load(SeqCst)]
}

/// The number of the worker this runs on, or whose place this thread takes (a stand-in,
/// `{worker's name}-standin`, polls that worker's tasks while one of its polls holds it: a
/// poll that runs long on a busy machine).
fn worker_index() -> usize {
    let name = std::thread::current()
        .name()
        .unwrap_or_default()
        .to_string();
    name.trim_end_matches("-standin")
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not on a worker: {name:?}"))
}

/// One node of an endless fork-join tree: counts its poll, then spawns two subtrees and
/// awaits both (handles kept: fork-join), until `stop`.
fn tree(
    depth: u32,
    polls: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> futures::future::BoxFuture<'static, ()> {
    Box::pin(async move {
        polls.fetch_add(1, SeqCst);
        WORKER_POLLS[worker_index()].fetch_add(1, SeqCst);
        if depth == 0 || stop.load(SeqCst) {
            return;
        }
        let a = filch::spawn(tree(depth - 1, Arc::clone(&polls), Arc::clone(&stop)));
        let b = filch::spawn(tree(depth - 1, Arc::clone(&polls), Arc::clone(&stop)));
        a.await.unwrap();
        b.await.unwrap();
    })
}

/// What the old task saw: the fewest busy polls that one of the workers made before it ran
/// (module docs), and how long it waited.
struct Waited {
    polls: u64,
    time: Duration,
}

/// On `workers` workers under `policy`, each worker runs fork-join trees without end; once
/// they are busy, one tree driver spawns the old task just before its next tree (the tree's
/// root displaces it from the LIFO slot onto the deque), keeping its handle if
/// `keep_handle`. Returns how long the old task waited, or `None` if it had not run after
/// [`GIVE_UP`] busy polls.
fn old_task_wait(workers: usize, policy: filch::WakePolicy, keep_handle: bool) -> Option<Waited> {
    let ex = executor_with(workers, policy);
    let polls = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // Each worker's busy polls when the old task was spawned, and when it ran.
    let ran_at: Arc<Mutex<Option<[u64; 2]>>> = Arc::new(Mutex::new(None));
    let spawned_at: Arc<Mutex<Option<[u64; 2]>>> = Arc::new(Mutex::new(None));
    let spawn_old = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let drivers: Vec<_> = (0..workers)
        .map(|i| {
            let (polls, stop, ran_at, spawned_at, spawn_old) = (
                Arc::clone(&polls),
                Arc::clone(&stop),
                Arc::clone(&ran_at),
                Arc::clone(&spawned_at),
                Arc::clone(&spawn_old),
            );
            ex.spawn(async move {
                let (mut old, mut spawned) = (None, false);
                while !stop.load(SeqCst) {
                    if i == 0 && !spawned && spawn_old.load(SeqCst) {
                        spawned = true;
                        *spawned_at.lock().unwrap() = Some(worker_polls());
                        let ran_at = Arc::clone(&ran_at);
                        let handle = filch::spawn(async move {
                            *ran_at.lock().unwrap() = Some(worker_polls());
                        });
                        if keep_handle {
                            old = Some(handle);
                        }
                    }
                    filch::spawn(tree(DEPTH, Arc::clone(&polls), Arc::clone(&stop)))
                        .await
                        .unwrap();
                }
                if let Some(old) = old {
                    old.await.unwrap();
                }
            })
        })
        .collect();
    // Every worker busy with its trees first.
    wait_until(10, "the trees to get going", || {
        polls.load(SeqCst) > 20_000 * workers as u64
    });
    spawn_old.store(true, SeqCst);
    wait_until(10, "the old task's spawn", || {
        spawned_at.lock().unwrap().is_some()
    });
    let spawned = spawned_at
        .lock()
        .unwrap()
        .expect("the old task was spawned");
    let spawn_time = Instant::now();
    let all_polls = || WORKER_POLLS.iter().map(|p| p.load(SeqCst)).sum::<u64>();
    let busy_at_spawn = all_polls();
    while ran_at.lock().unwrap().is_none()
        && all_polls() - busy_at_spawn < GIVE_UP
        && started.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ran = *ran_at.lock().unwrap();
    let time = spawn_time.elapsed();
    stop.store(true, SeqCst);
    for driver in drivers {
        ex.block_on(driver).unwrap();
    }
    ran.map(|ran| Waited {
        polls: (0..workers)
            .map(|w| ran[w] - spawned[w])
            .min()
            .expect("at least one worker"),
        time,
    })
}

#[test]
fn an_old_task_runs_while_its_workers_lifo_end_keeps_growing() {
    watchdog(120, "an old task behind a growing LIFO end", || {
        for workers in [1, 2] {
            for policy in POLICIES {
                for keep_handle in [false, true] {
                    let what = format!(
                        "{workers} worker(s), {policy:?}, {}",
                        if keep_handle {
                            "handle kept"
                        } else {
                            "detached"
                        }
                    );
                    let bound = match workers {
                        1 => ROTATION * INTERVAL + SLACK,
                        _ => ROTATIONS_ON_TWO * ROTATION * INTERVAL + TREE_AHEAD,
                    };
                    match old_task_wait(workers, policy, keep_handle) {
                        Some(w) => assert!(
                            w.polls <= bound,
                            "{what}: the old task waited while every worker made at least {} \
                             busy polls ({:?}), more than {bound}",
                            w.polls,
                            w.time
                        ),
                        None => panic!(
                            "{what}: the old task had not run after {GIVE_UP} busy polls: it \
                             waits at the deque's FIFO end until the LIFO end drains"
                        ),
                    }
                }
            }
        }
    });
}
