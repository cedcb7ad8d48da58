//! Shutdown (`Drop for Executor`): every unfinished task's future is dropped exactly once and
//! its JoinHandle resolves to a cancelled error; spawns racing shutdown; destructors that
//! wake or spawn during shutdown; dropping the executor from inside one of its own tasks;
//! spawning after shutdown.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::Duration;

use crate::common::{
    self, assert_each_once, executor, executor_with, wait_until, watchdog, Probe, Tally, POLICIES,
};
use filch::{Executor, Handle, JoinHandle};
use futures::channel::oneshot;
use futures::task::Spawn;
use futures::FutureExt;

/// Whether `handle`'s executor has begun shutting down (observable through `Spawn::status`).
fn shut_down(handle: &Handle) -> bool {
    handle.status().is_err()
}

/// Resolves `handle` without blocking: it must be ready already.
fn now<T>(handle: JoinHandle<T>, what: &str) -> Result<T, filch::JoinError> {
    handle
        .now_or_never()
        .unwrap_or_else(|| panic!("{what}: the JoinHandle is not ready after shutdown"))
}

#[test]
fn shutdown_drops_waiting_and_queued_tasks_exactly_once() {
    watchdog(30, "shutdown drop counts", || {
        const N: usize = 50;
        let ex = executor(1);
        let handle = ex.handle();
        let tally = Tally::new();
        let mut drops = Vec::new();

        // N tasks waiting forever for a wake-up.
        let started = Arc::new(AtomicUsize::new(0));
        let mut waiting = Vec::new();
        for _ in 0..N {
            let (probe, d) = tally.counted_probe();
            drops.push(d);
            let started = Arc::clone(&started);
            waiting.push(ex.spawn(async move {
                let _probe = probe;
                started.fetch_add(1, SeqCst);
                std::future::pending::<()>().await;
            }));
        }
        wait_until(10, "the waiting tasks to start", || {
            started.load(SeqCst) == N
        });

        // Occupy the worker until shutdown begins, so that the next N stay queued.
        let busy = Arc::new(AtomicBool::new(false));
        let blocker = ex.spawn({
            let busy = Arc::clone(&busy);
            let handle = handle.clone();
            async move {
                busy.store(true, SeqCst);
                while !shut_down(&handle) {
                    thread::sleep(Duration::from_millis(1));
                }
            }
        });
        wait_until(10, "the blocker to start", || busy.load(SeqCst));
        let ran = Arc::new(AtomicUsize::new(0));
        let mut queued = Vec::new();
        for _ in 0..N {
            let (probe, d) = tally.counted_probe();
            drops.push(d);
            let ran = Arc::clone(&ran);
            queued.push(ex.spawn(async move {
                let _probe = probe;
                ran.fetch_add(1, SeqCst);
            }));
        }

        drop(ex);

        assert_each_once(&drops, "after Executor::drop");
        tally.assert_all_dropped_once("after Executor::drop");
        assert_eq!(ran.load(SeqCst), 0, "queued tasks ran after shutdown began");
        for h in waiting {
            assert!(now(h, "waiting task").unwrap_err().is_cancelled());
        }
        for h in queued {
            assert!(now(h, "queued task").unwrap_err().is_cancelled());
        }
        // The blocker completed its last poll normally.
        now(blocker, "blocker").unwrap();
    });
}

