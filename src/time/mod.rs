//! Timers: [`sleep`], [`sleep_until`], [`timeout`] and [`interval`], on the time driver
//! (`runtime/time/driver.rs`, `runtime/time/wheel.rs`) of the executor current where a timer is
//! made (else the global one's).
//!
//! A timer costs nothing until its first poll; its first poll inserts it into the wheel
//! (waking the driver's thread only if its deadline comes before the one that thread
//! already waits for), and its drop removes it; both are O(1) and wake no task.
//! Resolution is one millisecond, and a timer never fires before its deadline.
//!
//! Time never wraps and never panics. A deadline that an `Instant` cannot hold
//! (`sleep(Duration::MAX)`, the tick after an `interval(Duration::MAX)`'s first) is taken
//! as 30 years ahead (as tokio does); a deadline 2^64 ms or more after the driver's start
//! never fires; and the wheel links a deadline beyond its reach (about 795 days) at its
//! horizon, where it is linked again rather than fired.
//!
//! A [`Timeout`] looks at its deadline whenever its future is pending, even when that
//! future spent the last of the task's cooperative budget. The driver drops every waker the wheel
//! lets go of after releasing the timers' lock, so a waker that owns timers may be dropped from
//! inside timer code.
//!
//! Once the timer's executor has shut down, polling it panics with a message that says so
//! (its task is woken at shutdown, so it never hangs).
//!
//! Deadlines are [`Instant`]s (tokio's `time::Instant`: `instant.rs`), read on the clock of
//! the timer's executor (`runtime/time/clock.rs`, [`now`]): std's
//! clock, or, with the `test-util` feature, a clock that `pause` stops and `advance` moves,
//! and that jumps to the next timer whenever its executor is idle
//! (`runtime/scheduler/auto_advance.rs`). `paused.rs` holds the public functions of that test
//! clock.

mod instant;
#[cfg(feature = "test-util")]
mod paused;
mod start_paused;

pub use instant::Instant;

#[cfg(feature = "test-util")]
pub use paused::{advance, pause, resume};

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant as StdInstant};

use crate::executor::global::current_driver;
#[cfg(feature = "test-util")]
use crate::executor::global::started_fallback;
use crate::runtime::coop;
use crate::runtime::driver::Driver;
use crate::runtime::time::wheel::TimerKey;

/// A future that completes at a deadline; made by [`sleep`] and [`sleep_until`].
///
/// ```
/// use std::time::Duration;
/// use filch::time::Instant;
/// let start = Instant::now();
/// filch::block_on(filch::time::sleep(Duration::from_millis(5)));
/// assert!(start.elapsed() >= Duration::from_millis(5));
/// ```
pub struct Sleep {
    driver: Arc<Driver>,
    deadline: StdInstant,
    /// The timer in the wheel, once polled.
    key: Option<TimerKey>,
    /// Whether the wheel holds the current `deadline` with the waker of the last poll (false
    /// before the first poll, and after a reset of a timer that had fired).
    armed: bool,
    /// The timer as tokio-console sees it: a resource of kind `timer`
    /// (`runtime/observe/console/resource.rs`).
    #[cfg(feature = "console")]
    console: crate::runtime::observe::console::resource::Resource,
}

/// Waits for `duration`. See [`Sleep`].
///
/// ```
/// # filch::block_on(async {
/// filch::time::sleep(std::time::Duration::from_millis(1)).await;
/// # });
/// ```
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let driver = timer_driver();
    let deadline = after(driver.time().now(), duration);
    Sleep::new(driver, deadline)
}

/// The driver of the executor where a timer made on this thread belongs: the current
/// executor's, else the fallback's (`executor/global.rs`).
///
/// # Panics
/// With `test-util` and `tokio-context`, on a thread of the tokio runtime that runs what
/// `tokio::spawn` starts under a paused clock, if that executor's clock is not paused: the
/// timer would wait in real time (`runtime/tokio_context/timers_off.rs`).
#[track_caller]
fn timer_driver() -> Arc<Driver> {
    let driver = current_driver();
    #[cfg(all(feature = "test-util", feature = "tokio-context"))]
    if crate::runtime::tokio_context::timers_off::on_side_thread() && !driver.clock().is_paused() {
        panic!(
            "{}",
            crate::runtime::tokio_context::timers_off::FILCH_TIMER_ON_SIDE
        );
    }
    driver
}

