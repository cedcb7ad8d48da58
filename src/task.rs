//! Tasks: how a future becomes an `async-task` runnable, and the [`JoinHandle`] /
//! [`JoinError`] a spawner gets back.
//!
//! Each task carries a [`TaskMeta`] (its executor, the worker it last ran on, its abort
//! flag) and runs inside a [`TaskFuture`], which
//! - catches a panic of the user's future and turns it into a panic [`JoinError`], so the
//!   worker thread survives;
//! - checks the abort flag before every poll, so an aborted task completes with a cancelled
//!   error, and async-task drops the user's future before the output is published (the
//!   `JoinHandle` sees the error only after the destructors ran);
//! - registers the task in the live-task registry the first time it returns `Pending` (a
//!   task that waits for a wake-up sits in no queue, so only the registry can reach it at
//!   shutdown), and removes it when it is dropped.
//!
//! Cancellation by shutdown drops the `Runnable`, which makes async-task drop the future and
//! complete the task without output: the `JoinHandle` turns that into a cancelled error.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use async_task::{FallibleTask, ScheduleInfo, WithInfo};
use pin_project_lite::pin_project;

use crate::registry::Slot;
use crate::shared::Shared;
use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// `TaskMeta::last_worker` of a task that has not run yet.
pub(crate) const NO_WORKER: usize = usize::MAX;

/// The runnable type every queue of filch holds.
pub(crate) type Runnable = async_task::Runnable<TaskMeta>;

/// Per-task data that both the runnable and the join handle reach.
pub(crate) struct TaskMeta {
    /// The executor the task belongs to. A plain pointer: the executor's state stays alive
    /// while any task exists through the count in `task_count.rs` (no per-task reference
    /// count on a shared cache line).
    shared: NonNull<Shared>,
    /// The index of the worker that polled the task last, or [`NO_WORKER`]. A placement
    /// hint only: written Relaxed by the polling worker, read Relaxed by the scheduler.
    pub(crate) last_worker: AtomicUsize,
    /// Set by [`JoinHandle::abort`] and read before every poll (see `abort` for the
    /// orderings).
    aborted: AtomicBool,
    /// Where the task is registered (`Slot::to_bits`), or `Slot::NONE`: written by the poll
    /// that registers it and by its future's drop, read by `JoinHandle::abort`.
    slot: AtomicU64,
}

// SAFETY: `shared` points to a `Shared` (which is Send + Sync) that outlives the metadata
// (see `TaskMeta::shared`); the other fields are atomics.
unsafe impl Send for TaskMeta {}
// SAFETY: as above; `&TaskMeta` only gives shared access to `Shared` and to atomics.
unsafe impl Sync for TaskMeta {}

impl TaskMeta {
    /// The metadata of a new task of `shared`; counts the task as alive.
    pub(crate) fn new(shared: &Arc<Shared>) -> TaskMeta {
        if shared.tasks.created(shared.current_worker()) {
            // The executor and all its tasks were gone: this task takes a new anchor.
            Shared::make_anchor(shared);
        }
        TaskMeta {
            shared: NonNull::from(&**shared),
            last_worker: AtomicUsize::new(NO_WORKER),
            aborted: AtomicBool::new(false),
            slot: AtomicU64::new(Slot::NONE.to_bits()),
        }
    }

    /// The task's executor.
    pub(crate) fn shared(&self) -> &Shared {
        // SAFETY: `TaskMeta::new` counted this task in `shared.tasks`, and only `Drop`
        // below uncounts it; while it is counted, the tasks' anchor reference keeps the
        // `Shared` allocation alive (`task_count.rs`).
        unsafe { self.shared.as_ref() }
    }

    /// A reference-counted handle to the task's executor, for callers that may drop the
    /// task (and so, perhaps, the last thing keeping the executor's state) while they use it.
    pub(crate) fn shared_arc(&self) -> Arc<Shared> {
        let ptr: *const Shared = self.shared();
        // SAFETY: `ptr` came from an `Arc<Shared>` (`Arc::as_ptr`, see `new`) whose
        // allocation is alive (see `shared`), so its strong count is at least one: the
        // anchor. We add one for the `Arc` we make.
        unsafe {
            Arc::increment_strong_count(ptr);
            Arc::from_raw(ptr)
        }
    }

    /// Whether [`JoinHandle::abort`] was called. Acquire: pairs with the Release store there.
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }
}

