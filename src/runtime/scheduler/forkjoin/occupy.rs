//! A worker occupied by fork-join work: what changes while its thread runs a `join`, a
//! `scope` or a piece, and how such work is entered.
//!
//! While a worker's thread does fork-join work it polls no task: it runs only its own call's
//! pieces (`wait.rs`). So when it starts ([`Occupied::enter`]) its private queues are
//! emptied where other workers can take their tasks (the LIFO slot and the deferred list
//! onto its deque, which they steal from), and until it ends, tasks it wakes or spawns go to
//! the injector (`worker/schedule.rs`). Tasks woken for this worker from elsewhere reach its
//! inbox, which idle workers steal from.
//!
//! Fork-join work runs inside a task's poll or a piece the worker took from the board, so a
//! worker occupied for a tick has its stand-in take its place as any held poll does
//! (`runtime/scheduler/standin/hold.rs`); the poll's (or piece's) end releases it.
//!
//! A worker's thread inside `task::block_in_place` is occupied the same way, with its poll
//! handed over to its stand-in at once ([`Blocking`]); it may then block, in
//! `Handle::block_on` too (tokio's `block_in_place` allows it), since its place is taken.
//!
//! A worker's thread that waits for a call into another executor (`inject.rs`, "Calls between
//! executors") stays occupied, but is not counted as doing fork-join work while it waits
//! ([`Away`]): it comes back to its board only when that call ends, which may need a whole
//! call on this board that only a stand-in would run then (`standin/serve.rs`, `run_a_call`).
//!
//! **Invariant:** `WorkerLocal::occupied` is set exactly while an [`Occupied`] guard lives on
//! the worker's thread, and `WorkerLocal::blocking` exactly while a [`Blocking`] guard does;
//! guards nest (an inner one leaves the flag set). `WorkerLocal::counted` is set exactly
//! while the worker counts in `ForkJoin::is_busy`: from the outermost [`Occupied`] guard's
//! start to its end, except inside an outermost [`Blocking`] or [`Away`] guard.

use std::sync::Arc;

use super::node::Root;
use super::thread::FjThread;
use crate::runtime::scheduler::worker::local::WorkerLocal;

/// Marks its worker occupied while it lives (module docs).
pub(crate) struct Occupied<'a> {
    worker: &'a WorkerLocal,
    /// Whether an outer guard had set the flag already.
    nested: bool,
}

impl<'a> Occupied<'a> {
    /// Marks `worker` (this thread's) occupied and hands its private tasks over.
    pub(crate) fn enter(worker: &'a WorkerLocal) -> Occupied<'a> {
        let nested = worker.set_occupied(true);
        if !nested {
            worker.set_counted(true);
            worker.state.forkjoin.set_occupied(true);
            worker.share_private_queues();
        }
        Occupied { worker, nested }
    }
}

impl Drop for Occupied<'_> {
    fn drop(&mut self) {
        if !self.nested {
            self.worker.set_occupied(false);
            if self.worker.set_counted(false) {
                self.worker.state.forkjoin.set_occupied(false);
            }
        }
    }
}

/// A worker's thread inside `task::block_in_place`: occupied, its stand-in in its place, and
/// allowed to block (module docs).
pub(crate) struct Blocking<'a> {
    /// Dropped after `drop` below cleared the flag.
    occupied: Occupied<'a>,
    /// Whether an outer guard had set the flag already.
    nested: bool,
}

