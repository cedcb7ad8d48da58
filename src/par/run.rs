//! [`run`] and [`Run`]: a synchronous computation awaited without blocking the awaiting task,
//! on the same workers (what tokio-rayon's `spawn` does with two pools), and cancelled when the
//! future is dropped.
//!
//! The closure runs as a whole fork-join call on a worker (`runtime/scheduler/forkjoin/inject.rs`):
//! its `join`s, scopes and parallel iterators spread over the other workers. Dropping the
//! future cancels the call: its root is marked and the loop ticker's epoch moved at once, so
//! every thread working for it unwinds at its next piece (a `join`, or a parallel iterator's
//! next chunk), and no piece of it starts after that; the pieces already running finish.

use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::Result as Outcome;

use futures::task::AtomicWaker;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin::inject::spawn_call;
use crate::runtime::scheduler::forkjoin::node::Root;
use crate::runtime::time::tick;
use crate::util::sync::Mutex;

/// Awaits `f`, run on a worker of the current executor (else the global one) as a whole
/// fork-join call: `f` may block its worker with `join`, `scope` and parallel iterators, which
/// spread over the other workers, while the awaiting task waits without blocking its own.
///
/// The future is lazy: nothing starts until it is first polled. A panic in `f` is resumed in
/// the awaiting task. Dropping the future before it completes cancels `f`'s parallel work:
/// no new piece of it starts, and its `join`s and parallel iterators unwind at their next
/// piece (the pieces already running finish); rayon cannot cancel.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let data: Vec<u64> = (1..=1000).collect();
/// let total = ex.block_on(async move {
///     filch::par::run(move || {
///         let (a, b) = data.split_at(data.len() / 2);
///         let (a, b) = filch::par::join(|| a.iter().sum::<u64>(), || b.iter().sum::<u64>());
///         a + b
///     })
///     .await
/// });
/// assert_eq!(total, 500_500);
/// ```
pub fn run<F, R>(f: F) -> Run<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    Run {
        stage: Stage::Lazy(Box::new(f)),
    }
}

/// The future of [`run`]: resolves to the closure's value.
#[must_use = "a `par::run` future does nothing unless awaited"]
pub struct Run<R> {
    stage: Stage<R>,
}

enum Stage<R> {
    /// Not polled yet.
    Lazy(Box<dyn FnOnce() -> R + Send>),
    /// Handed to a worker.
    Running(Arc<Shared<R>>),
    /// The value was handed out, or the panic resumed.
    Done,
}

/// What the call and the future share.
struct Shared<R> {
    /// The call's outcome once it ended; `None` inside if it never ran (shut down).
    outcome: Mutex<Option<Option<Outcome<R>>>>,
    waker: AtomicWaker,
    root: Arc<Root>,
}

impl<R> Shared<R> {
    fn end(&self, outcome: Option<Outcome<R>>) {
        *self.outcome.lock() = Some(outcome);
        self.waker.wake();
    }
}

/// Ends the call as never run when dropped unrun (the executor shut down first).
struct EndOnDrop<R>(Option<Arc<Shared<R>>>);

impl<R> Drop for EndOnDrop<R> {
    fn drop(&mut self) {
        if let Some(shared) = self.0.take() {
            shared.end(None);
        }
    }
}

impl<R: Send + 'static> Future for Run<R> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        if let Stage::Lazy(_) = self.stage {
            let Stage::Lazy(f) = std::mem::replace(&mut self.stage, Stage::Done) else {
                unreachable!("matched above")
            };
            let shared = Arc::new(Shared {
                outcome: Mutex::new(None),
                waker: AtomicWaker::new(),
                root: Root::new(),
            });
            shared.waker.register(cx.waker());
            let mut end = EndOnDrop(Some(Arc::clone(&shared)));
            let body = Box::new(move |_: &_| {
                let outcome = catch_unwind(AssertUnwindSafe(f));
                if let Some(shared) = end.0.take() {
                    shared.end(Some(outcome));
                }
            });
            spawn_call(&current_or_global_state(), Arc::clone(&shared.root), body);
            self.stage = Stage::Running(shared);
        }
        let Stage::Running(shared) = &self.stage else {
            panic!("filch: a `par::run` future was polled after it completed");
        };
        shared.waker.register(cx.waker());
        let Some(outcome) = shared.outcome.lock().take() else {
            return Poll::Pending;
        };
        self.stage = Stage::Done;
        match outcome {
            Some(Ok(value)) => Poll::Ready(value),
            Some(Err(panic)) => resume_unwind(panic),
            None => panic!("filch: the executor shut down before it ran this `par::run` call"),
        }
    }
}

impl<R> Drop for Run<R> {
    fn drop(&mut self) {
        if let Stage::Running(shared) = &self.stage {
            // Cancel the call; every thread working for it looks up at once.
            shared.root.cancel();
            tick::bump();
        }
    }
}

impl<R> fmt::Debug for Run<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = match self.stage {
            Stage::Lazy(_) => "not started",
            Stage::Running(_) => "running",
            Stage::Done => "done",
        };
        f.debug_struct("Run").field("stage", &stage).finish()
    }
}
