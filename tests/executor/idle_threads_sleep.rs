//! Idle threads use no CPU: the workers of an idle executor (one of them waiting in the IO
//! driver, with a socket registered and a timer armed far ahead), the epoch ticker once loops
//! have ended, and a thread blocked in `block_on` all sleep on their parkers until woken. A
//! parker that returned without a wake-up (a spurious return repeated in a loop, a pending
//! wake never consumed) would keep its thread running: the kernel's counters of the thread's
//! CPU time and context switches would keep moving.
//!
//! Nothing here times the threads: each test waits (up to a watchdog's limit) for a window
//! in which the counters of the threads it watches do not move at all. The ticker's test
//! runs in a child process, where no other test keeps the process's ticker awake.

use std::thread;
use std::time::Duration;

use crate::common::{named_executor, wait_until, watchdog};

/// (CPU ticks, context switches) of every thread of this process whose name starts with
/// `prefix`, by thread id.
fn counters(prefix: &str) -> Vec<(u32, u64, u64)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").expect("cannot list /proc/self/task") {
        let entry = entry.expect("cannot read /proc/self/task");
        let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // A thread may exit between the listing and the reads.
        let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) else {
            continue;
        };
        if !comm.starts_with(prefix) {
            continue;
        }
        let (Ok(stat), Ok(status)) = (
            std::fs::read_to_string(entry.path().join("stat")),
            std::fs::read_to_string(entry.path().join("status")),
        ) else {
            continue;
        };
        // Fields after the name (which may hold spaces): state is the first, utime and
        // stime the 12th and 13th.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let cpu = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        let switches: u64 = status
            .lines()
            .filter(|l| l.contains("ctxt_switches:"))
            .map(|l| l.split(':').nth(1).unwrap().trim().parse::<u64>().unwrap())
            .sum();
        found.push((tid, cpu, switches));
    }
    found.sort_unstable();
    found
}

/// Waits until the threads named `prefix*` go through a 200 ms window without running at
/// all; fails naming `what` after `secs` seconds. `threads` of them must be named
/// `prefix` and a number (the workers); the others are the workers' stand-ins
/// (`{worker}-standin`), started when a poll held its worker (a busy machine preempts a
/// poll long enough), which must sleep too.
fn wait_until_asleep(secs: u64, what: &str, prefix: &str, threads: usize) {
    let mut last = counters(prefix);
    wait_until(secs, what, || {
        thread::sleep(Duration::from_millis(200));
        let now = counters(prefix);
        let workers = now
            .iter()
            .filter(|(tid, ..)| {
                let comm = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm"))
                    .unwrap_or_default();
                comm.trim()
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
            })
            .count();
        assert_eq!(workers, threads, "threads named {prefix}*: {now:?}");
        let quiet = now == last;
        last = now;
        quiet
    });
}

#[test]
fn an_idle_executor_s_workers_use_no_cpu() {
    watchdog(60, "an_idle_executor_s_workers_use_no_cpu", || {
        let ex = named_executor(2, "idlesleep");
        // Something for the driver to wait for: a listener with a pending accept, and a
        // timer an hour ahead.
        let listener = ex
            .block_on(async { filch::net::TcpListener::bind("127.0.0.1:0").await })
            .unwrap();
        let accept = ex.spawn(async move { listener.accept().await.map(|_| ()) });
        let timer = ex.spawn(filch::time::sleep(Duration::from_secs(3600)));
        // A burst of work, so that the workers search, steal and park first.
        let handles: Vec<_> = (0..1000)
            .map(|i| {
                ex.spawn(async move {
                    filch::yield_now().await;
                    i
                })
            })
            .collect();
        let sum: usize = ex.block_on(async {
            let mut sum = 0;
            for h in handles {
                sum += h.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 999 * 1000 / 2);
        wait_until_asleep(40, "the idle workers to sleep", "idlesleep-", 2);
        accept.abort();
        timer.abort();
    });
}

// The epoch ticker is the process's: every busy worker of any executor keeps it awake, so
// the other tests of this binary, running beside it, would keep it from sleeping. In a child
// process of its own, nothing but this test's loop runs.
#[test]
fn the_loop_ticker_sleeps_once_loops_end() {
    crate::common::assert_child_passes(
        module_path!(),
        "child_the_loop_ticker_sleeps_once_loops_end",
        &[],
        "child done",
    );
}

#[test]
#[ignore = "run in a child process by the_loop_ticker_sleeps_once_loops_end"]
fn child_the_loop_ticker_sleeps_once_loops_end() {
    if !crate::common::is_child() {
        return;
    }
    watchdog(60, "the_loop_ticker_sleeps_once_loops_end", || {
        let ex = named_executor(2, "idletick");
        let sum = ex.block_on(ex.spawn(async {
            filch::par_map(0..10_000usize, |i| i % 7)
                .await
                .iter()
                .sum::<usize>()
        }));
        assert_eq!(sum.unwrap(), (0..10_000usize).map(|i| i % 7).sum::<usize>());
        wait_until_asleep(40, "the epoch ticker to sleep", "filch-par-tick", 1);
    });
    println!("child done");
}

#[test]
fn a_thread_in_block_on_uses_no_cpu_while_it_waits() {
    watchdog(
        60,
        "a_thread_in_block_on_uses_no_cpu_while_it_waits",
        || {
            let ex = named_executor(1, "idleblk");
            let (tx, rx) = async_channel::bounded::<u32>(1);
            let handle = ex.handle().clone();
            let blocked = thread::Builder::new()
                .name("idleblockon".to_owned())
                .spawn(move || handle.block_on(rx.recv()))
                .unwrap();
            wait_until_asleep(40, "the thread in block_on to sleep", "idleblockon", 1);
            tx.send_blocking(7).unwrap();
            assert_eq!(blocked.join().unwrap(), Ok(7));
        },
    );
}
