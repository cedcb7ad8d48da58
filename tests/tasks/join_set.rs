//! `JoinSet` and `AbortHandle`: outputs in completion order, `None` when empty, panics and
//! cancellations as errors; dropping the set aborts every task (each future dropped exactly
//! once), `shutdown` returns only once every future is dropped; an `AbortHandle` cancels a
//! task whatever state it is in when the handle is made (queued, waiting, finished), from
//! any thread, and reports `is_finished`.

use std::sync::Arc;
use std::thread;

use crate::common::{self, executor, mix, wait_until, watchdog, Tally, POLICIES};
use filch::JoinSet;

#[test]
fn outputs_come_in_completion_order_then_none() {
    watchdog(30, "completion order", || {
        let ex = executor(2);
        ex.block_on(async {
            let mut set = JoinSet::new();
            let mut gates = Vec::new();
            for i in 0..3usize {
                let (tx, rx) = async_channel::bounded::<()>(1);
                gates.push(tx);
                set.spawn(async move {
                    rx.recv().await.unwrap();
                    i
                });
            }
            assert_eq!(set.len(), 3);
            for i in [2, 0, 1] {
                gates[i].send(()).await.unwrap();
                assert_eq!(set.join_next().await.unwrap().unwrap(), i);
            }
            assert!(set.is_empty());
            assert!(set.join_next().await.is_none());
        });
    });
}

#[test]
fn panics_and_cancellations_come_back_as_errors() {
    watchdog(30, "errors", || {
        let ex = executor(2);
        ex.block_on(async {
            let mut set = JoinSet::new();
            set.spawn(async { panic!("in a set") });
            let err = set.join_next().await.unwrap().unwrap_err();
            assert!(err.is_panic());
            let abort = set.spawn(std::future::pending::<()>());
            abort.abort();
            assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
            assert!(abort.is_finished());
        });
    });
}

#[test]
fn dropping_the_set_aborts_every_task_and_drops_each_future_once() {
    for policy in POLICIES {
        watchdog(30, "drop aborts", move || {
            let ex = common::executor_with(2, policy);
            let tally = Tally::new();
            let (probes, drops): (Vec<_>, Vec<_>) = (0..50).map(|_| tally.counted_probe()).unzip();
            let mut set = JoinSet::new();
            for probe in probes {
                set.spawn_on(
                    async move {
                        let _probe = probe;
                        std::future::pending::<()>().await
                    },
                    &ex.handle(),
                );
            }
            drop(set);
            wait_until(10, "every aborted future dropped", || tally.dropped() == 50);
            common::assert_each_once(&drops, "JoinSet drop");
        });
    }
}

#[test]
fn shutdown_returns_once_every_future_is_dropped() {
    watchdog(30, "shutdown", || {
        let ex = executor(2);
        let tally = Tally::new();
        let done = {
            let tally = Arc::clone(&tally);
            ex.spawn(async move {
                let mut set = JoinSet::new();
                for i in 0..40 {
                    let probe = tally.probe();
                    set.spawn(async move {
                        let _probe = probe;
                        if i % 2 == 0 {
                            std::future::pending::<()>().await;
                        }
                        i
                    });
                }
                set.shutdown().await;
                assert!(set.is_empty());
                // Every future is gone by now, not just cancelled.
                tally.dropped()
            })
        };
        assert_eq!(ex.block_on(done).unwrap(), 40);
        tally.assert_all_dropped_once("after shutdown");
    });
}