impl<'a> Blocking<'a> {
    /// Marks `worker` (this thread's) occupied and blocking, and has its stand-in take its
    /// place until the poll ends.
    pub(crate) fn enter(worker: &'a WorkerLocal) -> Blocking<'a> {
        let occupied = Occupied::enter(worker);
        if !occupied.nested {
            // Not counted as doing fork-join work: it will not come back to the board soon
            // (`ForkJoin::is_busy`, and a stand-in's choice, `standin/serve.rs`).
            worker.set_counted(false);
            worker.state.forkjoin.set_occupied(false);
        }
        crate::runtime::scheduler::standin::hand_over::hand_over_now(worker);
        let nested = worker.set_blocking(true);
        Blocking { occupied, nested }
    }
}

impl Drop for Blocking<'_> {
    fn drop(&mut self) {
        if !self.nested {
            self.occupied.worker.set_blocking(false);
        }
        if !self.occupied.nested {
            // Counted again for the `Occupied` guard's drop, which uncounts it.
            self.occupied.worker.set_counted(true);
            self.occupied.worker.state.forkjoin.set_occupied(true);
        }
    }
}

/// A worker's thread that waits for a call into another executor: not counted as doing
/// fork-join work while it lives (module docs).
pub(crate) struct Away<'a> {
    worker: &'a WorkerLocal,
    /// Whether this guard uncounted the worker (an outer guard, or `block_in_place`, had
    /// not).
    uncounted: bool,
}

impl<'a> Away<'a> {
    /// Uncounts `worker` (this thread's, occupied) until dropped, and wakes a sleeper: a
    /// stand-in that parked while the worker counted may now run a whole call on the board
    /// (`standin/serve.rs`: its re-check reads the count after its booking, and
    /// `notify_work` fences before it reads the bookings, so one of them sees the other).
    pub(crate) fn enter(worker: &'a WorkerLocal) -> Away<'a> {
        let uncounted = worker.set_counted(false);
        if uncounted {
            worker.state.forkjoin.set_occupied(false);
            worker.state.idle.notify_work();
        }
        Away { worker, uncounted }
    }
}

impl Drop for Away<'_> {
    fn drop(&mut self) {
        if self.uncounted {
            self.worker.set_counted(true);
            self.worker.state.forkjoin.set_occupied(true);
        }
    }
}

/// Runs `f` as fork-join work of call `root` on `worker`, this thread's: occupied, with an
/// [`FjThread`] installed for nested calls to find.
pub(crate) fn on_worker<R>(
    worker: &WorkerLocal,
    root: Arc<Root>,
    f: impl FnOnce(&FjThread) -> R,
) -> R {
    let _occupied = Occupied::enter(worker);
    let heartbeat = worker.first_forkjoin_this_tick();
    let t = FjThread::on_worker_thread(Arc::clone(&worker.state), worker.index, root, heartbeat);
    let _installed = t.install();
    f(&t)
}

/// The worker loop's step: takes the oldest piece of `worker`'s mail (`mail.rs`), else the
/// oldest piece on the board, if any, and runs it on `worker` (this thread's). Returns
/// whether it ran one.
///
/// Then it goes on with the oldest pieces of the same call, with the same fork-join state,
/// while no task and no mail waits for the worker, within the tick it started in and at
/// most [`PIECES_PER_TURN`] in all: a call that spawns many small closures (a `scope`) costs
/// the worker one trip through its loop per batch of pieces, not per piece.
pub(crate) fn run_from_board(worker: &WorkerLocal) -> bool {
    let fj = &worker.state.forkjoin;
    let Some(piece) = fj
        .mail
        .take(worker.index)
        .or_else(|| fj.board.take_oldest())
    else {
        return false;
    };
    let started = crate::runtime::time::epoch::now();
    let root = Arc::clone(piece.root());
    on_worker(worker, root, |t| {
        let mut piece = piece;
        for _ in 1..PIECES_PER_TURN {
            super::wait::run_claimed(t, piece);
            if crate::runtime::time::epoch::moved(started)
                || worker.has_own_tasks()
                || worker.state.has_tasks()
                || fj.mail.has(worker.index)
            {
                return;
            }
            match fj.board.take_oldest_of(&t.root) {
                Some(next) => piece = next,
                None => return,
            }
        }
        super::wait::run_claimed(t, piece);
    });
    true
}

/// The most pieces a worker runs in one step of its loop ([`run_from_board`]).
const PIECES_PER_TURN: usize = 64;
