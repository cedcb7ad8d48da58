//! `JoinHandle::abort` (pending, queued and running tasks, after completion), detaching by
//! dropping the handle, and `is_finished`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll};
use std::thread;
use std::time::Duration;

use crate::common::{executor, executor_with, wait_until, watchdog, Probe, Tally, POLICIES};
use futures::channel::oneshot;

#[test]
fn abort_of_a_waiting_task_drops_its_future_before_the_handle_resolves() {
    watchdog(30, "abort_of_a_waiting_task", || {
        for policy in POLICIES {
            let ex = executor_with(2, policy);
            let tally = Tally::new();
            for _ in 0..50 {
                let (probe, drops) = tally.counted_probe();
                let (started_tx, started_rx) = oneshot::channel::<()>();
                let handle = ex.spawn(async move {
                    let _probe = probe;
                    started_tx.send(()).unwrap();
                    std::future::pending::<()>().await;
                });
                ex.block_on(started_rx).unwrap();
                assert!(!handle.is_finished());
                handle.abort();
                let err = ex.block_on(handle).unwrap_err();
                assert!(err.is_cancelled(), "{policy:?}: {err:?}");
                // The destructor ran before the handle resolved.
                assert_eq!(drops.load(SeqCst), 1, "{policy:?}");
            }
            tally.assert_all_dropped_once("aborted tasks");
        }
    });
}

#[test]
fn abort_of_a_queued_task_means_it_never_runs() {
    watchdog(30, "abort_of_a_queued_task", || {
        let ex = executor(1);
        // Occupy the only worker so that the victim stays queued.
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (busy_tx, busy_rx) = mpsc::channel::<()>();
        let blocker = ex.spawn(async move {
            busy_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        });
        busy_rx.recv().unwrap();
        let tally = Tally::new();
        let (probe, drops) = tally.counted_probe();
        let ran = Arc::new(AtomicBool::new(false));
        let victim = ex.spawn({
            let ran = Arc::clone(&ran);
            async move {
                let _probe = probe;
                ran.store(true, SeqCst);
            }
        });
        victim.abort();
        release_tx.send(()).unwrap();
        assert!(ex.block_on(victim).unwrap_err().is_cancelled());
        assert_eq!(drops.load(SeqCst), 1);
        assert!(!ran.load(SeqCst), "an aborted task must not start");
        ex.block_on(blocker).unwrap();
    });
}

/// Spins inside its poll until released, then wakes itself and returns `Pending`: without
/// an abort it would be polled again.
struct Spinner {
    polls: Arc<AtomicUsize>,
    release: Arc<AtomicBool>,
    _probe: Probe,
}

impl Future for Spinner {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.polls.fetch_add(1, SeqCst);
        while !self.release.load(SeqCst) {
            thread::yield_now();
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn abort_of_a_running_task_drops_it_after_its_current_poll() {
    watchdog(30, "abort_of_a_running_task", || {
        for policy in POLICIES {
            let ex = executor_with(2, policy);
            let tally = Tally::new();
            let (probe, drops) = tally.counted_probe();
            let polls = Arc::new(AtomicUsize::new(0));
            let release = Arc::new(AtomicBool::new(false));
            let handle = ex.spawn(Spinner {
                polls: Arc::clone(&polls),
                release: Arc::clone(&release),
                _probe: probe,
            });
            wait_until(10, "the spinner's first poll", || polls.load(SeqCst) == 1);
            handle.abort();
            thread::sleep(Duration::from_millis(20));
            assert_eq!(
                drops.load(SeqCst),
                0,
                "{policy:?}: dropped while being polled"
            );
            assert!(!handle.is_finished(), "{policy:?}");
            release.store(true, SeqCst);
            let err = ex.block_on(handle).unwrap_err();
            assert!(err.is_cancelled(), "{policy:?}");
            assert_eq!(drops.load(SeqCst), 1, "{policy:?}");
            assert_eq!(
                polls.load(SeqCst),
                1,
                "{policy:?}: polled again after abort"
            );
        }
    });
}

#[test]
fn abort_after_completion_keeps_the_output() {
    watchdog(30, "abort after completion", || {
        let ex = executor(2);
        let handle = ex.spawn(async { 7 });
        wait_until(10, "the task to finish", || handle.is_finished());
        handle.abort();
        handle.abort();
        assert_eq!(ex.block_on(handle).unwrap(), 7);
    });
}

#[test]
fn abort_from_another_task_and_twice() {
    watchdog(30, "abort_from_another_task_and_twice", || {
        let ex = executor(2);
        let tally = Tally::new();
        let (probe, drops) = tally.counted_probe();
        let victim = ex.spawn(async move {
            let _probe = probe;
            std::future::pending::<()>().await;
        });
        let killer = ex.spawn(async move {
            victim.abort();
            victim.abort();
            victim.await.unwrap_err().is_cancelled()
        });
        assert!(ex.block_on(killer).unwrap());
        assert_eq!(drops.load(SeqCst), 1);
    });
}

#[test]
fn a_detached_task_runs_to_completion() {
    watchdog(30, "a_detached_task_runs_to_completion", || {
        let ex = executor(2);
        let tally = Tally::new();
        let (done_tx, done_rx) = mpsc::channel::<&'static str>();

        // Detached while it waits for a wake-up.
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let (probe, drops) = tally.counted_probe();
        let done = done_tx.clone();
        drop(ex.spawn(async move {
            let _probe = probe;
            go_rx.await.unwrap();
            done.send("waiting").unwrap();
        }));
        go_tx.send(()).unwrap();
        assert_eq!(done_rx.recv_timeout(Duration::from_secs(10)), Ok("waiting"));
        wait_until(10, "the detached task's future to be dropped", || {
            drops.load(SeqCst) == 1
        });

        // Detached by a task right after spawning it (before it ran).
        ex.block_on(ex.spawn(async move {
            drop(filch::spawn(async move {
                filch::yield_now().await;
                done_tx.send("nested").unwrap();
            }));
        }))
        .unwrap();
        assert_eq!(done_rx.recv_timeout(Duration::from_secs(10)), Ok("nested"));
    });
}

#[test]
fn is_finished_tracks_completion() {
    watchdog(30, "is_finished_tracks_completion", || {
        let ex = executor(2);
        let (tx, rx) = oneshot::channel::<u8>();
        let handle = ex.spawn(async move { rx.await.unwrap() });
        thread::sleep(Duration::from_millis(10));
        assert!(!handle.is_finished(), "finished before its input arrived");
        tx.send(3).unwrap();
        wait_until(10, "is_finished after completion", || handle.is_finished());
        assert_eq!(ex.block_on(handle).unwrap(), 3);

        let panicking = ex.spawn(async { panic!("done") });
        wait_until(10, "is_finished after a panic", || panicking.is_finished());
        assert!(ex.block_on(panicking).unwrap_err().is_panic());

        let aborted = ex.spawn(std::future::pending::<()>());
        assert!(!aborted.is_finished());
        aborted.abort();
        wait_until(10, "is_finished after abort", || aborted.is_finished());
        assert!(ex.block_on(aborted).unwrap_err().is_cancelled());
    });
}
