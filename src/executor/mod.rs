//! [`Executor`]: the owner of one executor's worker threads and of its hold on the shared
//! state, and every public method of it (each a short delegation to [`Handle`] or to the
//! module that does the work); its drop, [`Executor::shutdown_timeout`] and
//! [`Executor::shutdown_background`] run `State::shutdown` (`shutdown.rs`, which states the
//! protocol).
//!
//! Beside it: [`Builder`] (`builder.rs`: the settings and starting the workers) and
//! [`Handle`] and [`EnterGuard`] (`handle.rs`). The crate reaches all of them as
//! `crate::executor::…`.
//!
//! **Invariant:** `State::shutdown` runs exactly once per executor (`shut_down` says
//! whether it ran), and only the `Executor` runs it: the worker threads' join handles are
//! its alone.

mod builder;
mod handle;

pub use builder::Builder;
pub(crate) use handle::assert_not_on_worker;
pub use handle::{EnterGuard, Handle, TryCurrentError};

use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::thread;
use std::time::Duration;

use futures::task::{FutureObj, Spawn, SpawnError};

use crate::join::JoinHandle;
use crate::par::{ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
use crate::stats::Stats;
use crate::task::TaskDump;

/// A pool of worker threads running spawned futures. Dropping it shuts the workers down
/// and drops every task that has not completed (their [`JoinHandle`]s resolve to a
/// cancelled [`crate::JoinError`]).
///
/// ```
/// let ex = filch::Executor::new();
/// let answer = ex.block_on(async {
///     let a = filch::spawn(async { 40 });
///     let b = filch::spawn(async { 2 });
///     a.await.unwrap() + b.await.unwrap()
/// });
/// assert_eq!(answer, 42);
/// ```
pub struct Executor {
    handle: Handle,
    threads: Vec<thread::JoinHandle<()>>,
    /// Set once `State::shutdown` ran (by `shutdown_timeout`), so that the drop does not
    /// run it again.
    shut_down: bool,
}

impl Default for Executor {
    fn default() -> Executor {
        Executor::new()
    }
}

impl Executor {
    /// An executor with the default settings ([`Builder::new`]).
    ///
    /// # Panics
    /// If the worker threads cannot be started.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// assert_eq!(ex.block_on(async { 1 }), 1);
    /// ```
    pub fn new() -> Executor {
        Builder::new()
            .build()
            .unwrap_or_else(|e| panic!("filch: cannot start the executor's worker threads: {e}"))
    }

    /// A [`Builder`] to configure an executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// # drop(ex);
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// A handle that spawns onto this executor; it does not keep the threads alive.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let handle = ex.handle();
    /// let out = std::thread::spawn(move || handle.spawn(async { 5 })).join().unwrap();
    /// assert_eq!(ex.block_on(out).unwrap(), 5);
    /// ```
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Spawns `future` onto the workers; see [`Handle::spawn`].
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let h = ex.spawn(async { "done" });
    /// assert_eq!(ex.block_on(h).unwrap(), "done");
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Polls `future` to completion on the calling thread. Inside it, [`crate::spawn`],
    /// [`Handle::current`] and the `par_*` loops use this executor.
    ///
    /// # Panics
    /// On a worker thread of a filch executor (use `.await` there).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(async { filch::spawn(async { 3 }).await.unwrap() });
    /// assert_eq!(v, 3);
    /// ```
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// The counters of every worker.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// assert_eq!(ex.stats().workers.len(), 2);
    /// ```
    pub fn stats(&self) -> Stats {
        self.handle.stats()
    }

    /// A snapshot of the executor's live tasks: id, name, spawn location, state, polls and
    /// times; see [`TaskDump`] for which tasks it lists, and `println!("{dump}")` for a table.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = filch::task::Builder::new()
    ///     .name("forever")
    ///     .spawn_on(std::future::pending::<()>(), &ex.handle())
    ///     .unwrap();
    /// let dump = ex.dump();
    /// assert_eq!(dump.tasks.len(), 1);
    /// assert_eq!(dump.tasks[0].id, task.id());
    /// task.abort();
    /// ```
    pub fn dump(&self) -> TaskDump {
        self.handle.dump()
    }

    /// The number of worker threads.
    ///
    /// ```
    /// assert_eq!(filch::Executor::builder().worker_threads(3).build().unwrap().worker_threads(), 3);
    /// ```
    pub fn worker_threads(&self) -> usize {
        self.handle.state.num_workers()
    }

    /// Makes this executor the current one on this thread until the guard is dropped:
    /// [`crate::spawn`], the loops, and the IO objects and timers made meanwhile go to it.
    /// Guards nest; drop them in the reverse order of their making.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = {
    ///     let _guard = ex.enter();
    ///     filch::spawn(async { 5 }) // on `ex`, not on the global executor
    /// };
    /// assert_eq!(ex.block_on(task).unwrap(), 5);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the executor down as dropping it does, then waits at most `timeout` for the
    /// blocking-pool jobs that are still running (those that take longer are left to
    /// finish on their threads, detached).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ex = filch::Executor::new();
    /// let job = ex.spawn_blocking(|| std::thread::sleep(Duration::from_millis(20)));
    /// # let _ = job;
    /// ex.shutdown_timeout(Duration::from_secs(5)); // returns once the job has finished
    /// ```
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.shut_down(Some(timeout));
    }

    /// Shuts the executor down as dropping it does (every task's future is dropped before
    /// it returns), without waiting for the blocking-pool jobs that are still running.
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let (tx, rx) = std::sync::mpsc::channel::<()>();
    /// let job = ex.spawn_blocking(move || rx.recv());
    /// # let _ = job;
    /// ex.shutdown_background(); // does not wait for the job, which waits for `tx`
    /// drop(tx);
    /// ```
    pub fn shutdown_background(self) {
        drop(self);
    }

    /// Runs `f` on this executor's blocking pool, never on a worker; see
    /// [`crate::spawn_blocking`].
    ///
    /// ```
    /// let ex = filch::Executor::new();
    /// let sum = ex.spawn_blocking(|| (1..=10u32).sum::<u32>());
    /// assert_eq!(ex.block_on(sum).unwrap(), 55);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// [`par_range`](crate::par_range) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// ex.block_on(ex.par_range(0..100, |i| assert!(i < 100)));
    /// ```
    pub fn par_range<F>(&self, range: Range<usize>, body: F) -> ParRange
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        self.handle.par_range(range, body)
    }

    /// [`par_map`](crate::par_map) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// assert_eq!(ex.block_on(ex.par_map(0..3, |i| i * 2)), vec![0, 2, 4]);
    /// ```
    pub fn par_map<T, F>(&self, range: Range<usize>, f: F) -> ParMap<T>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        self.handle.par_map(range, f)
    }

    /// [`par_reduce`](crate::par_reduce) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let n = ex.block_on(ex.par_reduce(0..10, || 0usize, |c, _| c + 1, |a, b| a + b));
    /// assert_eq!(n, 10);
    /// ```
    pub fn par_reduce<T, I, F, R>(
        &self,
        range: Range<usize>,
        identity: I,
        fold: F,
        reduce: R,
    ) -> ParReduce<T>
    where
        T: Send + 'static,
        I: Fn() -> T + Send + Sync + 'static,
        F: Fn(T, usize) -> T + Send + Sync + 'static,
        R: Fn(T, T) -> T + Send + Sync + 'static,
    {
        self.handle.par_reduce(range, identity, fold, reduce)
    }

    /// [`par_map_vec`](crate::par_map_vec) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let lens = ex.block_on(ex.par_map_vec(vec!["ab".to_string(), "c".to_string()], |s| s.len()));
    /// assert_eq!(lens, vec![2, 1]);
    /// ```
    pub fn par_map_vec<T, U, F>(&self, items: Vec<T>, f: F) -> ParMapVec<U>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: Fn(T) -> U + Send + Sync + 'static,
    {
        self.handle.par_map_vec(items, f)
    }

    /// [`par_for_each_mut`](crate::par_for_each_mut) on this executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let v = ex.block_on(ex.par_for_each_mut(vec![1, 2, 3], |_, x| *x = -*x));
    /// assert_eq!(v, vec![-1, -2, -3]);
    /// ```
    pub fn par_for_each_mut<T, F>(&self, items: Vec<T>, f: F) -> ParForEachMut<T>
    where
        T: Send + 'static,
        F: Fn(usize, &mut T) + Send + Sync + 'static,
    {
        self.handle.par_for_each_mut(items, f)
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.shut_down(None);
    }
}

