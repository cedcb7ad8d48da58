//! The paused clock's auto-advance (`test-util`): while an executor's clock is paused and
//! the executor is idle, its clock jumps to its next timer's deadline and fires what falls
//! due, again and again until something of the executor's runs (or no timer is left).
//!
//! **Idle** means, all at once: every worker is booked as sleeping in the notifier (`park/`:
//! the unparked count is zero), no worker's poll is held (while it is, the worker's stand-in,
//! `runtime/scheduler/standin/`, is booked in the notifier under the worker's index, though
//! the worker's own thread is still inside that poll), no queue holds a task, and no thread
//! of the executor that is no worker is busy: no `block_on` of it polls its future or has
//! been woken, no blocking-pool job of it is between its spawn and its end, no stand-in is
//! between its look for a task and the end of what it found (a poll, a call, a turn of the
//! driver: it may go on after its slot was released, `standin/serve.rs`) (the clock's
//! `Activity` count, `runtime/time/clock.rs`). So a poll that blocks its thread
//! (`task::block_in_place`, a poll held for a tick) is busy: the clock does not jump while it
//! runs, as it does not while a blocking-pool job runs. A thread waiting in `block_on` (its future pending, not woken) does
//! not count; nor does a thread that only entered the executor (`Handle::enter`), nor
//! another executor polling a filch timer. And somebody **waits** on the executor: a task of
//! it that waits for a wake-up (registered in the live-task registry, read under its locks)
//! or a `block_on` of it in flight (`Activity::has_block_on`). An executor nobody waits on
//! keeps its clock where it is, as tokio's runtime outside its `block_on`: a timer armed
//! there by a foreign poll is not jumped to (tokio's `time_rt.rs::tickspace`). The waiter
//! that comes later (a `block_on` that goes pending, a task that parks its worker) makes the
//! executor idle again, and the test then sees it.
//!
//! **The rule** (tokio's): only the thread that holds the driver jumps the clock, and only
//! after a turn of the driver that does not block and delivered nothing. An IO event that
//! the OS has ready (a byte already written on a loopback socket) is thus delivered, and its
//! task woken, before any jump: a `timeout` around IO that has come cannot elapse. While
//! another worker holds the driver (it waits in its OS poll, perhaps already woken by the
//! kernel), a thread that finds the executor idle does not jump: it wakes that holder, which
//! after each wait in the OS poll on a paused clock tests the executor and jumps itself
//! (the driver's `after_wait` hook, set by [`install`]). The holder is a parked worker, so
//! the executor stays idle for its test unless what it delivered woke a task.
//!
//! **Who advances.** The executor becomes idle in one of two ways, and each runs
//! [`advance_if_idle`] right there (which jumps, or wakes the driver's holder to):
//! - the last worker parks: the re-check of its park ([`on_park`], the one call in the
//!   worker's park path) runs after it booked itself sleeping (a SeqCst RMW and fence), so
//!   of the workers parking at once the last to book sees them all booked;
//! - the last busy thread that is no worker goes idle: the one that brings the activity count
//!   to zero (a `block_on` whose future went pending, a job that ended, a waker that took
//!   back a count it did not need, a stand-in done with what it found) runs the clock's idle
//!   hook, which [`install`] sets (at the executor's build) to [`wake_a_worker_if_idle`]:
//!   if the executor is idle, it wakes one sleeping worker, which parks again as the last
//!   and so runs the first way. It never takes the driver itself: a worker that parks while
//!   another thread holds the driver sleeps on its condition variable, and only a worker
//!   is sure to park in the driver after letting it go.
//!
//! The count and the bookings are a Dekker pair: a worker books, then reads the count; a
//! thread lowers the count, then reads the bookings, all SeqCst; so of a worker that parks
//! and a thread that goes idle at the same time, at least one sees the other.
//!
//! **One jump at a time, never seen half done.** A jump (test, move, fire) holds the jumps'
//! lock (`Activity::jumping`, `runtime/time/clock.rs`): two threads that both saw the executor idle
//! jump it in turn, the second testing again after the first one's wakers ran (a task they
//! woke is booked unparked or queued, a `block_on` they woke is counted, before the lock is
//! let go), so the clock never jumps past a timer whose task has not run yet. A `block_on`
//! that starts, or that a waker from outside a jump wakes, is counted under the same lock
//! (`Activity::begin_fresh`), so it never runs during a jump: its next look at the clock
//! comes before the jump's idle test, or after the jump's timers fired. The loom models in
//! `loom_model.rs` check both, on the shipped notifier, count, counted `block_on` and
//! jump loop (`advance_while_idle`); and, with a stub driver, that a parking worker never
//! jumps while the driver's holder has an event to deliver, and that the holder it wakes
//! does jump (`advance_or_wake_holder`).
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