#[test]
fn abort_all_leaves_the_errors_to_join() {
    watchdog(30, "abort_all", || {
        let ex = executor(1);
        ex.block_on(async {
            let mut set = JoinSet::new();
            for _ in 0..5 {
                set.spawn(std::future::pending::<u8>());
            }
            set.abort_all();
            let mut cancelled = 0;
            while let Some(result) = set.join_next().await {
                assert!(result.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, 5);
        });
    });
}

/// An abort handle made while the task waits for a wake-up (it is registered, not queued)
/// wakes it when it aborts: the handle's maker takes the waker from the registry.
#[test]
fn an_abort_handle_made_while_the_task_waits_wakes_it() {
    watchdog(30, "abort a waiting task", || {
        let ex = executor(2);
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let tally = Tally::new();
        let probe = tally.probe();
        let task = ex.spawn(async move {
            let _probe = probe;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await
        });
        started_rx.recv().unwrap();
        // Let the poll return Pending (the task registers then).
        thread::sleep(std::time::Duration::from_millis(20));
        let abort = task.abort_handle();
        assert!(!abort.is_finished());
        let remote = abort.clone();
        thread::spawn(move || remote.abort()).join().unwrap();
        wait_until(10, "the aborted task's future dropped", || {
            tally.dropped() == 1
        });
        // The handle resolves once the task is done with its future: after the drop that
        // the tally just saw, and after the abort slot was marked finished.
        assert!(ex.block_on(task).unwrap_err().is_cancelled());
        assert!(abort.is_finished());
    });
}

#[test]
fn an_abort_handle_of_a_finished_task_says_so() {
    let ex = executor(1);
    let task = ex.spawn(async { 3 });
    while !task.is_finished() {
        thread::yield_now();
    }
    let abort = task.abort_handle();
    wait_until(10, "is_finished", || abort.is_finished());
    abort.abort(); // harmless
    assert_eq!(ex.block_on(task).unwrap(), 3);
    assert!(abort.is_finished());
}

/// Many tasks, each made to wait at a random moment relative to its abort handle's making
/// and its abort (made and aborted from other threads): every task ends cancelled or with
/// its output, every future is dropped exactly once, and nothing hangs.
#[test]
fn abort_handles_race_with_the_tasks_they_abort() {
    watchdog(60, "abort handle races", || {
        for round in 0..20u64 {
            let ex = executor(2);
            let tally = Tally::new();
            let tasks: Vec<_> = (0..50u64)
                .map(|i| {
                    let probe = tally.probe();
                    let spins = mix(round * 1000 + i) % 64;
                    ex.spawn(async move {
                        let _probe = probe;
                        for _ in 0..spins {
                            filch::yield_now().await;
                        }
                        if i % 3 == 0 {
                            return;
                        }
                        std::future::pending::<()>().await
                    })
                })
                .collect();
            let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
            let aborter = thread::spawn(move || {
                for a in &aborts {
                    a.abort();
                }
                aborts
            });
            let aborts = aborter.join().unwrap();
            for (i, task) in tasks.into_iter().enumerate() {
                match ex.block_on(task) {
                    Ok(()) => assert_eq!(i % 3, 0, "task {i} finished without being done"),
                    Err(e) => assert!(e.is_cancelled()),
                }
            }
            wait_until(10, "every future dropped", || tally.dropped() == 50);
            tally.assert_all_dropped_once("abort races");
            assert!(aborts.iter().all(|a| a.is_finished()));
        }
    });
}

/// tokio's `task_join_set` leak scenario: tasks that wait once (so each leaves its waker
/// with its abort handle's cell), joined, are all freed: none is kept alive by the abort
/// handles `JoinSet::spawn` made.
#[test]
fn join_set_tasks_that_waited_are_freed_once_joined() {
    watchdog(30, "join set tasks freed", || {
        let ex = common::leak_checked(2);
        let tally = Tally::new();
        ex.block_on(async {
            let mut set = JoinSet::new();
            for _ in 0..10 {
                let probe = tally.probe();
                set.spawn(async move {
                    let _probe = probe;
                    filch::yield_now().await;
                });
            }
            while let Some(result) = set.join_next().await {
                result.unwrap();
            }
        });
        tally.assert_all_dropped_once("joined tasks");
        wait_until(10, "every joined task freed (alive_tasks == 0)", || {
            ex.stats().alive_tasks == 0
        });
    });
}

/// An abort handle kept after its task finished (the task waited first, so it had
/// deposited its waker) does not keep the task alive.
#[test]
fn an_abort_handle_kept_after_its_task_finished_holds_nothing() {
    watchdog(30, "abort handle outlives its task", || {
        let ex = common::leak_checked(1);
        let (tx, rx) = async_channel::bounded::<()>(1);
        let task = ex.spawn(async move { rx.recv().await.unwrap() });
        let abort = task.abort_handle();
        // The task waits (registered, its waker in the cell) until the message comes.
        wait_until(10, "the task to wait", || ex.stats().total().polls >= 1);
        tx.send_blocking(()).unwrap();
        ex.block_on(task).unwrap();
        wait_until(10, "the finished task freed (alive_tasks == 0)", || {
            ex.stats().alive_tasks == 0
        });
        assert!(abort.is_finished());
    });
}

/// `try_join_next` gives a finished task's output without waiting, `None` while no task
/// has finished, and `None` once the set is empty.
#[test]
fn try_join_next_takes_only_finished_tasks() {
    watchdog(30, "try_join_next", || {
        let ex = common::leak_checked(2);
        ex.block_on(async {
            let mut set = JoinSet::new();
            let (tx, rx) = async_channel::bounded::<()>(1);
            set.spawn(async move { rx.recv().await.map(|()| 1).unwrap_or(0) });
            set.spawn(async { 2 });
            let mut got = Vec::new();
            while got.is_empty() {
                match set.try_join_next() {
                    Some(result) => got.push(result.unwrap()),
                    None => filch::yield_now().await,
                }
            }
            assert_eq!(got, [2]);
            assert!(
                set.try_join_next().is_none(),
                "a waiting task's output came back"
            );
            assert_eq!(set.len(), 1);
            tx.send(()).await.unwrap();
            loop {
                if let Some(result) = set.try_join_next() {
                    assert_eq!(result.unwrap(), 1);
                    break;
                }
                filch::yield_now().await;
            }
            assert!(set.try_join_next().is_none() && set.is_empty());
        });
    });
}

/// `join_all` gives every output; a panicking task's panic is resumed, and the tasks still
/// running are aborted (each future dropped once).
#[test]
fn join_all_gives_every_output_and_resumes_a_panic() {
    watchdog(30, "join_all", || {
        let ex = common::leak_checked(2);
        let mut all = ex.block_on(
            (0..50u32)
                .map(|i| async move { i })
                .collect::<JoinSet<_>>()
                .join_all(),
        );
        all.sort();
        assert_eq!(all, (0..50).collect::<Vec<_>>());
        let tally = Tally::new();
        let probe = tally.probe();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ex.block_on(async {
                let mut set = JoinSet::new();
                set.spawn(async move {
                    let _probe = probe;
                    std::future::pending::<()>().await
                });
                set.spawn(async { panic!("boom in a set") });
                set.join_all().await
            })
        }))
        .unwrap_err();
        assert_eq!(common::panic_message(&*panicked), "boom in a set");
        wait_until(10, "the pending task aborted", || tally.dropped() == 1);
        tally.assert_all_dropped_once("join_all's remaining task");
    });
}