/// `at + duration`, or, where an `Instant` cannot hold that, [`far_future`] from `at` (a
/// deadline that never comes, for the wheel).
fn after(at: StdInstant, duration: Duration) -> StdInstant {
    at.checked_add(duration).unwrap_or_else(|| far_future(at))
}

/// An instant about 30 years after `at` (as tokio's `Instant::far_future`): the deadline of
/// a timer whose true deadline an `Instant` cannot hold. It is beyond the wheel's horizon,
/// so the wheel never fires it early; it comes only after 30 years of uptime (or of a paused
/// clock's jumps).
fn far_future(at: StdInstant) -> StdInstant {
    // Cannot overflow: `Instant` counts whole seconds in an i64 or u64 on the platforms
    // std supports, starting near boot, so it holds centuries beyond any present value (and
    // a paused clock stays a century inside it, `runtime/time/clock.rs`).
    at + Duration::from_secs(86_400 * 365 * 30)
}

/// Waits until `deadline`. See [`Sleep`].
///
/// ```
/// let deadline = filch::time::Instant::now() + std::time::Duration::from_millis(2);
/// filch::block_on(filch::time::sleep_until(deadline));
/// assert!(filch::time::Instant::now() >= deadline);
/// ```
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(timer_driver(), deadline.into_std())
}

impl Sleep {
    #[track_caller]
    fn new(driver: Arc<Driver>, deadline: StdInstant) -> Sleep {
        Sleep::new_as(driver, deadline, "Sleep")
    }

    /// A sleep that tokio-console shows as a `concrete_type` (`Sleep`, `Interval`) made at
    /// the caller's location.
    #[track_caller]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    fn new_as(driver: Arc<Driver>, deadline: StdInstant, concrete_type: &'static str) -> Sleep {
        #[cfg(feature = "console")]
        let console = {
            use crate::runtime::observe::console::resource::Resource;
            let at = std::panic::Location::caller();
            let console = Resource::new(concrete_type, "timer", "Sleep::new_timeout", Some(at));
            let left = deadline.saturating_duration_since(driver.time().now());
            console.set_duration_ms(u64::try_from(left.as_millis()).unwrap_or(u64::MAX));
            console
        };
        Sleep {
            driver,
            deadline,
            key: None,
            armed: false,
            #[cfg(feature = "console")]
            console,
        }
    }

    /// The deadline.
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// let deadline = Instant::now() + Duration::from_secs(1);
    /// assert_eq!(filch::time::sleep_until(deadline).deadline(), deadline);
    /// ```
    pub fn deadline(&self) -> Instant {
        Instant::from_std(self.deadline)
    }

    /// Whether the deadline has passed.
    ///
    /// ```
    /// let done = filch::time::sleep(std::time::Duration::ZERO);
    /// assert!(done.is_elapsed());
    /// assert!(!filch::time::sleep(std::time::Duration::from_secs(60)).is_elapsed());
    /// ```
    pub fn is_elapsed(&self) -> bool {
        self.driver.time().now() >= self.deadline
    }

    /// Moves the deadline, earlier or later, even after the sleep completed (it then
    /// completes again at the new deadline). Use it to restart a timeout without making a
    /// new timer (an idle timeout that each message pushes back).
    ///
    /// The timer moves at once, keeping the waker of the task that polled it last: a task
    /// waiting on the sleep wakes at the new deadline even when another thread resets it
    /// (the sleep shared behind a mutex), and at once if that deadline has passed.
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// filch::block_on(async {
    ///     let sleep = filch::time::sleep(Duration::from_secs(3600));
    ///     let mut sleep = std::pin::pin!(sleep);
    ///     sleep.as_mut().reset(Instant::now() + Duration::from_millis(1));
    ///     sleep.await; // one millisecond, not an hour
    /// });
    /// ```
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.get_mut().reset_to(deadline.into_std());
    }

    /// [`Sleep::reset`] on a `&mut` (`Sleep` is `Unpin`): an armed timer that has not fired
    /// moves in the wheel now, with its waker; one not armed yet, or fired, is armed at the
    /// next poll.
    fn reset_to(&mut self, deadline: StdInstant) {
        self.deadline = deadline;
        if self.armed {
            let key = self.key.expect("an armed timer has a key");
            self.armed = self.driver.time().rearm(key, deadline);
        }
    }
}

