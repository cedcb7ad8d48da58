//! Helpers shared by the scenario tests: the one watchdog that turns a hang into a failure,
//! the one executor-building helper, drop probes that count how many times each future was
//! dropped, the one SplitMix mixer, and a way to re-run one test of the current binary in a
//! child process (for scenarios that may abort the process or start the global executor).
#![allow(dead_code)]

use std::any::Any;
use std::io::Read;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::process::{Command, Output, Stdio};
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

/// Polls `fut` with `cx` until it is ready (for up to 30 s), catching a panic of the
/// polling: `Err` with the payload if a poll panicked, else the output mapped by `f`. For
/// loops polled on after their executor shut down, which must panic rather than complete.
pub fn poll_to_end_catching<F: std::future::Future + ?Sized, T>(
    fut: &mut std::pin::Pin<Box<F>>,
    cx: &mut std::task::Context<'_>,
    f: impl Fn(F::Output) -> T,
) -> thread::Result<std::task::Poll<T>> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut outcome = std::task::Poll::Pending;
        wait_until(30, "the loop to end", || {
            outcome = fut.as_mut().poll(cx).map(&f);
            outcome.is_ready()
        });
        outcome
    }))
}

/// The one place the tests build an executor: `workers` threads, the wake policy `policy`
/// (else the default) and threads named `"{prefix}-{index}"` (else the default names).
/// Tests of `Builder` itself call the builder directly.
pub fn build_executor(
    workers: usize,
    policy: Option<WakePolicy>,
    prefix: Option<&str>,
) -> Executor {
    let mut builder = Executor::builder().worker_threads(workers);
    if let Some(policy) = policy {
        builder = builder.wake_policy(policy);
    }
    if let Some(prefix) = prefix {
        builder = builder.thread_name(prefix);
    }
    builder.build().expect("cannot start an executor")
}

/// An executor with `workers` threads, the default policy and the default thread names.
pub fn executor(workers: usize) -> Executor {
    build_executor(workers, None, None)
}

/// An executor with `workers` threads and the given wake policy.
pub fn executor_with(workers: usize, policy: WakePolicy) -> Executor {
    build_executor(workers, Some(policy), None)
}

/// An executor with `workers` threads and the wake policy `policy` whose polls are never
/// handed over to a stand-in (`Builder::hand_over_after(Duration::MAX)`): for tests that
/// assert the order of one worker's own loop while some of their polls run for a
/// millisecond or more (as a debug build's do on a busy machine), which a stand-in taking
/// tasks from the same queues would change by design.
pub fn own_loop_executor(workers: usize, policy: WakePolicy) -> Executor {
    Executor::builder()
        .worker_threads(workers)
        .wake_policy(policy)
        .hand_over_after(Duration::MAX)
        .build()
        .expect("cannot start an executor")
}

/// An executor with `workers` threads named `"{prefix}-{index}"`.
pub fn named_executor(workers: usize, prefix: &str) -> Executor {
    build_executor(workers, None, Some(prefix))
}

/// An executor that, when dropped, checks that it holds nothing any more: no live task, no
/// registered IO source, no timer (it waits up to 10 s for them to go, since a task's last
/// waker may be dropped a moment after its handle resolved). For tests whose every task,
/// socket and timer is meant to be gone by their end. Derefs to the [`Executor`].
pub struct LeakChecked(Option<Executor>);

/// A [`LeakChecked`] executor with `workers` threads and the default policy.
pub fn leak_checked(workers: usize) -> LeakChecked {
    LeakChecked(Some(executor(workers)))
}

/// A [`LeakChecked`] executor with `workers` threads and the wake policy `policy`.
pub fn leak_checked_with(workers: usize, policy: WakePolicy) -> LeakChecked {
    LeakChecked(Some(executor_with(workers, policy)))
}

/// What an executor still holds: (live tasks, IO sources, timers).
pub fn held(ex: &Executor) -> (usize, usize, usize) {
    let stats = ex.stats();
    (stats.alive_tasks, stats.io_sources, stats.timers)
}

impl std::ops::Deref for LeakChecked {
    type Target = Executor;
    fn deref(&self) -> &Executor {
        self.0
            .as_ref()
            .expect("a LeakChecked executor is only emptied by its drop")
    }
}

