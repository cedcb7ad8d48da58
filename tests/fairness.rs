//! Fairness on one-worker executors: (a) the injector is looked at at least every 61 polls
//! even while the local deque never empties; (b) a task that wakes itself while running,
//! and `yield_now`, go behind other ready work; (c) two tasks that wake each other cannot
//! starve a third.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use common::{executor_with, wait_until, watchdog, POLICIES};
use filch::WakePolicy;

/// The fairness interval of the contract (prime, as in tokio and Go).
const INTERVAL: u64 = 61;
/// Room for the polls already under way when the foreign spawn lands.
const SLACK: u64 = 8;

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A task that counts its poll and spawns its successor (onto the worker's LIFO slot, which
/// pushes the previous occupant onto the local deque), until `stop`.
fn spawning_chain(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
    Box::pin(async move {
        polls.fetch_add(1, SeqCst);
        if !stop.load(SeqCst) {
            drop(filch::spawn(spawning_chain(polls, stop)));
        }
    })
}

/// Spawns `F` from a foreign thread while the worker is kept busy by `busy`, and returns how
/// many busy polls ran between the spawn and `F`'s first poll.
fn busy_polls_before_a_foreign_task(
    policy: WakePolicy,
    busy: fn(Arc<AtomicU64>, Arc<AtomicBool>) -> BoxFuture,
) -> u64 {
    let ex = executor_with(1, policy);
    let polls = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    drop(ex.spawn(busy(Arc::clone(&polls), Arc::clone(&stop))));
    wait_until(10, "the busy work to get going", || {
        polls.load(SeqCst) > 500
    });
    let foreign = ex.spawn({
        let (polls, stop) = (Arc::clone(&polls), Arc::clone(&stop));
        async move {
            stop.store(true, SeqCst);
            polls.load(SeqCst)
        }
    });
    // Read after the spawn returned: no more than the count when the task was queued.
    let at_spawn = polls.load(SeqCst);
    let at_run = ex.block_on(foreign).unwrap();
    at_run.saturating_sub(at_spawn)
}

#[test]
fn injector_is_checked_while_the_local_deque_never_empties() {
    watchdog(60, "fairness: busy local deque", || {
        /// Four spawning chains, so the deque always holds some.
        fn busy(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
            Box::pin(async move {
                for _ in 0..4 {
                    drop(filch::spawn(spawning_chain(
                        Arc::clone(&polls),
                        Arc::clone(&stop),
                    )));
                }
            })
        }
        for policy in POLICIES {
            for _ in 0..3 {
                let waited = busy_polls_before_a_foreign_task(policy, busy);
                assert!(
                    waited <= 2 * INTERVAL + SLACK,
                    "{policy:?}: a foreign task waited {waited} polls behind local work"
                );
            }
        }
    });
}

#[test]
fn injector_is_checked_while_a_task_yields_forever() {
    watchdog(60, "fairness: yielding task", || {
        fn busy(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
            Box::pin(async move {
                while !stop.load(SeqCst) {
                    polls.fetch_add(1, SeqCst);
                    filch::yield_now().await;
                }
            })
        }
        for policy in POLICIES {
            for _ in 0..3 {
                let waited = busy_polls_before_a_foreign_task(policy, busy);
                assert!(
                    waited <= 2 * INTERVAL + SLACK,
                    "{policy:?}: a foreign task waited {waited} polls behind a yielding task"
                );
            }
        }
    });
}

/// Pending once after waking itself (a self-wake while running), then ready.
struct WakeSelfOnce(bool);

impl Future for WakeSelfOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn yield_now_and_self_wakes_go_behind_other_ready_work() {
    watchdog(30, "fairness: yield goes behind", || {
        for policy in POLICIES {
            for self_wake in [false, true] {
                // A fresh executor per case, so the few polls here stay clear of the
                // fairness interval.
                let ex = executor_with(1, policy);
                let log = Arc::new(Mutex::new(Vec::new()));
                let task = ex.spawn({
                    let log = Arc::clone(&log);
                    async move {
                        let others: Vec<_> = ["b1", "b2", "b3"]
                            .into_iter()
                            .map(|name| {
                                let log = Arc::clone(&log);
                                filch::spawn(async move { log.lock().unwrap().push(name) })
                            })
                            .collect();
                        log.lock().unwrap().push("a yields");
                        if self_wake {
                            WakeSelfOnce(false).await;
                        } else {
                            filch::yield_now().await;
                        }
                        log.lock().unwrap().push("a resumes");
                        for other in others {
                            other.await.unwrap();
                        }
                    }
                });
                ex.block_on(task).unwrap();
                let log = log.lock().unwrap().clone();
                let resumed = log.iter().position(|&e| e == "a resumes").unwrap();
                for name in ["b1", "b2", "b3"] {
                    let ran = log.iter().position(|&e| e == name).expect(name);
                    assert!(
                        ran < resumed,
                        "{policy:?}, self_wake {self_wake}: {name} ran after A resumed: {log:?}"
                    );
                }
            }
        }
    });
}

#[test]
fn two_tasks_waking_each_other_cannot_starve_a_third() {
    watchdog(30, "fairness: ping-pong vs third", || {
        for policy in POLICIES {
            let ex = executor_with(1, policy);
            let exchanges = Arc::new(AtomicUsize::new(0));
            let stop = Arc::new(AtomicBool::new(false));
            let (to_q, q_rx) = async_channel::bounded::<()>(1);
            let (to_p, p_rx) = async_channel::bounded::<()>(1);
            let third_saw = Arc::new(AtomicUsize::new(usize::MAX));
            let p = ex.spawn({
                let (exchanges, stop, third_saw) = (
                    Arc::clone(&exchanges),
                    Arc::clone(&stop),
                    Arc::clone(&third_saw),
                );
                async move {
                    while !stop.load(SeqCst) {
                        let n = exchanges.fetch_add(1, SeqCst);
                        if n == 100 {
                            // The third task: ready on the same worker, behind the ping-pong,
                            // which hands the worker back and forth through the LIFO slot.
                            let (exchanges, stop, third_saw) = (
                                Arc::clone(&exchanges),
                                Arc::clone(&stop),
                                Arc::clone(&third_saw),
                            );
                            drop(filch::spawn(async move {
                                third_saw.store(exchanges.load(SeqCst), SeqCst);
                                stop.store(true, SeqCst);
                            }));
                        }
                        to_q.send(()).await.unwrap();
                        p_rx.recv().await.unwrap();
                    }
                }
            });
            let q = ex.spawn(async move {
                while q_rx.recv().await.is_ok() {
                    if to_p.send(()).await.is_err() {
                        break;
                    }
                }
            });
            ex.block_on(p).unwrap();
            ex.block_on(q).unwrap();
            let saw = third_saw.load(SeqCst);
            assert!(
                saw != usize::MAX && saw <= 100 + 10,
                "{policy:?}: the third task ran only after {saw} exchanges (spawned at 101)"
            );
        }
    });
}
