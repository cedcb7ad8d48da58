//! The blocking pool behind [`spawn_blocking`](crate::spawn_blocking): a separate, elastic
//! set of threads per executor that runs closures which may block, so that blocking calls
//! never sit on a worker.
//!
//! Each executor owns one [`BlockingPool`] (in `State::blocking`). The pool is generic over
//! its jobs: it queues them, decides when a thread must start, and serves jobs on the
//! threads it was given; what a job is (an async-task runnable whose future calls the
//! closure once, so that the caller gets filch's own `JoinHandle` with its panic and
//! cancellation semantics) and how a thread starts (named, inside its executor's context)
//! are `jobs.rs`'s business.
//!
//! The pool:
//! - grows on demand: a job that finds no idle thread starts a new one, up to the limit
//!   (`Builder::max_blocking_threads`, default [`MAX_BLOCKING_THREADS`]); beyond that jobs
//!   wait in a FIFO queue;
//! - shrinks when idle: a thread that finds no job for its keep-alive
//!   (`Builder::thread_keep_alive`, default [`IDLE_TIMEOUT`]; one too long for an `Instant`
//!   to hold, such as `Duration::MAX`, keeps it until shutdown) exits;
//! - names its threads `{prefix}-blocking-{n}` (`n` counts up from 0 and is never reused),
//!   enters the owning executor's context on them (so `Handle::current()` is that executor
//!   and `spawn` goes there), and does not mark them as workers (so `block_on` is allowed).
//!
//! Shutdown (`State::shutdown` calls [`BlockingPool::shutdown`]): idle threads exit at once;
//! a job already running runs to its end on its thread, and its `JoinHandle` gets its output
//! (only `Executor::shutdown_timeout` waits for it, and only so long: a blocking call may
//! never return; on one of the pool's own threads it waits for the others); a job queued but not started is dropped without running, and so is one
//! spawned after shutdown: their `JoinHandle`s resolve to a cancelled `JoinError`.
//! `JoinHandle::abort` likewise cancels a job that has not started; one that runs cannot be
//! interrupted.
//!
//! Why not the `blocking` crate (smol-rs, well kept): its pool is one global per process, so
//! it cannot name threads after the executor (`{prefix}-blocking-{n}`), cannot install the
//! executor's context on its threads for their whole life, cannot drop one executor's queued
//! jobs when that executor shuts down, and returns its own task type instead of filch's
//! `JoinHandle`. What it does is small (a mutex-protected queue and a condition variable), so
//! filch keeps its own, with the same growth rule and idle timeout.
//!
//! **Invariants** (all counts are guarded by the one mutex):
//! - `idle` counts the threads waiting on the condition variable that no push has claimed;
//!   a push that finds `idle > 0` claims one (`idle -= 1; notified += 1`) and notifies, so
//!   two pushes never count on the same waiting thread;
//! - a waiting thread consumes a `notified` token before anything else, so a claimed wake-up
//!   is never lost to a thread that times out and exits;
//! - a thread looks at the queue before it waits, so no job is left queued while a thread
//!   lives: every queued job is run, or dropped by `shutdown`.

pub(crate) mod jobs;
#[cfg(all(test, not(loom)))]
mod tests;

use std::cell::Cell;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::util::sync::{Condvar, Mutex, MutexGuard};

/// The most threads one executor's blocking pool runs at once (as tokio's default).
pub(crate) const MAX_BLOCKING_THREADS: usize = 512;

/// How long a blocking-pool thread waits for a job before it exits.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

thread_local! {
    /// The pool whose [`BlockingPool::serve`] runs on this thread (its address), else null.
    static SERVING: Cell<*const ()> = const { Cell::new(std::ptr::null()) };
}

/// One executor's blocking pool of jobs `J`. See the module docs.
pub(crate) struct BlockingPool<J> {
    state: Mutex<PoolState<J>>,
    /// Idle threads wait here; a push claims one and notifies it, shutdown notifies all.
    condvar: Condvar,
    /// Notified each time a thread leaves (for [`BlockingPool::wait_for_threads`]).
    exited: Condvar,
}

struct PoolState<J> {
    /// Jobs not yet started, oldest first.
    queue: VecDeque<J>,
    /// Threads alive (started, and not yet past their last look at this state).
    threads: usize,
    /// Threads waiting for a job that no push has claimed yet.
    idle: usize,
    /// Wake-ups handed to waiting threads and not yet consumed by one.
    notified: usize,
    /// The `n` of the next thread's name.
    next_id: usize,
    /// Set once by [`BlockingPool::shutdown`]; no job is queued after it.
    shutdown: bool,
    max_threads: usize,
    idle_timeout: Duration,
}

/// What [`BlockingPool::push`] asks of its caller.
#[must_use]
pub(crate) enum Pushed<J> {
    /// Queued; a thread will run it.
    Queued,
    /// Queued, and no thread will take it unless the caller starts thread number `id`
    /// (whose body calls [`BlockingPool::serve`]; if it cannot start, the caller reports
    /// that with [`BlockingPool::thread_failed`]).
    StartThread(usize),
    /// The pool is shut down: the job was not queued; drop it (which cancels it).
    Refused(J),
}

