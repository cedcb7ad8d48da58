//! Waiting for a node: a join's half that another thread claimed, or a scope's closures.
//!
//! A waiting thread runs only pieces that *descend* from the node it waits for (published
//! inside that node's run, at any depth): what the node's own work forked. It takes them
//! from the board, and on a worker's own thread from that worker's mailbox too (the parts
//! addressed to it of broadcasts made inside that work, `mail.rs`). So it never runs
//! an unrelated piece from the board, let alone an async task: a lock held across the `join`
//! is never taken again by the same thread through work it had no part in (rayon#592), and
//! the stack grows only by the depth of the node's own work. With nothing to run, it spins
//! for a moment, counted as *waiting* (the threads doing the node's work then publish
//! pieces for it: `thread.rs`, demand), then sleeps on the node (`node.rs`, "Waiting
//! without a lost wake-up"): its finisher, or the publisher of a descendant, wakes it, and
//! a sleep lasts at most a tick.
//!
//! **The one exception: mail after a tick.** A broadcast's part for a worker runs on that
//! worker's thread and no other, so a worker waiting in one call holds up every broadcast
//! that reaches it from elsewhere until the call returns. Two calls on two workers, each
//! making a broadcast, would then wait for each other for ever (each worker waits for its
//! part on the other). So once a worker's own thread has waited a tick with nothing of its
//! own to run, it also runs the parts in its mailbox that belong to other work and that a
//! caller waits for (a blocking broadcast's, a scope's; [`Piece::is_awaited`]), oldest
//! first, as rayon's waiting threads run any job. Such a part, like a rayon job, may take a
//! lock its thread holds across the wait. A fire-and-forget `spawn_broadcast`'s part (nobody
//! waits for it, so no cycle goes through it), an unrelated piece on the board and a task
//! never run there.

use std::sync::Arc;
use std::time::Instant;

use super::node::{Node, Piece};
use super::thread::FjThread;
use crate::runtime::scheduler::worker::context;
#[cfg(not(loom))]
use crate::runtime::time::epoch::TICK;

/// Spins (each a `spin_loop` hint) before a waiting thread sleeps: a few microseconds, about
/// what a futex round trip costs.
#[cfg(not(loom))]
const SPINS: u32 = 1 << 10;
#[cfg(loom)]
const SPINS: u32 = 0;

/// Waits until `node` finished, running the pieces that descend from it meanwhile: the
/// oldest first for a join's half (they are its thief's biggest pieces), the newest first
/// for a scope (its own closures in rayon's order on one thread).
pub(crate) fn until_finished(t: &FjThread, node: &Arc<Node>, newest: bool) {
    let fj = &t.state.forkjoin;
    // Since when this wait has found nothing of its own to run: a tick later, any mail runs
    // here (module docs).
    let mut idle_since = None;
    loop {
        if node.is_finished() {
            return;
        }
        let mail = takes_mail(t);
        if let Some(piece) = fj.board.take_descendant(node, newest) {
            idle_since = None;
            run_claimed(t, piece);
            continue;
        }
        if let Some(piece) = mail.and_then(|index| fj.mail.take_descendant(index, node)) {
            idle_since = None;
            run_claimed(t, piece);
            continue;
        }
        let late = mail.filter(|_| waited_a_tick(idle_since));
        if let Some(piece) = late.and_then(|index| fj.mail.take_awaited(index)) {
            run_claimed(t, piece);
            continue;
        }
        let since = *idle_since.get_or_insert_with(Instant::now);
        let _waiting = fj.start_waiting();
        // Until something changes: the node finishes, or a piece is published or taken.
        let offered = fj.board.available();
        let mut spins = 0;
        while spins < SPINS && !node.is_finished() && fj.board.available() == offered {
            std::hint::spin_loop();
            spins += 1;
        }
        if spins == SPINS {
            fj.board.sleep_for_descendant(node, || {
                fj.board.has_descendant(node)
                    || takes_mail(t).is_some_and(|index| {
                        fj.mail.has_descendant(index, node)
                            || (waited_a_tick(Some(since)) && fj.mail.has_awaited(index))
                    })
            });
        }
    }
}

/// Whether a wait that has found nothing of its own to run since `since` has waited a tick,
/// so that it runs mail of other work that a caller waits for (module docs). Under loom, at
/// once: the models have no clock.
fn waited_a_tick(since: Option<Instant>) -> bool {
    #[cfg(not(loom))]
    return since.is_some_and(|since| since.elapsed() >= TICK);
    #[cfg(loom)]
    return since.is_some();
}

/// The worker whose mail `t`'s thread takes (`mail.rs`): `t`'s, if the thread is that
/// worker's own (not its stand-in) and mail waits for it.
fn takes_mail(t: &FjThread) -> Option<usize> {
    if !t.state.forkjoin.mail.has(t.index) {
        return None;
    }
    context::with_worker(|w| {
        w.filter(|w| w.index == t.index && std::ptr::eq(&*w.state, &*t.state))
            .map(|w| w.index)
    })
}

/// Takes back the published half `half` of `t`'s frame, or waits until the thread that
/// claimed it finished it (running pieces that descend from it meanwhile). Returns whether
/// another thread ran it.
pub(crate) fn reclaim_or_wait(t: &FjThread, half: &Piece) -> bool {
    if half.try_reclaim() {
        t.state.forkjoin.board.remove_reclaimed(half);
        return false;
    }
    until_finished(t, half, false);
    true
}

/// Runs `piece`, which this thread claimed, with it as the thread's lineage.
pub(crate) fn run_claimed(t: &FjThread, piece: Piece) {
    t.with_lineage(Arc::clone(&piece), || {
        // SAFETY: this thread won the piece's claim, and runs it once.
        unsafe { piece.run(true) }
    });
}
