//! [`TimeDriver`]: one executor's timers: the timing wheel (`wheel.rs`), the clock the
//! deadlines are read on (`clock.rs`), and the deadline a thread waiting in the driver's OS
//! poll wakes at by itself.
//!
//! It knows nothing of IO. The driver stack (`runtime/driver/mod.rs`) asks it how long a wait may
//! last ([`TimeDriver::begin_wait`], which also books the deadline that wait ends at), and
//! fires the due timers after each turn ([`TimeDriver::fire_due`]); a timer armed for
//! before the booked deadline ends the wait through the [`Unpark`] the stack gave it.
//!
//! Timers are due by the [`Clock`]: std's clock, or with the `test-util` feature a clock
//! that may be paused. A paused clock moves only by an advance (`time::advance`, which
//! fires what fell due itself, [`TimeDriver::fire_due_timers`]) or by the executor's
//! auto-advance when it is idle (`runtime/scheduler/auto_advance.rs`); the wait of the OS poll is
//! still bounded by the next deadline's distance on that clock, in real time.
//!
//! **Invariants:**
//! - no timer's waker is woken or dropped while the timers' lock is held (a waker may own
//!   a timer, whose drop takes that lock);
//! - every fired timer's waker is called, even if another of the same turn panics
//!   (`util/wake_all.rs`): the panic goes on only after the last of them;
//! - while a thread waits in the OS poll, `waiting_until` is the deadline it wakes at by
//!   itself, and a timer armed for earlier calls the [`Unpark`]; while nobody waits it is
//!   `None`, and arming wakes nobody (the next turn looks at the wheel anyway);
//! - after [`TimeDriver::shutdown`] every timer has fired (its task woken).

use std::task::Waker;
use std::time::{Duration, Instant};

use super::clock::Clock;
use super::wheel::{TimerKey, Wheel};
use crate::util::sync::Mutex;
#[cfg(feature = "test-util")]
use crate::util::sync::Ordering;
use crate::util::wake_all::{wake_all, wake_all_quietly};

/// A thread's firing in [`TimeDriver::fire_due`], counted until its wakers ran.
#[cfg(feature = "test-util")]
struct Firing<'a>(&'a crate::util::sync::AtomicUsize);

#[cfg(feature = "test-util")]
impl Drop for Firing<'_> {
    fn drop(&mut self) {
        // Release: pairs with the Acquire load of `fire_due_timers`.
        self.0.fetch_sub(1, Ordering::Release);
    }
}

/// What ends a wait in the OS poll (given by the driver stack: its IO driver's waker).
pub(crate) type Unpark = Box<dyn Fn() + Send + Sync>;

/// The wheel and the deadline the waiting thread wakes at.
struct Timers {
    wheel: Wheel,
    /// While a thread waits in the OS poll: the ms deadline it wakes up at by itself
    /// (`u64::MAX`: none). A timer armed for earlier must wake it. `None` while nobody
    /// waits.
    waiting_until: Option<u64>,
}

/// One executor's timers (module docs).
pub(crate) struct TimeDriver {
    timers: Mutex<Timers>,
    /// Threads between taking due timers out of the wheel and the end of their wakers
    /// ([`TimeDriver::fire_due`]): an advance waits for them (`fire_due_timers`).
    #[cfg(feature = "test-util")]
    firing: crate::util::sync::AtomicUsize,
    /// The time of the timers, with the wheel's time zero (`clock.rs`).
    clock: Clock,
    unpark: Unpark,
}

impl TimeDriver {
    /// No timers; `unpark` ends a wait in the OS poll.
    pub(crate) fn new(unpark: Unpark) -> TimeDriver {
        TimeDriver {
            timers: Mutex::new(Timers {
                wheel: Wheel::new(),
                waiting_until: None,
            }),
            #[cfg(feature = "test-util")]
            firing: crate::util::sync::AtomicUsize::new(0),
            clock: Clock::new(),
            unpark,
        }
    }