#[test]
fn shutdown_drops_tasks_in_workers_local_queues_exactly_once() {
    watchdog(30, "shutdown local queues", || {
        for policy in POLICIES {
            const CHILDREN: usize = 40;
            let ex = executor_with(2, policy);
            let handle = ex.handle();
            let tally = Tally::new();
            type Child = (JoinHandle<()>, Arc<AtomicBool>, bool);
            let children: Arc<Mutex<Vec<Child>>> = Arc::default();
            let barrier = Arc::new(Barrier::new(2));
            // Two parents, one per worker (they meet at the barrier); each spawns children
            // onto its own worker's LIFO slot and deque, then blocks it until shutdown.
            let parents: Vec<_> = (0..2)
                .map(|_| {
                    let (tally, children, barrier) = (
                        Arc::clone(&tally),
                        Arc::clone(&children),
                        Arc::clone(&barrier),
                    );
                    let handle = handle.clone();
                    ex.spawn(async move {
                        barrier.wait();
                        for i in 0..CHILDREN {
                            let probe = tally.probe();
                            let ran = Arc::new(AtomicBool::new(false));
                            let flag = Arc::clone(&ran);
                            let forever = i % 2 == 0;
                            let child = filch::spawn(async move {
                                let _probe = probe;
                                flag.store(true, SeqCst);
                                if forever {
                                    std::future::pending::<()>().await;
                                }
                            });
                            children.lock().unwrap().push((child, ran, forever));
                        }
                        while !shut_down(&handle) {
                            thread::sleep(Duration::from_millis(1));
                        }
                    })
                })
                .collect();
            wait_until(10, "the parents to spawn their children", || {
                children.lock().unwrap().len() == 2 * CHILDREN
            });

            drop(ex);

            tally.assert_all_dropped_once("children after Executor::drop");
            for parent in parents {
                now(parent, "parent").unwrap();
            }
            for (i, (child, ran, forever)) in children.lock().unwrap().drain(..).enumerate() {
                match now(child, "child") {
                    Ok(()) => assert!(ran.load(SeqCst) && !forever, "{policy:?}: child {i}"),
                    Err(err) => assert!(err.is_cancelled(), "{policy:?}: child {i}: {err:?}"),
                }
            }
        }
    });
}

#[test]
fn shutdown_right_after_spawning_cancels_every_task() {
    watchdog(30, "shutdown right after spawn", || {
        // The tasks are queued, being taken by a worker, or just polled when shutdown
        // begins: whichever, each must be dropped once and its handle cancelled.
        for round in 0..200 {
            let ex = executor(2);
            let tally = Tally::new();
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let probe = tally.probe();
                    ex.spawn(async move {
                        let _probe = probe;
                        std::future::pending::<()>().await;
                    })
                })
                .collect();
            if round % 2 == 1 {
                thread::yield_now();
            }
            drop(ex);
            tally.assert_all_dropped_once("tasks spawned just before shutdown");
            for h in handles {
                assert!(now(h, "task spawned just before shutdown")
                    .unwrap_err()
                    .is_cancelled());
            }
        }
    });
}

#[test]
fn spawns_racing_shutdown_from_foreign_threads() {
    watchdog(30, "spawns racing shutdown", || {
        const THREADS: usize = 4;
        const AFTER: usize = 50;
        let ex = executor(2);
        let tally = Tally::new();
        let start = Arc::new(Barrier::new(THREADS + 1));
        // Set once `Executor::drop` has returned: from then on a spawn is cancelled at once.
        let gone = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let (handle, tally, start) = (ex.handle(), Arc::clone(&tally), Arc::clone(&start));
                let gone = Arc::clone(&gone);
                thread::spawn(move || {
                    let mut handles = Vec::new();
                    let mut after = 0;
                    start.wait();
                    for i in 0usize.. {
                        let was_gone = gone.load(SeqCst);
                        let probe = tally.probe();
                        let h = match (i + t) % 4 {
                            0 => handle.spawn(async move {
                                let _probe = probe;
                                std::future::pending::<()>().await;
                            }),
                            1 => handle.spawn(async move {
                                let _probe = probe;
                            }),
                            2 => handle.spawn(async move {
                                let _probe = probe;
                                for _ in 0..3 {
                                    filch::yield_now().await;
                                }
                            }),
                            _ => handle.spawn(async move {
                                let _probe = probe;
                                let _ = filch::spawn(async {}).await;
                            }),
                        };
                        if was_gone {
                            // Spawned after shutdown: dropped at once, cancelled at once.
                            let err = now(h, "spawn after shutdown").unwrap_err();
                            assert!(err.is_cancelled());
                            after += 1;
                            if after == AFTER {
                                break;
                            }
                        } else {
                            handles.push(((i + t) % 4 == 0, h));
                        }
                    }
                    handles
                })
            })
            .collect();
        start.wait();
        // Spawns are under way before the shutdown begins (however late the machine lets
        // the threads start), and go on while it runs.
        wait_until(60, "spawns before the shutdown", || {
            tally.made() >= THREADS * 20
        });
        drop(ex);
        gone.store(true, SeqCst);
        for thread in threads {
            for (pending_forever, h) in thread.join().unwrap() {
                let result = futures::executor::block_on(h);
                if pending_forever {
                    assert!(result.unwrap_err().is_cancelled());
                } else if let Err(err) = result {
                    assert!(err.is_cancelled(), "{err:?}");
                }
            }
        }
        tally.assert_all_dropped_once("tasks spawned around shutdown");
        assert!(tally.made() > THREADS * AFTER);
    });
}