impl Drop for TaskMeta {
    fn drop(&mut self) {
        let shared = self.shared();
        if shared.tasks.destroyed(shared.current_worker()) {
            // SAFETY: this was the last task and every bias is gone: nothing but the anchor
            // keeps this `Shared` through the task count, and we release it exactly once
            // (the count reaches zero once). `shared` is not used after this call.
            unsafe { Shared::release_anchor(self.shared.as_ptr()) };
        }
    }
}

pin_project! {
    /// The future async-task runs: the user's future plus panic capture, abort and
    /// registry bookkeeping (see the module docs).
    struct TaskFuture<F> {
        #[pin]
        future: F,
        meta: &'static TaskMeta,
        registered: bool,
    }

    impl<F> PinnedDrop for TaskFuture<F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if *this.registered {
                // Relaxed: this thread wrote the slot, or received the task from the thread
                // that did through a queue (which orders the two).
                let slot = Slot::from_bits(this.meta.slot.swap(Slot::NONE.to_bits(), Ordering::Relaxed));
                this.meta.shared().registry.remove(slot);
            }
        }
    }
}

impl<F: Future> Future for TaskFuture<F> {
    type Output = Result<F::Output, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // Acquire: pairs with the (SeqCst) store in `JoinHandle::abort`.
        if this.meta.aborted.load(Ordering::Acquire) {
            return Poll::Ready(Err(JoinError::cancelled()));
        }
        let future = this.future;
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => {
                if !*this.registered {
                    // First wait for a wake-up: from now on only the registry can reach the
                    // task, at shutdown or for an abort. (A task that completes in its first
                    // poll never pays for the registry.) `cx.waker()` is the task's own waker.
                    let meta = this.meta;
                    let shared = meta.shared();
                    match shared
                        .registry
                        .register(shared.registry_shard(), cx.waker().clone())
                    {
                        Some(slot) => {
                            *this.registered = true;
                            // SeqCst store, then SeqCst load: pairs with `abort`'s store of
                            // the flag and load of the slot. Either `abort` sees the slot and
                            // wakes us through the registry, or we see the flag here.
                            meta.slot.store(slot.to_bits(), Ordering::SeqCst);
                            if meta.aborted.load(Ordering::SeqCst) {
                                cx.waker().wake_by_ref();
                            }
                        }
                        // The registry is closed: the executor is shutting down. Schedule the
                        // task, which drops it.
                        None => cx.waker().wake_by_ref(),
                    }
                }
                Poll::Pending
            }
            Err(payload) => Poll::Ready(Err(JoinError::panic(payload))),
        }
    }
}

/// The schedule function of every task: hands the runnable to its executor.
fn schedule(runnable: Runnable, info: ScheduleInfo) {
    crate::worker::with_current(|worker| match worker {
        // On one of the task's own workers: that worker's context keeps the executor alive
        // for the whole call, even if the runnable (and with it the task's reference to the
        // executor) is dropped inside it.
        Some(worker) if std::ptr::eq(&**worker.shared(), runnable.metadata().shared()) => {
            worker.shared().schedule_on_worker(worker, runnable, info)
        }
        // Elsewhere: hold our own reference for the same reason.
        _ => {
            let shared = runnable.metadata().shared_arc();
            shared.schedule_remote(runnable)
        }
    })
}

/// Spawns `future` onto `shared`.
pub(crate) fn spawn<F>(shared: &Arc<Shared>, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_with(shared, future, Runnable::schedule)
}

/// Spawns `future` onto `shared` with its first run placed on worker `worker` (the helper
/// tasks of the data-parallel loops). Later wake-ups follow the wake policy.
pub(crate) fn spawn_on_worker<F>(
    shared: &Arc<Shared>,
    worker: usize,
    future: F,
) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_with(shared, future, |runnable| {
        shared.push_to_worker(worker, runnable)
    })
}

