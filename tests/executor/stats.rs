//! `Stats`: one entry per worker; polls, steal attempts, steals and parks move as the
//! workers do their work.

use std::thread;
use std::time::Duration;

use crate::common::{executor, wait_until, watchdog};
use filch::{Stats, WorkerStats};

#[test]
fn one_entry_per_worker() {
    for n in [1, 2, 4] {
        let ex = executor(n);
        assert_eq!(ex.stats().workers.len(), n);
        assert_eq!(ex.handle().stats().workers.len(), n);
    }
    let empty = Stats::default();
    assert!(empty.workers.is_empty());
    assert_eq!(empty.total().polls, 0);
}

#[test]
fn polls_count_up() {
    watchdog(30, "polls_count_up", || {
        let ex = executor(2);
        let before = ex.stats().total().polls;
        let tasks: Vec<_> = (0..100).map(|i| ex.spawn(async move { i })).collect();
        for t in tasks {
            ex.block_on(t).unwrap();
        }
        // A poll is counted once it has returned: allow the last ones a moment.
        wait_until(10, "100 more polls", || {
            ex.stats().total().polls >= before + 100
        });
        // Every poll is counted once: 100 one-poll tasks, no other work.
        thread::sleep(Duration::from_millis(20));
        assert_eq!(ex.stats().total().polls, before + 100);
    });
}

/// The polls a stand-in makes in its worker's place (while a poll blocks the worker) count
/// for that worker: one blocking task and 100 one-poll tasks are 101 polls, whichever thread
/// ran them.
#[test]
fn polls_made_by_a_stand_in_count_for_its_worker() {
    watchdog(30, "stand-in polls", || {
        let ex = executor(1);
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let blocker = ex.spawn(async move {
            // Blocks its worker until the 100 tasks ran: on the stand-in.
            blocked.recv().unwrap();
        });
        let tasks: Vec<_> = (0..100).map(|i| ex.spawn(async move { i })).collect();
        for t in tasks {
            ex.block_on(t).unwrap();
        }
        release.send(()).unwrap();
        ex.block_on(blocker).unwrap();
        wait_until(10, "101 polls", || ex.stats().total().polls >= 101);
        thread::sleep(Duration::from_millis(20));
        assert_eq!(ex.stats().total().polls, 101);
    });
}

#[test]
fn total_is_the_sum_of_the_workers() {
    watchdog(30, "total_is_the_sum_of_the_workers", || {
        let ex = executor(3);
        ex.block_on(async {
            let tasks: Vec<_> = (0..300).map(|_| filch::spawn(filch::yield_now())).collect();
            for t in tasks {
                t.await.unwrap();
            }
        });
        thread::sleep(Duration::from_millis(20));
        let stats = ex.stats();
        let sum = stats.workers.iter().fold(WorkerStats::default(), |a, w| {
            let mut s = a;
            s.polls += w.polls;
            s.steal_attempts += w.steal_attempts;
            s.steals += w.steals;
            s.parks += w.parks;
            s
        });
        let total = stats.total();
        assert_eq!(
            (total.polls, total.steal_attempts, total.steals, total.parks),
            (sum.polls, sum.steal_attempts, sum.steals, sum.parks)
        );
        assert!(total.polls >= 600, "300 tasks that yield once: {total:?}");
    });
}

#[test]
fn steals_never_exceed_attempts_and_idle_workers_steal() {
    watchdog(30, "steals and attempts", || {
        let ex = executor(2);
        // A task that spawns many children onto its own worker: the other worker wakes
        // as a searcher and tries to steal.
        ex.block_on(ex.spawn(async {
            let children: Vec<_> = (0..2000u64)
                .map(|i| filch::spawn(async move { (0..i % 50).sum::<u64>() }))
                .collect();
            for c in children {
                c.await.unwrap();
            }
        }))
        .unwrap();
        wait_until(10, "a steal attempt", || {
            ex.stats().total().steal_attempts > 0
        });
        for w in ex.stats().workers {
            assert!(w.steals <= w.steal_attempts, "{w:?}");
        }
    });
}