/// Held by a task that waits forever; its destructor, run during shutdown, wakes another
/// task, aborts a third and spawns a fourth.
struct Mischief {
    wake: Option<oneshot::Sender<()>>,
    abort: Option<JoinHandle<()>>,
    handle: Handle,
    tally: Arc<Tally>,
    spawned: Arc<Mutex<Vec<JoinHandle<()>>>>,
    _probe: Probe,
}

impl Drop for Mischief {
    fn drop(&mut self) {
        if let Some(tx) = self.wake.take() {
            let _ = tx.send(());
        }
        if let Some(h) = self.abort.take() {
            h.abort();
        }
        let probe = self.tally.probe();
        let late = self.handle.spawn(async move {
            let _probe = probe;
        });
        self.spawned.lock().unwrap().push(late);
    }
}

#[test]
fn destructors_that_wake_abort_and_spawn_during_shutdown() {
    watchdog(30, "mischievous destructors", || {
        for policy in POLICIES {
            const PAIRS: usize = 40;
            let ex = executor_with(2, policy);
            let tally = Tally::new();
            let spawned: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
            let started = Arc::new(AtomicUsize::new(0));
            let mut handles = Vec::new();
            for _ in 0..PAIRS {
                let (tx, rx) = oneshot::channel::<()>();
                let woken = {
                    let (probe, started) = (tally.probe(), Arc::clone(&started));
                    ex.spawn(async move {
                        let _probe = probe;
                        started.fetch_add(1, SeqCst);
                        let _ = rx.await;
                        std::future::pending::<()>().await;
                    })
                };
                let aborted = {
                    let (probe, started) = (tally.probe(), Arc::clone(&started));
                    ex.spawn(async move {
                        let _probe = probe;
                        started.fetch_add(1, SeqCst);
                        std::future::pending::<()>().await;
                    })
                };
                let mischief = Mischief {
                    wake: Some(tx),
                    abort: Some(aborted),
                    handle: ex.handle(),
                    tally: Arc::clone(&tally),
                    spawned: Arc::clone(&spawned),
                    _probe: tally.probe(),
                };
                let started = Arc::clone(&started);
                handles.push(woken);
                handles.push(ex.spawn(async move {
                    let _mischief = mischief;
                    started.fetch_add(1, SeqCst);
                    std::future::pending::<()>().await;
                }));
            }
            wait_until(10, "every task to start", || {
                started.load(SeqCst) == 3 * PAIRS
            });

            drop(ex);

            tally.assert_all_dropped_once("after shutdown with mischievous destructors");
            for h in handles {
                assert!(now(h, "task").unwrap_err().is_cancelled(), "{policy:?}");
            }
            let late = std::mem::take(&mut *spawned.lock().unwrap());
            assert_eq!(late.len(), PAIRS);
            for h in late {
                assert!(now(h, "spawned by a destructor")
                    .unwrap_err()
                    .is_cancelled());
            }
        }
    });
}

thread_local! {
    /// Set on a worker thread by a task; its destructor runs when the thread exits.
    static EXIT_GUARD: RefCell<Option<ExitGuard>> = const { RefCell::new(None) };
}

/// Counts worker-thread exits (through the thread-local destructor).
struct ExitGuard(Arc<AtomicUsize>);

