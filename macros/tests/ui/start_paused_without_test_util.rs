//! `start_paused = true` needs filch's `test-util` feature, which this crate's filch lacks:
//! the error says so, at the argument.

#[filch::test(start_paused = true)]
async fn paused_clock() {}

// `false` asks for nothing, and needs nothing.
#[filch::test(start_paused = false)]
async fn running_clock() {}

fn main() {}
