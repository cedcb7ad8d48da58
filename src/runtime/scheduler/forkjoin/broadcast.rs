//! Broadcasts (a closure run once on each worker of an executor, `par::broadcast`,
//! `par::spawn_broadcast`, `Scope::spawn_broadcast`) and the calls that run one pending piece
//! on the calling worker (`par::yield_now`, `par::yield_local`).
//!
//! A broadcast's part for worker `i` is a piece addressed to `i` (`mail.rs`), which only
//! worker `i`'s thread runs: as its loop's next piece, or while it waits for a node the part
//! descends from, or, after a tick, for any node (`wait.rs`; a blocking broadcast's parts
//! are awaited). A blocking broadcast ([`broadcast`]) waits for a node of its own
//! (`Node::parts`) whose parent is the caller's lineage and which counts the parts not
//! finished; each part is a whole call (`Piece::call`) below it, which finishes it when
//! dropped, run or not. A caller that is a worker of the executor runs its own part itself,
//! on its thread, then waits as a `join` does (running what descends from the broadcast: the
//! parts of broadcasts made inside it that are addressed to it; after a tick, any awaited
//! part addressed to it, `wait.rs`), so a broadcast from inside a broadcast, in one executor
//! or across two, and two broadcasts made on two workers at once, never wait for a worker
//! that waits for them.
//!
//! **Invariants:** every part of a broadcast is posted to its own worker's box, one per
//! worker, before the caller waits; the caller's frame (the closure it borrows) is reachable
//! from a part only until that part is dropped, which finishes the broadcast's node last; a
//! part dropped unrun (the executor shut down) records `NotRun` in that node.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::node::{Body, Node, Piece, Root};
use super::occupy::on_worker;
use super::thread::{with_current, FjThread};
use super::wait;
use crate::runtime::scheduler::standin::serve;
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;

/// What a blocking broadcast's node keeps when a part was dropped unrun: the executor shut
/// down before that worker ran it.
struct NotRun;

/// A blocking broadcast's closure, its lifetime erased (module invariants).
type PartOp = *const (dyn Fn(usize) + Sync + 'static);

/// A blocking broadcast's part for one worker. Finishes the broadcast's node when dropped,
/// after it ran or unrun.
struct Part {
    op: PartOp,
    index: usize,
    ran: bool,
    node: Arc<Node>,
}

// SAFETY: the closure behind `op` is `Sync`, so calling it from another thread is sound; it
// lives until the broadcast's node finished (module invariants), which this part does only
// in its drop, after its last use of `op`.
unsafe impl Send for Part {}

impl Part {
    fn run(mut self) {
        self.ran = true;
        // SAFETY: the broadcast's caller waits for the node this part finishes in its drop,
        // below, so the closure is alive (module invariants).
        let op = unsafe { &*self.op };
        let index = self.index;
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| op(index))) {
            self.node.keep_panic(panic);
        }
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        if !self.ran {
            self.node.keep_panic(Box::new(NotRun));
        }
        self.node.release();
    }
}

/// The index of the calling thread among `state`'s workers, if it is one of them (its own
/// thread, not a stand-in).
pub(crate) fn own_index(state: &State) -> Option<usize> {
    context::with_worker(|w| {
        w.filter(|w| std::ptr::eq(&*w.state, state))
            .map(|w| w.index)
    })
}

/// Runs `op(i)` once on each worker `i` of `state`, and returns once all have returned;
/// resumes the first panic of a part then (module docs).
///
/// # Panics
///
/// If the executor shut down before every part ran.
pub(crate) fn broadcast(state: &State, op: &(dyn Fn(usize) + Sync)) {
    let own = own_index(state);
    let workers = state.num_workers();
    let lineage = with_current(|t| t.and_then(FjThread::lineage));
    let node = Node::parts(lineage, workers - usize::from(own.is_some()));
    // SAFETY: only the lifetime changes: this function returns (or unwinds) only after
    // `node` finished, which every part does last, when it is dropped (module invariants).
    let op_ptr: PartOp = unsafe { std::mem::transmute(std::ptr::from_ref(op)) };
    for index in (0..workers).filter(|&i| Some(i) != own) {
        let part = Part {
            op: op_ptr,
            index,
            ran: false,
            node: Arc::clone(&node),
        };
        let body: Body = Box::new(move || part.run());
        let piece = Piece::call(Some(Arc::clone(&node)), Root::new(), body);
        super::publish::post(state, index, piece);
    }
    if let Some(index) = own {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| op(index))) {
            node.keep_panic(panic);
        }
    }
    wait_for(&node);
    if let Some(panic) = node.take_panic() {
        if panic.is::<NotRun>() {
            panic!("filch: the executor shut down before every worker ran this broadcast");
        }
        resume_unwind(panic);
    }
}

/// Waits until `node` finished: on a worker, running what descends from it (`wait.rs`);
/// elsewhere asleep (a stand-in hands its slot on first, as for an injected call).
fn wait_for(node: &Arc<Node>) {
    context::with_worker(|worker| match worker {
        Some(worker) => with_current(|t| match t {
            Some(t) => wait::until_finished(t, node, false),
            None => on_worker(worker, Root::new(), |t| {
                wait::until_finished(t, node, false);
            }),
        }),
        None => serve::hand_off_while(|| {
            while !node.is_finished() {
                node.sleep(|| false);
            }
        }),
    });
}

/// Posts `op(i)` to each worker `i` of `state`, this thread's too if it is one, and returns
/// at once. A panic of a part is reported by the panic hook and goes no further (as
/// `par::spawn`'s).
pub(crate) fn spawn_broadcast(state: &State, op: Arc<dyn Fn(usize) + Send + Sync>) {
    for index in 0..state.num_workers() {
        let op = Arc::clone(&op);
        let body: Body = Box::new(move || {
            drop(catch_unwind(AssertUnwindSafe(|| op(index))));
        });
        super::publish::post(state, index, Piece::call(None, Root::new(), body));
    }
}

/// Runs one piece of fork-join work waiting for the calling worker, if it is a worker (of
/// `state` if given): its own mail, oldest first, then (unless `local`) the oldest piece on
/// its executor's board. `None` off the workers, else whether a piece ran.
pub(crate) fn yield_one(state: Option<&State>, local: bool) -> Option<bool> {
    context::with_worker(|worker| {
        let worker = worker.filter(|w| state.is_none_or(|s| std::ptr::eq(&*w.state, s)))?;
        let fj = &worker.state.forkjoin;
        let piece = fj
            .mail
            .take(worker.index)
            .or_else(|| (!local).then(|| fj.board.take_oldest()).flatten());
        let Some(piece) = piece else {
            return Some(false);
        };
        let root = Arc::clone(piece.root());
        on_worker(worker, root, |t| wait::run_claimed(t, piece));
        Some(true)
    })
}

/// Whether the calling worker (of `state` if given) has work queued for it alone or first:
/// its mail, its deque, its inbox, its pinned queue. `None` off the workers.
pub(crate) fn has_pending(state: Option<&State>) -> Option<bool> {
    context::with_worker(|worker| {
        let worker = worker.filter(|w| state.is_none_or(|s| std::ptr::eq(&*w.state, s)))?;
        let public = &worker.state.workers[worker.index];
        Some(
            worker.state.forkjoin.mail.has(worker.index)
                || !worker.deque.is_empty()
                || !public.inbox.is_empty()
                || !public.pinned.is_empty(),
        )
    })
}
