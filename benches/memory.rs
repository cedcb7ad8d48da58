//! Resident memory with 1,000,000 pending tasks: filch against tokio (and async-executor),
//! each in a fresh child process with 2 worker threads.
//!
//! `cargo bench -p filch-benches --bench memory` prints, per runtime, the growth of resident memory (VmRSS)
//! after spawning the tasks and letting every one of them reach its first `Pending`.
//! Each task awaits a future that never completes; its join handle is dropped (detached).

mod common;

use std::future::Future;
use std::pin::Pin;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use common::runtimes::{AsyncExecutor, Filch, Runtime, Tokio};

const TASKS: usize = 1_000_000;

/// Resident set size of this process in bytes, from /proc/self/status.
fn rss_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map(|kb| kb * 1024)
        .expect("VmRSS in /proc/self/status")
}

/// Pending forever; counts its first poll.
struct Never {
    polled: Arc<AtomicUsize>,
    first: bool,
}

impl Future for Never {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.first {
            self.first = false;
            self.polled.fetch_add(1, Ordering::Relaxed);
        }
        Poll::Pending
    }
}

fn measure<R: Runtime>(rt: Arc<R>) -> (usize, usize) {
    let polled = Arc::new(AtomicUsize::new(0));
    std::thread::sleep(Duration::from_millis(100));
    let before = rss_bytes();
    for _ in 0..TASKS {
        let polled = Arc::clone(&polled);
        rt.spawn_remote(Never {
            polled,
            first: true,
        });
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while polled.load(Ordering::Relaxed) < TASKS {
        assert!(
            Instant::now() < deadline,
            "tasks were not all polled in 120 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    let after = rss_bytes();
    // The runtime (and its tasks) is leaked on purpose: the process exits next.
    std::mem::forget(rt);
    (before, after)
}

fn child(name: &str) {
    let workers = 2;
    let (before, after) = match name {
        "filch" => measure(Filch::new(workers, filch::WakePolicy::LastWorker, "filch")),
        "tokio" => measure(Tokio::new(workers)),
        "async-executor" => measure(AsyncExecutor::new(workers)),
        other => panic!("unknown runtime {other}"),
    };
    println!("{before} {after}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--child") {
        child(&args[pos + 1]);
        return;
    }
    let exe = std::env::current_exe().expect("current_exe");
    println!("Resident memory growth with {TASKS} pending tasks, 2 workers:");
    println!("| runtime | RSS growth | bytes per task |");
    println!("|---|---|---|");
    let mut results = Vec::new();
    for name in ["filch", "tokio", "async-executor"] {
        let out = Command::new(&exe)
            .args(["--child", name])
            .output()
            .expect("run child");
        assert!(
            out.status.success(),
            "child {name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let nums: Vec<usize> = text
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        let growth = nums[1].saturating_sub(nums[0]);
        println!(
            "| {name} | {:.1} MiB | {} |",
            growth as f64 / (1024.0 * 1024.0),
            growth / TASKS
        );
        results.push((name, growth));
    }
    let filch = results[0].1 as f64;
    let tokio = results[1].1 as f64;
    println!("filch / tokio = {:.2}", filch / tokio);
}
