//! [`Builder`]: tokio's `task::Builder`, a task with a name (shown by the task dump and
//! slow-poll reports).
//!
//! A task made by a `Builder` registers in the executor's live-task registry at its spawn
//! (one uncontended lock of the spawning thread's shard), so that a dump lists it from the
//! start, queued or in its first poll; plain `spawn`s register at their first wait.

use std::future::Future;
use std::io;
use std::panic::Location;

use crate::executor::Handle;
use crate::runtime::scheduler::join_handle::JoinHandle;
use crate::runtime::scheduler::spawner::Options;

/// Spawns a task with a name: tokio's `task::Builder`. The name and the spawn location show
/// in [`Executor::dump`](crate::Executor::dump) and in slow-poll reports.
///
/// The `spawn*` methods return `io::Result` (as tokio's do); filch's never fail.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let task = filch::task::Builder::new()
///     .name("answer")
///     .spawn_on(async { 42 }, &ex.handle())
///     .unwrap();
/// assert_eq!(ex.block_on(task).unwrap(), 42);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Builder<'a> {
    name: Option<&'a str>,
}

impl<'a> Builder<'a> {
    /// A builder of an unnamed task.
    ///
    /// ```
    /// let task = filch::task::Builder::new().spawn(async { 1 }).unwrap();
    /// assert_eq!(filch::block_on(task).unwrap(), 1);
    /// ```
    pub fn new() -> Builder<'a> {
        Builder { name: None }
    }

    /// Names the task (copied into the task).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = filch::task::Builder::new()
    ///     .name("sleeper")
    ///     .spawn_on(std::future::pending::<()>(), &ex.handle())
    ///     .unwrap();
    /// let dump = ex.dump();
    /// assert!(dump.tasks.iter().any(|t| t.name.as_deref() == Some("sleeper")));
    /// task.abort();
    /// ```
    pub fn name(self, name: &'a str) -> Builder<'a> {
        Builder { name: Some(name) }
    }

    fn options(self, spawned_at: &'static Location<'static>) -> Options<'a> {
        Options {
            spawned_at,
            name: self.name,
            register_at_spawn: true,
            kind: "task",
        }
    }

    /// Spawns `future` on the current executor, else the global one (as
    /// [`filch::spawn`](crate::spawn)).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let out = ex.block_on(async {
    ///     filch::task::Builder::new().name("child").spawn(async { 5 }).unwrap().await
    /// });
    /// assert_eq!(out.unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn<F>(self, future: F) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let options = self.options(Location::caller());
        Ok(crate::executor::global::spawn_with(future, options))
    }

    /// Spawns `future` on `handle`'s executor.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = filch::task::Builder::new().spawn_on(async { 3 }, &ex.handle()).unwrap();
    /// assert_eq!(ex.block_on(task).unwrap(), 3);
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(self, future: F, handle: &Handle) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let options = self.options(Location::caller());
        Ok(crate::runtime::scheduler::spawner::spawn_with(
            handle.state(),
            future,
            options,
        ))
    }

    /// Runs `f` on the blocking pool of the current executor, else the global one's (as
    /// [`filch::spawn_blocking`](crate::spawn_blocking)).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let out = ex.block_on(async {
    ///     filch::task::Builder::new().name("io").spawn_blocking(|| 7).unwrap().await
    /// });
    /// assert_eq!(out.unwrap(), 7);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let options = self.options(Location::caller());
        Ok(crate::executor::global::spawn_blocking_with(f, options))
    }
}
