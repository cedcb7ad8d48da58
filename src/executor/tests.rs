//! White-box tests of `executor/`: the executor's state and its drop, `Builder::build`.

use std::sync::{Arc, Weak};

use super::Builder;

use crate::runtime::scheduler::runtime::{self as rt, State};
use crate::util::fault::{self, Fault};

fn state_of(ex: &super::Executor) -> Weak<State> {
    Arc::downgrade(ex.handle().state())
}

#[test]
fn state_is_freed_when_the_executor_and_its_tasks_are_gone() {
    let ex = Builder::new().worker_threads(2).build().unwrap();
    let state = state_of(&ex);
    ex.block_on(async {
        let tasks: Vec<_> = (0..100).map(|i| crate::spawn(async move { i })).collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
    drop(ex);
    assert!(
        state.upgrade().is_none(),
        "the executor's state outlived it and its tasks"
    );
}

#[test]
fn a_join_handle_keeps_the_state_until_it_is_dropped() {
    let ex = Builder::new().worker_threads(1).build().unwrap();
    let state = state_of(&ex);
    let pending = ex.spawn(std::future::pending::<()>());
    let done = ex.spawn(async { 7 });
    while !done.is_finished() {
        std::thread::yield_now();
    }
    drop(ex);
    assert!(
        state.upgrade().is_some(),
        "freed while join handles still reach tasks"
    );
    assert!(rt::block_on_here(pending).unwrap_err().is_cancelled());
    assert!(state.upgrade().is_some());
    assert_eq!(rt::block_on_here(done).unwrap(), 7);
    assert!(
        state.upgrade().is_none(),
        "the last task's end did not free the state"
    );
}

#[test]
fn a_waker_held_elsewhere_keeps_the_state_until_it_is_dropped() {
    let ex = Builder::new().worker_threads(2).build().unwrap();
    let state = state_of(&ex);
    let (tx, rx) = std::sync::mpsc::channel();
    drop(ex.spawn(std::future::poll_fn(move |cx| {
        let _ = tx.send(cx.waker().clone());
        std::task::Poll::<()>::Pending
    })));
    let waker = rx.recv().unwrap();
    drop(ex);
    assert!(state.upgrade().is_some());
    // Waking a task of a dropped executor is harmless.
    waker.wake_by_ref();
    drop(waker);
    drop(rx);
    assert!(state.upgrade().is_none());
}

#[test]
fn spawning_through_a_handle_after_the_executor_is_gone_keeps_the_state_balanced() {
    let ex = Builder::new().worker_threads(2).build().unwrap();
    let state = state_of(&ex);
    let handle = ex.handle();
    drop(ex);
    for _ in 0..3 {
        let late = handle.spawn(async { 1 });
        assert!(rt::block_on_here(late).unwrap_err().is_cancelled());
        assert!(state.upgrade().is_some(), "freed while a handle holds it");
    }
    drop(handle);
    assert!(
        state.upgrade().is_none(),
        "the handle's drop did not free the state"
    );
}

/// Whether this is the child process [`in_a_child_process`] started.
const CHILD: &str = "FILCH_UNIT_TEST_CHILD";

/// Runs the test `name` (its path from the crate root) alone in a child process of this
/// test binary, and checks that it passed; returns `true` in the child, which then runs the
/// test's body. A test that counts the process's threads or file descriptors needs the
/// process to itself.
fn in_a_child_process(name: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child process running {name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

/// The file descriptors this process has open.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// A thread-spawn failure part-way through `build` returns the error, stops and joins the
/// workers already started, and frees everything: the state, its driver's file descriptors.
#[test]
fn a_thread_start_failure_part_way_stops_the_started_workers_and_frees_everything() {
    if !in_a_child_process(
        "executor::tests::a_thread_start_failure_part_way_stops_the_started_workers_and_frees_everything",
    ) {
        return;
    }
    // What the first executor of a process starts for the whole process (with
    // `tokio-context`, tokio's runtime) is not the failed build's to free.
    drop(Builder::new().worker_threads(1).build().unwrap());
    let fds = open_fds();
    fault::arm(Fault::ThreadStart, "partway-", 2);
    let err = Builder::new()
        .worker_threads(4)
        .thread_name("partway")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "filch test: an injected thread start failure"
    );
    assert!(!fault::is_armed(Fault::ThreadStart, "partway-"));
    // The two started workers were joined before `build` returned. A joined thread's
    // `/proc/self/task` entry may outlive the join by a moment (the kernel wakes the
    // joiner when the thread lets go of its memory, before it reaps the thread), so the
    // look is repeated until the entries are gone; a worker left running keeps its entry
    // for good, and the look gives up after 30 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let names: Vec<String> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .collect();
        if !names.iter().any(|n| n.starts_with("partway")) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "workers left running: {names:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // The driver (its epoll and eventfd descriptors) went with the state.
    assert_eq!(open_fds(), fds, "a failed build leaked file descriptors");
}

/// A NUL byte in the thread name is bad input, not a panic.
#[test]
fn a_thread_name_with_a_nul_byte_is_invalid_input() {
    let err = Builder::new()
        .worker_threads(2)
        .thread_name("bad\0name")
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}
