//! After a storm of joins the executor is idle: its threads sleep (rayon#642 burns CPU
//! spinning). Checked by the CPU time its threads use over a quiet half second, an upper
//! bound that a busy machine cannot break (a preempted thread uses less, not more).

use std::time::Duration;

use crate::common::{named_executor, watchdog};

/// CPU time (user + system) used so far by this process's threads whose name starts with
/// `prefix` (`/proc/self/task/*/stat`, in clock ticks of 10 ms).
fn threads_cpu(prefix: &str) -> Duration {
    let mut ticks = 0u64;
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let path = task.path();
        let Ok(comm) = std::fs::read_to_string(path.join("comm")) else {
            continue;
        };
        if !comm.starts_with(prefix) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        // Fields after the command (which ends with ')'): utime and stime are the 12th and
        // 13th of them.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        ticks += fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    }
    Duration::from_millis(ticks * 10)
}

fn fib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = filch::par::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn the_workers_sleep_after_a_storm_of_joins() {
    watchdog(60, "idle after joins", || {
        let ex = named_executor(2, "fj-idle");
        for _ in 0..20 {
            assert_eq!(ex.install(|| fib(20)), 6765);
        }
        // A worker spins at most 25 µs before it parks; give it time to.
        std::thread::sleep(Duration::from_millis(100));
        let before = threads_cpu("fj-idle");
        std::thread::sleep(Duration::from_millis(500));
        let used = threads_cpu("fj-idle") - before;
        assert!(
            used <= Duration::from_millis(30),
            "the idle executor's threads used {used:?} of CPU in 500 ms"
        );
    });
}
