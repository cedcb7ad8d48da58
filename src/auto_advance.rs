//! The paused clock's auto-advance (`test-util`): while an executor's clock is paused and
//! the executor is idle, its clock jumps to its next timer's deadline and fires what falls
//! due, again and again until something of the executor's runs (or no timer is left).
//!
//! **Idle** means, all at once: every worker is booked as sleeping in the notifier (`park/`:
//! the unparked count is zero), no queue holds a task, and no thread of the executor that is
//! no worker is busy: no `block_on` of it polls its future or has been woken, no
//! blocking-pool job of it is between its spawn and its end (the clock's `Activity` count,
//! `driver/clock.rs`). A thread waiting in `block_on` (its future pending, not woken) does
//! not count; nor does a thread that only entered the executor (`Handle::enter`), nor
//! another executor polling a filch timer.
//!
//! **Who advances.** The executor becomes idle in one of two ways, and each runs
//! [`advance_if_idle`] right there:
//! - the last worker parks: the re-check of its park ([`on_park`], the one call in the
//!   worker's park path) runs after it booked itself sleeping (a SeqCst RMW and fence), so
//!   of the workers parking at once the last to book sees them all booked;
//! - the last busy thread that is no worker goes idle: the one that brings the activity count
//!   to zero (a `block_on` whose future went pending, a job that ended, a waker that took
//!   back a count it did not need) runs the clock's idle hook, set by `Executor`'s build to
//!   this function.
//!
//! The count and the bookings are a Dekker pair: a worker books, then reads the count; a
//! thread lowers the count, then reads the bookings, all SeqCst; so of a worker that parks
//! and a thread that goes idle at the same time, at least one sees the other.
//!
//! **One jump at a time, never seen half done.** A jump (test, move, fire) holds the jumps'
//! lock (`Activity::jumping`, `driver/clock.rs`): two threads that both saw the executor idle
//! jump it in turn, the second testing again after the first one's wakers ran (a task they
//! woke is booked unparked or queued, a `block_on` they woke is counted, before the lock is
//! let go), so the clock never jumps past a timer whose task has not run yet. A `block_on`
//! that starts, or that a waker from outside a jump wakes, is counted under the same lock
//! (`Activity::begin_fresh`), so it never runs during a jump: its next look at the clock
//! comes before the jump's idle test, or after the jump's timers fired. The loom models in
//! `time/loom_model.rs` check both, on the shipped notifier, count, counted `block_on` and
//! jump loop (`advance_while_idle`).
//!
//! A jump goes to the earliest timer's deadline in the wheel's whole ms, keeping the clock's
//! fraction of a ms (`Clock::advance_to_ms`), and fires the timers due then; a timer whose
//! deadline never comes (`u64::MAX` ms) is never jumped to. A waker that is no task of this
//! executor (a foreign executor's, a test's hand-made waker) wakes nothing here, so the
//! executor stays idle and the loop jumps on to the next deadline.
//!
//! Without `test-util` [`on_park`] is `false` and nothing here is compiled: the park path
//! pays nothing.
//!
//! It sits above the executor's state and below the worker loop, whose park re-check calls
//! it.

use crate::state::State;

/// The hook in a worker's park re-check (`worker/mod.rs`): on a paused, idle executor,
/// advances the clock ([`advance_if_idle`]); `true` if it did anything, and the worker must
/// look for work again rather than sleep.
#[cfg(not(feature = "test-util"))]
#[inline(always)]
pub(crate) fn on_park(_state: &State) -> bool {
    false
}

/// The hook in a worker's park re-check (`worker/mod.rs`): on a paused, idle executor,
/// advances the clock ([`advance_if_idle`]); `true` if it did anything, and the worker must
/// look for work again rather than sleep.
#[cfg(feature = "test-util")]
#[inline]
pub(crate) fn on_park(state: &State) -> bool {
    state.driver.clock().is_paused() && advance_if_idle(state)
}

#[cfg(feature = "test-util")]
pub(crate) use paused::advance_if_idle;
#[cfg(all(test, loom, feature = "test-util"))]
pub(crate) use paused::advance_while_idle;

#[cfg(feature = "test-util")]
mod paused {
    use crate::driver::clock::Activity;
    use crate::state::State;
    use crate::sync::{fence, Ordering};

    /// While `state`'s clock is paused and the executor idle (module docs), jumps the clock
    /// to the next timer's deadline and fires the timers due then. Returns whether it fired
    /// or moved anything.
    pub(crate) fn advance_if_idle(state: &State) -> bool {
        let clock = state.driver.clock();
        if !clock.is_paused() {
            return false;
        }
        advance_while_idle(
            clock.activity(),
            || is_idle(state),
            || {
                let Some(next) = state.driver.time().earliest_timer_ms() else {
                    return false;
                };
                // False once the clock was resumed, or if the deadline lies where an
                // `Instant` barely holds it (it then never comes).
                if !clock.advance_to_ms(next) {
                    return false;
                }
                state.driver.time().fire_due_timers();
                true
            },
        )
    }

    /// The loop of [`advance_if_idle`] (and of the loom model's executor): under the jumps'
    /// lock, not nested on one thread, while `is_idle`, `jump` (to the next timer, firing it;
    /// `false` if there is none). Returns whether it jumped.
    pub(crate) fn advance_while_idle(
        activity: &Activity,
        is_idle: impl Fn() -> bool,
        mut jump: impl FnMut() -> bool,
    ) -> bool {
        let Some(_jumping) = activity.jumping() else {
            return false;
        };
        let mut acted = false;
        while is_idle() && jump() {
            acted = true;
        }
        acted
    }

    /// Whether the executor is idle (module docs).
    fn is_idle(state: &State) -> bool {
        // Pairs with the fences of the pushers (`Sleep::notify_*`) as a parking worker's
        // re-check does: a push we do not see here comes with a wake-up we see below, or
        // after our look (it then counts as coming after the jump).
        fence(Ordering::SeqCst);
        state.idle.all_parked()
            && !state.has_work()
            && state.driver.clock().activity().is_idle()
            && state.driver.clock().is_paused()
    }
}