/// Builds the task, then hands its first runnable to `place`.
fn spawn_with<F>(
    shared: &Arc<Shared>,
    future: F,
    place: impl FnOnce(Runnable),
) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let meta = TaskMeta::new(shared);
    let builder = async_task::Builder::new().metadata(meta);
    let make_future = move |meta: &'static TaskMeta| TaskFuture {
        future,
        meta,
        registered: false,
    };
    // SAFETY: `spawn_unchecked` asks that a non-Send future be run and dropped on its own
    // thread, that non-'static borrows outlive the Runnable, and that a non-Send schedule
    // function be used on its own thread. `F` is Send + 'static, the schedule function is a
    // Send + Sync fn item, and the only borrow is `meta`, the task's own metadata:
    // async-task keeps it in the task allocation until after the future is dropped, and
    // `TaskFuture` uses it only in `poll` and `drop`. The `'static` we give the reference
    // never escapes `TaskFuture`.
    let (runnable, task) = unsafe { builder.spawn_unchecked(make_future, WithInfo(schedule)) };
    let handle = JoinHandle::from_task(task);
    if shared.is_shut_down() {
        // Spawned after shutdown: the future is dropped here and now, and the handle
        // reports cancelled. (A spawn racing with shutdown is dropped by the schedule
        // function or the shutdown drain instead, moments later.)
        drop(runnable);
    } else {
        place(runnable);
    }
    handle
}

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
#[must_use = "dropping a JoinHandle detaches the task; await it to get its output"]
pub struct JoinHandle<T> {
    task: Option<FallibleTask<Result<T, JoinError>, TaskMeta>>,
    /// The task's metadata, for `abort` (`FallibleTask` does not expose it). Valid while
    /// `task` is `Some`: the task handle keeps the task allocation, and so the metadata.
    meta: *const TaskMeta,
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
    /// The handle of a task built outside [`spawn`] (the blocking pool's jobs): `task` and
    /// `runnable` must belong to the same task, whose output is already a `Result`.
    pub(crate) fn from_task(
        task: async_task::Task<Result<T, JoinError>, TaskMeta>,
    ) -> JoinHandle<T> {
        JoinHandle {
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
        // SAFETY: `self.task` is `Some`, so the task allocation, and its metadata, are alive
        // (see the field docs).
        let meta = unsafe { &*self.meta };
        // SeqCst store, then SeqCst load: pairs with the registering poll in
        // `TaskFuture::poll` (its store of the slot and load of the flag). The flag is also
        // read (Acquire) before every poll, so a task that is queued or running sees it at
        // its next poll without being woken.
        meta.aborted.store(true, Ordering::SeqCst);
        let slot = Slot::from_bits(meta.slot.load(Ordering::SeqCst));
        if slot != Slot::NONE {
            // Registered: it may be waiting for a wake-up that never comes.
            meta.shared().registry.wake(slot);
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
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let task = self
            .task
            .as_mut()
            .expect("filch: JoinHandle polled after it completed");
        match Pin::new(task).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(result) => {
                self.task = None;
                Poll::Ready(result.unwrap_or_else(|| Err(JoinError::cancelled())))
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
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Why a task gave no output: it was cancelled, or it panicked.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let err = ex.block_on(ex.spawn(async { panic!("boom") })).unwrap_err();
/// assert!(err.is_panic());
/// assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
/// ```
pub struct JoinError {
    repr: Repr,
}

enum Repr {
    Cancelled,
    /// The payload behind a mutex only so that `JoinError` is `Sync` as well as `Send`.
    Panic(Mutex<Box<dyn Any + Send + 'static>>),
}

impl JoinError {
    pub(crate) fn cancelled() -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
        }
    }

    pub(crate) fn panic(payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(Mutex::new(payload)),
        }
    }

    /// Whether the task was cancelled (aborted, or dropped by shutdown).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(std::future::pending::<()>());
    /// handle.abort();
    /// assert!(ex.block_on(handle).unwrap_err().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// assert!(ex.block_on(ex.spawn(async { panic!() })).unwrap_err().is_panic());
    /// ```
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to resume with [`std::panic::resume_unwind`].
    ///
    /// # Panics
    /// If the error is not a panic ([`JoinError::is_panic`] is false).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let err = ex.block_on(ex.spawn(async { std::panic::panic_any(7u32) })).unwrap_err();
    /// assert_eq!(*err.into_panic().downcast::<u32>().unwrap(), 7);
    /// ```
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self.repr {
            Repr::Panic(payload) => payload.into_inner().unwrap_or_else(|e| e.into_inner()),
            Repr::Cancelled => {
                panic!("filch: JoinError::into_panic called on a cancelled task's error")
            }
        }
    }

    fn panic_message(&self) -> Option<String> {
        match &self.repr {
            Repr::Panic(payload) => {
                let payload = payload.lock().unwrap_or_else(|e| e.into_inner());
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
            }
            Repr::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("task was cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "task panicked with message {msg:?}"),
            (Repr::Panic(_), None) => f.write_str("task panicked"),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("JoinError::Cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "JoinError::Panic({msg:?})"),
            (Repr::Panic(_), None) => f.write_str("JoinError::Panic(..)"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(err: JoinError) -> std::io::Error {
        std::io::Error::other(err.to_string())
    }
}