/// The current time on the clock of the current executor's timers (else that of a running
/// `#[filch::main]`'s executor, else the global executor's, if it has started): std's
/// `Instant::now()`, plus, with the `test-util` feature, the time the clock was moved while paused
/// (`time::pause`, `time::advance`). Outside any executor, and without `test-util`, it is
/// `Instant::now()`. Deadlines, [`Sleep::is_elapsed`] and the ticks of an [`Interval`] are read on
/// this clock.
///
/// ```
/// let before = filch::time::Instant::now();
/// assert!(filch::time::now() >= before);
/// ```
pub fn now() -> Instant {
    Instant::from_std(clock_now())
}

/// [`now`] as a `std::time::Instant`, for the timers' internals.
fn clock_now() -> StdInstant {
    #[cfg(feature = "test-util")]
    {
        let current = crate::runtime::scheduler::worker::context::with_state(|state| {
            state.map(|s| s.driver.time().now())
        });
        if let Some(now) = current {
            return now;
        }
        if let Some(fallback) = started_fallback() {
            return fallback.driver.time().now();
        }
    }
    StdInstant::now()
}

impl Sleep {
    /// Polls the deadline; with `budget`, only if the task's cooperative budget allows (else
    /// the task is woken as a yield and this is `Pending`). Completing spends one unit.
    fn poll_deadline(&mut self, cx: &mut Context<'_>, budget: bool) -> Poll<()> {
        // With `console`, the poll is the timer's `poll_elapsed` op.
        #[cfg(feature = "console")]
        if self.console.is_traced() {
            use crate::runtime::observe::console::resource::Resource;
            let console = std::mem::replace(&mut self.console, Resource::none());
            let polled = console.poll_op("poll_elapsed", || self.poll_deadline_now(cx, budget));
            self.console = console;
            return polled;
        }
        self.poll_deadline_now(cx, budget)
    }

    /// [`poll_deadline`](Sleep::poll_deadline) itself.
    fn poll_deadline_now(&mut self, cx: &mut Context<'_>, budget: bool) -> Poll<()> {
        if self.driver.is_shut_down() {
            panic!(
                "filch: a timer (time::sleep, timeout or interval) was polled after the executor \
                 it was made on shut down"
            );
        }
        if budget {
            ready!(coop::poll_proceed(cx));
        }
        let fired = if !self.armed {
            if self.driver.time().now() >= self.deadline {
                true
            } else {
                let key = *self.key.get_or_insert_with(|| self.driver.time().insert());
                self.armed = true;
                !self.driver.time().arm(key, self.deadline, cx.waker())
            }
        } else {
            let key = self.key.expect("an armed timer has a key");
            self.driver.time().poll(key, cx.waker())
        };
        if fired {
            coop::spend();
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.poll_deadline(cx, true)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            self.driver.time().remove(key);
        }
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .finish()
    }
}

pin_project_lite::pin_project! {
    /// A future with a time limit; made by [`timeout`].
    #[derive(Debug)]
    pub struct Timeout<F> {
        #[pin]
        future: F,
        sleep: Sleep,
    }
}

/// Runs `future` for at most `duration`: its output, or [`Elapsed`] if the time ran out
/// first (the future is then dropped with the `Timeout`). Each poll polls `future` first,
/// then, if it is pending, the deadline, even when `future` spent the task's cooperative
/// budget. A `duration` that no `Instant` can hold (`Duration::MAX`) never runs out.
///
/// ```
/// use std::time::Duration;
/// filch::block_on(async {
///     let fast = filch::time::timeout(Duration::from_secs(5), async { 1 }).await;
///     assert_eq!(fast.unwrap(), 1);
///     let slow = filch::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await;
///     assert!(slow.is_err());
/// });
/// ```
#[track_caller]
pub fn timeout<F: Future>(duration: Duration, future: F) -> Timeout<F> {
    Timeout {
        future,
        sleep: sleep(duration),
    }
}

