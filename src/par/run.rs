//! [`run`] and [`Run`]: a synchronous computation awaited without blocking the awaiting task,
//! on the same workers (what tokio-rayon's `spawn` does with two pools), and cancelled when the
//! future is dropped. The awaited loops (`par/loops/`) are `Run`s too.
//!
//! The closure runs as a whole fork-join call on a worker (`runtime/scheduler/forkjoin/inject.rs`):
//! its `join`s, scopes and parallel iterators spread over the other workers. Dropping the
//! future cancels the call: its root is marked and the epoch moved at once, so
//! every thread working for it unwinds at its next piece (a `join`, or a parallel iterator's
//! next chunk), and no piece of it starts after that; the pieces already running finish. The
//! executor's shutdown stops a running call the same way (`FjThread::check_in`), and the
//! future then panics with a message that says so.
//!
//! The future is lazy: nothing starts until its first poll. [`run`] picks its executor then
//! (the current one of the polling thread, else the global one); the loops' methods of
//! `Handle` and `Executor` name theirs ([`On`]). A call that needs no executor (a loop over an
//! empty range) runs on the polling thread at that first poll ([`Run::at_once`]).
//!
//! **Invariant:** a `Run` gives its value at most once, and never after it resumed a panic:
//! it is then `Failed`, and a further poll panics with a message that says so.

use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::Result as Outcome;

use futures::task::AtomicWaker;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin::{spawn_call, Cancelled, Root};
use crate::runtime::scheduler::state::State;
use crate::runtime::time::epoch;
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
#[track_caller]
pub fn run<F, R>(f: F) -> Run<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    Run::on(On::Current, "par::run", f)
}

/// Where a [`Run`] runs its call: on a given executor (the loops' methods of `Handle` and
/// `Executor`), or on the current executor of the thread that first polls it, else the
/// global one ([`run`], the loops' free functions).
pub(crate) enum On {
    Fixed(Arc<State>),
    Current,
}

/// The future of [`run`]: resolves to the closure's value.
#[must_use = "a `par::run` future does nothing unless awaited"]
pub struct Run<R> {
    stage: RunStage<R>,
    /// The call as tokio-console sees it: an async op of the task that polls the future
    /// (`runtime/observe/console/par_call.rs`).
    #[cfg(feature = "console")]
    console: crate::runtime::observe::console::par_call::ParCall,
}

/// The call `source` (`par::run`, a loop's name) traced for tokio-console, made at the
/// caller's location.
#[cfg(feature = "console")]
#[track_caller]
fn traced_call(source: &'static str) -> crate::runtime::observe::console::par_call::ParCall {
    crate::runtime::observe::console::par_call::ParCall::new(
        source,
        Some(std::panic::Location::caller()),
    )
}

/// A call not started yet.
type RunClosure<R> = Box<dyn FnOnce() -> R + Send>;

enum RunStage<R> {
    /// Not polled yet: the call and where it will run.
    Lazy(On, RunClosure<R>),
    /// Not polled yet: a call that runs on the polling thread at the first poll.
    AtOnce(RunClosure<R>),
    /// Handed to a worker.
    Running(Arc<RunShared<R>>),
    /// The value was handed out.
    Done,
    /// A panic was resumed (or the executor shut down under the call): there is no value.
    Failed,
}

impl<R: Send + 'static> Run<R> {
    /// The future of `f`, run as a whole fork-join call on the executor `on` names; the call
    /// `source` (`par::run`, a loop's name) to tokio-console.
    #[track_caller]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    pub(crate) fn on<F>(on: On, source: &'static str, f: F) -> Run<R>
    where
        F: FnOnce() -> R + Send + 'static,
    {
        Run {
            stage: RunStage::Lazy(on, Box::new(f)),
            #[cfg(feature = "console")]
            console: traced_call(source),
        }
    }

    /// The future of `f`, run on the polling thread at the first poll, on no executor: the
    /// value of a loop over an empty range.
    #[track_caller]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    pub(crate) fn at_once<F>(source: &'static str, f: F) -> Run<R>
    where
        F: FnOnce() -> R + Send + 'static,
    {
        Run {
            stage: RunStage::AtOnce(Box::new(f)),
            #[cfg(feature = "console")]
            console: traced_call(source),
        }
    }
}

