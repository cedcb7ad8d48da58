//! The coarse clock: the milliseconds that task records are stamped with ([`coarse_now`]),
//! read without a clock read, and moved by [`refresh`].
//!
//! [`coarse_now`] is the milliseconds since the process's first use of it, as last written
//! by the observer's tick (`super::on_tick`, which the epoch ticker's thread calls every
//! tick while a worker is busy or a loop runs: `runtime/time/epoch.rs`) or by a worker or a
//! stand-in when it starts a stretch of polls (a worker reads the real clock then anyway). It lags the real
//! clock by at most about one tick (1 ms plus the OS's wake-up delay) while the ticker runs.
//! When the ticker parks (no worker busy for a while) the clock is marked stale
//! ([`mark_stale`]), and until someone writes it again [`coarse_now`] reads the real clock
//! instead: a wake delivered by a parked worker's OS poll, or from a thread that is no
//! worker, after a long idle stretch gets a true stamp. Blocking-pool jobs stamp with the
//! same clock: their threads do not keep the ticker up, but a clock nobody keeps up is
//! marked stale and reads the real one, and a clock that is kept up is as good for them as
//! for a worker. The dump reads the real clock for its "now".

// std's, not `crate::util::sync`'s: the clock lives in a static.
use std::sync::atomic::AtomicU64 as StaticU64;
use std::sync::OnceLock;
use std::time::Instant;

use crossbeam_utils::CachePadded;

use crate::util::sync::Ordering;

/// The coarse clock's origin.
static BASE: OnceLock<Instant> = OnceLock::new();

/// Milliseconds since [`BASE`], as last written, with [`STALE`] set while the ticker
/// sleeps (module docs). Its own cache line: every poll and wake of a task with a record
/// reads it, and no other static's writes should take that line away.
static COARSE_MS: CachePadded<StaticU64> = CachePadded::new(StaticU64::new(STALE));

/// The bit of [`COARSE_MS`] that says "stale: read the real clock".
const STALE: u64 = 1 << 63;

/// The coarse clock's origin, set at its first use.
pub(crate) fn base() -> Instant {
    *BASE.get_or_init(Instant::now)
}

/// The milliseconds since [`base`] at `now`.
pub(crate) fn to_ms(now: Instant) -> u64 {
    u64::try_from(now.saturating_duration_since(base()).as_millis()).unwrap_or(u64::MAX)
}

/// Moves the coarse clock to `now` (if that is later than what it holds) and clears its
/// stale mark.
pub(crate) fn refresh(now: Instant) {
    let ms = to_ms(now) & !STALE;
    // Relaxed: a clock reading, published with nothing else. The load first: most calls
    // find the clock already there, and a read keeps the line shared.
    let mut seen = COARSE_MS.load(Ordering::Relaxed);
    while seen & STALE != 0 || seen < ms {
        let new = ms.max(seen & !STALE);
        match COARSE_MS.compare_exchange_weak(seen, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(current) => seen = current,
        }
    }
}

/// Marks the coarse clock stale: the ticker is about to sleep, and nothing moves the clock
/// until someone calls [`refresh`].
pub(crate) fn mark_stale() {
    // Relaxed: as in `refresh`.
    COARSE_MS.fetch_or(STALE, Ordering::Relaxed);
}

/// The coarse clock (module docs): one relaxed load, or a read of the real clock while it
/// is marked stale.
#[inline]
pub(crate) fn coarse_now() -> u64 {
    // Relaxed: a clock reading; see `refresh`.
    let coarse = COARSE_MS.load(Ordering::Relaxed);
    if coarse & STALE == 0 {
        coarse
    } else {
        real_now()
    }
}

/// The real clock, in the coarse clock's unit.
#[cold]
fn real_now() -> u64 {
    to_ms(Instant::now())
}