impl Drop for ExitGuard {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn dropping_the_executor_inside_its_own_task() {
    watchdog(30, "drop inside own task", || {
        for workers in [1, 3] {
            let ex = executor(workers);
            let exited = Arc::new(AtomicUsize::new(0));
            // One task per worker (they meet at the barrier) installs an exit guard.
            let barrier = Arc::new(Barrier::new(workers));
            let guards: Vec<_> = (0..workers)
                .map(|_| {
                    let (barrier, exited) = (Arc::clone(&barrier), Arc::clone(&exited));
                    ex.spawn(async move {
                        barrier.wait();
                        EXIT_GUARD.with(|g| *g.borrow_mut() = Some(ExitGuard(exited)));
                    })
                })
                .collect();
            for g in guards {
                ex.block_on(g).unwrap();
            }
            let tally = Tally::new();
            let mut drops = Vec::new();
            let started = Arc::new(AtomicUsize::new(0));
            for _ in 0..20 {
                let (probe, d) = tally.counted_probe();
                drops.push(d);
                let started = Arc::clone(&started);
                drop(ex.spawn(async move {
                    let _probe = probe;
                    started.fetch_add(1, SeqCst);
                    std::future::pending::<()>().await;
                }));
            }
            wait_until(10, "the waiting tasks to start", || {
                started.load(SeqCst) == 20
            });

            let slot = Arc::new(Mutex::new(Some(ex)));
            let dropper = {
                let (slot, exited) = (Arc::clone(&slot), Arc::clone(&exited));
                let tally = Arc::clone(&tally);
                let ex_handle = slot.lock().unwrap().as_ref().unwrap().handle();
                ex_handle.spawn(async move {
                    let ex: Executor = slot.lock().unwrap().take().unwrap();
                    drop(ex);
                    (exited.load(SeqCst), tally.dropped())
                })
            };
            let (exited_at_drop, dropped_at_drop) = futures::executor::block_on(dropper).unwrap();
            assert_eq!(
                exited_at_drop,
                workers - 1,
                "every other worker is joined before Drop returns"
            );
            assert_eq!(
                dropped_at_drop, 20,
                "waiting tasks dropped before Drop returns"
            );
            assert_each_once(&drops, "waiting tasks");
            wait_until(10, "the dropping worker to exit", || {
                exited.load(SeqCst) == workers
            });
        }
    });
}

#[test]
fn spawning_after_shutdown_drops_the_future_at_once() {
    watchdog(30, "spawn after shutdown", || {
        let ex = executor(2);
        let handle = ex.handle();
        drop(ex);
        let tally = Tally::new();
        let (probe, drops) = tally.counted_probe();
        let ran = Arc::new(AtomicBool::new(false));
        let late = handle.spawn({
            let ran = Arc::clone(&ran);
            async move {
                let _probe = probe;
                ran.store(true, SeqCst);
            }
        });
        assert_eq!(drops.load(SeqCst), 1, "the future must be dropped at once");
        assert!(late.is_finished());
        assert!(now(late, "spawn after shutdown")
            .unwrap_err()
            .is_cancelled());
        assert!(!ran.load(SeqCst));
    });
}

#[test]
fn dropping_idle_executors_repeatedly() {
    watchdog(30, "dropping_idle_executors_repeatedly", || {
        for i in 0..30 {
            let ex = executor(1 + i % 3);
            if i % 2 == 0 {
                ex.block_on(ex.spawn(async {})).unwrap();
            }
            drop(ex);
        }
    });
}

/// tokio's `rt_common::outstanding_tasks_dropped`: a task that waits forever holds a clone
/// of an `Arc`; dropping the executor drops the task's future, and with it the clone.
#[test]
fn outstanding_tasks_dropped() {
    watchdog(30, "outstanding tasks dropped", || {
        let ex = common::executor(2);
        let count = std::sync::Arc::new(());
        ex.block_on(async {
            let count = std::sync::Arc::clone(&count);
            drop(filch::spawn(std::future::poll_fn(move |_| {
                assert_eq!(2, std::sync::Arc::strong_count(&count));
                std::task::Poll::<()>::Pending
            })));
        });
        assert_eq!(2, std::sync::Arc::strong_count(&count));
        drop(ex);
        assert_eq!(
            1,
            std::sync::Arc::strong_count(&count),
            "a task outlived its executor"
        );
    });
}

/// tokio's `rt_common::wake_while_rt_is_dropping`: two waiting tasks whose futures' drops
/// wake each other (each completes the channel the other waits on) while the executor drops
/// them; the drop completes without a hang or a panic.
#[test]
fn wake_while_rt_is_dropping() {
    struct OnDrop<F: FnMut()>(F);
    impl<F: FnMut()> Drop for OnDrop<F> {
        fn drop(&mut self) {
            (self.0)()
        }
    }
    watchdog(30, "wake while dropping", || {
        let ex = common::executor(2);
        let (tx1, rx1) = futures::channel::oneshot::channel::<()>();
        let (tx2, rx2) = futures::channel::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = async_channel::unbounded::<()>();
        for (tx, rx) in [(tx2, rx1), (tx1, rx2)] {
            let ready_tx = ready_tx.clone();
            drop(ex.spawn(async move {
                let mut tx = Some(tx);
                let _wake_the_other = OnDrop(move || {
                    let _ = tx.take().unwrap().send(());
                });
                // `join` polls the receiver first, so its waker is stored before the test
                // hears that this task is ready.
                let _ = futures::join!(rx, async { ready_tx.send(()).await });
            }));
        }
        ex.block_on(async {
            ready_rx.recv().await.unwrap();
            ready_rx.recv().await.unwrap();
        });
        drop(ex);
    });
}

/// `Executor::shutdown_timeout` waits for a running blocking job (up to the timeout) after
/// dropping every task; a job that outlasts the timeout is left running, detached.
#[test]
fn shutdown_timeout_waits_for_running_blocking_jobs() {
    watchdog(60, "shutdown_timeout", || {
        let ex = common::executor(1);
        let finished = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let job = {
            let finished = Arc::clone(&finished);
            ex.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                thread::sleep(Duration::from_millis(50));
                finished.store(true, SeqCst);
            })
        };
        started_rx.recv().unwrap();
        ex.shutdown_timeout(Duration::from_secs(30));
        assert!(
            finished.load(SeqCst),
            "shutdown_timeout returned before the job finished"
        );
        drop(job);
        // A job that never returns by itself: the timeout ends the wait.
        let ex = common::executor(1);
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        drop(ex.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        }));
        started_rx.recv().unwrap();
        ex.shutdown_timeout(Duration::from_millis(20));
        drop(release_tx);
    });
}