impl<J> BlockingPool<J> {
    /// A pool of at most `max_threads` threads (at least one), each of which exits after
    /// `idle_timeout` without a job.
    pub(crate) fn new(max_threads: usize, idle_timeout: Duration) -> BlockingPool<J> {
        BlockingPool {
            state: Mutex::new(PoolState {
                queue: VecDeque::new(),
                threads: 0,
                idle: 0,
                notified: 0,
                next_id: 0,
                shutdown: false,
                max_threads: max_threads.max(1),
                idle_timeout,
            }),
            condvar: Condvar::new(),
            exited: Condvar::new(),
        }
    }

    /// Waits until no thread of the pool is left (after [`BlockingPool::shutdown`], once the
    /// jobs still running have returned), or until `timeout` has passed; whether none is
    /// left. Called on one of the pool's own threads (a job that shuts its executor down),
    /// it waits for the others: this one cannot leave while it waits.
    pub(crate) fn wait_for_threads(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let me = usize::from(SERVING.with(Cell::get) == self.address());
        let mut st = self.lock();
        while st.threads > me {
            let left = match deadline {
                Some(deadline) => deadline.saturating_duration_since(Instant::now()),
                // A timeout beyond what an `Instant` holds: wait as long as it takes.
                None => Duration::from_secs(3600),
            };
            if left.is_zero() {
                return false;
            }
            st = self.exited.wait_timeout(st, left).0;
        }
        true
    }

    fn lock(&self) -> MutexGuard<'_, PoolState<J>> {
        self.state.lock()
    }

    /// This pool's address, as [`SERVING`] holds it.
    fn address(&self) -> *const () {
        std::ptr::from_ref(self).cast()
    }

    /// Queues `job` and makes sure a thread will run it: wakes an idle thread, or asks the
    /// caller to start one, or (at the limit) leaves it for the next thread that finishes a
    /// job. After shutdown the job is handed back.
    pub(crate) fn push(&self, job: J) -> Pushed<J> {
        let mut st = self.lock();
        if st.shutdown {
            return Pushed::Refused(job);
        }
        st.queue.push_back(job);
        if st.idle > 0 {
            // Claim one waiting thread for this job (module invariants).
            st.idle -= 1;
            st.notified += 1;
            drop(st);
            self.condvar.notify_one();
            return Pushed::Queued;
        }
        if st.threads >= st.max_threads {
            // Every thread is busy; the first to finish takes the job.
            return Pushed::Queued;
        }
        let id = st.next_id;
        st.next_id += 1;
        // Counted before the thread starts, so concurrent pushes respect the limit.
        st.threads += 1;
        Pushed::StartThread(id)
    }

    /// The thread that [`Pushed::StartThread`] asked for could not start. Returns the jobs
    /// that no thread will ever run (every queued job, if no thread is left), for the caller
    /// to drop (cancel) outside the lock.
    pub(crate) fn thread_failed(&self) -> VecDeque<J> {
        let mut st = self.lock();
        st.threads -= 1;
        self.exited.notify_all();
        if st.threads > 0 {
            // A live thread looks at the queue before it waits, so it runs the jobs.
            return VecDeque::new();
        }
        std::mem::take(&mut st.queue)
    }

    /// Stops the pool: idle threads exit, later jobs are refused. Returns the queued jobs
    /// for the caller to drop (cancel) outside the lock: their destructors may spawn. Jobs
    /// already running finish on their threads; this does not wait for them.
    pub(crate) fn shutdown(&self) -> VecDeque<J> {
        let queued = {
            let mut st = self.lock();
            st.shutdown = true;
            std::mem::take(&mut st.queue)
        };
        self.condvar.notify_all();
        queued
    }

    /// The body of a pool thread: runs jobs with `run` until the thread has been idle for
    /// the idle timeout, or the pool shuts down.
    pub(crate) fn serve(&self, run: impl Fn(J)) {
        /// Clears [`SERVING`] however `serve` ends.
        struct ServingPool;
        impl Drop for ServingPool {
            fn drop(&mut self) {
                SERVING.with(|s| s.set(std::ptr::null()));
            }
        }
        SERVING.with(|s| s.set(self.address()));
        let _serving = ServingPool;
        let mut st = self.lock();
        'jobs: loop {
            while let Some(job) = st.queue.pop_front() {
                drop(st);
                run(job);
                st = self.lock();
            }
            if st.shutdown {
                break;
            }
            st.idle += 1;
            // A keep-alive beyond what an `Instant` holds (`Duration::MAX`): no deadline.
            let deadline = Instant::now().checked_add(st.idle_timeout);
            loop {
                st = match deadline {
                    Some(deadline) => {
                        let timeout = deadline.saturating_duration_since(Instant::now());
                        self.condvar.wait_timeout(st, timeout).0
                    }
                    None => self.condvar.wait(st),
                };
                if st.notified > 0 {
                    // A push claimed us (and already took us out of `idle`).
                    st.notified -= 1;
                    continue 'jobs;
                }
                if st.shutdown || deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    st.idle -= 1;
                    break 'jobs;
                }
                // A spurious wake-up: wait for the rest of the timeout.
            }
        }
        st.threads -= 1;
        drop(st);
        self.exited.notify_all();
    }

    /// The number of live threads.
    pub(crate) fn threads(&self) -> usize {
        self.lock().threads
    }

    /// The number of idle threads (white-box tests only; not the loom models).
    #[cfg(test)]
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn idle(&self) -> usize {
        self.lock().idle
    }
}
