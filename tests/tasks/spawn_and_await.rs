//! Spawning and awaiting from inside tasks and from outside (block_on, foreign threads with a
//! Handle); `Handle::current`; thread names; the worker count; `block_on` on a worker. (Bad
//! builder input is in tests/executor/builder_errors.rs.)

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Barrier};
use std::thread;

use crate::common::{executor, named_executor, panic_message, thread_name, watchdog};
use filch::{Handle, JoinHandle};

#[test]
fn spawn_from_outside_and_block_on_each_handle() {
    watchdog(30, "spawn from outside", || {
        let ex = executor(2);
        let handles: Vec<_> = (0..200u64)
            .map(|i| ex.spawn(async move { i * 2 }))
            .collect();
        let outputs: Vec<u64> = handles
            .into_iter()
            .map(|h| ex.block_on(h).unwrap())
            .collect();
        assert_eq!(outputs, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    });
}

#[test]
fn spawn_and_await_inside_tasks() {
    watchdog(30, "spawn_and_await_inside_tasks", || {
        let ex = executor(2);
        let total = ex.block_on(ex.spawn(async {
            let children: Vec<_> = (0..50u64)
                .map(|i| {
                    filch::spawn(async move {
                        // A grandchild, spawned and awaited from a worker.
                        let inner = filch::spawn(async move { i + 1 });
                        inner.await.unwrap() * 2
                    })
                })
                .collect();
            let mut sum = 0;
            for child in children {
                sum += child.await.unwrap();
            }
            sum
        }));
        assert_eq!(total.unwrap(), 2 * (1..=50).sum::<u64>());
    });
}

#[test]
fn spawn_inside_block_on_goes_to_that_executor() {
    watchdog(30, "spawn inside block_on", || {
        let ex = named_executor(2, "bo");
        let (free, via_current, nested) = ex.block_on(async {
            let free = filch::spawn(async { thread_name() }).await.unwrap();
            let via_current = Handle::current()
                .spawn(async { thread_name() })
                .await
                .unwrap();
            // A task spawning from a worker stays on the same executor.
            let nested = filch::spawn(async { filch::spawn(async { thread_name() }).await })
                .await
                .unwrap()
                .unwrap();
            (free, via_current, nested)
        });
        for name in [free, via_current, nested] {
            assert!(
                name.starts_with("bo-"),
                "task ran on {name:?}, not a worker of `ex`"
            );
        }
    });
}

#[test]
fn foreign_threads_spawn_through_a_handle() {
    watchdog(30, "foreign threads spawn", || {
        let ex = named_executor(2, "ft");
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let handle = ex.handle();
                thread::spawn(move || {
                    assert!(
                        Handle::try_current().is_err(),
                        "a plain thread has no executor"
                    );
                    let tasks: Vec<_> = (0..100u64)
                        .map(|i| handle.spawn(async move { (t * 1000 + i, thread_name()) }))
                        .collect();
                    tasks
                        .into_iter()
                        .map(|task| futures::executor::block_on(task).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (t, thread) in threads.into_iter().enumerate() {
            let results = thread.join().unwrap();
            assert_eq!(results.len(), 100);
            for (i, (value, name)) in results.into_iter().enumerate() {
                assert_eq!(value, t as u64 * 1000 + i as u64);
                assert!(name.starts_with("ft-"), "ran on {name:?}");
            }
        }
    });
}

#[test]
fn join_handles_cross_threads() {
    watchdog(30, "join_handles_cross_threads", || {
        let ex = executor(2);
        // Spawned on one foreign thread, awaited on another, and inside a task.
        let handle = ex.handle();
        let spawned: Vec<JoinHandle<usize>> =
            thread::spawn(move || (0..20).map(|i| handle.spawn(async move { i })).collect())
                .join()
                .unwrap();
        let sum = ex
            .block_on(ex.spawn(async move {
                let mut sum = 0;
                for h in spawned {
                    sum += h.await.unwrap();
                }
                sum
            }))
            .unwrap();
        assert_eq!(sum, (0..20).sum::<usize>());
    });
}

/// Outside every executor `try_current` is an error and `current` panics, as tokio's, with
/// a message that names filch and `try_current`.
#[test]
fn handle_current_panics_outside_any_executor_and_try_current_errs() {
    assert!(Handle::try_current().is_err());
    let on_thread = thread::spawn(|| Handle::try_current().is_err())
        .join()
        .unwrap();
    assert!(on_thread);
    let payload = catch_unwind(Handle::current).expect_err("Handle::current() outside");
    let message = panic_message(&*payload);
    assert!(
        message.contains("filch") && message.contains("try_current"),
        "{message}"
    );
    let ex = executor(1);
    let _guard = ex.enter();
    assert!(Handle::try_current().is_ok());
    assert_eq!(Handle::current().stats().workers.len(), 1);
}

#[test]
fn handle_current_inside_a_worker_is_its_executor() {
    watchdog(30, "Handle::current in a worker", || {
        let ex = named_executor(3, "hcw");
        let (workers, name) = ex
            .block_on(ex.spawn(async {
                let handle = Handle::current();
                let workers = handle.stats().workers.len();
                let name = handle.spawn(async { thread_name() }).await.unwrap();
                (workers, name)
            }))
            .unwrap();
        assert_eq!(workers, 3);
        assert!(name.starts_with("hcw-"), "ran on {name:?}");
    });
}

#[test]
fn handle_current_inside_block_on_nests_and_restores() {
    watchdog(30, "Handle::current in block_on", || {
        let one = executor(1);
        let three = executor(3);
        let workers = || Handle::try_current().ok().map(|h| h.stats().workers.len());
        assert_eq!(workers(), None);
        let seen = one.block_on(async {
            let outer = workers();
            let inner = three.block_on(async { workers() });
            let after = workers();
            (outer, inner, after)
        });
        assert_eq!(seen, (Some(1), Some(3), Some(1)));
        assert_eq!(workers(), None, "block_on must restore the empty context");
    });
}

#[test]
fn worker_threads_are_named_prefix_index() {
    watchdog(30, "thread names", || {
        // Never handed over: a stand-in would poll the third task while two block.
        let ex = filch::Executor::builder()
            .worker_threads(3)
            .thread_name("pool")
            .hand_over_after(std::time::Duration::MAX)
            .build()
            .unwrap();
        // Three tasks that block until all three run at once: one on each worker.
        let barrier = Arc::new(Barrier::new(3));
        let tasks: Vec<_> = (0..3)
            .map(|_| {
                let barrier = Arc::clone(&barrier);
                ex.spawn(async move {
                    barrier.wait();
                    thread_name()
                })
            })
            .collect();
        let mut names: Vec<String> = tasks.into_iter().map(|t| ex.block_on(t).unwrap()).collect();
        names.sort();
        assert_eq!(names, ["pool-0", "pool-1", "pool-2"]);
    });
}

#[test]
fn default_thread_name_prefix_is_filch() {
    watchdog(30, "default_thread_name_prefix_is_filch", || {
        let ex = executor(1);
        assert_eq!(
            ex.block_on(ex.spawn(async { thread_name() })).unwrap(),
            "filch-0"
        );
    });
}

#[test]
fn worker_threads_reports_the_count() {
    for n in [1, 2, 5] {
        let ex = executor(n);
        assert_eq!(ex.worker_threads(), n);
        assert_eq!(ex.stats().workers.len(), n);
        assert_eq!(ex.handle().stats().workers.len(), n);
    }
}

#[test]
fn block_on_on_a_worker_panics_and_suggests_await() {
    watchdog(30, "block_on on a worker", || {
        let ex = executor(1);
        let message = ex
            .block_on(ex.spawn(async {
                let err = catch_unwind(AssertUnwindSafe(|| filch::block_on(async { 1 })))
                    .expect_err("block_on on a worker must panic");
                panic_message(&*err)
            }))
            .unwrap();
        assert!(message.contains("block_on"), "message: {message:?}");
        assert!(message.contains(".await"), "message: {message:?}");
        // The worker survived and still runs tasks.
        assert_eq!(ex.block_on(ex.spawn(async { 5 })).unwrap(), 5);
    });
}

#[test]
fn free_functions_outside_any_executor_use_the_global_one() {
    watchdog(30, "free functions use the global", || {
        let task = filch::spawn(async {
            (
                thread_name(),
                Handle::try_current().ok().map(|h| h.stats().workers.len()),
            )
        });
        let (name, workers) = filch::block_on(task).unwrap();
        assert!(name.starts_with("filch-"), "ran on {name:?}");
        assert!(workers.unwrap() >= 1);
        assert!(
            Handle::try_current().is_err(),
            "filch::block_on must restore the context"
        );
    });
}

#[test]
fn join_handle_is_send_and_unpin() {
    fn check<T: Send + Unpin + std::future::Future>(_: &T) {}
    let ex = executor(1);
    let handle = ex.spawn(async { 1 });
    check(&handle);
    assert_eq!(ex.block_on(handle).unwrap(), 1);
}

/// `JoinHandle` is not `#[must_use]`: a fire-and-forget spawn, as with tokio, leaves no
/// warning (under this `deny`, the test would not compile otherwise).
#[deny(unused_must_use)]
#[test]
fn a_fire_and_forget_spawn_leaves_no_warning() {
    let ex = executor(1);
    let (tx, rx) = std::sync::mpsc::channel();
    ex.block_on(async move {
        filch::spawn(async move { tx.send(7).unwrap() });
    });
    assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(10)), Ok(7));
}