#[test]
fn parks_increase_when_workers_go_idle() {
    watchdog(30, "parks_increase_when_workers_go_idle", || {
        let ex = executor(2);
        let before = ex.stats().total().parks;
        for _ in 0..5 {
            ex.block_on(ex.spawn(async {})).unwrap();
            thread::sleep(Duration::from_millis(5));
        }
        wait_until(10, "a park after the work ran out", || {
            ex.stats().total().parks > before
        });
        // Idle workers stay parked: no busy loop that keeps counting polls.
        let polls = ex.stats().total().polls;
        thread::sleep(Duration::from_millis(50));
        assert_eq!(ex.stats().total().polls, polls);
    });
}

/// `alive_tasks` counts spawned tasks until they are dropped, wherever they were made and
/// wherever they end.
#[test]
fn alive_tasks_counts_tasks_until_they_are_dropped() {
    watchdog(30, "alive_tasks", || {
        let ex = executor(2);
        assert_eq!(ex.stats().alive_tasks, 0);
        // 50 from this thread, 50 from a worker; all wait on a channel.
        let (tx, rx) = async_channel::unbounded::<()>();
        let mut handles: Vec<_> = (0..50)
            .map(|_| {
                let rx = rx.clone();
                ex.spawn(async move { rx.recv().await.ok() })
            })
            .collect();
        let inner = {
            let rx = rx.clone();
            ex.block_on(ex.spawn(async move {
                (0..50)
                    .map(|_| {
                        let rx = rx.clone();
                        filch::spawn(async move { rx.recv().await.ok() })
                    })
                    .collect::<Vec<_>>()
            }))
            .unwrap()
        };
        handles.extend(inner);
        assert_eq!(ex.stats().alive_tasks, 100);
        drop(tx);
        for h in handles {
            ex.block_on(h).unwrap();
        }
        // The handles were the last references: every task is gone.
        wait_until(10, "alive_tasks back to 0", || ex.stats().alive_tasks == 0);
    });
}

/// `injector_depth` sees tasks queued from outside while the only worker is busy, and
/// `blocking_threads` sees the blocking pool grow.
#[test]
fn injector_depth_and_blocking_threads() {
    watchdog(30, "injector_depth_and_blocking_threads", || {
        let ex = executor(1);
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        // Occupy the only worker.
        let busy = ex.spawn(async move {
            started_tx.send(()).unwrap();
            go_rx.recv().unwrap();
        });
        started_rx.recv().unwrap();
        let queued: Vec<_> = (0..10).map(|i| ex.spawn(async move { i })).collect();
        assert_eq!(ex.stats().injector_depth, 10);
        let blocking: Vec<_> = (0..3)
            .map(|_| ex.spawn_blocking(|| thread::sleep(Duration::from_millis(50))))
            .collect();
        assert!(ex.stats().blocking_threads >= 1);
        go_tx.send(()).unwrap();
        ex.block_on(busy).unwrap();
        for q in queued {
            ex.block_on(q).unwrap();
        }
        for b in blocking {
            ex.block_on(b).unwrap();
        }
        assert_eq!(ex.stats().injector_depth, 0);
    });
}

/// `busy` grows by at least the time tasks spent being polled (a task that spins for
/// 50 ms), and stays below the wall time.
#[test]
fn busy_counts_the_time_spent_polling() {
    watchdog(30, "busy_counts_the_time_spent_polling", || {
        let ex = executor(1);
        let wall = std::time::Instant::now();
        ex.block_on(ex.spawn(async {
            let t = std::time::Instant::now();
            while t.elapsed() < Duration::from_millis(50) {
                std::hint::spin_loop();
            }
        }))
        .unwrap();
        wait_until(10, "the busy time of the 50 ms poll", || {
            ex.stats().total().busy >= Duration::from_millis(50)
        });
        assert!(ex.stats().total().busy <= wall.elapsed());
    });
}
