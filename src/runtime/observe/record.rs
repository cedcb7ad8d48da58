//! What the task dump reads about a task ([`TaskRecord`]), stamped from the coarse clock
//! (`coarse_clock.rs`).
//!
//! A record is made when a task first waits for a wake-up (with its registration in the
//! live-task registry, `runtime/task/live_tasks.rs`), or at the spawn of a task made by
//! `filch::task::Builder` or `spawn_blocking` (which register at once). Until then a task is
//! in a queue or in its first poll, and is in no dump. The record is a separate allocation
//! so that a task that never waits (the common tiny task) stays as small as before: its
//! metadata grows by the record's pointer's word only (which replaced the registry key it
//! held before), and no field of the record is touched for it. The record lives until the
//! task's metadata is dropped.
//!
//! What each costs: per poll of a task with a record, two relaxed loads of the coarse clock
//! (a static read by every worker, written once per tick), one load and three relaxed
//! stores to the record (only the polling thread writes them); per wake, one clock load,
//! one load and one store (the schedule function is called at most once at a time per
//! task, async-task's state orders the calls). No clock is read per poll. A task without a
//! record pays one clock load (kept for the record its first wait makes).
//!
//! The stamps come from the coarse clock (`coarse_clock.rs`); the dump reads the real clock
//! for its "now".
//!
//! Precision of the stamps (stated in `TaskInfo`'s docs): a poll's time is the difference
//! of two coarse readings, so a poll shorter than a tick counts as 0 or 1 ms, with a
//! probability that makes the sum exact in expectation, and a long poll is measured to
//! within a tick.

use std::panic::Location;
use std::time::Duration;

use crate::runtime::observe::coarse_clock::coarse_now;
use crate::util::sync::{AtomicU32, AtomicU64, Ordering};

/// The `poll` word's value half while a poll of the task runs (the thread that polls it is
/// the task's last worker, `TaskMeta::last_worker`, or a blocking-pool thread).
const RUNNING: u32 = 1;
/// The `poll` word's value half while no thread polls the task.
const NOT_RUNNING: u32 = 0;

/// A coarse stamp as kept in a record: the milliseconds modulo 2^32 (a difference of two is
/// right while they are less than 49 days apart, [`since`]).
#[inline]
fn stamp(ms: u64) -> u32 {
    // Truncation intended: stamps wrap (see above).
    ms as u32
}

/// The milliseconds from `stamp` to the coarse reading `now`.
pub(crate) fn since(now: u64, stamp: u32) -> u64 {
    u64::from(self::stamp(now).wrapping_sub(stamp))
}

/// The dump's view of one task (module docs). The counters and stamps are written only by
/// the thread that polls (or schedules) the task, with relaxed stores; the dump reads them
/// without stopping it, so one snapshot may mix a poll's start with the previous poll's end.
/// A stamp and what it goes with share one word, so a poll costs three stores and a load
/// (the busy time, only for a poll that spanned a tick), and a schedule call a load and a
/// store. 56 bytes: every task that waits has one.
pub(crate) struct TaskRecord {
    /// The task's name (`filch::task::Builder::name`).
    pub(crate) name: Option<Box<str>>,
    /// Where the task is registered (`Key::to_bits`), or `Key::NONE` (see `TaskMeta`).
    pub(crate) key: AtomicU64,
    /// Polls started.
    polls: AtomicU64,
    /// [`pack`]: the stamp of the last poll's start while one runs ([`RUNNING`]), else of
    /// the last poll's end (at first: of the record's making); and [`RUNNING`] or
    /// [`NOT_RUNNING`]. Which thread runs the poll is the task's last worker's: the record
    /// does not repeat it.
    poll: AtomicU64,
    /// [`pack`]: the stamp of the last schedule call, and the count of schedule calls (the
    /// spawn's first, then one per wake that queued it) modulo 2^32, compared with the low
    /// half of `polls`. No call yet while the count and `polls` are both 0 (each call leads
    /// to a poll, so a count that wrapped to 0 comes with polls).
    wake: AtomicU64,
    /// Coarse milliseconds spent in polls that ended (saturating).
    busy_ms: AtomicU32,
    /// Whether the task is a blocking-pool job.
    pub(crate) blocking: bool,
}

