//! [`JoinSet`]: a group of tasks with the same output type, awaited in the order they
//! complete (tokio's `JoinSet`).
//!
//! The set is a `FuturesUnordered` of the tasks' `JoinHandle`s, each in a [`Member`] that
//! gives its task's id with the output (the well-kept futures-util
//! type: each handle gets its own waker, so a completion polls only that handle). Dropping
//! the set aborts every task still in it; [`JoinSet::shutdown`] aborts them and waits until
//! every one's future has been dropped.

use std::fmt;
use std::future::Future;
use std::task::{Context, Poll};

use futures::stream::{FuturesUnordered, StreamExt};

use crate::executor::Handle;
use crate::runtime::scheduler::join_handle::JoinHandle;
use crate::runtime::task::abort::AbortHandle;
use crate::runtime::task::id::Id;
use crate::runtime::task::JoinError;

/// A group of spawned tasks with the same output, joined in completion order.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let total = ex.block_on(async {
///     let mut set = filch::JoinSet::new();
///     for i in 0..10u64 {
///         set.spawn(async move { i * i });
///     }
///     let mut total = 0;
///     while let Some(result) = set.join_next().await {
///         total += result.unwrap();
///     }
///     total
/// });
/// assert_eq!(total, 285);
/// ```
pub struct JoinSet<T> {
    tasks: FuturesUnordered<Member<T>>,
}

/// A task of a set: its handle, whose output comes with the task's id.
struct Member<T>(JoinHandle<T>);

impl<T> Future for Member<T> {
    type Output = (Id, Result<T, JoinError>);

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let id = self.0.id();
        std::pin::Pin::new(&mut self.0)
            .poll(cx)
            .map(|result| (id, result))
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> JoinSet<T> {
        JoinSet {
            tasks: FuturesUnordered::new(),
        }
    }
}

