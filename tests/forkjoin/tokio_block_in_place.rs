//! tokio's own tests of `task::block_in_place` (tokio 1.54.1, `tests/rt_threaded.rs` and
//! `tests/task_blocking.rs`), ported to `filch::task::block_in_place`, and the cases where
//! filch's differs: it works on a 1-worker executor (tokio's panics on a current-thread
//! runtime), where the worker's stand-in serves its tasks, timers and IO meanwhile.
//!
//! Adapted: tokio's runtimes are filch executors (`current_thread` is one worker); tokio's
//! coop budget is filch's (`filch::consume_budget` spends it), and tokio's channels that spend
//! it are `consume_budget` calls; each test runs under the watchdog instead of tokio's
//! `timeout`. Not ported (no `block_in_place` in them), of tokio's `task_blocking.rs` and
//! `rt_threaded.rs`: the first's `basic_blocking`,
//! `useful_panic_message_when_dropping_rt_in_rt`, `can_shutdown_with_zero_timeout_in_runtime`,
//! `can_shutdown_now_in_runtime` and the paused-clock tests, and the rest of the second.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Barrier};
use std::task::Poll;
use std::thread;
use std::time::Duration;

use filch::task::block_in_place;
use filch::{Executor, Handle};

use crate::common::{executor, watchdog};

/// tokio's `rt()`: a multi-threaded runtime with the default number of workers.
fn rt() -> Executor {
    Executor::builder().build().unwrap()
}

// origin: tokio tests/rt_threaded.rs::blocking
#[test]
fn blocking() {
    watchdog(120, "blocking", || {
        // used for notifying the main thread
        const NUM: usize = 1_000;

        for _ in 0..10 {
            let (tx, rx) = mpsc::channel();

            let rt = rt();
            let cnt = Arc::new(AtomicUsize::new(0));

            // there are four tasks that block in place: with fewer workers than that, the
            // hand-off must have happened (for some of them, on a stand-in)
            let block = Arc::new(Barrier::new(5));
            for _ in 0..4 {
                let block = block.clone();
                drop(rt.spawn(async move {
                    block_in_place(move || {
                        block.wait();
                        block.wait();
                    })
                }));
            }
            block.wait();

            for _ in 0..NUM {
                let cnt = cnt.clone();
                let tx = tx.clone();

                drop(rt.spawn(async move {
                    let num = cnt.fetch_add(1, Relaxed) + 1;

                    if num == NUM {
                        tx.send(()).unwrap();
                    }
                }));
            }

            rx.recv().unwrap();

            // Wait for the pool to shutdown
            block.wait();
        }
    });
}

// origin: tokio tests/rt_threaded.rs::coop_and_block_in_place
// When `block_in_place` returns, the rest of the task still takes part in the cooperative
// budget: spending it in a loop yields (returns `Pending`) before 1024 operations.
#[test]
fn coop_and_block_in_place() {
    watchdog(60, "coop_and_block_in_place", || {
        let rt = rt();
        rt.block_on(async move {
            filch::spawn(async move {
                // Block in place without doing anything
                block_in_place(|| {});

                // Spend the budget until a `Pending`, which must come before 1024 operations.
                let mut ready = 0;
                poll_fn(|cx| loop {
                    let budget = pin!(filch::consume_budget());
                    match budget.poll(cx) {
                        Poll::Ready(()) => {
                            ready += 1;
                            if ready == 1024 {
                                panic!("did not yield");
                            }
                        }
                        Poll::Pending => return Poll::Ready(()),
                    }
                })
                .await
            })
            .await
            .unwrap();
        });
    });
}

// origin: tokio tests/rt_threaded.rs::yield_after_block_in_place
#[test]
fn yield_after_block_in_place() {
    watchdog(60, "yield_after_block_in_place", || {
        let rt = executor(1);

        rt.block_on(async {
            filch::spawn(async move {
                // Block in place then enter a new executor
                block_in_place(|| {
                    let rt = executor(1);

                    rt.block_on(async {});
                });

                // Yield, then complete
                filch::yield_now().await;
            })
            .await
            .unwrap()
        });
    });
}

