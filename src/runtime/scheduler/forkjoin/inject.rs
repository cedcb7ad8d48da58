//! Fork-join calls that start outside the workers, and whole calls handed to a worker.
//!
//! A `join`, `scope` or `install` made on a thread that is no worker of the executor (main, a
//! std thread, a blocking-pool thread, a stand-in, a worker of another executor) runs on one
//! of its workers while the calling thread waits ([`call`]). The call travels as a task
//! ([`spawn_call`]), so it takes its turn in the injector like any task from outside, fairly;
//! the worker that polls it runs the whole call inside that poll, as fork-join work
//! (`occupy.rs`). A call from a thread outside every executor then tells the worker
//! (`WorkerLocal::expect_another_call`) that its caller is likely to make the next one at
//! once (a loop of `install` calls from `main`): the worker spins before it parks, so that
//! the next call does not wait for a wake-up. A call from a task (`par::run`) does not.
//!
//! A stand-in (`runtime/scheduler/standin/`) that polls such a task puts the call on the
//! board, as a whole call (`Piece::call`) that idle workers take, and that a stand-in takes
//! itself while every worker is in a poll (`standin/serve.rs`, `run_a_call`: a worker held by
//! a blocking poll would never take it). A task polled by a stand-in that calls fork-join
//! directly makes such a call, and the stand-in hands its slot on before it waits.
//!
//! # Calls between executors
//!
//! A worker of executor X that calls into executor Y (`pool_y.install` inside X's work) waits
//! for a node of its own, the call's *wait node* (`Node::outside_call`), whose parent is the
//! worker's lineage; the call's work in Y runs with the wait node as its lineage, so every
//! piece it publishes, in Y or in X, descends from it. While it waits the worker runs the
//! pieces on X's board that descend from the wait node (`wait.rs`), as for a join's half,
//! and its stand-in takes its place after a tick; it does not count as doing fork-join work
//! meanwhile (`occupy.rs`, `Away`), so a whole call on X's board that it would not run (one
//! with no lineage, which Y's work made from a thread outside it) is the stand-in's to run. A call made from inside such a lineage (Y's
//! work calling back into X, directly or through more executors) goes onto the target's board
//! as a whole call whose parent is its own wait node, rather than into the injector: a worker
//! of the target that waits further up the lineage finds it there and runs it (rayon's
//! `mutual_install`, where X has one worker and it waits); idle workers take it too. So does a
//! call from a stand-in that runs a whole call of X (it has the call's lineage; it waits as a
//! worker does, its slot handed on). A call with no lineage (from the top of fork-join work,
//! or from a task's poll) travels as a task.
//!
//! The caller's closure borrows its stack, so the call's job holds it with the lifetime
//! erased; [`call`] returns only once its wait node (`Node::outside_call`) finished, and the
//! job finishes it only when it is dropped: after it ran, or without running
//! (the executor shut down and dropped the task, or the board's call at shutdown), after the
//! closure itself was dropped (fields drop in declaration order).

use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::Result as Outcome;

use super::node::{Body, Cancelled, Node, Piece, Root};
use super::occupy::{on_worker, Away};
use super::thread::{with_current, FjThread};
use super::wait;
use crate::runtime::scheduler::standin::serve;
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::util::run_once::RunOnce;

/// A call's body: what runs on the worker, with its fork-join state.
pub(crate) type CallBody = Box<dyn FnOnce(&FjThread) + Send + 'static>;

/// Finishes the caller's wait node when dropped.
struct SetOnDrop(Arc<Node>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// Waits, if dropped while armed (the caller unwinds while it waits), until the wait node
/// finished: the call's job writes into the caller's frame until then.
struct WaitOnUnwind<'a>(&'a Node);

impl Drop for WaitOnUnwind<'_> {
    fn drop(&mut self) {
        while !self.0.is_finished() {
            self.0.sleep(|| false);
        }
    }
}

