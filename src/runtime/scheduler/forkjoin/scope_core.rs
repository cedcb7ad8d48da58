//! A scope's core ([`ScopeCore`]): spawning closures into it and waiting for them.
//!
//! A scope is a [`Node`] its owner waits for: the count of its spawned closures not finished
//! yet, where a closure spawned from inside another closure of the scope is counted in that
//! closure, which counts once in the scope until it and all it counts finished
//! (`Node::pending`: the scope's count is touched by the top of the tree only). A spawned closure is published at once (a scope spawns because it wants the closure
//! run elsewhere), as a node whose lineage is the thread's (a closure spawned by the scope's
//! body or by another of its closures descends from the scope), or the scope itself when the
//! thread's lineage does not reach the scope (a thread that got the scope through a std
//! thread, say): either way it descends from the scope. A closure of `spawn_broadcast` is
//! addressed to its worker instead (`mail.rs`). The owner, once its body returned, runs the
//! scope's closures itself, newest first (rayon's order on one thread), or oldest first in a
//! FIFO scope (`scope_fifo`, rayon's order for it), while other workers take the oldest; on
//! a thread that is no worker it sleeps, and once the executor has shut down it runs the
//! closures left on the board and in the mailboxes itself, so it returns whenever the
//! shutdown came.
//!
//! The first panic, of the body or of a closure, is resumed once every closure finished.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::node::{Body, Node, Piece, Root};
use super::thread::{with_current, FjThread};
use super::wait;
use crate::runtime::scheduler::state::State;

/// A scope's node and executor (module docs).
pub(crate) struct ScopeCore {
    node: Arc<Node>,
    state: Arc<State>,
    /// Whether the owner runs the scope's closures oldest first (`scope_fifo`), rather than
    /// newest first.
    fifo: bool,
}

impl ScopeCore {
    /// Opens a scope on `state` for the calling thread; `t` is its fork-join state, if it has
    /// one (else the scope is a call of its own).
    /// With `fifo`, the owner runs the closures oldest first (module docs).
    pub(crate) fn open(state: Arc<State>, t: Option<&FjThread>, fifo: bool) -> ScopeCore {
        let node = match t {
            Some(t) => Node::scope(t.lineage(), Arc::clone(&t.root)),
            None => Node::scope(None, Root::new()),
        };
        ScopeCore { node, state, fifo }
    }

    /// The number of workers of the scope's executor.
    pub(crate) fn num_workers(&self) -> usize {
        self.state.num_workers()
    }

    /// Publishes `body` as a closure of this scope. The body's lifetime was erased by the
    /// caller, who guarantees that the scope waits for it ([`ScopeCore::complete`]).
    pub(crate) fn spawn(&self, body: Body) {
        // SAFETY: `spawn_parent` is the scope or a node whose lineage reaches it.
        let node = unsafe { Piece::spawned(self.spawn_parent(), body, &self.node) };
        super::publish::offer(&self.state, node);
    }

    /// As [`spawn`](ScopeCore::spawn), one closure per worker of the scope's executor, each
    /// addressed to its worker (`mail.rs`): `body(i)` runs on worker `i`.
    pub(crate) fn spawn_broadcast(&self, body: impl Fn(usize) -> Body) {
        let parent = self.spawn_parent();
        for index in 0..self.state.num_workers() {
            // SAFETY: as in `spawn`.
            let node = unsafe { Piece::spawned(Arc::clone(&parent), body(index), &self.node) };
            super::publish::post(&self.state, index, node);
        }
    }

    /// The parent of a closure spawned now: the thread's lineage if it descends from the
    /// scope, else the scope (module docs). Either way its lineage reaches the scope, which
    /// is what keeps the scope alive for the closure's node (`Piece::spawned`).
    fn spawn_parent(&self) -> Arc<Node> {
        with_current(|t| t.and_then(FjThread::lineage))
            .filter(|lineage| lineage.descends_from(&self.node))
            .unwrap_or_else(|| Arc::clone(&self.node))
    }

    /// Runs the scope's body `op` on this thread, then waits for every closure spawned into
    /// the scope, and returns `op`'s value or resumes the first panic. `t` as in `open`.
    pub(crate) fn complete<R>(&self, t: Option<&FjThread>, op: impl FnOnce() -> R) -> R {
        let outcome = match t {
            Some(t) => catch_unwind(AssertUnwindSafe(|| {
                t.with_lineage(Arc::clone(&self.node), op)
            })),
            None => catch_unwind(AssertUnwindSafe(op)),
        };
        let value = match outcome {
            Ok(value) => Some(value),
            Err(panic) => {
                self.node.keep_panic(panic);
                None
            }
        };
        match t {
            Some(t) => wait::until_finished(t, &self.node, !self.fifo),
            None => {
                while !self.node.is_finished() {
                    if self.state.is_shut_down() {
                        // No worker takes the closures left on the board any more: this
                        // thread runs them (the sleep below lasts a tick at most).
                        let fj = &self.state.forkjoin;
                        let piece = fj
                            .board
                            .take_descendant(&self.node, !self.fifo)
                            .or_else(|| fj.mail.take_descendant_any(&self.node));
                        if let Some(piece) = piece {
                            // SAFETY: `take_descendant` won the piece's claim for this thread,
                            // which runs it once.
                            unsafe { piece.run(false) };
                            continue;
                        }
                    }
                    self.node.sleep(|| false);
                }
            }
        }
        if let Some(panic) = self.node.take_panic() {
            drop(value);
            resume_unwind(panic);
        }
        value.expect("filch: a scope's body neither returned nor panicked")
    }
}