// origin: tokio tests/rt_threaded.rs::hang_on_shutdown
// The executor is dropped while a task is inside `block_in_place`, waiting for a message
// whose sender another task holds: the drop drops that task, which ends the wait. (tokio's
// `block_on` sleeps 1 s; 100 ms is as far from the sender's 2 s.)
#[test]
fn hang_on_shutdown() {
    watchdog(60, "hang_on_shutdown", || {
        let rt = executor(2);
        rt.block_on(async {
            let (sync_tx, sync_rx) = mpsc::channel::<()>();
            drop(filch::spawn(async move {
                block_in_place(|| sync_rx.recv().ok());
            }));

            drop(filch::spawn(async {
                filch::time::sleep(Duration::from_secs(2)).await;
                drop(sync_tx);
            }));
            filch::time::sleep(Duration::from_millis(100)).await;
        });
        drop(rt);
    });
}

// origin: tokio tests/rt_threaded.rs::test_block_in_place1
// tokio's panics on a current-thread runtime; filch's runs `f` in `block_on` of a 1-worker
// executor (what `#[filch::test]` builds).
#[test]
fn test_block_in_place1() {
    watchdog(60, "test_block_in_place1", || {
        executor(1).block_on(async {
            assert_eq!(block_in_place(|| 1), 1);
        });
    });
}

// origin: tokio tests/rt_threaded.rs::test_block_in_place2
#[test]
fn test_block_in_place2() {
    watchdog(60, "test_block_in_place2", || {
        rt().block_on(async {
            block_in_place(|| {});
        });
    });
}

// origin: tokio tests/rt_threaded.rs::test_block_in_place3
// tokio's panics under `#[tokio::main(flavor = "current_thread")]`; filch's works.
#[cfg(feature = "macros")]
#[test]
fn test_block_in_place3() {
    #[filch::main(flavor = "current_thread")]
    async fn body() {
        block_in_place(|| {});
    }
    watchdog(60, "test_block_in_place3", body);
}

// origin: tokio tests/rt_threaded.rs::test_block_in_place4
#[cfg(feature = "macros")]
#[test]
fn test_block_in_place4() {
    #[filch::main]
    async fn body() {
        block_in_place(|| {});
    }
    watchdog(60, "test_block_in_place4", body);
}

// origin: tokio tests/rt_threaded.rs::test_nested_block_in_place_with_block_on_between
#[test]
fn test_nested_block_in_place_with_block_on_between() {
    watchdog(
        60,
        "test_nested_block_in_place_with_block_on_between",
        || {
            let rt = executor(1);

            // Triggered by a race condition, so run a few times to make sure it is OK.
            for _ in 0..100 {
                let h = rt.handle();

                rt.block_on(async move {
                    filch::spawn(async move {
                        block_in_place(|| {
                            h.block_on(async {
                                block_in_place(|| {});
                            });
                        })
                    })
                    .await
                    .unwrap()
                });
            }
        },
    );
}

// origin: tokio tests/rt_threaded.rs::yield_now_in_block_in_place
#[test]
fn yield_now_in_block_in_place() {
    watchdog(60, "yield_now_in_block_in_place", || {
        let rt = executor(1);

        rt.block_on(async {
            filch::spawn(async {
                block_in_place(|| {
                    Handle::current().block_on(filch::yield_now());
                })
            })
            .await
            .unwrap()
        })
    });
}

// origin: tokio tests/rt_threaded.rs::mutex_in_block_in_place
#[test]
fn mutex_in_block_in_place() {
    watchdog(60, "mutex_in_block_in_place", || {
        const BUDGET: usize = 128;

        let rt = executor(1);

        rt.block_on(async {
            let lock = tokio::sync::Mutex::new(0);

            filch::spawn(async move {
                block_in_place(|| {
                    Handle::current().block_on(async move {
                        for i in 0..(BUDGET + 1) {
                            let mut guard = lock.lock().await;
                            *guard = i;
                            // filch's budget is spent too.
                            filch::consume_budget().await;
                        }
                    });
                })
            })
            .await
            .unwrap();
        })
    });
}

