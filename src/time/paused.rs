//! The test clock (cargo feature `test-util`): [`pause`], [`resume`] and [`advance`] act on
//! the clock of the current executor (`runtime/time/clock.rs`); while it is paused, the executor
//! jumps it to its next timer whenever it is idle (`runtime/scheduler/auto_advance.rs`).

use std::sync::Arc;
use std::time::Duration;

use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::runtime::time::clock::PauseError;

/// The current executor's state, or a panic that says `what` needs one.
#[track_caller]
fn current(what: &str) -> Arc<State> {
    context::current_state().unwrap_or_else(|| {
        panic!(
            "filch: time::{what} needs an executor: call it in a task, inside `block_on` or \
             `#[filch::test]`, or on a thread that entered one (`Handle::enter`)"
        )
    })
}

/// The message of a refused pause, resume or advance.
fn message(e: PauseError) -> &'static str {
    match e {
        PauseError::AlreadyPaused => {
            "filch: time::pause() on a clock that is already paused (its executor's clock was \
             paused before, by `pause` or `#[filch::test(start_paused = true)]`)"
        }
        PauseError::NotPaused => {
            "filch: the clock is not paused: call time::pause() first (time::advance and \
             time::resume act on a paused clock)"
        }
        PauseError::TooFar => {
            "filch: time::advance would move the clock beyond what a std::time::Instant can \
             hold"
        }
    }
}

/// Pauses the clock of the current executor: [`now`](super::now) stops, and so do its
/// timers ([`sleep`](super::sleep), [`timeout`](super::timeout), [`interval`](super::interval)),
/// until the clock is moved by [`advance`] or jumps by itself.
///
/// **Auto-advance.** While the clock is paused and the executor is idle (no task running or
/// ready on any worker, no `block_on` of the executor polling its future or woken, no
/// blocking-pool job between its spawn and its end), the clock jumps to the deadline of the
/// next timer, whose task then runs. So a test that sleeps for an hour finishes at once,
/// with the clock an hour on; on every executor, whatever its number of workers. A thread
/// waiting in `block_on` does not count, nor does one that only entered the executor
/// ([`Handle::enter`](crate::Handle::enter)), nor a filch timer polled by another executor.
///
/// A jump goes to the next deadline, in whole milliseconds, and a task woken by it runs
/// before the clock moves on: a sleep of whole milliseconds wakes with the clock exactly at
/// its deadline. Waiting for IO is idle too (a socket's readiness does not hold the clock),
/// so a `timeout` around real IO may elapse at once on a paused clock, unless the IO has
/// already come: what the OS has ready is delivered before any jump; a blocking-pool job
/// holds it (as in tokio), so a blocking job that waits for a timer of its own paused
/// executor waits until something else moves the clock.
///
/// The clock stops at the next whole millisecond of the executor's timers (so that the
/// jumps land on the same instants in every run); it never goes back, and the time it
/// shows is std's `Instant::now()` plus the time it was moved while paused. Deadlines are
/// [`time::Instant`](super::Instant)s: take them from [`now`](super::now) or
/// `filch::time::Instant::now()` (and measure with its `elapsed`), not from
/// `std::time::Instant::now()`, which runs on.
/// Each executor has its own clock; pausing one leaves the others alone.
///
/// ```
/// use std::time::Duration;
///
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// ex.block_on(async {
///     filch::time::pause();
///     let start = filch::time::now();
///     filch::time::sleep(Duration::from_secs(3600)).await; // at once
///     assert_eq!(filch::time::now() - start, Duration::from_secs(3600));
/// });
/// ```
///
/// # Panics
/// Outside an executor (no task, `block_on` or [`EnterGuard`](crate::EnterGuard) on this
/// thread), and if the clock is already paused.
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
#[track_caller]
pub fn pause() {
    let state = current("pause()");
    if let Err(e) = state.driver.clock().pause() {
        panic!("{}", message(e));
    }
    // tokio's timers are off from here (`runtime/tokio_context/timers_off.rs`).
    #[cfg(feature = "tokio-context")]
    crate::runtime::tokio_context::timers_off::paused_now();
}

/// Lets the current executor's paused clock run again, from where it stands: it goes on
/// from std's `Instant::now()` plus the time it was moved while paused.
///
/// ```
/// use std::time::Duration;
///
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// ex.block_on(async {
///     filch::time::pause();
///     filch::time::advance(Duration::from_secs(60)).await;
///     let moved = filch::time::now();
///     filch::time::resume();
///     assert!(filch::time::now() >= moved);
///     // Real time again: a short sleep takes its time.
///     filch::time::sleep(Duration::from_millis(1)).await;
/// });
/// ```
///
/// # Panics
/// Outside an executor, and if the clock is not paused.
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
#[track_caller]
pub fn resume() {
    let state = current("resume()");
    if let Err(e) = state.driver.clock().resume() {
        panic!("{}", message(e));
    }
    #[cfg(feature = "tokio-context")]
    crate::runtime::tokio_context::timers_off::resumed_now();
}

/// Moves the current executor's paused clock forward by `by` in one jump, and fires every
/// timer due by then, in deadline order (their wakers are called before the first poll
/// returns); then yields once, so that the tasks they woke get a chance to run before
/// `advance` returns: a task calling `advance` runs again only after the ready tasks of its
/// worker. Tasks on other workers, and all of them when `advance` is called in `block_on`,
/// run in parallel: await what they produce rather than assume it is there.
///
/// As with tokio's `advance`, the timers due fire together, and their tasks all see the
/// clock at its new time. To let time pass step by step, each timer's task running with the
/// clock at its own deadline, [`sleep`](super::sleep) instead, and let the auto-advance of
/// [`pause`] move the clock.
///
/// ```
/// use std::time::Duration;
///
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// ex.block_on(async {
///     filch::time::pause();
///     let start = filch::time::now();
///     let timeout = filch::time::sleep(Duration::from_secs(30));
///     let mut timeout = std::pin::pin!(timeout);
///     assert!(futures::poll!(timeout.as_mut()).is_pending());
///     filch::time::advance(Duration::from_secs(10)).await;
///     assert!(futures::poll!(timeout.as_mut()).is_pending());
///     filch::time::advance(Duration::from_secs(20)).await;
///     assert!(futures::poll!(timeout.as_mut()).is_ready());
///     assert_eq!(filch::time::now() - start, Duration::from_secs(30));
/// });
/// ```
///
/// # Panics
/// Outside an executor, if the clock is not paused, and if the clock moved by `by` would
/// not fit a `std::time::Instant` (`Duration::MAX`).
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
pub async fn advance(by: Duration) {
    {
        let state = current("advance()");
        if let Err(e) = state.driver.clock().advance(by) {
            panic!("{}", message(e));
        }
        state.driver.time().fire_due_timers();
    }
    crate::yield_now().await;
}
