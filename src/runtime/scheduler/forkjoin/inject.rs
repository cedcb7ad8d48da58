//! Fork-join calls that start outside the workers, and whole calls handed to a worker.
//!
//! A `join`, `scope` or `install` made on a thread that is no worker of the executor (main, a
//! std thread, a blocking-pool thread, a stand-in, a worker of another executor) runs on one
//! of its workers while the calling thread waits ([`call`]). The call travels as a task
//! ([`spawn_call`]), so it takes its turn in the injector like any task from outside, fairly;
//! the worker that polls it runs the whole call inside that poll, as fork-join work
//! (`occupy.rs`). A thread that polls such a task and is no worker (a stand-in) hands the
//! call to the board instead, as a whole call that idle workers take (`Node::call`).
//!
//! The caller's closure borrows its stack, so the call's job holds it with the lifetime
//! erased; [`call`] returns only once its [`Latch`] is set, and the job sets it only when it
//! is dropped: after it ran, or without running (the executor shut down and dropped the task,
//! or the board's call at shutdown), after the closure itself was dropped (fields drop in
//! declaration order).

use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::Result as Outcome;

use super::node::{Node, Root};
use super::occupy::{on_worker, Occupied};
use super::thread::{with_current, FjThread};
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::util::sync::thread::{self, Thread};
use crate::util::sync::{AtomicBool, Ordering};

/// A call's body: what runs on the worker, with its fork-join state.
pub(crate) type CallBody = Box<dyn FnOnce(&FjThread) + Send + 'static>;

/// Set once by the call's job; the calling thread sleeps until then.
pub(crate) struct Latch {
    done: AtomicBool,
    waiter: Thread,
}

impl Latch {
    /// A latch the calling thread will wait on.
    pub(crate) fn new() -> Arc<Latch> {
        Arc::new(Latch {
            done: AtomicBool::new(false),
            waiter: thread::current(),
        })
    }

    pub(crate) fn set(&self) {
        // SeqCst: a release of the outcome written before; the waiter's load pairs with it.
        self.done.store(true, Ordering::SeqCst);
        self.waiter.unpark();
    }

    /// Sleeps until [`set`](Latch::set). An unpark before the park is kept by the thread
    /// (std's park token), so none is lost; spurious returns loop.
    pub(crate) fn wait(&self) {
        // SeqCst: pairs with the store in `set`.
        while !self.done.load(Ordering::SeqCst) {
            thread::park();
        }
    }
}

/// Sets its latch when dropped.
struct SetOnDrop(Arc<Latch>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// The job of an injected call. Fields drop in declaration order: the closure first, the
/// latch last (module docs).
struct CallJob<F, R> {
    f: Option<F>,
    out: *mut Option<Outcome<R>>,
    _set: SetOnDrop,
}

// SAFETY: `f` and `R` are `Send`; `out` points to the caller's slot, written once by the
// thread that runs the job, and read by the caller only after the latch (which this job sets
// last) is set.
unsafe impl<F: Send, R: Send> Send for CallJob<F, R> {}

/// Runs `f` on a worker of `state` as a fork-join call (its closures get `injected`), and
/// blocks this thread until it finished; resumes its panic. This thread is no worker of
/// `state`; if it is a worker of another executor, it is occupied while it waits.
///
/// # Panics
///
/// If the executor shut down before the call ran.
pub(crate) fn call<F, R>(state: &Arc<State>, f: F) -> R
where
    F: FnOnce(&FjThread) -> R + Send,
    R: Send,
{
    let latch = Latch::new();
    let mut out: Option<Outcome<R>> = None;
    let job = CallJob {
        f: Some(f),
        out: &raw mut out,
        _set: SetOnDrop(Arc::clone(&latch)),
    };
    let body: Box<dyn FnOnce(&FjThread) + Send + '_> = Box::new(move |t: &FjThread| {
        let mut job = job;
        let f = job.f.take().expect("filch: an injected call ran twice");
        let outcome = catch_unwind(AssertUnwindSafe(|| f(t)));
        // SAFETY: the caller's slot outlives the job (module docs); written once, here.
        unsafe { *job.out = Some(outcome) };
    });
    // SAFETY: only the lifetime changes. The body borrows this frame; this function returns
    // (or unwinds) only after `latch.wait()`, and the latch is set only when the job is
    // dropped, after its closure (module docs), whether the body ran or not.
    let body: CallBody = unsafe { std::mem::transmute(body) };
    spawn_call(state, Root::new(), body);
    context::with_worker(|worker| {
        let _occupied = worker.map(Occupied::enter);
        latch.wait();
    });
    match out {
        Some(Ok(value)) => value,
        Some(Err(panic)) => resume_unwind(panic),
        None => panic!("filch: the executor shut down before it ran this fork-join call"),
    }
}

/// Spawns a task on `state` whose poll runs `body` as a fork-join call of `root` (module
/// docs). A call whose root is cancelled before it starts is dropped unrun.
pub(crate) fn spawn_call(state: &Arc<State>, root: Arc<Root>, body: CallBody) {
    let task = CallTask {
        root,
        body: Some(body),
    };
    drop(crate::runtime::scheduler::spawner::spawn(state, task));
}

/// The task of a whole call (module docs).
struct CallTask {
    root: Arc<Root>,
    body: Option<CallBody>,
}

impl Future for CallTask {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let Some(body) = this.body.take() else {
            return Poll::Ready(());
        };
        if this.root.is_cancelled() {
            drop(body);
            return Poll::Ready(());
        }
        let root = Arc::clone(&this.root);
        context::with_worker(|worker| match worker {
            Some(worker) => on_worker(worker, root, body),
            None => {
                // A thread that is no worker (a stand-in) polled it: a worker takes the call
                // from the board instead.
                let state = context::current_state()
                    .expect("filch: a fork-join call polled outside its executor");
                let body = Box::new(move || with_current(|t| body(t.expect("on a worker"))));
                super::publish::offer(&state, Node::call(root, body));
            }
        });
        Poll::Ready(())
    }
}

/// Runs `op` on a worker of `state` and returns its value (rayon's `install`): on this thread
/// if it is one (inside fork-join work if it was not already), else as an injected [`call`].
pub(crate) fn install<OP, R>(state: &Arc<State>, op: OP) -> R
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    with_current(move |t| match t {
        Some(t) if std::ptr::eq(&*t.state, &**state) => op(),
        _ => context::with_worker(move |worker| match worker {
            Some(worker) if std::ptr::eq(&*worker.state, &**state) => {
                on_worker(worker, Root::new(), |_| op())
            }
            _ => call(state, move |_| op()),
        }),
    })
}