impl Executor {
    /// Runs `State::shutdown` unless it ran already (see [`Executor::shutdown_timeout`]).
    fn shut_down(&mut self, wait_for_blocking: Option<Duration>) {
        if self.shut_down {
            return;
        }
        self.shut_down = true;
        let workers = std::mem::take(&mut self.threads);
        self.handle.state.shutdown(workers, wait_for_blocking);
    }
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("worker_threads", &self.worker_threads())
            .field("wake_policy", &self.handle.state.policy)
            .finish()
    }
}

impl Spawn for Executor {
    fn spawn_obj(&self, future: FutureObj<'static, ()>) -> Result<(), SpawnError> {
        self.handle.spawn_obj(future)
    }

    fn status(&self) -> Result<(), SpawnError> {
        self.handle.status()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::{Arc, Weak};

    use super::Builder;

    use crate::state::State;

    fn state_of(ex: &super::Executor) -> Weak<State> {
        Arc::downgrade(ex.handle().state())
    }

    #[test]
    fn state_is_freed_when_the_executor_and_its_tasks_are_gone() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        ex.block_on(async {
            let tasks: Vec<_> = (0..100).map(|i| crate::spawn(async move { i })).collect();
            for t in tasks {
                t.await.unwrap();
            }
        });
        drop(ex);
        assert!(
            state.upgrade().is_none(),
            "the executor's state outlived it and its tasks"
        );
    }

