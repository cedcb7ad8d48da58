//! 1M timers: each runtime creates 1,000,000 sleeps (deadlines spread over 100 ms to 1.1 s),
//! awaits them all from one task (`futures::future::join_all`), and reports the time and
//! the peak RSS (VmHWM) above its start (tokio's join runs `unconstrained`, see there). Each runtime runs in its own child process, so
//! that one's memory does not show in the other's peak.
//!
//! ```text
//! cargo bench -p filch-benches --bench timers                 # filch and tokio, 2 workers, 1M timers
//! cargo bench -p filch-benches --bench timers -- --timers 200000
//! ```
//!
//! Without `--bench` (as `cargo test --benches` runs it) it does 10k timers per runtime.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// Peak resident set of this process, in KiB.
fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn deadline(start: Instant, i: usize) -> Instant {
    start + Duration::from_millis(100 + (i % 1000) as u64)
}

/// Runs `n` timers on `runtime` in this process; prints `seconds peak_kib`.
fn child(runtime: &str, n: usize) {
    let base = vm_hwm_kib();
    let start = Instant::now();
    match runtime {
        "filch" => {
            let ex = filch::Executor::builder()
                .worker_threads(2)
                .build()
                .unwrap();
            ex.block_on(ex.spawn(async move {
                let sleeps: Vec<_> = (0..n)
                    .map(|i| filch::time::sleep_until(deadline(start, i).into()))
                    .collect();
                futures::future::join_all(sleeps).await;
            }))
            .unwrap();
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_time()
                .build()
                .unwrap();
            rt.block_on(async move {
                tokio::spawn(async move {
                    let sleeps: Vec<_> = (0..n)
                        .map(|i| tokio::time::sleep_until(deadline(start, i).into()))
                        .collect();
                    // Unconstrained: with tokio's budget, `join_all` over 1M sleeps took
                    // minutes (each poll registers at most 128 of them, and FuturesOrdered
                    // polls its queue again and again).
                    tokio::task::unconstrained(futures::future::join_all(sleeps)).await;
                })
                .await
                .unwrap();
            });
        }
        other => panic!("unknown runtime {other}"),
    }
    let took = start.elapsed().as_secs_f64();
    println!("{took} {}", vm_hwm_kib().saturating_sub(base));
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().skip_while(|a| *a != flag).nth(1).cloned();
    let bench = args.iter().any(|a| a == "--bench");
    let n: usize = value("--timers")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if bench { 1_000_000 } else { 10_000 });
    if let Some(runtime) = value("--child") {
        child(&runtime, n);
        return ExitCode::SUCCESS;
    }
    println!("{n} timers (deadlines over 100 ms .. 1.1 s), awaited by one task, 2 workers:\n");
    println!("| runtime | time | peak RSS above start | per timer |");
    println!("|---|---:|---:|---:|");
    for runtime in ["filch", "tokio"] {
        let out = Command::new(&args[0])
            .args(["--child", runtime, "--timers", &n.to_string()])
            .output()
            .expect("run the child");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace();
        let (Some(secs), Some(kib)) = (words.next(), words.next()) else {
            eprintln!(
                "benches/timers: {runtime} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return ExitCode::FAILURE;
        };
        let (secs, kib): (f64, f64) = (secs.parse().unwrap(), kib.parse().unwrap());
        println!(
            "| {runtime} | {:.3} s | {:.1} MiB | {:.0} B |",
            secs,
            kib / 1024.0,
            kib * 1024.0 / n as f64
        );
    }
    ExitCode::SUCCESS
}
