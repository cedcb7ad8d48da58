//! Observability: what filch records about its tasks and polls, and how it reports them.
//!
//! - `coarse_clock.rs`: the coarse clock, milliseconds read with one load, that task
//!   records are stamped with;
//! - `record.rs`: `TaskRecord`, the out-of-line record of a task that waits (polls, busy
//!   time, stamps of its last poll and wake, its name);
//! - `poll_watch.rs`: `SlowPoll` and `PollWatch`, an executor's slow-poll threshold and
//!   per-worker slot of the poll in flight, and the slow-poll scan of every live watch;
//! - `thread_state.rs`: what the kernel says a thread is doing (blocked or not, its CPU
//!   time), which the scan samples;
//! - `console/` (feature `console`): the `tracing` spans and events that console-subscriber
//!   reads, so that tokio-console shows filch's tasks, wakers, resources and parallel calls;
//! - `dump.rs`: `TaskDump`, the snapshot of an executor's live tasks, made from the records
//!   in the live-task registry and the slots of the polls in flight.
//!
//! Nothing here owns a thread. [`on_tick`] is the observer's periodic work, which the epoch
//! ticker's thread (`runtime/time/epoch.rs`) runs once per tick while some worker is busy;
//! [`on_idle`] and [`on_wake`] bracket its sleep. The workers stamp the records, move the
//! coarse clock at the start of a stretch of polls and write their poll slots themselves.
//!
//! The folder shares the tasks' layer (ARCHITECTURE.md, "Layers"): a task's metadata holds
//! its record and writes its worker's poll slot, and the dump reads the task metadata.

pub(crate) mod coarse_clock;
#[cfg(feature = "console")]
pub(crate) mod console;
pub(crate) mod dump;
pub(crate) mod poll_watch;
pub(crate) mod record;
pub(crate) mod thread_state;

use std::time::Instant;

/// One tick of the observer: moves the coarse clock to `now` and scans every executor's
/// slow-poll slots (`poll_watch::scan_all`).
pub(crate) fn on_tick(now: Instant) {
    coarse_clock::refresh(now);
    poll_watch::scan_all();
}

/// The ticker is about to sleep: nothing moves the coarse clock until a worker or
/// [`on_wake`] does, so its readers read the real clock meanwhile.
pub(crate) fn on_idle() {
    coarse_clock::mark_stale();
}

/// The ticker woke up at `now`: the coarse clock is good again.
pub(crate) fn on_wake(now: Instant) {
    coarse_clock::refresh(now);
}