use crate::runtime::scheduler::state::State;

/// The hook in a worker's park re-check (`runtime/scheduler/worker/mod.rs`): on a paused, idle
/// executor, advances the clock ([`advance_if_idle`]); `true` if it did anything, and the worker
/// must look for work again rather than sleep.
#[cfg(not(feature = "test-util"))]
#[inline(always)]
pub(crate) fn on_park(_state: &State) -> bool {
    false
}

/// The hook in a worker's park re-check (`runtime/scheduler/worker/mod.rs`): on a paused, idle
/// executor, advances the clock ([`advance_if_idle`]); `true` if it did anything, and the worker
/// must look for work again rather than sleep.
#[cfg(feature = "test-util")]
#[inline]
pub(crate) fn on_park(state: &State) -> bool {
    state.driver.clock().is_paused() && advance_if_idle(state)
}

#[cfg(feature = "test-util")]
pub(crate) use paused::{advance_if_idle, install};
#[cfg(all(test, loom, feature = "test-util"))]
pub(crate) use paused::{advance_or_wake_holder, advance_while_idle, wake_a_worker_if_idle};

#[cfg(feature = "test-util")]
mod paused {
    use std::sync::Arc;

    use crate::runtime::driver::Exclusive;
    use crate::runtime::park::{Idle, Reactor};
    use crate::runtime::scheduler::state::State;
    use crate::runtime::time::clock::Activity;
    use crate::util::sync::{fence, Ordering};

    /// Sets the two hooks of `state`'s auto-advance (module docs): the last busy thread
    /// that is no worker to go idle calls [`wake_a_worker_if_idle`], and the driver's
    /// holder, after each wait in the OS poll, tests and jumps as the holder. Weak: the
    /// clock and the driver belong to the state.
    pub(crate) fn install(state: &Arc<State>) {
        let weak = Arc::downgrade(state);
        state
            .driver
            .clock()
            .activity()
            .set_on_idle(Box::new(move || {
                if let Some(state) = weak.upgrade() {
                    let clock = state.driver.clock();
                    if clock.is_paused() {
                        wake_a_worker_if_idle(&state.idle, clock.activity(), || is_idle(&state));
                    }
                }
            }));
        let weak = Arc::downgrade(state);
        state
            .driver
            .set_after_wait(Box::new(move |exclusive: &mut Exclusive| {
                if let Some(state) = weak.upgrade() {
                    advance_as_holder(&state, exclusive);
                }
            }));
    }

    /// While `state`'s clock is paused and the executor idle (module docs): if this thread
    /// can take the driver, jumps the clock to the next timer and fires the timers due then,
    /// each jump after a turn that does not block and delivered nothing; if another thread
    /// holds the driver, wakes it, and that holder tests and jumps after its wait. Returns
    /// whether it delivered, fired or moved anything.
    pub(crate) fn advance_if_idle(state: &State) -> bool {
        let clock = state.driver.clock();
        if !clock.is_paused() {
            return false;
        }
        advance_or_wake_holder(
            &*state.driver,
            clock.activity(),
            || is_idle(state),
            || jump(state),
        )
    }