impl<T: Send + 'static> JoinSet<T> {
    /// An empty set.
    pub fn new() -> JoinSet<T> {
        JoinSet::default()
    }

    /// Spawns `f` on the current executor (else the global one) as a task of this set.
    #[track_caller]
    pub fn spawn<F>(&mut self, f: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        self.insert(crate::spawn(f))
    }

    /// Spawns `f` on `handle`'s executor as a task of this set.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let mut set = filch::JoinSet::new();
    /// set.spawn_on(async { 1 }, &ex.handle());
    /// assert_eq!(ex.block_on(set.join_next()).unwrap().unwrap(), 1);
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        self.insert(handle.spawn(f))
    }

    /// Runs `f` on the blocking pool of the current executor (else the global one's) as a
    /// task of this set (see [`spawn_blocking`](crate::spawn_blocking)). Aborting it before
    /// it starts keeps it from running; once it runs, it runs to its end.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let sum = ex.block_on(async {
    ///     let mut set = filch::JoinSet::new();
    ///     for i in 1..=3u64 {
    ///         set.spawn_blocking(move || i * 10);
    ///     }
    ///     set.join_all().await.into_iter().sum::<u64>()
    /// });
    /// assert_eq!(sum, 60);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.insert(crate::spawn_blocking(f))
    }

    fn insert(&mut self, task: JoinHandle<T>) -> AbortHandle {
        let abort = task.abort_handle();
        self.tasks.push(Member(task));
        abort
    }

    /// The output of the next task to complete (a panic or a cancellation as the
    /// [`JoinError`]), or `None` once the set is empty.
    ///
    /// Cancel safe: if the future is dropped before it completes, no output is lost.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        let (_, result) = self.tasks.next().await?;
        Some(result)
    }

    /// [`JoinSet::join_next`], with the id of the task that completed: in the `Ok`, and in
    /// the error ([`JoinError::id`]).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// ex.block_on(async {
    ///     let mut set = filch::JoinSet::new();
    ///     let id = set.spawn(async { 5 }).id();
    ///     assert_eq!(set.join_next_with_id().await.unwrap().unwrap(), (id, 5));
    /// });
    /// ```
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let (id, result) = self.tasks.next().await?;
        Some(result.map(|output| (id, output)))
    }

    /// The output of a task that has completed, without waiting: `None` if no task of the
    /// set has completed yet, or if the set is empty. It polls without the cooperative
    /// budget (it cannot yield).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let mut set = filch::JoinSet::new();
    /// set.spawn_on(async { 7 }, &ex.handle());
    /// let seven = loop {
    ///     if let Some(result) = set.try_join_next() {
    ///         break result.unwrap();
    ///     }
    ///     std::thread::yield_now();
    /// };
    /// assert_eq!(seven, 7);
    /// assert!(set.try_join_next().is_none());
    /// ```
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        match crate::runtime::coop::unconstrained(|| self.tasks.poll_next_unpin(&mut cx)) {
            Poll::Ready(next) => next.map(|(_, result)| result),
            Poll::Pending => None,
        }
    }

    /// [`JoinSet::try_join_next`], with the id of the task that completed.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let mut set = filch::JoinSet::new();
    /// let id = set.spawn_on(async { 7 }, &ex.handle()).id();
    /// let next = loop {
    ///     if let Some(result) = set.try_join_next_with_id() {
    ///         break result.unwrap();
    ///     }
    ///     std::thread::yield_now();
    /// };
    /// assert_eq!(next, (id, 7));
    /// ```
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        match crate::runtime::coop::unconstrained(|| self.tasks.poll_next_unpin(&mut cx)) {
            Poll::Ready(next) => next.map(|(id, result)| result.map(|output| (id, output))),
            Poll::Pending => None,
        }
    }

    /// Waits for every task and returns their outputs, in the order they complete. A task
    /// that panicked resumes its panic here (the other tasks are aborted when the set is
    /// dropped on the way out); a cancelled task makes this panic with its error.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// let mut outputs = ex.block_on(async {
    ///     let set: filch::JoinSet<u32> = (0..4u32).map(|i| async move { i * i }).collect();
    ///     set.join_all().await
    /// });
    /// outputs.sort();
    /// assert_eq!(outputs, [0, 1, 4, 9]);
    /// ```
    pub async fn join_all(mut self) -> Vec<T> {
        let mut outputs = Vec::with_capacity(self.len());
        while let Some(result) = self.join_next().await {
            match result {
                Ok(output) => outputs.push(output),
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("filch: JoinSet::join_all: {err}"),
            }
        }
        outputs
    }

    /// Removes every task from the set without aborting it: the tasks go on running, and
    /// their outputs are dropped when they complete.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let mut set = filch::JoinSet::new();
    /// set.spawn_on(async move { tx.send(1).unwrap() }, &ex.handle());
    /// set.detach_all();
    /// drop(set); // does not abort the detached task
    /// assert_eq!(rx.recv().unwrap(), 1);
    /// ```
    pub fn detach_all(&mut self) {
        // Dropping a `JoinHandle` detaches its task.
        drop(std::mem::take(&mut self.tasks));
    }

    /// [`JoinSet::join_next`] as a poll function.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.tasks
            .poll_next_unpin(cx)
            .map(|next| next.map(|(_, result)| result))
    }

    /// The number of tasks in the set (completed ones stay until joined).
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Aborts every task in the set. They stay in it: [`JoinSet::join_next`] gives their
    /// cancelled errors (or the outputs of those that completed first).
    pub fn abort_all(&mut self) {
        for task in self.tasks.iter() {
            task.0.abort();
        }
    }

    /// Aborts every task and waits until every one's future has been dropped; the set is
    /// empty afterwards.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// ex.block_on(async {
    ///     let mut set = filch::JoinSet::new();
    ///     set.spawn(std::future::pending::<()>());
    ///     set.shutdown().await;
    ///     assert!(set.is_empty());
    /// });
    /// ```
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

/// Spawns each future as a task of the set ([`JoinSet::spawn`]).
impl<T, F> Extend<F> for JoinSet<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    fn extend<I: IntoIterator<Item = F>>(&mut self, futures: I) {
        for future in futures {
            self.spawn(future);
        }
    }
}

/// A set of the futures, each spawned as a task ([`JoinSet::spawn`]).
impl<T, F> FromIterator<F> for JoinSet<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(futures: I) -> JoinSet<T> {
        let mut set = JoinSet::new();
        set.extend(futures);
        set
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        for task in self.tasks.iter() {
            task.0.abort();
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet")
            .field("len", &self.tasks.len())
            .finish()
    }
}
