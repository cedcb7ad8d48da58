//! Fork-join on the workers: `join`'s halves and `scope`'s closures, run by the same workers
//! as the async tasks, over data borrowed from the caller's stack.
//!
//! The parts:
//! - `thread.rs`: a worker thread's fork-join state ([`FjThread`]), its frames, and the
//!   heartbeat and demand rule that publishes them;
//! - `frame.rs`: a join's frame as its thread's list links it, and the publication of its
//!   half;
//! - `exposed.rs`: a worker's oldest unpublished frame, which the epoch ticker publishes in
//!   the thread's place when the thread makes no check for a tick (a `join` whose first half
//!   waits for its second);
//! - `join_frame.rs`: the join protocol; `scope_core.rs`: a scope's spawns and wait;
//! - `node.rs`: a link of the lineage ([`Node`]: a piece's, a scope's, a wait node's) and
//!   its wait, and [`Piece`], a node on offer to other threads, and its claim word;
//! - `shared.rs`: what an executor's threads share for fork-join (`ForkJoin`: the board
//!   and its counts), which the executor's state holds;
//! - `board.rs`: the pieces on offer ([`Board`]); `mail.rs`: the pieces addressed to one
//!   worker each (`Mail`); `publish.rs`: putting a piece there and waking who may take it;
//! - `broadcast.rs`: a closure run once on each worker, and running one pending piece on the
//!   calling worker (`par::yield_now`);
//! - `wait.rs`: waiting for a node, running only what descends from it;
//! - `occupy.rs`: a worker while its thread does fork-join work, and a worker's turn at the
//!   board (`run_from_board`);
//! - `inject.rs`: calls that start outside the workers, and whole calls.
//!
//! This file is the door: `par/` reaches the core only through what it declares or
//! re-exports (`join`, the entries of scopes and whole calls, the hooks of the parallel
//! iterators), never through the files behind it.
//!
//! A worker whose fork-join work holds it for a tick (inside a task's poll, or a piece it
//! took from the board) has its stand-in take its place, as for any poll that holds its
//! worker (`runtime/scheduler/standin/`).
//!
//! What the executor's state holds (`ForkJoin`, `shared.rs`: the board and its counts)
//! imports nothing that imports the state.
//!
//! A worker finds pieces on the board after its own queues, the injector and the other
//! workers' queues (step 5 of the worker loop's search, `worker/mod.rs`); the board is part
//! of the re-check before it parks, so a publication wakes a sleeper as a task push does.
//!
//! **Invariants:** a thread that waits in a `join` or `scope` runs only pieces that descend
//! from what it waits for, and never an async task (`wait.rs`); no pointer into a caller's
//! frame is reachable by another thread once that frame is left (`join_frame.rs`, `node.rs`,
//! `inject.rs`).

pub(crate) mod board;
pub(crate) mod broadcast;
pub(crate) mod exposed;
pub(crate) mod frame;
pub(crate) mod inject;
pub(crate) mod join_frame;
#[cfg(all(test, loom))]
mod loom_model;
pub(crate) mod mail;
pub(crate) mod node;
pub(crate) mod occupy;
pub(crate) mod publish;
pub(crate) mod scope_core;
pub(crate) mod shared;
pub(crate) mod thread;
pub(crate) mod wait;

use std::sync::Arc;

use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::util::run_once::RunOnce;

// The door: everything `par/` uses of the core is declared or re-exported here, and `par/`
// imports nothing from the files behind it (`tests/executor/layers.rs` checks it).
pub(crate) use broadcast::{broadcast, has_pending, spawn_broadcast, yield_one};
pub(crate) use inject::spawn_call;
pub(crate) use node::{Body, Cancelled, Root};
pub(crate) use scope_core::ScopeCore;
pub(crate) use thread::{with_current, FjThread};

/// Where a parallel call was made and what it is (`par::join`, `par::scope`, `par_iter`),
/// for tokio-console (feature `console`: a call made outside every other fork-join call is
/// traced, `runtime/observe/console/par_call.rs`); without the feature it holds nothing.
#[derive(Clone, Copy)]
pub(crate) struct Site {
    #[cfg(feature = "console")]
    source: &'static str,
    #[cfg(feature = "console")]
    at: Option<&'static std::panic::Location<'static>>,
}

impl Site {
    /// The call `source`, made where the caller was called from.
    #[inline]
    #[cfg_attr(feature = "console", track_caller)]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    pub(crate) fn here(source: &'static str) -> Site {
        Site {
            #[cfg(feature = "console")]
            source,
            #[cfg(feature = "console")]
            at: Some(std::panic::Location::caller()),
        }
    }

    /// The call `source`, made where filch does not know.
    #[inline]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    pub(crate) fn unknown(source: &'static str) -> Site {
        Site {
            #[cfg(feature = "console")]
            source,
            #[cfg(feature = "console")]
            at: None,
        }
    }

    /// Runs `call`, a parallel call made outside every other fork-join call, traced as this
    /// call for tokio-console.
    #[inline]
    fn trace<R>(self, call: impl FnOnce() -> R) -> R {
        #[cfg(feature = "console")]
        return crate::runtime::observe::console::par_call::around(self.source, self.at, call);
        #[cfg(not(feature = "console"))]
        call()
    }
}

/// `join(a, b)` (`par::join`, made at `site`): on this thread's fork-join work if it does
/// some (the fast path: `join_frame.rs`), else as new fork-join work ([`on_fork_join`]).
/// Each closure learns whether it runs on a thread other than the caller's.
#[inline]
pub(crate) fn join<A, B, RA, RB>(a: A, b: B, state: fn() -> Arc<State>, site: Site) -> (RA, RB)
where
    A: FnOnce(bool) -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    with_current(move |t| match t {
        Some(t) => join_frame::join(t, a, b, false),
        None => join_cold(a, b, state, site),
    })
}

