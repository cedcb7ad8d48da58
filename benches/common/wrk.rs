//! `wrk`, the HTTP/1 load generator, as the HTTP benches run it: one run's requests per
//! second and latency percentiles (`--latency`), parsed from its report.
#![allow(dead_code)]

use std::process::Command;

/// What one wrk run measured.
#[derive(Clone, Debug, Default)]
pub struct WrkResult {
    pub requests_per_sec: f64,
    /// Latency percentiles 50, 75, 90, 99, in microseconds.
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    /// Socket errors and non-2xx responses, as wrk reports them.
    pub errors: String,
}

/// Parses a wrk duration ("812.00us", "1.23ms", "2.01s", "1.00m") into microseconds.
pub fn parse_duration_us(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let scale = match unit {
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "m" => 60e6,
        "h" => 3600e6,
        _ => return None,
    };
    Some(value * scale)
}

pub fn parse_wrk(output: &str) -> Option<WrkResult> {
    let mut result = WrkResult::default();
    let mut errors = Vec::new();
    for line in output.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", rps] => result.requests_per_sec = rps.parse().ok()?,
            ["Latency", _avg, _stdev, max, ..] => result.max = parse_duration_us(max)?,
            ["50%", v] => result.p50 = parse_duration_us(v)?,
            ["75%", v] => result.p75 = parse_duration_us(v)?,
            ["90%", v] => result.p90 = parse_duration_us(v)?,
            ["99%", v] => result.p99 = parse_duration_us(v)?,
            ["Socket", "errors:", ..] | ["Non-2xx", ..] => errors.push(line.trim().to_string()),
            _ => {}
        }
    }
    result.errors = errors.join("; ");
    (result.requests_per_sec > 0.0).then_some(result)
}

pub fn wrk_available() -> bool {
    Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty())
}

pub fn fmt_us(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.2} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{us:.0} µs")
    }
}

/// Runs `wrk` against `url` for `seconds` with `threads` threads and `connections`
/// connections, with its latency percentiles.
pub fn run(
    url: &str,
    threads: usize,
    connections: usize,
    seconds: u64,
) -> Result<WrkResult, String> {
    let output = Command::new("wrk")
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .arg("--latency")
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "wrk failed ({}): {text}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse_wrk(&text).ok_or_else(|| format!("cannot parse wrk's output:\n{text}"))
}
