//! [`Clock`]: the time of one executor's timers, held by its time driver (`driver.rs`).
//!
//! Without the `test-util` feature the clock is std's `Instant::now()` and the wheel's
//! origin, nothing more: reading it costs what `Instant::now()` costs.
//!
//! With `test-util` the clock can be paused (`time::pause`): it then stands still, and moves
//! only when [`Clock::advance`] moves it (`time::advance`) or when the executor, idle, jumps
//! it to its next timer ([`Clock::advance_to_ms`], from `runtime/scheduler/auto_advance.rs`). Its
//! time is std's `Instant::now()` plus every such move (the advance), so it never runs behind
//! std's clock and never goes back: resuming after a pause goes on from std's clock plus the
//! advance, which is at or after the time the paused clock showed. A pause stops the clock on
//! a whole millisecond of the wheel (the few hundred microseconds up to it count as advanced),
//! so that the jumps of a paused clock, whole milliseconds of the wheel, land on the same
//! instants in every run.
//!
//! The clock also counts [`Activity`]: the executor's threads that are no workers and are
//! busy (a `block_on` whose future is being polled or was woken, a blocking-pool job from its
//! spawn to its end). The executor is idle, for the paused clock, only while that count is
//! zero; the one who brings it to zero runs the idle hook, which the executor sets to its
//! auto-advance (`runtime/scheduler/auto_advance.rs`). The activity also holds the lock of the
//! jumps: a jump holds it throughout, and a thread that starts to be busy on its own, or is woken
//! from outside a jump, is counted under it.
//!
//! **Invariants** (test-util):
//! - the clock's value never decreases; while paused it changes only under the clock's lock,
//!   by an advance;
//! - `advanced` is the clock's lead over std's `Instant::now()` whenever it runs, and the
//!   paused value is at most std's clock plus `advanced` (std's clock goes on meanwhile);
//! - the activity count is never below the number of busy threads it stands for (a waker
//!   counts a `block_on` before it lets that thread run), and whoever brings it to zero runs
//!   the idle hook.

use std::time::{Duration, Instant};

#[cfg(feature = "test-util")]
pub(crate) use test_util::{Activity, PauseError};

/// The time of one executor's timers (module docs).
pub(crate) struct Clock {
    /// The timer wheel's time zero.
    origin: Instant,
    #[cfg(feature = "test-util")]
    paused: test_util::Paused,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        Clock {
            origin: Instant::now(),
            #[cfg(feature = "test-util")]
            paused: test_util::Paused::new(),
        }
    }

    /// The wheel's time zero.
    pub(crate) fn origin(&self) -> Instant {
        self.origin
    }

    /// The current time: std's clock (without `test-util`, or while the clock was never
    /// paused), else the paused value or std's clock plus the advance (module docs).
    #[inline]
    pub(crate) fn now(&self) -> Instant {
        #[cfg(feature = "test-util")]
        if let Some(now) = self.paused.now(self.origin) {
            return now;
        }
        Instant::now()
    }

    /// The time in whole ms since the origin, rounded down. Saturates (never wraps) after
    /// 2^64 ms, half a billion years.
    #[inline]
    pub(crate) fn now_ms(&self) -> u64 {
        whole_ms(self.now().saturating_duration_since(self.origin))
    }

    /// Std's time in whole µs since the origin, whether or not the clock is paused: for
    /// pacing work by the wall clock (the driver's busy turns), not for timers.
    pub(crate) fn real_us(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Counts a blocking-pool job as busy, from its spawn to its end ([`Clock::job_ended`]),
    /// between two jumps of a paused clock; nothing without `test-util`.
    #[inline]
    pub(crate) fn job_started(&self) {
        #[cfg(feature = "test-util")]
        self.paused.activity.begin_fresh();
    }

    /// A job counted by [`Clock::job_started`] ended (ran, or was dropped unrun).
    #[inline]
    pub(crate) fn job_ended(&self) {
        #[cfg(feature = "test-util")]
        self.paused.activity.end();
    }
}

/// `d` in whole ms, rounded down, saturating at `u64::MAX`.
fn whole_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(feature = "test-util")]
mod test_util {
    //! The paused clock and the activity count (the parent module's docs).