/// A `join` that starts fork-join work.
#[cold]
#[inline(never)]
fn join_cold<A, B, RA, RB>(a: A, b: B, state: fn() -> Arc<State>, site: Site) -> (RA, RB)
where
    A: FnOnce(bool) -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    on_fork_join(state, site, move |t, injected| {
        join_frame::join(t, a, b, injected)
    })
}

/// Runs `f` as fork-join work on the workers: on this thread's fork-join state if it has
/// one, as new fork-join work of a call of its own if this thread is a worker (a task's
/// poll), else as a call injected into `state()`'s workers while this thread sleeps
/// (`inject.rs`). `f` learns whether it runs on a thread other than the caller's. New
/// fork-join work is traced as the call `site` names.
///
/// Only the first case is compiled for each closure type; the others get `f` as a
/// `dyn FnMut` (`util/run_once.rs`).
pub(crate) fn on_fork_join<R: Send>(
    state: fn() -> Arc<State>,
    site: Site,
    f: impl FnOnce(&FjThread, bool) -> R + Send,
) -> R {
    with_current(move |t| match t {
        Some(t) => f(t, false),
        None => {
            let mut once = RunOnce::new(f);
            new_fork_join(state, site, &mut |t, injected| {
                once.run(|f| f(t, injected));
            });
            once.result()
        }
    })
}

/// [`on_fork_join`] off fork-join work.
#[inline(never)]
fn new_fork_join(
    state: fn() -> Arc<State>,
    site: Site,
    f: &mut (dyn FnMut(&FjThread, bool) + Send),
) {
    site.trace(move || {
        context::with_worker(move |worker| match worker {
            Some(worker) => occupy::on_worker(worker, Root::new(), |t| f(t, false)),
            None => inject::call(&state(), move |t| f(t, true)),
        });
    });
}

/// Runs `f` on this thread: as fork-join work if it does some or is a worker (`Some`),
/// else with `None` (`par::in_place_scope` off the workers). Traced as `site` unless this
/// thread does fork-join work already.
pub(crate) fn in_place<R>(site: Site, f: impl FnOnce(Option<&FjThread>) -> R) -> R {
    with_current(move |t| match t {
        Some(t) => f(Some(t)),
        None => {
            let mut once = RunOnce::new(f);
            new_in_place(site, &mut |t| once.run(|f| f(t)));
            once.result()
        }
    })
}

/// [`in_place`] off fork-join work.
#[inline(never)]
fn new_in_place(site: Site, f: &mut dyn FnMut(Option<&FjThread>)) {
    site.trace(move || {
        context::with_worker(move |worker| match worker {
            Some(worker) => occupy::on_worker(worker, Root::new(), |t| f(Some(t))),
            None => f(None),
        });
    });
}

/// Runs `f`, a parallel iterator's whole call, where its pieces can spread over the
/// workers: here if this thread does fork-join work or is a worker (its splits then enter
/// fork-join work), else as a call injected into `state()`'s workers, which a worker runs
/// while this thread sleeps (a stand-in runs it itself, once it handed its slot on:
/// `inject.rs`). So a call from outside the workers runs on them, whatever its length, as
/// rayon's does. Traced as a `par_iter` call unless this thread does fork-join work already.
#[inline]
pub(crate) fn on_the_workers<R: Send>(
    state: fn() -> Arc<State>,
    f: impl FnOnce() -> R + Send,
) -> R {
    if with_current(|t| t.is_some()) {
        return f();
    }
    let site = Site::unknown("par_iter");
    if context::with_worker(|worker| worker.is_some()) {
        return site.trace(f);
    }
    let mut once = RunOnce::new(f);
    from_outside(state, site, &mut || once.run(|f| f()));
    once.result()
}

/// [`on_the_workers`] off the workers.
#[cold]
#[inline(never)]
fn from_outside(state: fn() -> Arc<State>, site: Site, f: &mut (dyn FnMut() + Send)) {
    site.trace(|| inject::call(&state(), move |_| f()));
}

/// Whether a parallel iterator should split the rest of its piece now (and `join` the two
/// halves) rather than go on folding it: workers want work beyond what is on offer, or a
/// heartbeat found a worker asleep (`FjThread::wants_split`).
#[inline]
pub(crate) fn wants_split() -> bool {
    with_current(|t| t.is_some_and(FjThread::wants_split))
}

/// Has the next parallel iterator on this thread offer half of its work at its first chunk
/// boundary (an awaited loop's start: `par/loops/watched.rs`), when other workers could take
/// it. Nothing off fork-join work.
pub(crate) fn offer_half_at_once() {
    with_current(|t| {
        if let Some(t) = t.filter(|t| t.state.num_workers() > 1) {
            t.request_split();
        }
    });
}

/// Whether a sleeping worker may be woken for the split a parallel iterator is about to make:
/// a worker sleeps and nothing is on offer. If so, the split's `join` publishes its half (as
/// at a heartbeat), which wakes that worker.
#[inline]
pub(crate) fn offer_to_sleepers() -> bool {
    with_current(|t| t.is_some_and(|t| t.offer_to_sleepers()))
}

/// Called by the parallel iterators between two pieces of work: the heartbeat and demand
/// check of a `join` (it may publish a frame), which unwinds if the call was cancelled (its
/// `par::run` future dropped).
#[inline]
pub(crate) fn at_piece_boundary() {
    if with_current(|t| t.is_some_and(|t| t.check_in())) {
        std::panic::resume_unwind(Box::new(Cancelled));
    }
}
