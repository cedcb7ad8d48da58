//! [`State::shutdown`]: the one place where an executor is shut down, and whose doc states
//! the shutdown protocol. `Executor`'s drop, `shutdown_timeout` and `shutdown_background`
//! all run it, once per executor.
//!
//! **Invariant:** after `State::shutdown` returns, every task of the executor has completed
//! or had its future dropped. The one exception is a shutdown from inside a task: the worker
//! running it cannot be joined, so that task, and the tasks left in that worker's own LIFO
//! slot, deque and deferred list, are dropped when that task's poll ends and the worker
//! exits.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::runtime::scheduler::state::State;
use crate::runtime::task::task_count;
use crate::util::sync::{fence, Ordering};
use crate::util::wake_all::wake_all_quietly;

impl State {
    /// Shuts the executor down. `workers` are its worker threads; `wait_for_blocking` is
    /// how long to wait for the blocking-pool jobs still running (`None`: not at all).
    /// Called once, by the `Executor` that owns the state.
    ///
    /// The protocol, in order:
    /// 1. set `shutdown` (SeqCst) and fence: from here on every task that is scheduled is
    ///    dropped instead of queued, and a push to a shared queue that raced with the store
    ///    is caught by push-then-check (`after_shared_push` in
    ///    `runtime/scheduler/worker/schedule.rs`: the pusher's fence, in `notify_work` /
    ///    `notify_worker`, pairs with this one): either the pusher sees the flag and drains, or
    ///    step 7 sees its task; then move the epoch, so that every thread
    ///    doing fork-join work for this executor looks up at its next piece, sees the flag,
    ///    and unwinds as from a cancelled call (`forkjoin/thread.rs`, `FjThread::check_in`):
    ///    a running `par::run` call or awaited loop ends at its next piece (its future
    ///    panics with a message), so that step 5 does not wait for it to run to its end;
    /// 2. stop the blocking pool: idle threads exit, queued jobs are cancelled (dropped
    ///    here, outside the pool's lock, each ending its count on the paused clock, which a
    ///    `Handle`, a `Sleep` or an IO object may keep beyond the executor), running ones
    ///    finish on their threads and are not waited for (step 10);
    /// 3. close the live-task registry and wake every task still in it (the registry
    ///    returns the wakers, so none is called under its lock): a task waiting for a
    ///    wake-up is scheduled, and so dropped; one in a queue stays there for step 7; one
    ///    being polled is dropped when its poll ends;
    /// 4. wake every parked worker; each finishes the task it is running, drops what is
    ///    left in its own LIFO slot and deque, drops its pinned tasks on its own thread
    ///    (waking those that wait, until none is alive: `runtime/scheduler/pinned/worker_side.rs`), and
    ///    exits;
    /// 5. join the worker threads, except the current thread if the shutdown runs on one of
    ///    its own workers (that worker exits once the task it is running returns), then stop
    ///    and join the workers' stand-ins (`standin/slots.rs`) likewise;
    /// 6. wake every task still registered once more: a task that was queued at step 3 (so
    ///    that wake-up was a no-op) but that a worker took and polled before it saw the
    ///    flag is now waiting for a wake-up that will never come; this one schedules, and
    ///    so drops, it. No other worker runs now, so every task still registered either
    ///    waits for a wake-up (this drops it) or is queued (step 7, or its own worker when
    ///    it exits, drops it);
    /// 7. drain the injector and the inboxes (`State::drain_after_shutdown`);
    /// 8. shut the IO driver down: IO objects still alive return an error from now on,
    ///    timers still alive are woken and panic when polled (`runtime/driver/mod.rs`), the OS
    ///    poller closes;
    /// 9. give up the executor's hold on the state (`runtime/task/task_count.rs`): the state is
    ///    freed once the last task, `JoinHandle`, waker and `Handle` that reach it are gone;
    /// 10. wait for the blocking-pool jobs still running: `Executor::shutdown_timeout`
    ///     waits at most its timeout (the jobs that take longer go on, detached), and on a
    ///     thread of the pool (a job shutting its executor down) not for itself; the drop
    ///     and `Executor::shutdown_background` do not wait (a blocking call may never
    ///     return).
    pub(crate) fn shutdown(
        self: &Arc<State>,
        workers: Vec<thread::JoinHandle<()>>,
        wait_for_blocking: Option<Duration>,
    ) {
        // Step 1.
        self.shutdown.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // After the flag: a thread that sees the bump sees the flag (`epoch::now` acquires).
        crate::runtime::time::epoch::bump();
        // Step 2.
        self.cancel_blocking_jobs(self.blocking.shutdown());
        // Step 3.
        wake_all_quietly(self.live_tasks.close());
        // Step 4.
        self.idle.wake_all();
        // Step 5.
        let me = thread::current().id();
        for thread in workers {
            if thread.thread().id() != me {
                // A worker never panics out of its thread (task panics are caught, and a
                // loop that unwinds restarts), so an error here could only come from a bug;
                // there is nothing to recover.
                let _ = thread.join();
            }
        }
        // Step 5, for the workers' stand-ins (`standin/slots.rs`).
        self.standins.shutdown();
        // Step 6.
        wake_all_quietly(self.live_tasks.take_all());
        // Step 7.
        self.drain_after_shutdown();
        // Step 8.
        self.driver.shutdown();
        // Step 9.
        task_count::holder_left(self, None);
        // Step 10.
        if let Some(timeout) = wait_for_blocking {
            self.blocking.wait_for_threads(timeout);
        }
    }
}
