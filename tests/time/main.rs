//! `filch::time`: sleeps, timeouts, intervals, the timer wheel's edge cases, and the paused
//! clock of the `test-util` feature, and tokio's timers under it (with `tokio-context`).

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "test-util")]
mod paused_clock;
mod timers;
#[cfg(all(feature = "test-util", feature = "tokio-context"))]
mod tokio_timers_paused;
