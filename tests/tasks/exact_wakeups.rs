//! Exact wake-ups of `yield_now` and `JoinHandle`, observed with tokio-test's mock task:
//! woken when (and only when) there is something new to see.

use std::thread;
use std::time::Duration;

use crate::common::{executor, wait_until, watchdog};
use futures::channel::oneshot;
use tokio_test::task;
use tokio_test::{assert_pending, assert_ready};

#[test]
fn yield_now_is_pending_once_wakes_itself_then_is_ready() {
    let mut y = task::spawn(filch::yield_now());
    assert!(!y.is_woken());
    assert_pending!(y.poll());
    assert!(
        y.is_woken(),
        "yield_now must wake its task before returning Pending"
    );
    // It woke by reference and kept no clone of the waker.
    assert_eq!(y.waker_ref_count(), 1);
    assert_ready!(y.poll());
}

#[test]
fn join_handle_is_woken_exactly_when_the_task_completes() {
    watchdog(30, "handle woken on completion", || {
        let ex = executor(1);
        let (tx, rx) = oneshot::channel::<u32>();
        let mut jh = task::spawn(ex.spawn(async move { rx.await.unwrap() * 2 }));
        assert_pending!(jh.poll());
        assert!(!jh.is_woken());
        thread::sleep(Duration::from_millis(20));
        assert!(!jh.is_woken(), "woken while the task still waits");
        tx.send(21).unwrap();
        wait_until(10, "the JoinHandle's wake-up", || jh.is_woken());
        let out = assert_ready!(jh.poll());
        assert_eq!(out.unwrap(), 42);
        // The stored waker was consumed, not leaked.
        assert_eq!(jh.waker_ref_count(), 1);
    });
}

#[test]
fn join_handle_wakes_the_latest_waker() {
    watchdog(30, "join_handle_wakes_the_latest_waker", || {
        let ex = executor(1);
        let (tx, rx) = oneshot::channel::<()>();
        let mut first = task::spawn(ex.spawn(async move { rx.await.unwrap() }));
        assert_pending!(first.poll());
        // Move the handle to another task (another waker) and poll it there.
        let mut second = task::spawn(first.into_inner());
        assert_pending!(second.poll());
        tx.send(()).unwrap();
        wait_until(10, "the second waker's wake-up", || second.is_woken());
        assert_ready!(second.poll()).unwrap();
    });
}

#[test]
fn join_handle_of_a_finished_task_is_ready_on_first_poll() {
    watchdog(30, "handle of a finished task", || {
        let ex = executor(1);
        let handle = ex.spawn(async { 5 });
        wait_until(10, "the task to finish", || handle.is_finished());
        let mut jh = task::spawn(handle);
        assert_eq!(assert_ready!(jh.poll()).unwrap(), 5);
    });
}

#[test]
fn join_handle_is_woken_by_abort() {
    watchdog(30, "join_handle_is_woken_by_abort", || {
        let ex = executor(1);
        let mut jh = task::spawn(ex.spawn(std::future::pending::<()>()));
        assert_pending!(jh.poll());
        jh.abort();
        wait_until(10, "the wake-up after abort", || jh.is_woken());
        assert!(assert_ready!(jh.poll()).unwrap_err().is_cancelled());
    });
}

#[test]
fn join_handle_is_woken_by_a_panic() {
    watchdog(30, "join_handle_is_woken_by_a_panic", || {
        let ex = executor(1);
        let (tx, rx) = oneshot::channel::<()>();
        let mut jh = task::spawn(ex.spawn(async move {
            rx.await.unwrap();
            panic!("woken by a panic");
        }));
        assert_pending!(jh.poll());
        tx.send(()).unwrap();
        wait_until(10, "the wake-up after the panic", || jh.is_woken());
        assert!(assert_ready!(jh.poll()).unwrap_err().is_panic());
    });
}

#[test]
fn join_handle_is_woken_by_shutdown() {
    watchdog(30, "join_handle_is_woken_by_shutdown", || {
        let ex = executor(2);
        let mut jh = task::spawn(ex.spawn(std::future::pending::<()>()));
        assert_pending!(jh.poll());
        assert!(!jh.is_woken());
        drop(ex);
        assert!(
            jh.is_woken(),
            "Executor::drop must wake the handles it cancels"
        );
        assert!(assert_ready!(jh.poll()).unwrap_err().is_cancelled());
    });
}
