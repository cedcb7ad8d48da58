//! Slow and stuck polls (`Builder::slow_poll_threshold`): a poll that blocks its worker past
//! the threshold (in `std::thread::sleep`, on a `std::sync::Mutex` another thread holds, in
//! a CPU loop without `.await`) is reported while it still runs, once, naming the task and
//! its spawn location, from a thread that is not the stuck worker; and once more when it
//! returns; `WorkerStats` counts it. A task that yields often is never reported, however
//! long it lives, and neither is one whose worker merely waits for a CPU in the middle of a
//! short poll (preempted: the threshold counts the time a poll holds its worker, not the
//! wall clock's). A zero threshold is refused.
//!
//! Nothing here bounds how soon a report comes: a stuck poll stays stuck until its report
//! has come, so a loaded machine only makes the test slower.

use std::hint::black_box;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{wait_until, watchdog};
use filch::SlowPoll;

const THRESHOLD: Duration = Duration::from_millis(250);

/// A report as received: when, and on which thread.
struct Received {
    report: SlowPoll,
    thread: String,
}

/// The reports an executor made, and whether one came while a poll still ran.
#[derive(Default)]
struct Reports {
    received: Mutex<Vec<Received>>,
    still_running: AtomicBool,
}

fn watched(workers: usize) -> (filch::Executor, Arc<Reports>) {
    let reports = Arc::new(Reports::default());
    let log = Arc::clone(&reports);
    let ex = filch::Builder::new()
        .worker_threads(workers)
        .thread_name("watched")
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report| {
            log.received.lock().unwrap().push(Received {
                report: report.clone(),
                thread: std::thread::current().name().unwrap_or("").to_owned(),
            });
            if report.still_running {
                log.still_running.store(true, SeqCst);
            }
        })
        .build()
        .unwrap();
    (ex, reports)
}

#[derive(Clone, Copy, Debug)]
enum Block {
    Sleep,
    Mutex,
    Spin,
}