/// `Executor::shutdown_background` drops every task's future before it returns, and does
/// not wait for a blocking job.
#[test]
fn shutdown_background_drops_tasks_and_does_not_wait_for_blocking_jobs() {
    watchdog(60, "shutdown_background", || {
        let ex = common::executor(2);
        let tally = Tally::new();
        for _ in 0..10 {
            let probe = tally.probe();
            drop(ex.spawn(async move {
                let _probe = probe;
                std::future::pending::<()>().await
            }));
        }
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        drop(ex.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        }));
        started_rx.recv().unwrap();
        ex.shutdown_background();
        tally.assert_all_dropped_once("shutdown_background");
        drop(release_tx);
    });
}

/// `Executor::enter` and `Handle::enter` make the executor current (spawns, timers and IO
/// objects go to it); guards nest and restore the executor that was current before.
#[test]
fn enter_guards_make_an_executor_current_and_nest() {
    watchdog(30, "enter", || {
        let outer = common::named_executor(1, "outer");
        let inner = common::named_executor(1, "inner");
        assert!(Handle::try_current().is_err());
        let on = |task: JoinHandle<String>, ex: &Executor| ex.block_on(task).unwrap();
        let where_it_runs = || filch::spawn(async { common::thread_name() });
        {
            let _outer = outer.enter();
            let task = where_it_runs();
            assert_eq!(on(task, &outer), "outer-0");
            {
                let handle = inner.handle();
                let _inner = handle.enter();
                let task = where_it_runs();
                assert_eq!(on(task, &inner), "inner-0");
                // A timer made here belongs to `inner`: it works when polled from `inner`.
                let sleep = filch::time::sleep(Duration::from_millis(1));
                inner.block_on(inner.spawn(sleep)).unwrap();
            }
            let task = where_it_runs();
            assert_eq!(
                on(task, &outer),
                "outer-0",
                "the inner guard did not restore the outer"
            );
        }
        assert!(Handle::try_current().is_err());
    });
}
