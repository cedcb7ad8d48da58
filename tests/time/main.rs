//! `filch::time`: sleeps, timeouts, intervals, the timer wheel's edge cases, and the paused
//! clock of the `test-util` feature.

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "test-util")]
mod paused_clock;
mod timers;
