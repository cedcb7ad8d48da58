//! `filch::time`: sleeps, timeouts, intervals and the timer wheel's edge cases.

#[path = "../common/mod.rs"]
mod common;

mod timers;