/// Runs `future` until `deadline`: its output, or [`Elapsed`] if the deadline came first
/// (as [`timeout`], with an instant instead of a duration).
///
/// ```
/// use std::time::Duration;
/// use filch::time::Instant;
/// filch::block_on(async {
///     let deadline = Instant::now() + Duration::from_millis(1);
///     let late = filch::time::timeout_at(deadline, std::future::pending::<()>()).await;
///     assert!(late.is_err());
/// });
/// ```
#[track_caller]
pub fn timeout_at<F: Future>(deadline: Instant, future: F) -> Timeout<F> {
    Timeout {
        future,
        sleep: sleep_until(deadline),
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let had_budget = coop::has_budget_remaining();
        if let Poll::Ready(out) = this.future.poll(cx) {
            return Poll::Ready(Ok(out));
        }
        // If the inner future spent the last of the budget, the deadline is looked at
        // without the budget check: a future that spends the whole budget in every poll
        // must not keep the deadline from being seen (tokio issue 4291). Otherwise the
        // check stays, so that a loop of timeouts whose futures never spend anything still
        // yields.
        let budget = !had_budget || coop::has_budget_remaining();
        this.sleep
            .poll_deadline(cx, budget)
            .map(|()| Err(Elapsed(())))
    }
}

/// The error of a [`Timeout`] whose time ran out.
///
/// ```
/// let e = filch::block_on(filch::time::timeout(
///     std::time::Duration::ZERO,
///     std::future::pending::<()>(),
/// ))
/// .unwrap_err();
/// assert_eq!(e.to_string(), "deadline has elapsed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elapsed(());

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(e: Elapsed) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::TimedOut, e)
    }
}

/// What an [`Interval`] does when a tick comes late (its task ran too late to take it on
/// time, by more than 5 ms): tokio's three behaviours, with tokio's meanings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissedTickBehavior {
    /// The missed ticks fire at once, one after another, until the interval has caught up
    /// with its schedule; the ticks after keep to the original schedule.
    #[default]
    Burst,
    /// The late tick fires at once, and the schedule starts again from it: the next tick
    /// is one period after it.
    Delay,
    /// The late tick fires at once, the missed ones are skipped, and the next tick is the
    /// next one of the original schedule that is still ahead.
    Skip,
}

impl MissedTickBehavior {
    /// The deadline of the tick after one scheduled for `scheduled` that fired late, at `now`.
    fn next(self, scheduled: StdInstant, now: StdInstant, period: Duration) -> StdInstant {
        match self {
            MissedTickBehavior::Burst => after(scheduled, period),
            MissedTickBehavior::Delay => after(now, period),
            MissedTickBehavior::Skip => {
                // The schedule's next point after `now`: `now` plus what is left of the
                // period it is in. The remainder is below `period`, whose nanoseconds fit
                // a u128; the cast back is below `period` too.
                let into = (now - scheduled).as_nanos() % period.as_nanos();
                let into = Duration::from_nanos(u64::try_from(into).unwrap_or(u64::MAX));
                after(now, period.saturating_sub(into))
            }
        }
    }
}

/// How late a tick may come and still count as on time (tokio's grace).
const LATE_GRACE: Duration = Duration::from_millis(5);

/// Ticks every `period`, the first tick at once (or at the start given to
/// [`interval_at`]); a tick that comes late is handled as its [`MissedTickBehavior`] says
/// (by default, `Burst`). Made by [`interval`] and [`interval_at`].
///
/// ```
/// use std::time::Duration;
/// filch::block_on(async {
///     let mut every = filch::time::interval(Duration::from_millis(2));
///     let first = every.tick().await;
///     let second = every.tick().await;
///     assert!(second - first >= Duration::from_millis(2));
/// });
/// ```
#[derive(Debug)]
pub struct Interval {
    period: Duration,
    sleep: Sleep,
    missed: MissedTickBehavior,
}

/// An [`Interval`] of `period` whose first tick is at once.
///
/// # Panics
/// If `period` is zero.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    let driver = timer_driver();
    let start = driver.time().now();
    Interval::new(Sleep::new_as(driver, start, "Interval"), period)
}