impl Drop for LeakChecked {
    fn drop(&mut self) {
        let ex = self.0.take().expect("dropped once");
        if thread::panicking() {
            // The test failed already; a second panic would abort the process.
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while held(&ex) != (0, 0, 0) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        let (tasks, sources, timers) = held(&ex);
        assert_eq!(
            (tasks, sources, timers),
            (0, 0, 0),
            "leak check at the end of the test: {tasks} live task(s), {sources} IO source(s) \
             and {timers} timer(s) left 10 s after the test's work ended"
        );
    }
}

/// The name of the current thread, `"<unnamed>"` if it has none.
pub fn thread_name() -> String {
    thread::current().name().unwrap_or("<unnamed>").to_owned()
}

/// The message of a panic payload (`panic!` with a literal or with format arguments), or
/// `"<non-string payload>"`.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "<non-string payload>".to_owned())
}

/// SplitMix64's finaliser: a 64-bit mixing step, for pseudo-random but reproducible values
/// (and CPU work that cannot be optimised away).
pub fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
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

/// Set in the environment of a child started by [`run_child_test`].
pub const CHILD_ENV: &str = "FILCH_TEST_CHILD";

/// How long a child test may run before it is killed and reported as hung.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether this process is a child started by [`run_child_test`]. The ignored child tests
/// return at once otherwise, so `cargo test -- --include-ignored` does not run a scenario
/// that may abort the process inside the test binary itself.
pub fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// The name the test harness gives the test function `name` of the module whose
/// `module_path!()` is `module`: the module path without the test crate's name, then `name`
/// (`io_faults::emfile_child` for `emfile_child` in `tests/io/io_faults.rs`).
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

/// Re-runs the ignored test `name` of the module `module` (the caller's `module_path!()`) of
/// the current test binary in a child process with the extra environment `envs`, and returns
/// its output. Panics if the child did not run exactly that one test (a filter that matches
/// nothing would pass silently). The child is killed, and this panics, if it has not exited
/// after [`CHILD_TIMEOUT`].
pub fn run_child_test(module: &str, name: &str, envs: &[(&str, &str)]) -> Output {
    let name = &test_name(module, name);
    let exe = std::env::current_exe().expect("no path to the test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        "--exact",
        name,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    // Short panic reports, so the parent's failure message stays readable (re-run the
    // child by hand, with `FILCH_TEST_CHILD=1`, for a backtrace).
    cmd.env(CHILD_ENV, name).env("RUST_BACKTRACE", "0");
    for (key, value) in envs {
        cmd.env(key, value);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("cannot run the test binary as a child");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + CHILD_TIMEOUT;
    let status = loop {
        match child.try_wait().expect("cannot wait for the child") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let stdout = out_reader.join().unwrap_or_default();
                let stderr = err_reader.join().unwrap_or_default();
                panic!(
                    "hung: child test {name} not finished after {CHILD_TIMEOUT:?}, killed\n\
                     stdout: {}\nstderr: {}",
                    String::from_utf8_lossy(&stdout),
                    String::from_utf8_lossy(&stderr)
                );
            }
            None => thread::sleep(Duration::from_millis(10)),
        }
    };
    let out = Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|line| line == "running 1 test"),
        "child test {name}: the harness did not run exactly one test (no such test?)\n\
         --- stdout ---\n{}\n--- stderr ---\n{}",
        head(&stdout),
        head(&String::from_utf8_lossy(&out.stderr))
    );
    out
}

/// Runs the child test `name` of the module `module` (see [`run_child_test`]) and asserts
/// that it exited successfully and printed `marker` (which it does once it got through its
/// scenario); returns its stdout. On failure the message holds the child's exit status,
/// stdout and stderr (where an abort or a panic message shows).
pub fn assert_child_passes(
    module: &str,
    name: &str,
    envs: &[(&str, &str)],
    marker: &str,
) -> String {
    let out = run_child_test(module, name, envs);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(marker),
        "child test {name} (env {envs:?}) did not get through: {}\n\
         --- stdout ---\n{}\n--- stderr ---\n{}",
        describe_status(&out.status),
        head(&stdout),
        head(&stderr)
    );
    stdout
}

/// The start of `text` (where the panic messages are), without an abort's long backtrace.
fn head(text: &str) -> String {
    const LIMIT: usize = 4000;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}\n[... {} more bytes]", &text[..cut], text.len() - cut),
        None => text.to_owned(),
    }
}

/// An exit status in words, naming the signal of a killed process (SIGABRT for an abort).
fn describe_status(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT: the process aborted)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("killed by signal {signal}{name}");
        }
    }
    format!("{status}")
}

/// A waker that counts its calls and panics in each: a foreign waker gone wrong (for the
/// tests that every other waker of the same turn is still called).
#[derive(Default)]
pub struct PanickingWaker(AtomicUsize);

impl PanickingWaker {
    /// How many times it was woken.
    pub fn calls(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl std::task::Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        panic!("a panicking waker");
    }
}