/// Blocks the calling thread the way `how` says until a report of the poll still running
/// has come (for `Mutex`: until the test thread, which holds the lock until then, lets go).
fn block(how: Block, lock: &Mutex<()>, reports: &Reports) {
    match how {
        Block::Sleep => {
            while !reports.still_running.load(SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        Block::Mutex => drop(lock.lock().unwrap()),
        Block::Spin => {
            let mut x = 0u64;
            while !reports.still_running.load(SeqCst) {
                for i in 0..1000u64 {
                    x = black_box(x.wrapping_mul(31).wrapping_add(i));
                }
            }
            black_box(x);
        }
    }
}

#[test]
fn stuck_polls_are_reported_while_they_run_and_when_they_return() {
    watchdog(300, "stuck polls", || {
        for workers in [1, 2] {
            for how in [Block::Sleep, Block::Mutex, Block::Spin] {
                one_stuck_poll(workers, how);
            }
        }
    });
}

fn one_stuck_poll(workers: usize, how: Block) {
    let (ex, reports) = watched(workers);
    let lock = Arc::new(Mutex::new(()));
    let held = lock.lock().unwrap();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let name = format!("stuck-{how:?}-{workers}");
    let (poll_lock, poll_reports) = (Arc::clone(&lock), Arc::clone(&reports));
    // The poll begins after the spawn: the time since the spawn bounds its duration (the
    // task's own stamp is taken inside the poll, after the poll's start).
    let before_spawn = Instant::now();
    let (task, spawned_at) = (
        filch::task::Builder::new()
            .name(&name)
            .spawn_on(
                async move {
                    started_tx.send(()).unwrap();
                    block(how, &poll_lock, &poll_reports);
                },
                &ex.handle(),
            )
            .unwrap(),
        Location::caller(),
    );
    started_rx.recv().unwrap();
    if matches!(how, Block::Mutex) {
        wait_until(240, "the report while the poll runs", || {
            reports.still_running.load(SeqCst)
        });
    }
    drop(held);
    ex.block_on(task).unwrap();
    let polled_for = before_spawn.elapsed();
    let reports = reports.received.lock().unwrap();
    let what = format!("{how:?} on {workers} worker(s)");
    let stuck: Vec<&Received> = reports.iter().filter(|r| r.report.still_running).collect();
    assert_eq!(stuck.len(), 1, "{what}: one report while the poll runs");
    let stuck = stuck[0];
    assert_eq!(stuck.report.name.as_deref(), Some(name.as_str()), "{what}");
    assert_eq!(stuck.report.spawned_at.file(), file!(), "{what}");
    assert!(
        stuck.report.spawned_at.line() < spawned_at.line()
            && stuck.report.spawned_at.line() + 12 > spawned_at.line(),
        "{what}: the spawn call's line, got {}",
        stuck.report.spawned_at
    );
    assert!(stuck.report.duration > THRESHOLD, "{what}");
    assert!(
        !stuck.thread.starts_with("watched"),
        "{what}: reported from worker thread {:?}",
        stuck.thread
    );
    let line = stuck.report.to_string();
    assert!(
        line.contains(&format!(
            "worker {} has been inside one poll of task",
            stuck.report.worker
        )) && line.contains(&name),
        "{line}"
    );
    let returned: Vec<&Received> = reports.iter().filter(|r| !r.report.still_running).collect();
    assert_eq!(
        returned.len(),
        1,
        "{what}: one report after the poll returned"
    );
    let returned = &returned[0].report;
    assert!(
        returned.duration >= stuck.report.duration && returned.duration <= polled_for,
        "{what}: {returned:?}, the poll began {polled_for:?} ago"
    );
    assert_eq!(returned.task, stuck.report.task);
    assert_eq!(returned.worker, stuck.report.worker);
    let stats = ex.stats();
    let on = stats.workers[returned.worker];
    assert_eq!(on.slow_polls, 1, "{what}");
    assert_eq!(on.longest_poll, returned.duration, "{what}: {on:?}");
    assert_eq!(stats.total().slow_polls, 1, "{what}");
}

// A task that yields after every short poll lives long but is never reported.
#[test]
fn a_task_that_yields_often_is_never_reported() {
    watchdog(120, "yielding task", || {
        for workers in [1, 2] {
            let (ex, reports) = watched(workers);
            let tasks: Vec<_> = (0..workers * 2)
                .map(|_| {
                    ex.spawn(async {
                        let start = Instant::now();
                        while start.elapsed() < 3 * THRESHOLD {
                            // A poll of about a millisecond, then a yield.
                            let poll = Instant::now();
                            while poll.elapsed() < Duration::from_millis(1) {
                                std::hint::spin_loop();
                            }
                            filch::yield_now().await;
                        }
                    })
                })
                .collect();
            for task in tasks {
                ex.block_on(task).unwrap();
            }
            let reports = reports.received.lock().unwrap();
            assert!(
                reports.is_empty(),
                "{} reports, first: {}",
                reports.len(),
                reports[0].report
            );
            assert_eq!(ex.stats().total().slow_polls, 0);
        }
    });
}

/// Pins the calling thread to CPU `cpu`; with `idle`, also gives it the `SCHED_IDLE` policy,
/// so that it runs only when nothing else on that CPU wants to (both allowed to any user:
/// they only lower the thread's claim).
#[cfg(target_os = "linux")]
fn pin_to(cpu: usize, idle: bool) {
    // SAFETY: a zeroed `cpu_set_t` is the empty set; the calls read the set and the param
    // only, for the calling thread (pid 0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
            0,
            "cannot pin a thread to CPU {cpu}: {}",
            std::io::Error::last_os_error()
        );
        if idle {
            let param = libc::sched_param { sched_priority: 0 };
            assert_eq!(
                libc::sched_setscheduler(0, libc::SCHED_IDLE, &param),
                0,
                "cannot make a thread SCHED_IDLE: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// The first CPU the calling thread may run on.
#[cfg(target_os = "linux")]
fn first_allowed_cpu() -> usize {
    // SAFETY: as in `pin_to`; `sched_getaffinity` writes the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .find(|&cpu| libc::CPU_ISSET(cpu, &set))
            .expect("no CPU allowed")
    }
}

/// The longest a thread of ordinary priority, free to run on any CPU, waited beyond its 1 ms
/// sleeps until `stop`: how long the watcher (the epoch ticker's thread, such a thread too)
/// may have been kept from sampling.
fn longest_starvation(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Duration> {
    std::thread::spawn(move || {
        let mut longest = Duration::ZERO;
        while !stop.load(SeqCst) {
            let before = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
            longest = longest.max(before.elapsed().saturating_sub(Duration::from_millis(1)));
        }
        longest
    })
}

// A worker preempted in the middle of short polls (its thread made to wait for a CPU that a
// busy thread holds) is not taken for a stuck one: what counts is the time a poll holds its
// worker, not the wall clock's. The test goes on until a poll has spanned a wait for the
// CPU longer than twice the threshold, so the case it is about did happen. A poll that the
// watcher never got to sample goes by the wall clock (`runtime/observe/poll_watch.rs`): on a
// machine so loaded that a free thread of ordinary priority waited as long as the reported
// poll, such a report is the documented fallback, not a poll taken for stuck.
#[cfg(target_os = "linux")]
#[test]
fn a_preempted_worker_is_not_taken_for_a_stuck_poll() {
    watchdog(240, "preempted worker", || {
        let (ex, reports) = watched(1);
        let cpu = first_allowed_cpu();
        let stop = Arc::new(AtomicBool::new(false));
        let starvation = longest_starvation(Arc::clone(&stop));
        let hog = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                pin_to(cpu, false);
                while !stop.load(SeqCst) {
                    std::hint::spin_loop();
                }
            })
        };
        let longest = ex
            .block_on(ex.spawn(async move {
                pin_to(cpu, true);
                let mut longest = Duration::ZERO;
                while longest <= 2 * THRESHOLD {
                    // A short poll (about 100 µs of work), then a yield.
                    let poll = Instant::now();
                    while poll.elapsed() < Duration::from_micros(100) {
                        std::hint::spin_loop();
                    }
                    longest = longest.max(poll.elapsed());
                    filch::yield_now().await;
                }
                longest
            }))
            .unwrap();
        stop.store(true, SeqCst);
        hog.join().unwrap();
        let starved = starvation.join().unwrap();
        let mut reports = reports.received.lock().unwrap();
        if reports.is_empty() {
            assert_eq!(ex.stats().total().slow_polls, 0);
        }
        // The watcher could not have sampled a poll no longer than the longest starvation.
        reports.retain(|r| r.report.duration > starved);
        assert!(
            reports.is_empty(),
            "a poll of 100 µs of work, preempted (its longest took {longest:?} on the wall \
             clock; a free thread waited {starved:?} at most): {} reports, first: {}",
            reports.len(),
            reports[0].report
        );
    });
}

#[test]
fn an_idle_executor_with_a_threshold_reports_nothing_and_stops() {
    watchdog(60, "idle watched executor", || {
        let (ex, reports) = watched(2);
        let sleeper = ex.spawn(filch::time::sleep(2 * THRESHOLD));
        ex.block_on(sleeper).unwrap();
        assert!(reports.received.lock().unwrap().is_empty());
        let weak = Arc::downgrade(&reports);
        drop(ex);
        drop(reports);
        // The callback (and with it the log) is gone with the executor.
        wait_until(10, "the watch to let go of the callback", || {
            weak.strong_count() == 0
        });
    });
}

#[test]
fn a_zero_threshold_is_refused() {
    let err = filch::Builder::new()
        .slow_poll_threshold(Duration::ZERO)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}

// Without `on_slow_poll`, each report goes to stderr as one line. The child's poll blocks on
// its stdin, which this test writes to only once the report of the poll still running has
// come: no bound on how soon it comes.
#[test]
fn without_a_callback_reports_go_to_stderr() {
    use std::io::{BufRead, Write};
    use std::process::{Command, Stdio};

    let name = crate::common::test_name(module_path!(), "child_reports_to_stderr");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(crate::common::CHILD_ENV, &name)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in stderr.lines() {
            let line = line.unwrap();
            if line.contains("has been inside one poll") {
                // Let the stuck poll return.
                stdin.write_all(b"go").unwrap();
                stdin.flush().unwrap();
            }
            lines.push(line);
        }
        lines.join("\n")
    });
    let out = watchdog(120, "the child reporting to stderr", move || {
        child.wait_with_output().unwrap()
    });
    let stderr = reader.join().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("child done"),
        "the child failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("filch: worker 0 has been inside one poll of task ")
            && stderr.contains("`quiet-sleeper`")
            && stderr.contains("filch: worker 0 spent "),
        "no report on stderr:\n{stderr}"
    );
}