/// A stamp ([`stamp`]) and a 32-bit value in one word.
fn pack(stamp: u32, value: u32) -> u64 {
    (u64::from(stamp) << 32) | u64::from(value)
}

/// The inverse of [`pack`].
fn unpack(word: u64) -> (u32, u32) {
    // Truncations intended: the two halves.
    ((word >> 32) as u32, word as u32)
}

/// A record's fields at one moment (for the dump).
pub(crate) struct RecordView {
    pub(crate) running: bool,
    pub(crate) scheduled: bool,
    pub(crate) polls: u64,
    pub(crate) busy: Duration,
    /// Stamps ([`stamp`]); `None` if never polled / never scheduled.
    pub(crate) last_poll: Option<u32>,
    pub(crate) made: u32,
    pub(crate) last_wake: Option<u32>,
}

impl TaskRecord {
    /// The record of a task that has been polled `polls` times and scheduled `wakes` times,
    /// the last poll having started at coarse time `started` (if any).
    pub(crate) fn new(
        name: Option<Box<str>>,
        blocking: bool,
        polls: u64,
        wakes: u32,
        started: Option<u64>,
    ) -> TaskRecord {
        let now = coarse_now();
        let busy = started.map_or(0, |s| now.saturating_sub(s));
        TaskRecord {
            name,
            key: AtomicU64::new(u64::MAX),
            polls: AtomicU64::new(polls),
            poll: AtomicU64::new(pack(stamp(now), NOT_RUNNING)),
            wake: AtomicU64::new(pack(stamp(now), wakes)),
            busy_ms: AtomicU32::new(u32::try_from(busy).unwrap_or(u32::MAX)),
            blocking,
        }
    }

    /// A poll of the task starts, at coarse `now`.
    #[inline]
    pub(crate) fn poll_started(&self, now: u64) {
        // Relaxed, and load-then-store rather than read-modify-write: only the polling
        // thread writes these (module docs); the dump's reads pair with nothing.
        self.polls
            .store(self.polls.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        self.poll
            .store(pack(stamp(now), RUNNING), Ordering::Relaxed);
    }

    /// The poll that started at coarse `started` ends at coarse `now`.
    #[inline]
    pub(crate) fn poll_ended(&self, started: u64, now: u64) {
        // Relaxed: as in `poll_started`. Most polls end within the tick they began in, and
        // skip the busy time's update.
        if now != started {
            let took = u32::try_from(now.saturating_sub(started)).unwrap_or(u32::MAX);
            let busy = self.busy_ms.load(Ordering::Relaxed);
            self.busy_ms
                .store(busy.saturating_add(took), Ordering::Relaxed);
        }
        self.poll
            .store(pack(stamp(now), NOT_RUNNING), Ordering::Relaxed);
    }

    /// The task was scheduled (spawned or woken) at coarse `now`.
    #[inline]
    pub(crate) fn scheduled(&self, now: u64) {
        // Relaxed: as in `poll_started`; schedule calls of one task never overlap.
        let (_, wakes) = unpack(self.wake.load(Ordering::Relaxed));
        self.wake
            .store(pack(stamp(now), wakes.wrapping_add(1)), Ordering::Relaxed);
    }

    /// The fields now (Relaxed loads: a snapshot for people, see the struct's docs).
    pub(crate) fn view(&self) -> RecordView {
        let polls = self.polls.load(Ordering::Relaxed);
        let (poll_stamp, running) = unpack(self.poll.load(Ordering::Relaxed));
        let (wake_stamp, wakes) = unpack(self.wake.load(Ordering::Relaxed));
        RecordView {
            running: running == RUNNING,
            // Each schedule call leads to one poll: more calls than polls started means
            // one is queued. Truncation intended: `wakes` counts modulo 2^32.
            scheduled: wakes != polls as u32,
            polls,
            busy: Duration::from_millis(u64::from(self.busy_ms.load(Ordering::Relaxed))),
            // A poll started (the first one counts at its start).
            last_poll: (polls > 0).then_some(poll_stamp),
            made: poll_stamp,
            last_wake: (wakes != 0 || polls != 0).then_some(wake_stamp),
        }
    }
}

/// Where a task was spawned: `#[track_caller]` runs from every public spawn entry point
/// down to the task's metadata.
pub(crate) type SpawnedAt = &'static Location<'static>;

#[cfg(all(test, not(loom)))]
mod tests;
