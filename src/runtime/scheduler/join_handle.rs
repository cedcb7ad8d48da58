//! [`JoinHandle`]: the spawner's side of a task (its output, `abort`, `is_finished`).
//!
//! A handle that gets no output from async-task (the task was dropped without completing,
//! at shutdown) reports a cancelled error, or the panic of the future's destructor if that
//! drop panicked (kept in the task's metadata by `TaskFuture`).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_task::FallibleTask;

use crate::runtime::coop;
use crate::runtime::scheduler::state::State;
use crate::runtime::task::abort::AbortHandle;
use crate::runtime::task::id::Id;
use crate::runtime::task::{JoinError, TaskMeta, TaskOutput};

/// An owned permission to await a spawned task's output.
///
/// `JoinHandle<T>` is a future resolving to `Result<T, JoinError>`: `Ok` with the task's
/// output, or an error if the task panicked or was cancelled (by [`JoinHandle::abort`] or
/// by the executor shutting down). Dropping the handle detaches the task: it keeps running.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let handle = ex.spawn(async { 6 * 7 });
/// assert_eq!(ex.block_on(handle).unwrap(), 42);
/// ```
pub struct JoinHandle<T> {
    task: Option<FallibleTask<TaskOutput<T>, TaskMeta<State>>>,
    /// The task's metadata, for `abort` (`FallibleTask` does not expose it). Valid while
    /// `task` is `Some`: the task handle keeps the task allocation, and so the metadata.
    meta: *const TaskMeta<State>,
    /// The task's id (kept here: the metadata may be gone once the output is taken).
    id: Id,
}

// SAFETY: the fields are a `FallibleTask` (Send when its output is Send and the metadata
// Send + Sync) and `meta`, used only to reach the task's metadata through a shared
// reference; `TaskMeta` is Sync.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` allows only `abort` and `is_finished`, which touch the metadata's
// atomics, the registry (behind its locks) and `FallibleTask::is_finished`, all safe to
// call from several threads.
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// The handle of a task built by `spawner.rs`.
    pub(crate) fn from_task(
        task: async_task::Task<TaskOutput<T>, TaskMeta<State>>,
    ) -> JoinHandle<T> {
        JoinHandle {
            id: task.metadata().id(),
            meta: task.metadata(),
            task: Some(task.fallible()),
        }
    }

    /// Cancels the task. Its future is dropped, at once if it is waiting, or after its
    /// current poll if it is running; awaiting the handle then gives a cancelled
    /// [`JoinError`] (unless the task had already completed). Aborting twice is harmless.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(std::future::pending::<()>());
    /// handle.abort();
    /// let err = ex.block_on(handle).unwrap_err();
    /// assert!(err.is_cancelled());
    /// ```
    pub fn abort(&self) {
        if self.task.is_none() {
            // The output was already taken: nothing left to cancel.
            return;
        }
        self.meta().abort();
    }

    /// A clonable handle that can cancel the task without keeping it alive (and without
    /// the output); see [`AbortHandle`].
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let task = ex.spawn(std::future::pending::<()>());
    /// let abort = task.abort_handle();
    /// assert!(!abort.is_finished());
    /// abort.abort();
    /// assert!(ex.block_on(task).unwrap_err().is_cancelled());
    /// assert!(abort.is_finished());
    /// ```
    pub fn abort_handle(&self) -> AbortHandle {
        match self.task {
            Some(_) => self.meta().abort_handle(),
            None => AbortHandle::finished(self.id),
        }
    }

    /// Whether the task has completed (with output, a panic or a cancellation).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(async {});
    /// while !handle.is_finished() {
    ///     std::thread::yield_now();
    /// }
    /// ex.block_on(handle).unwrap();
    /// ```
    pub fn is_finished(&self) -> bool {
        self.task.as_ref().is_none_or(|task| task.is_finished())
    }

    /// The task's id, unique in the process ([`crate::runtime::task::id::Id`]); the task itself sees it
    /// as [`crate::task::id`].
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(async { filch::task::id() });
    /// let id = handle.id();
    /// assert_eq!(ex.block_on(handle).unwrap(), id);
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }
}

impl<T> JoinHandle<T> {
    /// The task's metadata.
    ///
    /// # Panics
    /// If the output was already taken (the metadata may be gone).
    fn meta(&self) -> &TaskMeta<State> {
        assert!(
            self.task.is_some(),
            "filch: JoinHandle used after it completed"
        );
        // SAFETY: `self.task` is `Some`, so the task allocation, and its metadata, are alive
        // (see the field docs).
        unsafe { &*self.meta }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    /// Spends one unit of the awaiting task's cooperative budget when it returns `Ready`,
    /// and yields instead once that budget is spent (as tokio's does), so that a task
    /// joining many finished tasks lets its worker's other tasks run.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        std::task::ready!(coop::poll_proceed(cx));
        let task = self
            .task
            .as_mut()
            .expect("filch: JoinHandle polled after it completed");
        match Pin::new(task).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(output)) => {
                self.task = None;
                coop::spend();
                Poll::Ready(output.into_result())
            }
            Poll::Ready(None) => {
                // Dropped without output (shutdown), perhaps with a panicking destructor.
                let panic = self.meta().take_drop_panic();
                let id = self.id;
                self.task = None;
                coop::spend();
                Poll::Ready(Err(panic.map_or_else(
                    || JoinError::cancelled(id),
                    |panic| JoinError::panic(panic, id),
                )))
            }
        }
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.detach();
        }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}
