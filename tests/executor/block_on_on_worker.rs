//! The free `filch::block_on` called inside a task of a custom executor (threads named
//! `custom-*`) panics with the worker-thread message that suggests `.await`, and checks that
//! before anything else (shared/API.md, block_on): it does not start the global executor on
//! the way (no thread named `filch-*` appears in the process), and with an invalid
//! `FILCH_WORKERS` the panic is still the worker one, not the global executor's complaint
//! about the variable (no thread at all is started by the calls). Whether the global executor started is a property of the whole
//! process, so the scenario runs in a child process with `FILCH_WORKERS` set.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::common::{assert_child_passes, is_child, named_executor, panic_message, watchdog};

/// The threads of this process other than the main one, as (thread id, name) from
/// /proc/self/task/*/comm (names cut to 15 bytes by the kernel).
fn other_threads() -> Vec<(u32, String)> {
    let main = std::process::id();
    let mut threads = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").expect("cannot list /proc/self/task") {
        let entry = entry.expect("cannot read /proc/self/task");
        let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if tid == main {
            continue;
        }
        // A thread may exit between the listing and the read.
        if let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) {
            threads.push((tid, comm.trim_end().to_owned()));
        }
    }
    threads
}

#[test]
#[ignore = "run in a child process by the other tests of this file"]
fn child_free_block_on_in_a_task_of_a_custom_executor() {
    if !is_child() {
        return;
    }
    watchdog(60, "free block_on on a custom worker", || {
        let ex = named_executor(1, "custom");
        // Once a task has run, every thread the custom executor starts by itself exists
        // (its worker, and async-io's thread, which its worker's first park starts).
        ex.block_on(ex.spawn(async {})).unwrap();
        let before = other_threads();
        // The global executor's threads are `filch-N`; the process's tokio runtime of the
        // `tokio-context` feature (`filch-tokio-N`), started with the custom executor, and
        // the process's epoch ticker (`filch-par-tick`, started by every executor for the
        // task dump's clock) are no global executor.
        assert!(
            !before.iter().any(|(_, name)| name.starts_with("filch-")
                && !name.starts_with("filch-tokio-")
                && name != "filch-par-tick"),
            "filch-* threads before the test: {before:?}"
        );
        // Caught inside the task.
        let caught = ex
            .block_on(ex.spawn(async {
                let payload = catch_unwind(AssertUnwindSafe(|| filch::block_on(async { 1 })))
                    .expect_err("filch::block_on on a worker thread must panic");
                panic_message(&*payload)
            }))
            .expect("the task that caught the panic failed");
        // Not caught: the task's JoinHandle gets the panic.
        let err = ex
            .block_on(ex.spawn(async { filch::block_on(async { 2 }) }))
            .expect_err("filch::block_on on a worker thread must panic");
        assert!(err.is_panic(), "expected a panic JoinError, got {err:?}");
        let uncaught = panic_message(&*err.into_panic());

        // Threads that did not exist before the calls (by id: a thread that has not named
        // itself yet shows the name of the thread that started it).
        // A new thread names itself right after it starts: give names a moment to settle.
        std::thread::sleep(std::time::Duration::from_millis(100));
        let after = other_threads();
        let started: Vec<_> = after
            .iter()
            .filter(|thread| !before.iter().any(|(tid, _)| *tid == thread.0))
            // async-io starts its own driver thread lazily, whenever a worker first enters
            // its reactor: not the global executor.
            .filter(|thread| thread.1 != "async-io")
            .collect();
        println!("caught: {caught:?}\nuncaught: {uncaught:?}\nthreads: {after:?}");
        let mut problems = Vec::new();
        for message in [&caught, &uncaught] {
            if !(message.contains("worker") && message.contains(".await")) {
                problems.push(format!(
                    "the panic message does not say it was a worker thread and suggest \
                     `.await`: {message:?}"
                ));
            }
            if message.contains("FILCH_WORKERS") {
                problems.push(format!(
                    "the panic is about FILCH_WORKERS, not the call on a worker: {message:?}"
                ));
            }
        }
        if !started.is_empty() {
            problems.push(format!(
                "the global executor was started: new threads {started:?} appeared"
            ));
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        // The worker survived both panics.
        assert_eq!(ex.block_on(ex.spawn(async { 5 })).unwrap(), 5);
    });
    println!("CHILD_OK block_on on a worker");
}

#[test]
fn free_block_on_on_a_worker_panics_without_starting_the_global_executor() {
    assert_child_passes(
        module_path!(),
        "child_free_block_on_in_a_task_of_a_custom_executor",
        &[("FILCH_WORKERS", "2")],
        "CHILD_OK block_on on a worker",
    );
}

#[test]
fn free_block_on_on_a_worker_panics_about_the_worker_despite_an_invalid_filch_workers() {
    assert_child_passes(
        module_path!(),
        "child_free_block_on_in_a_task_of_a_custom_executor",
        &[("FILCH_WORKERS", "abc")],
        "CHILD_OK block_on on a worker",
    );
}
