//! The interleaved benches' timing and table helpers (`forkjoin.rs`, `par_iter.rs`): one
//! run's time, the median of a contender's runs, a duration and a ratio as table cells.

use std::time::{Duration, Instant};

/// Runs `f` `iters` times and returns the time of one run.
pub fn time_iters(iters: u32, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

/// The median of `v`, `None` if it is empty.
pub fn median(mut v: Vec<Duration>) -> Option<Duration> {
    if v.is_empty() {
        return None;
    }
    v.sort();
    Some(v[v.len() / 2])
}

/// `d` in ns, µs or ms, `-` for none.
pub fn fmt(d: Option<Duration>) -> String {
    match d {
        None => "-".to_string(),
        Some(d) => {
            let ns = d.as_nanos() as f64;
            if ns >= 1e6 {
                format!("{:.2} ms", ns / 1e6)
            } else if ns >= 1e3 {
                format!("{:.1} µs", ns / 1e3)
            } else {
                format!("{ns:.0} ns")
            }
        }
    }
}

/// `a / b` to two places, `-` if either is missing or `b` is zero.
pub fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if !b.is_zero() => format!("{:.2}", a.as_secs_f64() / b.as_secs_f64()),
        _ => "-".to_string(),
    }
}