/// The job of an injected call. Fields drop in declaration order: the closure first, the
/// wait node's release last (module docs).
struct CallJob<F, R> {
    f: Option<F>,
    out: *mut Option<Outcome<R>>,
    _set: SetOnDrop,
}

// SAFETY: `f` and `R` are `Send`; `out` points to the caller's slot, written once by the
// thread that runs the job, and read by the caller only after the wait
// node finished (which this job does last).
unsafe impl<F: Send, R: Send> Send for CallJob<F, R> {}

/// Runs `f` on a worker of `state` as a fork-join call (its closures get `injected`), and
/// blocks this thread until it finished; resumes its panic. This thread is no worker of
/// `state`; if it is a worker of another executor, it waits for the call's wait node, running
/// the pieces of its own executor that descend from it (module docs, "Calls between
/// executors").
///
/// # Panics
///
/// If the executor shut down before the call ran, or while it ran.
pub(crate) fn call<F, R>(state: &Arc<State>, f: F) -> R
where
    F: FnOnce(&FjThread) -> R + Send,
    R: Send,
{
    let mut out: Option<Outcome<R>> = None;
    let out_slot: *mut Option<Outcome<R>> = &raw mut out;
    let make_body = move |done: Arc<Node>| -> CallBody {
        let job = CallJob {
            f: Some(f),
            out: out_slot,
            _set: SetOnDrop(done),
        };
        let body: Box<dyn FnOnce(&FjThread) + Send + '_> = Box::new(move |t: &FjThread| {
            let mut job = job;
            let f = job.f.take().expect("filch: an injected call ran twice");
            let outcome = catch_unwind(AssertUnwindSafe(|| f(t)));
            // SAFETY: the caller's slot outlives the job (module docs); written once, here.
            unsafe { *job.out = Some(outcome) };
        });
        // SAFETY: only the lifetime changes. The body borrows this frame; this function
        // returns (or unwinds) only after its wait node finished, and the
        // job does that only when it is dropped, after its closure (module docs), whether the
        // body ran or not.
        unsafe { std::mem::transmute(body) }
    };
    context::with_worker(|worker| match worker {
        Some(worker) => {
            let lineage = with_current(|t| t.and_then(FjThread::lineage));
            let from_lineage = lineage.is_some();
            let wait = Node::outside_call(lineage);
            let armed = WaitOnUnwind(&wait);
            let body = make_body(Arc::clone(&wait));
            if from_lineage {
                let node = Piece::call(Some(Arc::clone(&wait)), Root::new(), on_board(body));
                super::publish::offer(state, node);
            } else {
                spawn_call_below(state, Root::new(), Some(Arc::clone(&wait)), false, body);
            }
            // Not counted as doing fork-join work while it waits (`occupy.rs`, `Away`).
            with_current(|t| match t {
                Some(t) => {
                    let _away = Away::enter(worker);
                    wait::until_finished(t, &wait, false);
                }
                None => on_worker(worker, Root::new(), |t| {
                    let _away = Away::enter(worker);
                    wait::until_finished(t, &wait, false);
                }),
            });
            std::mem::forget(armed);
        }
        None => {
            if let Some(lineage) = with_current(|t| t.and_then(FjThread::lineage)) {
                // A stand-in running a whole call (`standin/serve.rs`, `run_a_call`: the only
                // thread with fork-join state that is no worker): as a worker's call from a
                // lineage, so that a worker of the target waiting further up the lineage
                // runs it. The stand-in handed its slot on before it took the call.
                let wait = Node::outside_call(Some(lineage));
                let armed = WaitOnUnwind(&wait);
                let body = make_body(Arc::clone(&wait));
                let node = Piece::call(Some(Arc::clone(&wait)), Root::new(), on_board(body));
                super::publish::offer(state, node);
                serve::hand_off_while(|| {
                    with_current(|t| {
                        let t = t.expect("fork-join state seen above");
                        wait::until_finished(t, &wait, false);
                    });
                });
                std::mem::forget(armed);
                return;
            }
            let wait = Node::outside_call(None);
            spawn_call_below(state, Root::new(), None, true, make_body(Arc::clone(&wait)));
            // A stand-in (a worker is free to run the call) hands its slot on first: the
            // wait blocks this thread.
            serve::hand_off_while(|| {
                while !wait.is_finished() {
                    wait.sleep(|| false);
                }
            });
        }
    });
    outcome_of(out)
}

