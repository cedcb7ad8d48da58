//! [`Instant`]: a point in time on the clock of filch's timers, as tokio's
//! `time::Instant`. It wraps a `std::time::Instant`; what differs is [`Instant::now`],
//! which reads the current executor's clock (std's `Instant::now()` plus, with the
//! `test-util` feature, the time the clock was moved while paused), so that code written
//! with `tokio::time::Instant` measures the paused clock too, where `std`'s would measure
//! real time. Every filch time API that takes or returns an instant uses this type.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A point in time on the clock of filch's timers (module docs; tokio's `time::Instant`).
///
/// ```
/// use std::time::Duration;
/// use filch::time::Instant;
///
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// ex.block_on(async {
///     let start = Instant::now();
///     filch::time::sleep(Duration::from_millis(2)).await;
///     assert!(start.elapsed() >= Duration::from_millis(2));
///     let later = start + Duration::from_secs(1);
///     assert_eq!(later - start, Duration::from_secs(1));
///     assert_eq!(start - later, Duration::ZERO); // saturates, as tokio's
///     let std: std::time::Instant = start.into_std();
///     assert_eq!(Instant::from_std(std), start);
/// });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// The current time on the current executor's clock (else a running `#[filch::main]`'s,
    /// else the global executor's if it has started, else std's): [`super::now`].
    pub fn now() -> Instant {
        super::now()
    }

    /// The instant `std` names.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The `std::time::Instant` this is.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// The time from `earlier` to this instant; zero if `earlier` is later (as tokio's).
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time from `earlier` to this instant, or `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// The time from `earlier` to this instant; zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time since this instant on the same clock ([`Instant::now`], paused or not).
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// This instant plus `duration`, or `None` where an instant cannot hold it.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// This instant minus `duration`, or `None` where an instant cannot hold it.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(instant: Instant) -> std::time::Instant {
        instant.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// Where an instant cannot hold the sum (as std's).
    fn add(self, duration: Duration) -> Instant {
        Instant::from_std(self.std + duration)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, duration: Duration) {
        *self = *self + duration;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// Where an instant cannot hold the difference (as std's).
    fn sub(self, duration: Duration) -> Instant {
        Instant::from_std(self.std - duration)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, duration: Duration) {
        *self = *self - duration;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    /// The time from `earlier` to `self`; zero if `earlier` is later (as tokio's).
    fn sub(self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