// origin: tokio tests/rt_threaded.rs::wake_deferred_tasks_before_block_in_place
// Adapted: a task that yielded waits on its worker's private deferred list; another task of
// that worker then blocks in place until the yielded one has run. On one worker, only the
// stand-in can run it, so the deferred list must be handed over when `block_in_place` starts.
#[test]
fn wake_deferred_tasks_before_block_in_place() {
    watchdog(60, "wake_deferred_tasks_before_block_in_place", || {
        let rt = executor(1);
        let (tx, rx) = mpsc::channel::<()>();
        let done = rt.spawn(async move {
            // Runs next, from the worker's LIFO slot, while this task sits deferred.
            let blocker = filch::spawn(async move {
                block_in_place(|| rx.recv().unwrap());
            });
            filch::yield_now().await;
            tx.send(()).unwrap();
            blocker.await.unwrap();
        });
        rt.block_on(done).unwrap();
    });
}

// origin: tokio tests/task_blocking.rs::block_in_blocking
#[test]
fn block_in_blocking() {
    watchdog(60, "block_in_blocking", || {
        rt().block_on(async {
            // Run a few times
            for _ in 0..100 {
                let out = filch::spawn(async {
                    filch::spawn_blocking(|| {
                        block_in_place(|| {
                            thread::sleep(Duration::from_millis(5));
                        });
                        "hello"
                    })
                    .await
                    .unwrap()
                })
                .await
                .unwrap();

                assert_eq!(out, "hello");
            }
        });
    });
}

// origin: tokio tests/task_blocking.rs::block_in_block
#[test]
fn block_in_block() {
    watchdog(60, "block_in_block", || {
        rt().block_on(async {
            // Run a few times
            for _ in 0..100 {
                let out = filch::spawn(async {
                    block_in_place(|| {
                        block_in_place(|| {
                            thread::sleep(Duration::from_millis(5));
                        });
                        "hello"
                    })
                })
                .await
                .unwrap();

                assert_eq!(out, "hello");
            }
        });
    });
}

// origin: tokio tests/task_blocking.rs::no_block_in_current_thread_scheduler
// tokio's panics on a current-thread runtime; filch's works in a task of a 1-worker
// executor, and nested.
#[test]
fn block_in_a_one_worker_executors_task() {
    watchdog(60, "block_in_a_one_worker_executors_task", || {
        let rt = executor(1);
        let out = rt
            .block_on(rt.spawn(async {
                block_in_place(|| block_in_place(|| thread::sleep(Duration::from_millis(5))));
                "hello"
            }))
            .unwrap();
        assert_eq!(out, "hello");
    });
}

// origin: tokio tests/task_blocking.rs::yes_block_in_threaded_block_on
#[test]
fn yes_block_in_threaded_block_on() {
    watchdog(60, "yes_block_in_threaded_block_on", || {
        let rt = rt();
        rt.block_on(async {
            block_in_place(|| {});
        });
    });
}

// origin: tokio tests/task_blocking.rs::no_block_in_current_thread_block_on
// tokio's panics; filch's works in `block_on` of a 1-worker executor.
#[test]
fn block_in_a_one_worker_executors_block_on() {
    watchdog(60, "block_in_a_one_worker_executors_block_on", || {
        let rt = executor(1);
        rt.block_on(async {
            block_in_place(|| {});
        });
    });
}

// origin: tokio tests/task_blocking.rs::can_enter_current_thread_rt_from_within_block_in_place
#[test]
fn can_enter_current_thread_rt_from_within_block_in_place() {
    watchdog(
        60,
        "can_enter_current_thread_rt_from_within_block_in_place",
        || {
            let outer = rt();

            outer.block_on(async {
                block_in_place(|| {
                    let inner = executor(1);

                    inner.block_on(async {})
                })
            });
        },
    );
}

