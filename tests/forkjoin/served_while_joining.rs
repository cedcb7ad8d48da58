//! IO and timers are served while every worker's task is inside a `join` recursion: the
//! occupied workers' stand-ins take their places. Each recursion goes on until a timer has
//! fired and a TCP echo has come back, so if neither were served the recursions would never
//! end (the watchdog then fails the test): the check is of order, not of timing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::common::{executor, wait_until, watchdog};

/// Joins until `stop` is set, counting leaves.
fn busy(stop: &AtomicBool, leaves: &AtomicU64, depth: u32) {
    if stop.load(Ordering::Relaxed) {
        return;
    }
    if depth == 0 {
        // A leaf of a few microseconds.
        let mut x = 0u64;
        for i in 0..2_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        leaves.fetch_add(1, Ordering::Relaxed);
        return;
    }
    filch::par::join(
        || busy(stop, leaves, depth - 1),
        || busy(stop, leaves, depth - 1),
    );
}

fn check(workers: usize) {
    let ex = executor(workers);
    let stop = Arc::new(AtomicBool::new(false));
    let leaves = Arc::new(AtomicU64::new(0));
    let joiners: Vec<_> = (0..workers)
        .map(|_| {
            let (stop, leaves) = (Arc::clone(&stop), Arc::clone(&leaves));
            ex.spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    busy(&stop, &leaves, 12);
                }
            })
        })
        .collect();
    // Wait until the recursions run, so that the timer and the echo start while every
    // worker is inside one.
    while leaves.load(Ordering::Relaxed) < 100 {
        std::thread::yield_now();
    }
    crate::held_polls::timer_and_echo(&ex);
    stop.store(true, Ordering::Relaxed);
    for joiner in joiners {
        ex.block_on(joiner).unwrap();
    }
}

#[test]
fn a_timer_and_a_tcp_echo_are_served_while_every_worker_joins() {
    for workers in [1, 2] {
        watchdog(
            60,
            &format!("served while joining, {workers} workers"),
            move || check(workers),
        );
    }
}

/// What a worker did, in the order it did it (`a_task_spawned_by_a_closure_runs_before_its_worker_takes_more_closures`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Event {
    Closure(std::thread::ThreadId),
    TaskSpawned(std::thread::ThreadId),
    TaskRan(std::thread::ThreadId),
}

/// One run of the scenario: a task on a 2-worker executor opens a scope of 2,000 closures
/// of a few microseconds; the first closure that runs on another thread than the owner's
/// spawns a task. The events in order, or `None` if no closure ran elsewhere.
fn closures_and_a_task() -> Option<Vec<Event>> {
    let ex = executor(2);
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let spawned = Arc::new(AtomicBool::new(false));
    let (log2, spawned2) = (Arc::clone(&log), Arc::clone(&spawned));
    ex.block_on(ex.spawn(async move {
        let owner = std::thread::current().id();
        let (log, spawned) = (&log2, &spawned2);
        filch::par::scope(|s| {
            for _ in 0..2_000 {
                s.spawn(move |_| {
                    let me = std::thread::current().id();
                    log.lock().unwrap().push(Event::Closure(me));
                    if me != owner && !spawned.swap(true, Ordering::SeqCst) {
                        let log = Arc::clone(log);
                        log.lock().unwrap().push(Event::TaskSpawned(me));
                        drop(filch::spawn(async move {
                            let me = std::thread::current().id();
                            log.lock().unwrap().push(Event::TaskRan(me));
                        }));
                    }
                    // A closure of a few microseconds.
                    let mut x = 0u64;
                    for i in 0..1_000u64 {
                        x = x.wrapping_mul(31).wrapping_add(i);
                    }
                    std::hint::black_box(x);
                });
            }
        });
    }))
    .unwrap();
    if !spawned.load(Ordering::SeqCst) {
        return None;
    }
    wait_until(10, "the task a closure spawned to run", || {
        log.lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, Event::TaskRan(_)))
    });
    let log = log.lock().unwrap().clone();
    Some(log)
}

/// A worker that takes a scope's closures from the board goes on with more of them without
/// a trip through its loop, but not while a task waits: the task a closure spawns (to the
/// global queue, as the worker does fork-join work) runs on that worker before it takes
/// another closure. The scope's owner is in a poll, whose stand-in may take the task first
/// once the poll has held its worker for a tick; then the worker finds no task and goes on
/// with the closures, and the run says nothing: the scenario is run again, up to 20 times,
/// until the task runs on the worker that spawned it. The check is of order.
#[test]
fn a_task_spawned_by_a_closure_runs_before_its_worker_takes_more_closures() {
    watchdog(120, "a task between a scope's closures", || {
        for _ in 0..20 {
            let Some(log) = closures_and_a_task() else {
                // The owner ran every closure.
                continue;
            };
            let at = log
                .iter()
                .position(|e| matches!(e, Event::TaskSpawned(_)))
                .expect("the spawn was logged");
            let Event::TaskSpawned(worker) = log[at] else {
                unreachable!()
            };
            let ran = log
                .iter()
                .position(|e| matches!(e, Event::TaskRan(_)))
                .expect("the task ran");
            assert!(ran > at);
            if log[ran] != Event::TaskRan(worker) {
                // Another thread took the task first.
                continue;
            }
            let taken_meanwhile = log[at..ran]
                .iter()
                .filter(|e| **e == Event::Closure(worker))
                .count();
            assert_eq!(
                taken_meanwhile, 0,
                "the worker took {taken_meanwhile} more closures before the task it spawned ran"
            );
            return;
        }
    });
}