    /// The clock of the timers (`clock.rs`).
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The current time on the clock of the timers.
    #[inline]
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    /// `deadline` in the wheel's ms, rounded up (a timer never fires early). A deadline
    /// 2^64 ms or more after the origin, beyond what the wheel's clock holds, is `u64::MAX`,
    /// which the wheel never fires.
    pub(crate) fn deadline_ms(&self, deadline: Instant) -> u64 {
        let d = deadline.saturating_duration_since(self.clock.origin());
        // `as_nanos` is below 2^94, so the division cannot overflow the u128; the result
        // saturates rather than wraps.
        u64::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX)
    }

    /// Before a wait in the OS poll of at most `timeout` (`None`: no limit): the wait,
    /// shortened to the next timer's deadline. Unless it is zero, the thread counts as
    /// waiting from here until [`TimeDriver::end_wait`] (a timer armed for earlier wakes it).
    pub(crate) fn begin_wait(&self, timeout: Option<Duration>) -> Option<Duration> {
        if timeout == Some(Duration::ZERO) {
            // No wait: the next timer cannot shorten it.
            return timeout;
        }
        let now = self.clock.now_ms();
        let mut timers = self.timers.lock();
        let next = timers.wheel.next_deadline();
        let until_timer = next.map(|d| Duration::from_millis(d.saturating_sub(now)));
        let timeout = match (timeout, until_timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if timeout != Some(Duration::ZERO) {
            timers.waiting_until = Some(next.unwrap_or(u64::MAX));
        }
        timeout
    }

    /// The wait booked by [`TimeDriver::begin_wait`] (one that returned a non-zero wait) is
    /// over.
    pub(crate) fn end_wait(&self) {
        self.timers.lock().waiting_until = None;
    }

    /// Fires the due timers, calling their wakers on this thread after the timers' lock is
    /// released (`wakers`: scratch space, left empty); returns how many.
    pub(crate) fn fire_due(&self, wakers: &mut Vec<Waker>) -> usize {
        {
            let mut timers = self.timers.lock();
            // The clock is read only when some timer is armed.
            let Some(next) = timers.wheel.next_deadline() else {
                return 0;
            };
            let now = self.clock.now_ms();
            if next > now {
                return 0;
            }
            timers.wheel.advance(now, wakers);
            // Under the timers' lock, as the timers leave the wheel (`fire_due_timers`).
            #[cfg(feature = "test-util")]
            self.firing.fetch_add(1, Ordering::Relaxed);
        }
        let fired = wakers.len();
        // Ends the count once the wakers ran, also if one panics.
        #[cfg(feature = "test-util")]
        let _firing = Firing(&self.firing);
        // Every waker is called, even if one panics: their timers are out of the wheel.
        wake_all(wakers.drain(..));
        fired
    }

    /// Fires the timers that are due on the clock now, calling their wakers on this thread
    /// (the paused clock's advances), and returns once the timers another thread took out
    /// of the wheel before have had their wakers called too (a driver turn's, due by the
    /// clock's last move): what was due when this began has been woken when it returns.
    /// Returns how many it fired itself.
    ///
    /// The count of firing threads is raised under the timers' lock, as the timers leave the
    /// wheel, so a firing whose timers this call did not find is counted when this looks;
    /// it waits with a yield, for wakers that only queue tasks or set flags.
    #[cfg(feature = "test-util")]
    pub(crate) fn fire_due_timers(&self) -> usize {
        let fired = self.fire_due(&mut Vec::new());
        {
            // The timers' lock orders this look after any firing that took timers first
            // (its count is raised under that lock).
            let _timers = self.timers.lock();
        }
        // Acquire: pairs with the Release of `Firing::drop`: the wakers' effects are seen.
        while self.firing.load(Ordering::Acquire) != 0 {
            crate::util::sync::thread::yield_now();
        }
        fired
    }

    /// The earliest deadline of a timer, in the wheel's ms; `None` if no timer is armed, or
    /// if the earliest never comes (`u64::MAX`).
    #[cfg(feature = "test-util")]
    pub(crate) fn earliest_timer_ms(&self) -> Option<u64> {
        let earliest = self.timers.lock().wheel.earliest_deadline();
        earliest.filter(|&ms| ms != u64::MAX)
    }

    /// A new timer (not armed). O(1), wakes nothing.
    pub(crate) fn insert(&self) -> TimerKey {
        self.timers.lock().wheel.insert()
    }

    /// Arms timer `key` for `deadline`; `false` if it is already due. Ends the wait in the
    /// OS poll only if the deadline comes before the one that wait ends at.
    ///
    /// Here and in [`TimeDriver::poll`] and [`TimeDriver::remove`], the waker the wheel
    /// lets go of is dropped after the timers' lock is released: its drop may drop another
    /// timer of this driver (a waker that owns a `Sleep`), which takes the lock.
    pub(crate) fn arm(&self, key: TimerKey, deadline: Instant, waker: &Waker) -> bool {
        let ms = self.deadline_ms(deadline);
        let (pending, wake, replaced) = {
            let mut timers = self.timers.lock();
            let (pending, replaced) = timers.wheel.arm(key, ms, waker);
            let wake = pending && timers.waiting_until.is_some_and(|until| ms < until);
            (pending, wake, replaced)
        };
        drop(replaced);
        if wake {
            (self.unpark)();
        }
        pending
    }

    /// Moves timer `key`, armed and not fired, to `deadline` at once, keeping its waker (a
    /// reset from any thread reaches the waiting task at the new deadline); a deadline
    /// already passed fires it now, waking that waker. Ends the wait in the OS poll if the
    /// new deadline comes before the one that wait ends at. Returns `false` if the timer had
    /// fired (it then keeps no waker: the caller arms it again at its next poll).
    pub(crate) fn rearm(&self, key: TimerKey, deadline: Instant) -> bool {
        let ms = self.deadline_ms(deadline);
        // A deadline that has passed on the clock fires now, though the wheel's time (which
        // moves only when a turn fires timers) may not have reached it.
        let due = deadline <= self.clock.now();
        let (fired_now, wake) = {
            let mut timers = self.timers.lock();
            if timers.wheel.is_fired(key) {
                return false;
            }
            let fired_now = timers.wheel.rearm(key, ms, due);
            let wake = timers.waiting_until.is_some_and(|until| ms < until);
            (fired_now, wake)
        };
        if let Some(waker) = fired_now {
            waker.wake();
        } else if wake {
            (self.unpark)();
        }
        true
    }

    /// Whether timer `key` fired; if not, `waker` replaces its waker.
    pub(crate) fn poll(&self, key: TimerKey, waker: &Waker) -> bool {
        let replaced = {
            let mut timers = self.timers.lock();
            if timers.wheel.is_fired(key) {
                return true;
            }
            timers.wheel.set_waker(key, waker)
        };
        drop(replaced);
        false
    }

    /// Removes timer `key`. O(1), wakes nothing.
    pub(crate) fn remove(&self, key: TimerKey) {
        // The guard is a temporary of this statement: the waker outlives the lock.
        let waker = self.timers.lock().wheel.remove(key);
        drop(waker);
    }

    /// The timers the wheel holds now (`Stats::timers`).
    pub(crate) fn timers_len(&self) -> usize {
        self.timers.lock().wheel.len()
    }

    /// Fires every timer (the executor is gone): each timer's task is woken, and its next
    /// poll sees the driver shut down.
    pub(crate) fn shutdown(&self) {
        let mut wakers = Vec::new();
        self.timers.lock().wheel.fire_all(&mut wakers);
        wake_all_quietly(wakers);
    }
}