/// What the call and the future share.
struct RunShared<R> {
    /// The call's outcome once it ended; `None` inside if it never ran (shut down).
    outcome: Mutex<Option<Option<Outcome<R>>>>,
    waker: AtomicWaker,
    root: Arc<Root>,
}

impl<R> RunShared<R> {
    fn end(&self, outcome: Option<Outcome<R>>) {
        *self.outcome.lock() = Some(outcome);
        self.waker.wake();
    }
}

/// Ends the call as never run when dropped unrun (the executor shut down first).
struct EndOnDrop<R>(Option<Arc<RunShared<R>>>);

impl<R> Drop for EndOnDrop<R> {
    fn drop(&mut self) {
        if let Some(shared) = self.0.take() {
            shared.end(None);
        }
    }
}

impl<R: Send + 'static> Future for Run<R> {
    type Output = R;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let this = self.get_mut();
        // With `console`, each poll is a poll of the task's async op (module docs of
        // `runtime/observe/console/par_call.rs`).
        #[cfg(feature = "console")]
        return this.console.poll(|| poll_stage(&mut this.stage, cx));
        #[cfg(not(feature = "console"))]
        poll_stage(&mut this.stage, cx)
    }
}

/// One poll of a `Run` in `stage`.
fn poll_stage<R: Send + 'static>(stage: &mut RunStage<R>, cx: &mut Context<'_>) -> Poll<R> {
    match std::mem::replace(stage, RunStage::Failed) {
        RunStage::Lazy(on, f) => {
            let state = match on {
                On::Fixed(state) => state,
                On::Current => current_or_global_state(),
            };
            *stage = RunStage::Running(start(&state, f, cx));
        }
        // `Failed` while `f` runs: if it panics, a later poll panics again.
        RunStage::AtOnce(f) => {
            let value = f();
            *stage = RunStage::Done;
            return Poll::Ready(value);
        }
        running @ RunStage::Running(_) => *stage = running,
        RunStage::Done => {
            *stage = RunStage::Done;
            panic!("filch: a `par::run` future was polled after it completed");
        }
        RunStage::Failed => {
            panic!("filch: a `par::run` future was polled again after it panicked")
        }
    }
    let RunStage::Running(shared) = &*stage else {
        unreachable!("running since above")
    };
    shared.waker.register(cx.waker());
    let Some(outcome) = shared.outcome.lock().take() else {
        return Poll::Pending;
    };
    // Leave the running state before resuming a panic: polled again, the future must
    // panic again.
    *stage = RunStage::Failed;
    match outcome {
        Some(Ok(value)) => {
            *stage = RunStage::Done;
            Poll::Ready(value)
        }
        Some(Err(panic)) if panic.is::<Cancelled>() => {
            // The call unwound at a piece because its executor shut down (the future,
            // still here, did not cancel it).
            drop(panic);
            panic!("filch: the executor shut down while it ran this `par::run` call")
        }
        Some(Err(panic)) => resume_unwind(panic),
        None => panic!("filch: the executor shut down before it ran this `par::run` call"),
    }
}

/// Hands `f` to a worker of `state` as a whole fork-join call whose outcome the returned
/// shared state receives; `cx`'s waker is woken then.
fn start<R: Send + 'static>(
    state: &Arc<State>,
    f: RunClosure<R>,
    cx: &Context<'_>,
) -> Arc<RunShared<R>> {
    let shared = Arc::new(RunShared {
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
    spawn_call(state, Arc::clone(&shared.root), body);
    shared
}

impl<R> Drop for Run<R> {
    fn drop(&mut self) {
        if let RunStage::Running(shared) = &self.stage {
            // Cancel the call; every thread working for it looks up at once.
            shared.root.cancel();
            epoch::bump();
        }
    }
}

impl<R> fmt::Debug for Run<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = match self.stage {
            RunStage::Lazy(..) | RunStage::AtOnce(_) => "not started",
            RunStage::Running(_) => "running",
            RunStage::Done => "done",
            RunStage::Failed => "failed",
        };
        f.debug_struct("Run").field("stage", &stage).finish()
    }
}