    use std::cell::Cell;
    // loom has no `OnceLock`: the idle hook is set once, when the executor is built.
    use std::sync::{Arc, OnceLock};
    use std::time::{Duration, Instant};

    use super::{whole_ms, Clock};
    use crate::util::sync::{AtomicBool, AtomicUsize, Mutex, MutexGuard, Ordering};

    /// The test-util part of a [`Clock`].
    pub(super) struct Paused {
        /// Set by the first pause and never cleared: until then `now` is std's clock alone,
        /// read without the lock. Release by `pause` (under the lock), Acquire by `now`.
        ever_paused: AtomicBool,
        /// Whether the clock is paused now: a copy of `frozen.is_some()`, stored under the
        /// lock, read without it by the auto-advance's quick test (which takes the lock before
        /// it acts on it).
        is_paused: AtomicBool,
        state: Mutex<PausedTime>,
        pub(super) activity: Arc<Activity>,
    }

    struct PausedTime {
        /// While paused: the clock's time since the origin.
        frozen: Option<Duration>,
        /// The clock's lead over std's `Instant::now()`: the sum of every move made while
        /// paused (and of the rounding of each pause up to a whole ms).
        advanced: Duration,
    }

    /// Why the clock refused a pause, a resume or an advance (the public functions turn it
    /// into their panic message).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum PauseError {
        AlreadyPaused,
        NotPaused,
        /// The advanced clock would not fit an `Instant`.
        TooFar,
    }

    impl Paused {
        pub(super) fn new() -> Paused {
            Paused {
                ever_paused: AtomicBool::new(false),
                is_paused: AtomicBool::new(false),
                state: Mutex::new(PausedTime {
                    frozen: None,
                    advanced: Duration::ZERO,
                }),
                activity: Arc::new(Activity::new()),
            }
        }

        /// The clock's time, unless it was never paused (then the caller reads std's).
        #[inline]
        pub(super) fn now(&self, origin: Instant) -> Option<Instant> {
            // Acquire: pairs with the Release store in `pause`.
            if !self.ever_paused.load(Ordering::Acquire) {
                return None;
            }
            let state = self.state.lock();
            Some(match state.frozen {
                Some(since_origin) => origin + since_origin,
                // Cannot fail while `advance` keeps the clock a century inside what an
                // `Instant` holds; should it ever, the clock shows std's.
                None => Instant::now()
                    .checked_add(state.advanced)
                    .unwrap_or_else(Instant::now),
            })
        }
    }

    impl Clock {
        /// Stops the clock, at the next whole ms of the wheel (module docs).
        pub(crate) fn pause(&self) -> Result<(), PauseError> {
            let mut state = self.paused.state.lock();
            if state.frozen.is_some() {
                return Err(PauseError::AlreadyPaused);
            }
            let now = self.origin.elapsed().saturating_add(state.advanced);
            let ms = whole_ms(now);
            let up = if Duration::from_millis(ms) == now {
                now
            } else {
                Duration::from_millis(ms.saturating_add(1))
            };
            state.advanced += up - now;
            state.frozen = Some(up);
            // Release: pairs with the Acquire load in `Paused::now`; under the lock, so the
            // first reader that sees it also sees the frozen value.
            self.paused.ever_paused.store(true, Ordering::Release);
            self.paused.is_paused.store(true, Ordering::SeqCst);
            Ok(())
        }

        /// Lets the clock run again, from std's clock plus the advance.
        pub(crate) fn resume(&self) -> Result<(), PauseError> {
            let mut state = self.paused.state.lock();
            if state.frozen.take().is_none() {
                return Err(PauseError::NotPaused);
            }
            self.paused.is_paused.store(false, Ordering::SeqCst);
            Ok(())
        }

        /// Moves the paused clock by `by`.
        pub(crate) fn advance(&self, by: Duration) -> Result<(), PauseError> {
            let mut state = self.paused.state.lock();
            let Some(frozen) = state.frozen else {
                return Err(PauseError::NotPaused);
            };
            let to = frozen.checked_add(by).ok_or(PauseError::TooFar)?;
            self.check_fits(to)?;
            state.frozen = Some(to);
            state.advanced += by;
            Ok(())
        }

        /// The clock would still fit an `Instant` a century after `since_origin` (so that
        /// `now`, which adds the advance to std's clock after a resume, cannot overflow).
        fn check_fits(&self, since_origin: Duration) -> Result<(), PauseError> {
            const CENTURY: Duration = Duration::from_secs(100 * 365 * 86_400);
            self.origin
                .checked_add(since_origin)
                .and_then(|at| at.checked_add(CENTURY))
                .map(|_| ())
                .ok_or(PauseError::TooFar)
        }

        /// Jumps the paused clock forward by whole ms, so that its time in whole ms of the
        /// wheel is `ms`, keeping its fraction of a ms; does nothing if it is there already.
        /// Returns whether the clock is paused and at `ms` or later now.
        pub(crate) fn advance_to_ms(&self, ms: u64) -> bool {
            let mut state = self.paused.state.lock();
            let Some(frozen) = state.frozen else {
                return false;
            };
            let ahead = ms.saturating_sub(whole_ms(frozen));
            if ahead > 0 {
                let by = Duration::from_millis(ahead);
                // A jump that leaves the clock too close to what an `Instant` holds is not
                // made: the timer it was for is then never reached (deadlines that far
                // out mean "never").
                match frozen.checked_add(by) {
                    Some(to) if self.check_fits(to).is_ok() => {
                        state.frozen = Some(to);
                        state.advanced += by;
                    }
                    _ => return false,
                }
            }
            true
        }

        /// Whether the clock is paused now (a quick look: see the field).
        #[inline]
        pub(crate) fn is_paused(&self) -> bool {
            self.paused.is_paused.load(Ordering::SeqCst)
        }

        /// The executor's count of busy threads that are no workers (module docs).
        pub(crate) fn activity(&self) -> &Arc<Activity> {
            &self.paused.activity
        }
    }

    /// The busy threads of an executor that are no workers (module docs), what to run when
    /// the last of them goes idle, and the lock of the jumps.
    pub(crate) struct Activity {
        count: AtomicUsize,
        /// The executor's `block_on`s in flight, busy or waiting (`block_on_counted`): who
        /// waits on the executor besides its tasks (`runtime/scheduler/auto_advance.rs`).
        block_ons: AtomicUsize,
        /// Set once, when the executor is built: its auto-advance.
        on_idle: OnceLock<Box<dyn Fn() + Send + Sync>>,
        /// Held by whoever jumps the clock on its own (`runtime/scheduler/auto_advance.rs`) for its
        /// whole test-jump-fire ([`Activity::jumping`]), so that two threads that both saw the
        /// executor idle jump it once; and taken to count a thread that starts to be busy on
        /// its own or is woken from outside a jump ([`Activity::begin_fresh`]), so that no
        /// busy thread sees a jump half done.
        advancing: Mutex<()>,
    }

    // Loom runs its threads on one OS thread: its own thread-locals keep them apart.
    #[cfg(not(loom))]
    std::thread_local! {
        /// Set while this thread jumps a clock ([`Activity::jumping`]). The wakers the jump
        /// calls then take no jumps' lock: they count the threads they wake at once, and a
        /// jump reached from inside them (an activity that ends) returns at once (for this
        /// clock, the outer loop tests again after its wakers ran). So a thread never waits
        /// for a jumps' lock while it holds one, and two clocks' locks cannot deadlock; the
        /// price is that a jump of another clock, due only because such a waker ended that
        /// clock's last activity, waits for that clock's next idle moment.
        static JUMPING: Cell<bool> = const { Cell::new(false) };
    }
    #[cfg(loom)]
    loom::thread_local! {
        static JUMPING: Cell<bool> = Cell::new(false);
    }

    /// A busy thread's count ([`Activity::busy`]): ends when dropped.
    pub(crate) struct Busy<'a> {
        activity: &'a Activity,
    }

    impl Drop for Busy<'_> {
        fn drop(&mut self) {
            self.activity.end();
        }
    }

    /// Held while this thread jumps a clock: the jumps' lock, and [`JUMPING`] set.
    pub(crate) struct Jumping<'a> {
        _lock: MutexGuard<'a, ()>,
    }

    impl Drop for Jumping<'_> {
        fn drop(&mut self) {
            JUMPING.with(|j| j.set(false));
        }
    }

    impl Activity {
        pub(crate) fn new() -> Activity {
            Activity {
                count: AtomicUsize::new(0),
                block_ons: AtomicUsize::new(0),
                on_idle: OnceLock::new(),
                advancing: Mutex::new(()),
            }
        }

        /// Sets the idle hook (once; later calls are ignored).
        pub(crate) fn set_on_idle(&self, hook: Box<dyn Fn() + Send + Sync>) {
            let _ = self.on_idle.set(hook);
        }

        /// A thread starts to be busy (a `block_on` starts, a blocking job is spawned), or a
        /// waker counts the `block_on` it wakes: counted between two jumps, never during one,
        /// so that the thread sees no jump half done (its next look at the clock comes before
        /// the jump's idle test, or after its timers fired). A waker that a jump calls counts
        /// at once (see [`JUMPING`]).
        pub(crate) fn begin_fresh(&self) {
            if JUMPING.with(Cell::get) {
                return self.begin();
            }
            let _no_jump = self.advancing.lock();
            self.begin();
        }

        /// Takes the jumps' lock for a jump by this thread; `None` if this thread is inside a
        /// jump already (see [`JUMPING`]).
        pub(crate) fn jumping(&self) -> Option<Jumping<'_>> {
            if JUMPING.with(Cell::get) {
                return None;
            }
            let lock = self.advancing.lock();
            JUMPING.with(|j| j.set(true));
            Some(Jumping { _lock: lock })
        }

        /// Counts this thread, busy already, as busy until the guard drops: a stand-in
        /// between its look for a task and the end of what it found
        /// (`runtime/scheduler/standin/serve.rs`), which may outlast its booking in the
        /// notifier (the release of its slot gives that booking back to the worker).
        pub(crate) fn busy(&self) -> Busy<'_> {
            self.begin();
            Busy { activity: self }
        }

        /// One more busy thread, counted at once: from inside a jump (a `block_on` woken by
        /// the jump's own waker), or for a thread that is busy already.
        fn begin(&self) {
            // SeqCst: the auto-advance's idle test reads the count after the workers'
            // bookings (SeqCst) and the queues; the count and the parked workers are one
            // Dekker pair (a worker books, then reads the count; a thread ends, then reads
            // the bookings), which SeqCst orders.
            self.count.fetch_add(1, Ordering::SeqCst);
        }

        /// One busy thread fewer; the one that brings the count to zero runs the idle hook.
        pub(crate) fn end(&self) {
            // SeqCst: see `begin`.
            let before = self.count.fetch_sub(1, Ordering::SeqCst);
            debug_assert!(before > 0, "an activity ended that never began");
            if before == 1 {
                self.run_hook();
            }
        }

        /// A `block_on` of the executor starts (before it counts as busy).
        pub(crate) fn block_on_started(&self) {
            // SeqCst: read by the idle test after the count (see `begin`).
            self.block_ons.fetch_add(1, Ordering::SeqCst);
        }

        /// A `block_on` of the executor returns or unwinds (before its count ends, so that
        /// the idle hook it may run sees it gone).
        pub(crate) fn block_on_ended(&self) {
            // SeqCst: see `block_on_started`.
            self.block_ons.fetch_sub(1, Ordering::SeqCst);
        }

        /// Whether a `block_on` of the executor is in flight (busy or waiting).
        pub(crate) fn has_block_on(&self) -> bool {
            // SeqCst: see `block_on_started`.
            self.block_ons.load(Ordering::SeqCst) != 0
        }

        /// Whether no thread counts as busy.
        pub(crate) fn is_idle(&self) -> bool {
            // SeqCst: see `begin`.
            self.count.load(Ordering::SeqCst) == 0
        }

        fn run_hook(&self) {
            if let Some(hook) = self.on_idle.get() {
                hook();
            }
        }
    }
}