    /// The idle hook of a thread that is no worker (module docs, "Who advances"): if the
    /// executor `is_idle`, wakes one sleeping worker, which finds nothing, parks again, and
    /// as the last to park tests and jumps (or wakes the driver's holder to). The thread
    /// never takes the driver itself: a worker that parks while another thread holds the
    /// driver sleeps on its condition variable, so a thread that will not park in the driver
    /// afterwards (no worker) could leave it with nobody waiting in it, and the executor
    /// idle with nobody to jump its clock.
    ///
    /// The test runs under the jumps' lock, as a parking worker's does: of the two, the
    /// second to take it sees the other's move (the worker's booking, this thread's end),
    /// so the last to go idle is never missed. Inside a jump of this thread (a waker the
    /// jump called ended the activity) it does nothing: the jump's loop tests again after
    /// its wakers ran.
    pub(crate) fn wake_a_worker_if_idle(
        idle: &Idle,
        activity: &Activity,
        is_idle: impl Fn() -> bool,
    ) {
        let Some(_jumping) = activity.jumping() else {
            return;
        };
        if is_idle() {
            idle.notify_work();
        }
    }

    /// [`advance_if_idle`] by the thread that holds the driver, after its wait in the OS
    /// poll.
    fn advance_as_holder(state: &State, exclusive: &mut Exclusive) -> bool {
        advance_while_idle(
            state.driver.clock().activity(),
            || is_idle(state),
            || state.driver.turn_now(exclusive),
            || jump(state),
        )
    }

    /// Jumps `state`'s clock to the next timer's deadline and fires the timers due then;
    /// `false` if there is no timer to jump to.
    fn jump(state: &State) -> bool {
        let clock = state.driver.clock();
        let Some(next) = state.driver.time().earliest_timer_ms() else {
            return false;
        };
        // False once the clock was resumed, or if the deadline lies where an `Instant`
        // barely holds it (it then never comes).
        if !clock.advance_to_ms(next) {
            return false;
        }
        state.driver.time().fire_due_timers();
        true
    }

    /// Who jumps (module docs): the thread that takes `reactor` (the driver) runs
    /// [`advance_while_idle`] with its turns that do not block; if another thread holds it,
    /// that holder is woken when the executor is `is_idle`, and it tests and jumps after
    /// its wait. Returns whether this thread delivered, fired or moved anything.
    pub(crate) fn advance_or_wake_holder<R: Reactor>(
        reactor: &R,
        activity: &Activity,
        is_idle: impl Fn() -> bool,
        jump: impl FnMut() -> bool,
    ) -> bool {
        match reactor.try_hold() {
            Some(mut held) => {
                advance_while_idle(activity, is_idle, || reactor.turn_now(&mut held), jump)
            }
            None => {
                if is_idle() {
                    reactor.wake();
                }
                false
            }
        }
    }

    /// The jump loop, by the thread that holds the driver, under the jumps' lock (not
    /// nested on one thread): while `is_idle`, `turn` (a turn that does not block; `true`
    /// if it delivered something, and the executor is tested again), and only if that
    /// delivered nothing, `jump` (to the next timer, firing it; `false` if there is none).
    /// Returns whether a turn delivered or a jump moved anything.
    pub(crate) fn advance_while_idle(
        activity: &Activity,
        is_idle: impl Fn() -> bool,
        mut turn: impl FnMut() -> bool,
        mut jump: impl FnMut() -> bool,
    ) -> bool {
        let Some(_jumping) = activity.jumping() else {
            return false;
        };
        let mut acted = false;
        while is_idle() {
            if turn() {
                acted = true;
                continue;
            }
            if !jump() {
                break;
            }
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
        let activity = state.driver.clock().activity();
        state.idle.all_parked()
            && !state.standins.any_active()
            && !state.has_work()
            && activity.is_idle()
            && state.driver.clock().is_paused()
            && (activity.has_block_on() || !state.live_tasks.is_empty())
    }
}
