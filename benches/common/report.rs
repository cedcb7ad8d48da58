//! Reads criterion's saved estimates and prints a table of medians with filch's ratio to
//! the faster peer, the figure the speed targets are stated in.

use std::path::PathBuf;

/// Where criterion keeps its results: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
/// else `target/criterion`.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("criterion")
}

/// The median of benchmark `group/id` in nanoseconds, if criterion saved one.
pub fn median_ns(group: &str, id: &str) -> Option<f64> {
    let path = criterion_home()
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("median")?.get("point_estimate")?.as_f64()
}

fn fmt_time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Prints one row per group: every contender's median, then each filch variant's ratio to
/// the fastest peer (below 1.0 means filch is faster).
pub fn print_table(groups: &[&str], ours: &[&str], peers: &[&str]) {
    let all: Vec<&str> = ours.iter().chain(peers).copied().collect();
    let mut header = format!("| {:<25} |", "workload");
    for name in &all {
        header += &format!(" {name:>14} |");
    }
    for name in ours {
        header += &format!(" {:>18} |", format!("{name} / best peer"));
    }
    println!(
        "\nMedians (criterion), workers = {}:\n{header}",
        super::runtimes::bench_workers()
    );
    println!("|{}", "---|".repeat(1 + all.len() + ours.len()));
    for group in groups {
        let medians: Vec<Option<f64>> = all.iter().map(|id| median_ns(group, id)).collect();
        let best_peer = medians[ours.len()..]
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let mut row = format!("| {group:<25} |");
        for m in &medians {
            row += &format!(" {:>14} |", m.map_or("-".to_string(), fmt_time));
        }
        for m in &medians[..ours.len()] {
            let ratio = m.map(|m| m / best_peer).filter(|r| r.is_finite());
            row += &format!(
                " {:>18} |",
                ratio.map_or("-".to_string(), |r| format!("{r:.2}"))
            );
        }
        println!("{row}");
    }
}
