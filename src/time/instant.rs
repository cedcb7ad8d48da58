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
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// ex.block_on(async {
    ///     let a = filch::time::Instant::now();
    ///     assert!(filch::time::now() >= a); // the same clock, which runs on
    /// });
    /// ```
    pub fn now() -> Instant {
        super::now()
    }

    /// The instant `std` names.
    ///
    /// ```
    /// let std = std::time::Instant::now();
    /// assert_eq!(filch::time::Instant::from_std(std).into_std(), std);
    /// ```
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The `std::time::Instant` this is.
    ///
    /// ```
    /// let now = filch::time::Instant::now();
    /// let std: std::time::Instant = now.into_std();
    /// assert_eq!(filch::time::Instant::from(std), now);
    /// ```
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// The time from `earlier` to this instant; zero if `earlier` is later (as tokio's).
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = filch::time::Instant::now();
    /// let b = a + Duration::from_secs(2);
    /// assert_eq!(b.duration_since(a), Duration::from_secs(2));
    /// assert_eq!(a.duration_since(b), Duration::ZERO);
    /// ```
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time from `earlier` to this instant, or `None` if `earlier` is later.
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = filch::time::Instant::now();
    /// let b = a + Duration::from_secs(2);
    /// assert_eq!(b.checked_duration_since(a), Some(Duration::from_secs(2)));
    /// assert_eq!(a.checked_duration_since(b), None);
    /// ```
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// The time from `earlier` to this instant; zero if `earlier` is later.
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = filch::time::Instant::now();
    /// assert_eq!(a.saturating_duration_since(a + Duration::from_secs(1)), Duration::ZERO);
    /// ```
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time since this instant on the same clock ([`Instant::now`], paused or not).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// ex.block_on(async {
    ///     let start = filch::time::Instant::now();
    ///     filch::time::sleep(Duration::from_millis(3)).await;
    ///     assert!(start.elapsed() >= Duration::from_millis(3));
    /// });
    /// ```
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// This instant plus `duration`, or `None` where an instant cannot hold it.
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = filch::time::Instant::now();
    /// assert_eq!(a.checked_add(Duration::from_secs(1)), Some(a + Duration::from_secs(1)));
    /// assert_eq!(a.checked_add(Duration::MAX), None);
    /// ```
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// This instant minus `duration`, or `None` where an instant cannot hold it.
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = filch::time::Instant::now() + Duration::from_secs(5);
    /// assert_eq!(a.checked_sub(Duration::from_secs(5)).map(|b| a - b), Some(Duration::from_secs(5)));
    /// assert_eq!(a.checked_sub(Duration::MAX), None);
    /// ```
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