/// The caller's result from the call's outcome: its value, its panic resumed, or a panic that
/// says the executor shut down.
fn outcome_of<R>(out: Option<Outcome<R>>) -> R {
    match out {
        Some(Ok(value)) => value,
        // The call's root is its own and never cancelled: it unwound because the executor
        // shut down (`thread.rs`, `check_in`).
        Some(Err(panic)) if panic.is::<Cancelled>() => {
            drop(panic);
            panic!("filch: the executor shut down while it ran this fork-join call")
        }
        Some(Err(panic)) => resume_unwind(panic),
        None => panic!("filch: the executor shut down before it ran this fork-join call"),
    }
}

/// `body` as a whole call on the board, run by a worker inside its fork-join state.
fn on_board(body: CallBody) -> Body {
    Box::new(move || with_current(|t| body(t.expect("on a worker"))))
}

/// Spawns a task on `state` whose poll runs `body` as a fork-join call of `root` (module
/// docs). A call whose root is cancelled before it starts is dropped unrun.
pub(crate) fn spawn_call(state: &Arc<State>, root: Arc<Root>, body: CallBody) {
    spawn_call_below(state, root, None, false, body);
}

/// As [`spawn_call`], the call's work running with `parent` as its lineage (module docs,
/// "Calls between executors").
fn spawn_call_below(
    state: &Arc<State>,
    root: Arc<Root>,
    parent: Option<Arc<Node>>,
    from_outside: bool,
    body: CallBody,
) {
    let task = CallTask {
        root,
        parent,
        from_outside,
        body: Some(body),
    };
    drop(crate::runtime::scheduler::spawner::spawn(state, task));
}

/// The task of a whole call (module docs).
struct CallTask {
    root: Arc<Root>,
    /// The lineage the call's work runs with: the wait node of a worker of another executor
    /// that waits for it.
    parent: Option<Arc<Node>>,
    /// Made by a thread outside every executor, blocked until it ends ([`call`]): the
    /// worker that runs it expects another call soon (module docs).
    from_outside: bool,
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
        let parent = this.parent.take();
        context::with_worker(|worker| match worker {
            Some(worker) => {
                on_worker(worker, root, |t| match parent {
                    Some(parent) => t.with_lineage(parent, || body(t)),
                    None => body(t),
                });
                if this.from_outside {
                    worker.expect_another_call();
                }
            }
            None => {
                // A thread that is no worker (a stand-in) polled it: the call goes on the
                // board, where idle workers take it, and so does a stand-in while every worker
                // is in a poll (module docs).
                let state = context::current_state()
                    .expect("filch: a fork-join call polled outside its executor");
                super::publish::offer(&state, Piece::call(parent, root, on_board(body)));
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
        _ => {
            let mut once = RunOnce::new(op);
            install_here_or_call(state, &mut || once.run(|op| op()));
            once.result()
        }
    })
}

/// [`install`] on a thread that does no fork-join work of `state`: `op` as new fork-join
/// work if this thread is a worker of `state`, else as an injected [`call`]. Compiled once,
/// not for each closure type (`util/run_once.rs`).
#[inline(never)]
fn install_here_or_call(state: &Arc<State>, op: &mut (dyn FnMut() + Send)) {
    context::with_worker(move |worker| match worker {
        Some(worker) if std::ptr::eq(&*worker.state, &**state) => {
            on_worker(worker, Root::new(), |_| op());
        }
        _ => call(state, move |_| op()),
    });
}
