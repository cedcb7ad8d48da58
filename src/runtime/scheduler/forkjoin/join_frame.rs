//! The join of two closures on a thread doing fork-join work ([`join`]).
//!
//! The protocol, for `join(a, b)` on thread T:
//! 1. T links a frame holding `b` into its list (`thread.rs`) and makes the heartbeat and
//!    demand check, which may publish T's oldest unpublished frame (this one, or an older
//!    one) onto the board; a cancelled call settles the frame (step 4) and unwinds here.
//!    While T is inside `a`, the ticker may publish T's oldest unpublished frame in T's
//!    place, if T makes no check for a tick (`exposed.rs`): a blocked `a` does not keep `b`
//!    from the idle workers.
//! 2. T runs `a`.
//! 3. T unlinks the frame. If it was never published, T runs `b` itself: the common case,
//!    with no atomic operation, no allocation and no shared write on the way.
//! 4. Else T tries to take the half back (`try_reclaim`); if it wins, it runs `b` itself.
//!    If another thread claimed it, T waits until that thread finished it, running only
//!    pieces that descend from it meanwhile (`wait.rs`); the outcome is in the frame.
//! 5. T returns both results, or resumes a panic: `a`'s first (rayon's rule: `b` still ran),
//!    else `b`'s. If `a` unwinds, a guard makes steps 3 and 4 on the way out (running `b`
//!    and dropping a panic of it), so the unwind goes on only once the half is settled.
//!
//! **Invariant:** T leaves the frame (returns or unwinds) only after step 3 or 4 settled the
//! half: never published, reclaimed, or finished by its claimer. So no other thread holds a
//! pointer into the frame once it is gone, whatever the closures do, panics included. The
//! closure `b` is moved out of the frame exactly once: by its claimer, or by T.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::thread::Result as Outcome;

use super::frame::FrameLinks;
use super::node::Piece;
use super::thread::{Cancelled, FjThread};
use crate::runtime::task::Payload;
use crate::util::wake_all::drop_quietly;

/// One join's frame: its links first, so that a pointer to the links is a pointer to it.
/// No drop glue: `b` and `outcome` are moved out by hand (module invariant).
#[repr(C)]
struct JoinFrame<B, RB> {
    links: FrameLinks,
    /// The second half, until it runs.
    b: UnsafeCell<MaybeUninit<B>>,
    /// Its outcome, written when another thread ran it.
    outcome: UnsafeCell<MaybeUninit<Outcome<RB>>>,
}

impl<B, RB> JoinFrame<B, RB> {
    /// Moves the second half out.
    ///
    /// # Safety
    ///
    /// Once per frame, by the thread that holds the half (its claimer, or the owner when the
    /// half was never published or was reclaimed).
    unsafe fn take_b(&self) -> B {
        // SAFETY: the caller's contract: `b` was written at the frame's making and is read once.
        unsafe { (*self.b.get()).assume_init_read() }
    }

    /// Moves the outcome of a half that another thread ran out.
    ///
    /// # Safety
    ///
    /// Once, by the owner, after the claimer finished the half (it wrote the outcome).
    unsafe fn take_outcome(&self) -> Outcome<RB> {
        // SAFETY: the caller's contract.
        unsafe { (*self.outcome.get()).assume_init_read() }
    }
}

/// Runs the second half of the frame at `frame` (or, in a cancelled call, drops it) and
/// writes its outcome there: a half's `run` (`node.rs`, `Half`).
///
/// # Safety
///
/// `frame` points to a live `JoinFrame<B, RB>` whose half the caller claimed, and nothing else
/// touches the frame's `b` and `outcome` until the caller finishes the half.
unsafe fn run_half<B, RB>(frame: *const (), migrated: bool, cancelled: bool)
where
    B: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    // SAFETY: the caller's contract.
    let frame = unsafe { &*frame.cast::<JoinFrame<B, RB>>() };
    // SAFETY: the claim gives this thread the half, once.
    let b = unsafe { frame.take_b() };
    let outcome = if cancelled {
        // A cancelled call starts nothing new: the half unwinds at once, in its owner.
        drop_quietly(b);
        Err(Box::new(Cancelled) as Payload)
    } else {
        catch_unwind(AssertUnwindSafe(|| b(migrated)))
    };
    // SAFETY: as above; the owner reads it only after the half is marked finished.
    unsafe { (*frame.outcome.get()).write(outcome) };
}

