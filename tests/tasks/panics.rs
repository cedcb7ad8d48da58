//! A panic inside a task: caught, the worker survives, and the JoinHandle resolves to a panic
//! JoinError carrying the original payload.

use std::panic::{catch_unwind, panic_any, resume_unwind, AssertUnwindSafe};
use std::thread;

use crate::common::{executor, watchdog};
use filch::JoinError;

#[test]
fn panic_payload_reaches_the_join_handle() {
    watchdog(30, "panic payload", || {
        let ex = executor(2);

        let err = ex.block_on(ex.spawn(async { panic!("boom") })).unwrap_err();
        assert!(err.is_panic());
        assert!(!err.is_cancelled());
        assert!(err.to_string().contains("panic"), "display: {err}");
        assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");

        let n = 7;
        let err = ex
            .block_on(ex.spawn(async move { panic!("boom {n}") }))
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(*err.into_panic().downcast::<String>().unwrap(), "boom 7");

        let err = ex
            .block_on(ex.spawn(async { panic_any(42u32) }))
            .unwrap_err();
        assert_eq!(*err.into_panic().downcast::<u32>().unwrap(), 42);
    });
}

#[test]
fn a_worker_survives_panics_and_keeps_running_tasks() {
    watchdog(30, "worker survives panics", || {
        let ex = executor(1);
        let before = ex
            .block_on(ex.spawn(async { thread::current().id() }))
            .unwrap();
        // A task that waits across the panics of others.
        let (tx, rx) = futures::channel::oneshot::channel::<u32>();
        let waiting = ex.spawn(async move { rx.await.unwrap() + 1 });
        for i in 0..5 {
            let err = ex
                .block_on(ex.spawn(async move { panic!("task {i} panics") }))
                .unwrap_err();
            assert!(err.is_panic());
        }
        let after = ex
            .block_on(ex.spawn(async { thread::current().id() }))
            .unwrap();
        assert_eq!(
            before, after,
            "the single worker thread must survive the panics"
        );
        tx.send(1).unwrap();
        assert_eq!(ex.block_on(waiting).unwrap(), 2);
        let sum: u32 = (0..100u32)
            .map(|i| ex.spawn(async move { i }))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| ex.block_on(h).unwrap())
            .sum();
        assert_eq!(sum, (0..100).sum::<u32>());
    });
}

#[test]
fn a_panic_after_a_suspension_is_caught() {
    watchdog(30, "a_panic_after_a_suspension_is_caught", || {
        let ex = executor(2);
        let (tx, rx) = futures::channel::oneshot::channel::<()>();
        let task = ex.spawn(async move {
            rx.await.unwrap();
            filch::yield_now().await;
            panic!("late");
        });
        tx.send(()).unwrap();
        let err = ex.block_on(task).unwrap_err();
        assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "late");
    });
}

#[test]
fn a_task_awaiting_a_panicked_task_can_resume_the_panic() {
    watchdog(30, "resume a task's panic", || {
        let ex = executor(2);
        let outer = ex.spawn(async {
            let err = filch::spawn(async { panic_any(String::from("inner")) })
                .await
                .unwrap_err();
            assert!(err.is_panic());
            resume_unwind(err.into_panic());
        });
        let err = ex.block_on(outer).unwrap_err();
        assert_eq!(*err.into_panic().downcast::<String>().unwrap(), "inner");
    });
}

#[test]
fn into_panic_on_a_cancelled_error_panics() {
    watchdog(30, "into_panic on cancelled", || {
        let ex = executor(1);
        let handle = ex.spawn(std::future::pending::<()>());
        handle.abort();
        let err = ex.block_on(handle).unwrap_err();
        assert!(err.is_cancelled());
        assert!(!err.is_panic());
        assert!(catch_unwind(AssertUnwindSafe(|| err.into_panic())).is_err());
    });
}

#[test]
fn a_panic_in_block_on_reaches_the_caller_and_the_executor_still_works() {
    watchdog(30, "panic in block_on", || {
        let ex = executor(1);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            ex.block_on(async { panic!("in block_on") })
        }));
        assert_eq!(
            *caught.unwrap_err().downcast::<&str>().unwrap(),
            "in block_on"
        );
        assert_eq!(
            ex.block_on(async { filch::spawn(async { 3 }).await.unwrap() }),
            3
        );
    });
}

#[test]
fn join_error_is_a_std_error_and_thread_safe() {
    fn check<E: std::error::Error + Send + Sync + 'static>() {}
    check::<JoinError>();
    let ex = executor(1);
    let err = ex.block_on(ex.spawn(async { panic!("x") })).unwrap_err();
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    assert!(!boxed.to_string().is_empty());
    assert!(!format!("{boxed:?}").is_empty());
}
