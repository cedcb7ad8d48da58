//! A task woken by another thread or another task while it is being polled stays where an
//! idle worker can take it (shared/API.md, Tasks): it is not held back behind its worker's
//! other work as a self-wake may be. Scenario, on 2 workers under both wake policies: task A,
//! in its first poll, spawns B (which goes to A's worker's LIFO slot and runs next there),
//! has a helper (a plain thread, or a task blocking the other worker until then) call A's
//! waker while A's poll is still running, and returns `Pending`; B then blocks its worker
//! until A has been polled again. The other worker is idle and must run A; B gives up after
//! a generous 10 s and the test fails naming the stranded task.
//!
//! The companion case, that a task that wakes itself (`yield_now`, or
//! `cx.waker().wake_by_ref(); Pending`) lets the other ready tasks of its single worker run
//! first, is `yield_now_and_self_wakes_go_behind_other_ready_work` in `fairness.rs`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{executor_with, watchdog};
use filch::{JoinHandle, WakePolicy};

/// How long B waits for A's second poll before it reports A as stranded.
const PATIENCE: Duration = Duration::from_secs(10);

/// Task A: its first poll spawns B, gets its own waker called by the helper and
/// returns `Pending`; its second poll completes.
struct TaskA {
    polls: Arc<AtomicUsize>,
    /// To the helper (a thread or a task): a waker to call, and where to report that it did.
    helper: mpsc::Sender<(Waker, mpsc::Sender<()>)>,
    /// Task B, once spawned.
    b: Option<JoinHandle<bool>>,
}

impl Future for TaskA {
    type Output = JoinHandle<bool>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.polls.fetch_add(1, SeqCst) > 0 {
            return Poll::Ready(self.b.take().expect("B was spawned in the first poll"));
        }
        // B: spawned from this worker, so it sits in this worker's LIFO slot and runs on
        // it as soon as this poll returns. It blocks the worker until A is polled again.
        let polls = Arc::clone(&self.polls);
        self.b = Some(filch::spawn(async move {
            let deadline = Instant::now() + PATIENCE;
            while polls.load(SeqCst) < 2 {
                if Instant::now() >= deadline {
                    return false;
                }
                thread::sleep(Duration::from_millis(1));
            }
            true
        }));
        // Another thread or task wakes A while this poll is still running.
        let (woke_tx, woke_rx) = mpsc::channel();
        self.helper
            .send((cx.waker().clone(), woke_tx))
            .expect("the helper is gone");
        woke_rx
            .recv_timeout(PATIENCE)
            .expect("the helper did not call the waker");
        Poll::Pending
    }
}

/// Who calls A's waker while A is being polled.
#[derive(Clone, Copy)]
enum Waking {
    /// A plain thread.
    Thread,
    /// Another task of the executor, which blocks the other worker until then (so A runs on
    /// the first) and returns right after, leaving that worker idle.
    Task,
}

/// Runs the scenario on a 2-worker executor with `policy`.
fn woken_during_its_poll(policy: WakePolicy, by: Waking) {
    let who = match by {
        Waking::Thread => "thread",
        Waking::Task => "task",
    };
    let what = format!("{policy:?}, woken by another {who}");
    watchdog(60, &what.clone(), move || {
        let ex = executor_with(2, policy);
        let (helper_tx, helper_rx) = mpsc::channel::<(Waker, mpsc::Sender<()>)>();
        let wake_next = move || -> bool {
            let Ok((waker, woke)) = helper_rx.recv_timeout(PATIENCE) else {
                return false;
            };
            waker.wake();
            let _ = woke.send(());
            true
        };
        let (thread_helper, task_helper) = match by {
            Waking::Thread => {
                let helper = thread::Builder::new()
                    .name("waker-helper".into())
                    .spawn(wake_next)
                    .expect("cannot start the helper thread");
                (Some(helper), None)
            }
            Waking::Task => {
                let (started_tx, started_rx) = mpsc::channel();
                let helper = ex.spawn(async move {
                    started_tx.send(()).unwrap();
                    // Blocks this worker until A's waker arrives.
                    wake_next()
                });
                started_rx
                    .recv_timeout(PATIENCE)
                    .expect("the helper task never ran");
                (None, Some(helper))
            }
        };
        let a = ex.spawn(TaskA {
            polls: Arc::new(AtomicUsize::new(0)),
            helper: helper_tx,
            b: None,
        });
        let b = ex.block_on(a).expect("task A failed");
        let a_ran_again = ex.block_on(b).expect("task B failed");
        assert!(
            a_ran_again,
            "{what}: task A, woken while it was being polled, was not polled again within \
             {PATIENCE:?} while task B blocked A's worker and the other worker was idle: A is \
             stranded where no other worker can take it"
        );
        let woke = match (thread_helper, task_helper) {
            (Some(thread), _) => thread.join().expect("the helper thread panicked"),
            (_, Some(task)) => ex.block_on(task).expect("the helper task failed"),
            _ => unreachable!(),
        };
        assert!(woke, "{what}: the helper never got A's waker");
    });
}

#[test]
fn woken_by_a_thread_during_its_poll_is_not_stranded_last_worker() {
    woken_during_its_poll(WakePolicy::LastWorker, Waking::Thread);
}

#[test]
fn woken_by_a_thread_during_its_poll_is_not_stranded_current_worker() {
    woken_during_its_poll(WakePolicy::CurrentWorker, Waking::Thread);
}

#[test]
fn woken_by_a_task_during_its_poll_is_not_stranded_last_worker() {
    woken_during_its_poll(WakePolicy::LastWorker, Waking::Task);
}

#[test]
fn woken_by_a_task_during_its_poll_is_not_stranded_current_worker() {
    woken_during_its_poll(WakePolicy::CurrentWorker, Waking::Task);
}