    #[test]
    fn a_join_handle_keeps_the_state_until_it_is_dropped() {
        let ex = Builder::new().worker_threads(1).build().unwrap();
        let state = state_of(&ex);
        let pending = ex.spawn(std::future::pending::<()>());
        let done = ex.spawn(async { 7 });
        while !done.is_finished() {
            std::thread::yield_now();
        }
        drop(ex);
        assert!(
            state.upgrade().is_some(),
            "freed while join handles still reach tasks"
        );
        assert!(crate::block_on(pending).unwrap_err().is_cancelled());
        assert!(state.upgrade().is_some());
        assert_eq!(crate::block_on(done).unwrap(), 7);
        assert!(
            state.upgrade().is_none(),
            "the last task's end did not free the state"
        );
    }

    #[test]
    fn a_waker_held_elsewhere_keeps_the_state_until_it_is_dropped() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        let (tx, rx) = std::sync::mpsc::channel();
        drop(ex.spawn(std::future::poll_fn(move |cx| {
            let _ = tx.send(cx.waker().clone());
            std::task::Poll::<()>::Pending
        })));
        let waker = rx.recv().unwrap();
        drop(ex);
        assert!(state.upgrade().is_some());
        // Waking a task of a dropped executor is harmless.
        waker.wake_by_ref();
        drop(waker);
        drop(rx);
        assert!(state.upgrade().is_none());
    }

    #[test]
    fn spawning_through_a_handle_after_the_executor_is_gone_keeps_the_state_balanced() {
        let ex = Builder::new().worker_threads(2).build().unwrap();
        let state = state_of(&ex);
        let handle = ex.handle();
        drop(ex);
        for _ in 0..3 {
            let late = handle.spawn(async { 1 });
            assert!(crate::block_on(late).unwrap_err().is_cancelled());
            assert!(state.upgrade().is_some(), "freed while a handle holds it");
        }
        drop(handle);
        assert!(
            state.upgrade().is_none(),
            "the handle's drop did not free the state"
        );
    }
}