/// `detach_all` empties the set without aborting: the tasks run on after the set is dropped.
#[test]
fn detach_all_leaves_the_tasks_running() {
    watchdog(30, "detach_all", || {
        let ex = common::leak_checked(1);
        let (go_tx, go_rx) = async_channel::bounded::<()>(1);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let mut set = JoinSet::new();
        set.spawn_on(
            async move {
                go_rx.recv().await.unwrap();
                done_tx.send(()).unwrap();
            },
            &ex.handle(),
        );
        set.detach_all();
        assert!(set.is_empty());
        drop(set);
        go_tx.send_blocking(()).unwrap();
        done_rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a detached task was aborted with its set");
    });
}

/// `Extend` and `FromIterator` spawn each future; `spawn_blocking` runs its closure on the
/// blocking pool.
#[test]
fn extend_collect_and_spawn_blocking_add_tasks() {
    watchdog(30, "extend", || {
        let ex = common::leak_checked(1);
        let names = ex.block_on(async {
            let mut set: JoinSet<String> =
                (0..3).map(|_| async { common::thread_name() }).collect();
            set.extend((0..2).map(|_| async { common::thread_name() }));
            set.spawn_blocking(common::thread_name);
            assert_eq!(set.len(), 6);
            set.join_all().await
        });
        assert_eq!(names.len(), 6);
        let blocking = names.iter().filter(|n| n.contains("-blocking-")).count();
        assert_eq!(blocking, 1, "threads that ran the set's tasks: {names:?}");
    });
}
