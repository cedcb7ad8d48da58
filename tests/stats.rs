//! `Stats`: one entry per worker; polls, steal attempts, steals and parks move as the
//! workers do their work.

mod common;

use std::thread;
use std::time::Duration;

use common::{executor, wait_until, watchdog};
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