/// An [`Interval`] of `period` whose first tick is at `start`.
///
/// ```
/// use std::time::Duration;
/// use filch::time::Instant;
/// filch::block_on(async {
///     let start = Instant::now() + Duration::from_millis(3);
///     let mut every = filch::time::interval_at(start, Duration::from_millis(2));
///     assert_eq!(every.tick().await, start);
///     assert_eq!(every.tick().await, start + Duration::from_millis(2));
/// });
/// ```
///
/// # Panics
/// If `period` is zero.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    Interval::new(
        Sleep::new_as(timer_driver(), start.into_std(), "Interval"),
        period,
    )
}

impl Interval {
    /// An interval of `period` whose first tick is `first`'s deadline.
    fn new(first: Sleep, period: Duration) -> Interval {
        assert!(
            !period.is_zero(),
            "filch: interval(period) needs a period above zero"
        );
        Interval {
            period,
            sleep: first,
            missed: MissedTickBehavior::default(),
        }
    }

    /// Waits for the next tick and returns its scheduled time.
    pub async fn tick(&mut self) -> Instant {
        std::future::poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick (see [`Interval::tick`]).
    fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(Pin::new(&mut self.sleep).poll(cx));
        let scheduled = self.sleep.deadline;
        let now = self.sleep.driver.time().now();
        let next = if now > after(scheduled, LATE_GRACE) {
            self.missed.next(scheduled, now, self.period)
        } else {
            after(scheduled, self.period)
        };
        self.sleep.reset_to(next);
        Poll::Ready(Instant::from_std(scheduled))
    }

    /// Restarts the schedule: the next tick is one period from now.
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// filch::block_on(async {
    ///     let mut every = filch::time::interval(Duration::from_millis(2));
    ///     every.tick().await;
    ///     let reset_at = Instant::now();
    ///     every.reset();
    ///     assert!(every.tick().await >= reset_at + Duration::from_millis(2));
    /// });
    /// ```
    pub fn reset(&mut self) {
        let now = self.sleep.driver.time().now();
        self.sleep.reset_to(after(now, self.period));
    }

    /// Restarts the schedule from now: the next tick is at once, and the ones after it a
    /// period apart.
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// filch::block_on(async {
    ///     let mut every = filch::time::interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     let reset_at = Instant::now();
    ///     every.reset_immediately();
    ///     assert!(every.tick().await >= reset_at); // at once, not in an hour
    /// });
    /// ```
    pub fn reset_immediately(&mut self) {
        let now = self.sleep.driver.time().now();
        self.sleep.reset_to(now);
    }

    /// Restarts the schedule: the next tick is `after` from now, and the ones after it a
    /// period apart. A delay no `Instant` can hold (`Duration::MAX`) means "never".
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// filch::block_on(async {
    ///     let mut every = filch::time::interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     let reset_at = Instant::now();
    ///     every.reset_after(Duration::from_millis(2));
    ///     assert!(every.tick().await >= reset_at + Duration::from_millis(2));
    /// });
    /// ```
    pub fn reset_after(&mut self, after: Duration) {
        let now = self.sleep.driver.time().now();
        self.sleep.reset_to(self::after(now, after));
    }

    /// Restarts the schedule: the next tick is at `deadline` (at once if it has passed), and
    /// the ones after it a period apart.
    ///
    /// ```
    /// use std::time::Duration;
    /// use filch::time::Instant;
    /// filch::block_on(async {
    ///     let mut every = filch::time::interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     let deadline = Instant::now() + Duration::from_millis(2);
    ///     every.reset_at(deadline);
    ///     assert_eq!(every.tick().await, deadline);
    /// });
    /// ```
    pub fn reset_at(&mut self, deadline: Instant) {
        self.sleep.reset_to(deadline.into_std());
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// What the interval does when a tick comes late (see [`MissedTickBehavior`]).
    ///
    /// ```
    /// use filch::time::MissedTickBehavior;
    /// let mut every = filch::time::interval(std::time::Duration::from_secs(1));
    /// assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Burst);
    /// every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    /// assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Skip);
    /// ```
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed = behavior;
    }

    /// What the interval does when a tick comes late.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed
    }
}
