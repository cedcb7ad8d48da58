//! HTTP/2 load with `h2load` (Debian's `nghttp2-client`) for `benches/http.rs`'s `--h2`
//! mode: installing it when missing, running it with a per-request log, and reading
//! requests/s and the latency percentiles from that log (h2load's own summary gives only
//! mean and spread).

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

/// What one h2load run measured.
#[derive(Clone, Debug, Default)]
pub struct H2Result {
    pub requests_per_sec: f64,
    /// Latency percentiles of the requests that succeeded, in microseconds.
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
    /// Requests that failed or errored (h2load's status -1).
    pub failed: usize,
}

fn h2load_runs() -> bool {
    Command::new("h2load")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `h2load` is there; if not, installs it with apt-get (as root, or through a
/// `sudo` that asks for no password) and looks again.
pub fn ensure_h2load() -> bool {
    if h2load_runs() {
        return true;
    }
    eprintln!("benches/http: h2load is missing: apt-get install -y nghttp2-client");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let apt = |args: &[&str]| {
        let mut command = if root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.args(["-n", "apt-get"]);
            sudo
        };
        command.args(args).status().is_ok_and(|s| s.success())
    };
    if !apt(&["install", "-y", "nghttp2-client"]) {
        let _ = apt(&["update"]) && apt(&["install", "-y", "nghttp2-client"]);
    }
    h2load_runs()
}

/// Reads h2load's per-request log (`--log-file`: start time, status, duration in µs); the
/// requests/s here are the log's successful requests over `seconds` (the caller prefers
/// h2load's own figure when it has one).
pub fn parse_log(text: &str, seconds: f64) -> H2Result {
    let mut durations = Vec::new();
    let mut failed = 0;
    for line in text.lines() {
        let columns: Vec<&str> = line.split('\t').collect();
        let (Some(status), Some(duration)) = (columns.get(1), columns.get(2)) else {
            continue;
        };
        match (status.trim().parse::<i64>(), duration.trim().parse::<f64>()) {
            (Ok(status), Ok(us)) if (200..300).contains(&status) => durations.push(us),
            _ => failed += 1,
        }
    }
    durations.sort_by(f64::total_cmp);
    let at = |q: f64| {
        if durations.is_empty() {
            return 0.0;
        }
        let i = ((durations.len() as f64 * q).ceil() as usize).clamp(1, durations.len()) - 1;
        durations[i]
    };
    H2Result {
        requests_per_sec: durations.len() as f64 / seconds,
        p50: at(0.50),
        p99: at(0.99),
        max: durations.last().copied().unwrap_or(0.0),
        failed,
    }
}

/// One timed run: `clients` connections, `streams` concurrent streams each, `threads`
/// h2load threads, a 1 s warm-up (not logged), then `seconds` measured; h2c with prior
/// knowledge to `http://addr{path}`. The log goes to `log` (made afresh).
pub fn run(
    addr: SocketAddr,
    path: &str,
    clients: usize,
    streams: usize,
    threads: usize,
    seconds: u64,
    log: &Path,
) -> Result<H2Result, String> {
    let _ = std::fs::remove_file(log);
    let output = Command::new("h2load")
        .arg(format!("--clients={clients}"))
        .arg(format!("--max-concurrent-streams={streams}"))
        .arg(format!("--threads={threads}"))
        .arg(format!("--duration={seconds}"))
        .arg("--warm-up-time=1")
        .arg(format!("--log-file={}", log.display()))
        .arg(format!("http://{addr}{path}"))
        .output()
        .map_err(|e| format!("cannot run h2load: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "h2load failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = std::fs::read_to_string(log).map_err(|e| format!("h2load's log: {e}"))?;
    let mut result = parse_log(&text, seconds as f64);
    // Requests/s from h2load's summary ("finished in 10.00s, 12345.67 req/s, ..."), which
    // counts the measured period only.
    let stdout = String::from_utf8_lossy(&output.stdout);
    if let Some(rps) = stdout
        .lines()
        .find_map(|l| l.strip_prefix("finished in "))
        .and_then(|rest| rest.split(", ").nth(1))
        .and_then(|field| field.strip_suffix(" req/s"))
        .and_then(|n| n.parse().ok())
    {
        result.requests_per_sec = rps;
    }
    if result.requests_per_sec == 0.0 {
        return Err(format!(
            "h2load logged no successful request:\n{}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    Ok(result)
}
