//! The watch of a side runtime (the runtimes filch starts: the process's, and those of
//! `Builder::tokio_worker_threads`): a tokio task on that runtime that looks, once a
//! [`WINDOW`], at how long the runtime's workers were busy, and warns once per process when
//! work piles up there.
//!
//! **The rule:** over one window, the runtime's workers were busy (running tasks: tokio's
//! `worker_total_busy_duration`) for more than half of the time they had, summed over them
//! (busy > window × workers / 2). That is the mark of a program whose own work runs on the
//! side runtime: a service on `tokio::net` and `axum::serve`, or tokio-bound crates whose
//! background tasks are the program's load. The rule reads busy time, not tasks alive: a
//! client keeps a pool of idle connections there as tasks (reqwest does) without any load.
//! A short burst (under half a second of one worker) stays quiet.
//!
//! **The warning** goes through `tracing` (target `filch`, level WARN) if the program has a
//! global subscriber, else to stderr; it names what to use instead and the knob, and comes
//! at most once per process ([`WARNED`]); every watch ends once it came. The watch costs one
//! wake-up of the runtime per window, and counts as one of its tasks alive until it ends.
//! It is dropped with its runtime.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the watch looks.
const WINDOW: Duration = Duration::from_secs(1);

/// Whether the warning was written (process-wide: std's atomic, a static).
static WARNED: AtomicBool = AtomicBool::new(false);

/// Starts the watch of the runtime of `handle`, which has `workers` workers and is
/// described in the warning as `what`.
pub(super) fn start(handle: &tokio::runtime::Handle, workers: usize, what: String) {
    let metrics = handle.metrics();
    // Detached: it ends after a warning, or with its runtime.
    drop(handle.spawn(async move {
        let mut ticks = tokio::time::interval(WINDOW);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is at once: the first window starts after it.
        ticks.tick().await;
        let mut last = (Instant::now(), super::busy(&metrics));
        loop {
            ticks.tick().await;
            // Relaxed: a flag read again each window; a late read costs one more window.
            if WARNED.load(Ordering::Relaxed) {
                return;
            }
            let now = (Instant::now(), super::busy(&metrics));
            let (window, busy) = (now.0 - last.0, now.1.saturating_sub(last.1));
            if piled_up(busy, window, workers) {
                warn_once(&message(&what, busy, window));
                return;
            }
            last = now;
        }
    }));
}

/// The rule (module docs): busy for more than half of `window` × `workers`.
fn piled_up(busy: Duration, window: Duration, workers: usize) -> bool {
    let had = window.as_nanos() * workers as u128;
    busy.as_nanos() * 2 > had
}

/// The warning's text.
fn message(what: &str, busy: Duration, window: Duration) -> String {
    format!(
        "filch: work piles up on the tokio runtime that filch keeps beside its executor for \
         tokio-bound crates (feature `tokio-context`; {what}): its workers were busy for \
         {busy:.2?} of the last {window:.2?}, and that work does not run on filch's workers. \
         What `tokio::spawn`, `tokio::net`, `tokio::time` and `axum::serve` start runs there. \
         To run it on filch: serve with `filch::net` and `filch::axum::serve`, spawn with \
         `filch::spawn`, and give a database client a `filch::net::TcpStream` (README, \
         \"Coming from tokio\"); or give that runtime more threads with \
         `filch::Builder::tokio_worker_threads(n)`. (Said once per process.)"
    )
}

/// Writes `message` once per process: through `tracing` if the program set a global
/// subscriber (the watch runs on a tokio thread, where no scoped one is), else to stderr.
fn warn_once(message: &str) {
    // Relaxed: the flag orders nothing else; the swap makes one caller the writer.
    if WARNED.swap(true, Ordering::Relaxed) {
        return;
    }
    let subscribed =
        tracing::dispatcher::get_default(|d| !d.is::<tracing::subscriber::NoSubscriber>());
    if subscribed {
        tracing::warn!(target: "filch", "{message}");
    } else {
        eprintln!("{message}");
    }
}

#[cfg(test)]
mod tests;