/// Spends the budget 200 times, polled by `futures`' `block_on` (no filch executor's): the
/// count tokio's test reads from a stream of 200 items whose polls spend its budget.
fn spend_200_in_a_foreign_block_on() {
    futures::executor::block_on(async {
        let mut n = 0;
        for _ in 0..200 {
            filch::consume_budget().await;
            n += 1;
        }
        assert_eq!(n, 200);
    })
}

// origin: tokio tests/task_blocking.rs::coop_disabled_in_block_in_place
#[test]
fn coop_disabled_in_block_in_place() {
    watchdog(60, "coop_disabled_in_block_in_place", || {
        let outer = rt();
        outer.block_on(async move {
            let jh = filch::spawn(async move { block_in_place(spend_200_in_a_foreign_block_on) });
            jh.await.unwrap()
        });
    });
}

// origin: tokio tests/task_blocking.rs::coop_disabled_in_block_in_place_in_block_on
#[test]
fn coop_disabled_in_block_in_place_in_block_on() {
    watchdog(60, "coop_disabled_in_block_in_place_in_block_on", || {
        let outer = rt();
        outer.block_on(async move { block_in_place(spend_200_in_a_foreign_block_on) });
    });
}

// Not tokio's (its `block_in_place` panics with one worker): on a 1-worker executor, while
// a task blocks in place on a long blocking call, another task runs and its timer fires: it
// is what ends the blocking call.
// origin: tokio tests/rt_threaded.rs::blocking (on one worker, with a timer)
#[test]
fn one_worker_timer_and_task_progress_while_blocked_in_place() {
    watchdog(
        60,
        "one_worker_timer_and_task_progress_while_blocked_in_place",
        || {
            let rt = executor(1);
            let (started_tx, started_rx) = mpsc::channel();
            let (tx, rx) = mpsc::channel::<u32>();
            let blocked = rt.spawn(async move {
                block_in_place(|| {
                    started_tx.send(()).unwrap();
                    rx.recv().unwrap()
                })
            });
            // The worker is inside the blocking call now.
            started_rx.recv().unwrap();
            let sleeper = rt.spawn(async move {
                filch::time::sleep(Duration::from_millis(10)).await;
                tx.send(7).unwrap();
            });
            assert_eq!(rt.block_on(blocked).unwrap(), 7);
            rt.block_on(sleeper).unwrap();
        },
    );
}

// Not tokio's: two tasks of a 1-worker executor block in place at once (the second on the
// worker's stand-in, which polled it), and a third task, which ends both blocking calls, still
// runs, its timer too; tokio's hands the worker off again at each call.
// origin: tokio tests/rt_threaded.rs::blocking (on one worker, two blocked at once)
#[test]
fn one_worker_two_blocked_in_place_at_once() {
    watchdog(60, "one_worker_two_blocked_in_place_at_once", || {
        let rt = executor(1);
        let (started_tx, started_rx) = mpsc::channel();
        let mut ends = Vec::new();
        let mut blocked = Vec::new();
        for i in 0..2u32 {
            let (tx, rx) = mpsc::channel::<u32>();
            ends.push(tx);
            let started_tx = started_tx.clone();
            blocked.push(rt.spawn(async move {
                block_in_place(|| {
                    started_tx.send(()).unwrap();
                    rx.recv().unwrap() + i
                })
            }));
            // Each is inside its blocking call before the next is spawned.
            started_rx.recv().unwrap();
        }
        let ender = rt.spawn(async move {
            filch::time::sleep(Duration::from_millis(10)).await;
            for tx in ends {
                tx.send(10).unwrap();
            }
        });
        for (i, task) in blocked.into_iter().enumerate() {
            assert_eq!(rt.block_on(task).unwrap(), 10 + i as u32);
        }
        rt.block_on(ender).unwrap();
    });
}
