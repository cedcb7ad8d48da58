//! Helpers shared by the scenario tests: a watchdog that turns a hang into a failure, drop
//! probes that count how many times each future was dropped, executors, and a way to re-run
//! one test of the current binary in a child process.
#![allow(dead_code)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use filch::{Executor, WakePolicy};

/// Both wake policies, for tests that must hold under each.
pub const POLICIES: [WakePolicy; 2] = [WakePolicy::LastWorker, WakePolicy::CurrentWorker];

/// Runs `f` on its own thread and returns its result; panics with `hung: NAME` if it has
/// not finished after `secs` seconds (the thread is left behind; the test fails instead of
/// hanging). A panic inside `f` is passed on unchanged.
pub fn watchdog<T, F>(secs: u64, name: &str, f: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let thread = thread::Builder::new()
        .name(format!("watchdog: {name}"))
        .spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
        })
        .expect("cannot start the watchdog's thread");
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Ok(value)) => {
            let _ = thread.join();
            value
        }
        Ok(Err(payload)) => resume_unwind(payload),
        Err(_) => panic!("hung: {name} (not finished after {secs} s)"),
    }
}

/// Waits until `cond` holds, checking every millisecond; panics naming `what` after `secs`.
pub fn wait_until(secs: u64, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "timed out after {secs} s waiting for {what}"
        );
        thread::sleep(Duration::from_millis(1));
    }
}

/// An executor with `workers` threads and the default policy.
pub fn executor(workers: usize) -> Executor {
    Executor::builder()
        .worker_threads(workers)
        .build()
        .expect("cannot start an executor")
}

/// An executor with `workers` threads and the given wake policy.
pub fn executor_with(workers: usize, policy: WakePolicy) -> Executor {
    Executor::builder()
        .worker_threads(workers)
        .wake_policy(policy)
        .build()
        .expect("cannot start an executor")
}

/// Counts how many probes were made and how many were dropped.
#[derive(Debug, Default)]
pub struct Tally {
    made: AtomicUsize,
    dropped: AtomicUsize,
}

impl Tally {
    pub fn new() -> Arc<Tally> {
        Arc::new(Tally::default())
    }

    /// A probe to move into a future: its drop is counted here.
    pub fn probe(self: &Arc<Tally>) -> Probe {
        self.made.fetch_add(1, Ordering::SeqCst);
        Probe {
            tally: Arc::clone(self),
            drops: None,
        }
    }

    /// A probe that also counts its own drops in the returned counter, to check that one
    /// particular future was dropped exactly once (and when).
    pub fn counted_probe(self: &Arc<Tally>) -> (Probe, Arc<AtomicUsize>) {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut probe = self.probe();
        probe.drops = Some(Arc::clone(&drops));
        (probe, drops)
    }

    pub fn made(&self) -> usize {
        self.made.load(Ordering::SeqCst)
    }

    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }

    /// Every probe made so far was dropped, and none twice (a double drop would push
    /// `dropped` past `made`).
    pub fn assert_all_dropped_once(&self, what: &str) {
        assert_eq!(
            self.dropped(),
            self.made(),
            "{what}: probes dropped != probes made (a leak if fewer, a double drop if more)"
        );
    }
}

/// Moved into a future; counts its drop in its [`Tally`].
#[derive(Debug)]
pub struct Probe {
    tally: Arc<Tally>,
    drops: Option<Arc<AtomicUsize>>,
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.tally.dropped.fetch_add(1, Ordering::SeqCst);
        if let Some(drops) = &self.drops {
            drops.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Asserts that every counter in `drops` is exactly one.
pub fn assert_each_once(drops: &[Arc<AtomicUsize>], what: &str) {
    for (i, d) in drops.iter().enumerate() {
        let n = d.load(Ordering::SeqCst);
        assert_eq!(
            n, 1,
            "{what}: future #{i} was dropped {n} times, expected once"
        );
    }
}

/// Re-runs the ignored test `name` of the current test binary in a child process with the
/// extra environment `envs`, and returns its output.
pub fn run_child_test(name: &str, envs: &[(&str, &str)]) -> Output {
    let exe = std::env::current_exe().expect("no path to the test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        "--exact",
        name,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (key, value) in envs {
        cmd.env(key, value);
    }
    cmd.output().expect("cannot run the test binary as a child")
}