#[test]
#[ignore = "run in a child process by without_a_callback_reports_go_to_stderr"]
fn child_reports_to_stderr() {
    if !crate::common::is_child() {
        return;
    }
    watchdog(120, "reports to stderr", || {
        let ex = filch::Builder::new()
            .worker_threads(1)
            .slow_poll_threshold(Duration::from_millis(50))
            .build()
            .unwrap();
        let task = filch::task::Builder::new()
            .name("quiet-sleeper")
            .spawn_on(
                async {
                    // Blocked until the parent saw the report of this poll still running.
                    let mut go = [0u8; 2];
                    std::io::Read::read_exact(&mut std::io::stdin(), &mut go).unwrap();
                },
                &ex.handle(),
            )
            .unwrap();
        ex.block_on(task).unwrap();
        println!("child done");
    });
}

// With a threshold, the dump lists a plain `spawn`'s task in its first poll (no registry
// entry yet) from the worker's slot.
#[test]
fn the_dump_lists_a_plain_task_stuck_in_its_first_poll() {
    watchdog(60, "dump of a stuck first poll", || {
        let (ex, _reports) = watched(1);
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let release = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hold = Arc::clone(&release);
        let task = ex.spawn(async move {
            started_tx.send(()).unwrap();
            while !hold.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let line = line!() - 6;
        started_rx.recv().unwrap();
        let dump = ex.dump();
        release.store(true, std::sync::atomic::Ordering::SeqCst);
        let info = dump
            .tasks
            .iter()
            .find(|t| t.id == task.id())
            .unwrap_or_else(|| panic!("the running task is missing:\n{dump}"));
        assert_eq!(info.state, filch::TaskState::Running { worker: 0 });
        assert_eq!(info.spawned_at.file(), file!());
        assert_eq!(info.spawned_at.line(), line);
        ex.block_on(task).unwrap();
    });
}

/// This thread's CPU time.
#[cfg(target_os = "linux")]
fn own_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    assert_eq!(rc, 0);
    Duration::new(
        u64::try_from(now.tv_sec).unwrap(),
        u32::try_from(now.tv_nsec).unwrap(),
    )
}

/// A poll that spins is reported while it runs once it has spent about the threshold on the
/// CPU, not several times that: measured in the poll's own CPU time, which a busy machine
/// does not stretch (a preempted thread gains none).
#[cfg(target_os = "linux")]
#[test]
fn a_spinning_poll_is_reported_once_it_spent_the_threshold_on_the_cpu() {
    watchdog(300, "a spinning poll's report", || {
        let (ex, reports) = watched(1);
        let spent = ex
            .block_on(ex.spawn({
                let reports = Arc::clone(&reports);
                async move {
                    let start = own_cpu_time();
                    let lock = Mutex::new(());
                    block(Block::Spin, &lock, &reports);
                    own_cpu_time() - start
                }
            }))
            .unwrap();
        assert!(
            spent < 2 * THRESHOLD,
            "the spinning poll was reported after {spent:?} of its own CPU time (threshold \
             {THRESHOLD:?})"
        );
    });
}
