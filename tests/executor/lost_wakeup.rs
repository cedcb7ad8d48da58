//! Lost-wake-up stress: tens of thousands of rounds in which a thread that is no worker wakes
//! a task while the workers go to sleep, under both wake policies; ping-pong between two
//! tasks on different workers. Every test runs under a watchdog: a lost wake-up fails with
//! "hung: ..." instead of hanging the suite.

use std::sync::{mpsc, Arc, Barrier};
use std::thread;

use crate::common::{executor_with, watchdog, POLICIES};
use filch::WakePolicy;
use futures::channel::oneshot;

const ROUNDS: usize = 20_000;

/// A thread that answers each request by sending its index on the oneshot it was given,
/// sometimes at once, sometimes after a short spin (so that the send lands at varied points
/// of the worker's way to sleep).
fn answering_thread() -> mpsc::Sender<oneshot::Sender<usize>> {
    let (req_tx, req_rx) = mpsc::channel::<oneshot::Sender<usize>>();
    thread::spawn(move || {
        for (i, tx) in req_rx.into_iter().enumerate() {
            for _ in 0..(i % 7) * 50 {
                std::hint::spin_loop();
            }
            if i % 5 == 0 {
                thread::yield_now();
            }
            // The task may be gone if the test already failed.
            let _ = tx.send(i);
        }
    });
    req_tx
}

fn foreign_wakes_one_task(policy: WakePolicy) {
    let ex = executor_with(2, policy);
    let requests = answering_thread();
    let task = ex.spawn(async move {
        for i in 0..ROUNDS {
            let (tx, rx) = oneshot::channel();
            requests.send(tx).unwrap();
            assert_eq!(rx.await.unwrap(), i);
        }
        ROUNDS
    });
    assert_eq!(ex.block_on(task).unwrap(), ROUNDS);
}

#[test]
fn foreign_thread_wakes_a_task_last_worker() {
    watchdog(60, "foreign wakes (LastWorker)", || {
        foreign_wakes_one_task(WakePolicy::LastWorker)
    });
}

#[test]
fn foreign_thread_wakes_a_task_current_worker() {
    watchdog(60, "foreign wakes (CurrentWorker)", || {
        foreign_wakes_one_task(WakePolicy::CurrentWorker)
    });
}

#[test]
fn foreign_threads_wake_several_tasks() {
    watchdog(60, "foreign_threads_wake_several_tasks", || {
        for policy in POLICIES {
            const TASKS: usize = 4;
            let ex = executor_with(2, policy);
            let tasks: Vec<_> = (0..TASKS)
                .map(|_| {
                    let requests = answering_thread();
                    ex.spawn(async move {
                        for i in 0..ROUNDS / TASKS / 2 {
                            let (tx, rx) = oneshot::channel();
                            requests.send(tx).unwrap();
                            assert_eq!(rx.await.unwrap(), i);
                            if i % 3 == 0 {
                                filch::yield_now().await;
                            }
                        }
                    })
                })
                .collect();
            for task in tasks {
                ex.block_on(task).unwrap();
            }
        }
    });
}

#[test]
fn workers_wake_a_thread_in_block_on() {
    watchdog(60, "workers_wake_a_thread_in_block_on", || {
        for policy in POLICIES {
            let ex = executor_with(2, policy);
            for i in 0..ROUNDS / 4 {
                let v = ex.block_on(async move { filch::spawn(async move { i }).await.unwrap() });
                assert_eq!(v, i);
            }
        }
    });
}

/// Two tasks pinned to different workers (they meet at a blocking barrier in their first
/// poll) exchange `ROUNDS` messages.
fn ping_pong_across_workers(policy: WakePolicy) {
    let ex = executor_with(2, policy);
    let barrier = Arc::new(Barrier::new(2));
    let (to_pong, pong_rx) = async_channel::bounded::<usize>(1);
    let (to_ping, ping_rx) = async_channel::bounded::<usize>(1);
    let pong = ex.spawn({
        let barrier = Arc::clone(&barrier);
        async move {
            barrier.wait();
            while let Ok(v) = pong_rx.recv().await {
                to_ping.send(v + 1).await.unwrap();
            }
        }
    });
    let ping = ex.spawn(async move {
        barrier.wait();
        let mut v = 0;
        for _ in 0..ROUNDS {
            to_pong.send(v).await.unwrap();
            let back = ping_rx.recv().await.unwrap();
            assert_eq!(back, v + 1);
            v = back;
        }
        v
    });
    assert_eq!(ex.block_on(ping).unwrap(), ROUNDS);
    ex.block_on(pong).unwrap();
}

#[test]
fn ping_pong_across_workers_last_worker() {
    watchdog(60, "ping-pong (LastWorker)", || {
        ping_pong_across_workers(WakePolicy::LastWorker)
    });
}

#[test]
fn ping_pong_across_workers_current_worker() {
    watchdog(60, "ping-pong (CurrentWorker)", || {
        ping_pong_across_workers(WakePolicy::CurrentWorker)
    });
}
