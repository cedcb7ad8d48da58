//! tokio's `LocalSet` tests that have a pinned equivalent, ported: `LocalSet::run_until`
//! (and a `LocalSet` awaited or blocked on) becomes a task of `spawn_pinned`, whose
//! closure runs on the worker the task is pinned to, and `task::spawn_local` becomes
//! `filch::spawn_local`. tokio's "on the runtime thread" thread-local becomes the id of the
//! thread that ran the closure. The tests about `LocalSet`'s own API (`enter`, a set kept
//! in a thread-local, its tick and budget, `block_in_place`) have no equivalent.

use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::thread::{self, ThreadId};
use std::time::Duration;

use futures::channel::{mpsc, oneshot};
use futures::StreamExt;

use crate::common::{executor, watchdog};

fn here() -> ThreadId {
    thread::current().id()
}

// origin: tokio/tests/task_local_set.rs local_current_thread_scheduler
#[test]
fn local_current_thread_scheduler() {
    watchdog(30, "local_current_thread_scheduler", || {
        let ex = executor(1);
        ex.block_on(ex.spawn_pinned(|| async {
            filch::spawn_local(async {}).await.unwrap();
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs local_threadpool
// origin: tokio/tests/task_local_set.rs localset_future_threadpool
#[test]
fn local_threadpool() {
    watchdog(30, "local_threadpool", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                assert_eq!(here(), home);
                filch::spawn_local(async move {
                    assert_eq!(here(), home);
                })
                .await
                .unwrap();
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs localset_future_timers
#[test]
fn localset_future_timers() {
    static RAN1: AtomicBool = AtomicBool::new(false);
    static RAN2: AtomicBool = AtomicBool::new(false);
    watchdog(30, "localset_future_timers", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| async {
            let a = filch::spawn_local(async {
                filch::time::sleep(Duration::from_millis(5)).await;
                RAN1.store(true, SeqCst);
            });
            let b = filch::spawn_local(async {
                filch::time::sleep(Duration::from_millis(10)).await;
                RAN2.store(true, SeqCst);
            });
            a.await.unwrap();
            b.await.unwrap();
        }))
        .unwrap();
        assert!(RAN1.load(SeqCst));
        assert!(RAN2.load(SeqCst));
    });
}

// origin: tokio/tests/task_local_set.rs localset_future_drives_all_local_futs
#[test]
fn localset_future_drives_all_local_futs() {
    static RAN1: AtomicBool = AtomicBool::new(false);
    static RAN2: AtomicBool = AtomicBool::new(false);
    static RAN3: AtomicBool = AtomicBool::new(false);
    watchdog(30, "localset_future_drives_all_local_futs", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| async {
            let first = filch::spawn_local(async {
                let inner = filch::spawn_local(async {
                    filch::yield_now().await;
                    RAN3.store(true, SeqCst);
                });
                filch::yield_now().await;
                RAN1.store(true, SeqCst);
                inner.await.unwrap();
            });
            let second = filch::spawn_local(async {
                filch::yield_now().await;
                RAN2.store(true, SeqCst);
            });
            first.await.unwrap();
            second.await.unwrap();
        }))
        .unwrap();
        assert!(RAN1.load(SeqCst));
        assert!(RAN2.load(SeqCst));
        assert!(RAN3.load(SeqCst));
    });
}

// origin: tokio/tests/task_local_set.rs local_threadpool_timer
#[test]
fn local_threadpool_timer() {
    watchdog(30, "local_threadpool_timer", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                assert_eq!(here(), home);
                let join = filch::spawn_local(async move {
                    assert_eq!(here(), home);
                    filch::time::sleep(Duration::from_millis(10)).await;
                    assert_eq!(here(), home);
                });
                join.await.unwrap();
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs local_threadpool_blocking_run
#[test]
fn local_threadpool_blocking_run() {
    watchdog(30, "local_threadpool_blocking_run", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                let join = filch::spawn_local(async move {
                    assert_eq!(here(), home);
                    filch::spawn_blocking(move || {
                        assert_ne!(here(), home, "blocking must not run on the pinned worker");
                    })
                    .await
                    .unwrap();
                    assert_eq!(here(), home);
                });
                join.await.unwrap();
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs all_spawns_are_local
#[test]
fn all_spawns_are_local() {
    watchdog(30, "all_spawns_are_local", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                let handles = (0..128)
                    .map(|_| filch::spawn_local(async move { assert_eq!(here(), home) }))
                    .collect::<Vec<_>>();
                for joined in futures::future::join_all(handles).await {
                    joined.unwrap();
                }
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs nested_spawn_is_local
#[test]
fn nested_spawn_is_local() {
    watchdog(30, "nested_spawn_is_local", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                filch::spawn_local(async move {
                    assert_eq!(here(), home);
                    filch::spawn_local(async move {
                        assert_eq!(here(), home);
                        filch::spawn_local(async move {
                            assert_eq!(here(), home);
                            filch::spawn_local(async move {
                                assert_eq!(here(), home);
                            })
                            .await
                            .unwrap();
                        })
                        .await
                        .unwrap();
                    })
                    .await
                    .unwrap();
                })
                .await
                .unwrap();
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs join_local_future_elsewhere
// A pinned task's handle awaited by an ordinary task, which may run on any worker.
#[test]
fn join_local_future_elsewhere() {
    watchdog(30, "join_local_future_elsewhere", || {
        let ex = executor(2);
        ex.block_on(ex.spawn_pinned(|| {
            let home = here();
            async move {
                let (tx, rx) = oneshot::channel();
                let join = filch::spawn_local(async move {
                    assert_eq!(
                        here(),
                        home,
                        "a pinned task runs on its worker, wherever awaited"
                    );
                    rx.await.unwrap();
                    "hello world"
                });
                let join2 = filch::spawn(async move {
                    tx.send(()).expect("task shouldn't have ended yet");
                    join.await.expect("task should complete successfully")
                });
                assert_eq!(join2.await.unwrap(), "hello world");
            }
        }))
        .unwrap();
    });
}

// origin: tokio/tests/task_local_set.rs drop_cancels_tasks
#[test]
fn drop_cancels_tasks() {
    watchdog(30, "drop_cancels_tasks", || {
        let ex = executor(2);
        let (started_tx, started_rx) = oneshot::channel();
        let (count_tx, count_rx) = std::sync::mpsc::channel();
        // The `Rc` lives on the worker; its strong count is read there, after the task
        // holding a clone was dropped by the executor's shutdown.
        let _handle = ex.spawn_pinned(move || {
            let rc1 = Rc::new(());
            let rc2 = Rc::clone(&rc1);
            struct Report(Rc<()>, std::sync::mpsc::Sender<usize>);
            impl Drop for Report {
                fn drop(&mut self) {
                    // The other clone went first (declared after it in the future).
                    let _ = self.1.send(Rc::strong_count(&self.0));
                }
            }
            let report = Report(rc1, count_tx);
            async move {
                let _report = report;
                let _rc2 = rc2;
                started_tx.send(()).unwrap();
                futures::future::pending::<()>().await;
            }
        });
        ex.block_on(started_rx).unwrap();
        drop(ex);
        assert_eq!(count_rx.recv().unwrap(), 1);
    });
}

// origin: tokio/tests/task_local_set.rs drop_cancels_remote_tasks
#[test]
fn drop_cancels_remote_tasks() {
    watchdog(60, "drop_cancels_remote_tasks", || {
        let (tx, mut rx) = mpsc::channel::<()>(1024);
        let ex = executor(2);
        let _handle = ex.spawn_pinned(move || async move { while rx.next().await.is_some() {} });
        ex.block_on(filch::time::sleep(Duration::from_millis(1)));
        drop(tx);
        // Hangs if the remotely woken pinned task is not cancelled.
        drop(ex);
    });
}

// origin: tokio/tests/task_local_set.rs local_tasks_wake_join_all
#[test]
fn local_tasks_wake_join_all() {
    watchdog(60, "local_tasks_wake_join_all", || {
        let ex = executor(2);
        let handles: Vec<_> = (1..=128)
            .map(|_| {
                ex.spawn_pinned(|| async {
                    filch::spawn_local(async {}).await.unwrap();
                })
            })
            .collect();
        for result in ex.block_on(futures::future::join_all(handles)) {
            result.unwrap();
        }
    });
}

// origin: tokio/tests/task_local_set.rs acquire_mutex_in_drop
// Pinned tasks whose destructors wake each other, dropped by the executor's drop.
#[test]
fn acquire_mutex_in_drop() {
    watchdog(30, "acquire_mutex_in_drop", || {
        let ex = executor(1);
        let (tx1, rx1) = oneshot::channel::<()>();
        let (tx2, rx2) = oneshot::channel::<()>();
        let (started_tx, started_rx) = oneshot::channel::<()>();
        let _a = ex.spawn_pinned(move || async move {
            let _ = rx2.await;
            unreachable!();
        });
        let _b = ex.spawn_pinned(move || async move {
            let _ = rx1.await;
            tx2.send(()).unwrap();
            unreachable!();
        });
        let _c = ex.spawn_pinned(move || async move {
            started_tx.send(()).unwrap();
            futures::future::pending::<()>().await;
            tx1.send(()).unwrap();
        });
        ex.block_on(started_rx).unwrap();
        ex.block_on(filch::yield_now());
        drop(ex);
    });
}