/// Settles the half of the frame whose links are `links` once `a` returned or unwound:
/// unlinks the frame, and takes the half back or waits for its claimer (compiled once, not
/// for each join's closure types). Returns `true` if another thread ran it (the
/// outcome is in the frame), `false` if `b` is still in the frame for this thread to run.
///
/// # Safety
///
/// `links` are this thread's youngest linked frame's.
#[inline]
unsafe fn settle(t: &FjThread, links: &FrameLinks) -> bool {
    // SAFETY: the caller's contract; `a`'s joins unlinked their frames before returning or
    // unwinding.
    unsafe { t.pop(links) };
    let published = links.published.get();
    if published.is_null() {
        return false;
    }
    // SAFETY: `publish::frame` stored the pointer with `Piece::into_raw`, one count for the
    // frame, which this takes back once (the frame is settled once).
    let half = unsafe { Piece::from_raw(published) };
    super::wait::reclaim_or_wait(t, &half)
}

/// Settles the half if `a` unwinds (step 5 of the module docs), or if the call was
/// cancelled before `a` ran (step 1: `check_in` published nothing, as it reports the
/// cancellation first, but the ticker may have, `exposed.rs`); forgotten when `a` returns.
struct OnUnwind<'a, B: FnOnce(bool) -> RB + Send, RB: Send> {
    t: &'a FjThread,
    frame: &'a JoinFrame<B, RB>,
    injected: bool,
    /// Whether the call was cancelled before `a` ran: `b`, if still here, is dropped unrun.
    cancelled: bool,
}

impl<B: FnOnce(bool) -> RB + Send, RB: Send> Drop for OnUnwind<'_, B, RB> {
    fn drop(&mut self) {
        // SAFETY: the frame is the youngest: `a` unwound out of its own joins, which
        // unlinked theirs (or `a` has not run).
        if !unsafe { settle(self.t, &self.frame.links) } {
            // The half is this thread's (never published, or reclaimed): run as a claimer
            // would (rayon's rule: `b` runs even though `a` panicked; `a`'s panic goes on),
            // or dropped unrun in a cancelled call.
            let frame = std::ptr::from_ref(self.frame).cast::<()>();
            // SAFETY: the frame is live and its half this thread's, as above.
            unsafe { run_half::<B, RB>(frame, self.injected, self.cancelled) };
        }
        // SAFETY: the half was finished, by its claimer or just above, and its outcome written.
        if let Err(panic) = unsafe { self.frame.take_outcome() } {
            drop_quietly(panic);
        }
    }
}

/// Runs `a` and `b` on thread `t`, `b` possibly on another thread (module docs). Each closure
/// gets whether it runs on a thread other than the caller of the public `join`: `injected` for
/// those this thread runs (the call came from outside the workers), `true` for a stolen `b`.
#[inline]
pub(crate) fn join<A, B, RA, RB>(t: &FjThread, a: A, b: B, injected: bool) -> (RA, RB)
where
    A: FnOnce(bool) -> RA,
    B: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    let frame = JoinFrame {
        links: FrameLinks::new(run_half::<B, RB>),
        b: UnsafeCell::new(MaybeUninit::new(b)),
        outcome: UnsafeCell::new(MaybeUninit::uninit()),
    };
    // SAFETY: the frame stays on this stack until `settle` unlinks it, which comes before
    // every return and unwind of this function (module invariant); joins nest, so the
    // unlinks mirror the links.
    unsafe { t.push(&frame.links) };
    let mut guard = OnUnwind {
        t,
        frame: &frame,
        injected,
        cancelled: false,
    };
    if t.check_in() {
        // The guard settles the frame on the way out.
        guard.cancelled = true;
        resume_unwind(Box::new(Cancelled));
    }
    let ra = a(injected);
    std::mem::forget(guard);
    // SAFETY: the frame is the youngest again (`a`'s joins unlinked theirs).
    if unsafe { settle(t, &frame.links) } {
        // SAFETY: the claimer finished the half and wrote its outcome.
        match unsafe { frame.take_outcome() } {
            Ok(rb) => (ra, rb),
            Err(panic) => resume_unwind(panic),
        }
    } else {
        // SAFETY: the half is this thread's (never published, or reclaimed).
        let b = unsafe { frame.take_b() };
        (ra, b(injected))
    }
}
