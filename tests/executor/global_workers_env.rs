//! The global executor's size from `FILCH_WORKERS`: a valid value sets it, an invalid one is
//! a clear panic naming the variable and the value. Each case runs in a child process (the
//! global executor starts once per process).

use crate::common::{assert_child_passes, run_child_test};

/// Started by the tests below in a child process with `FILCH_WORKERS` set: uses the global
/// executor and prints its number of workers.
#[test]
#[ignore = "run in a child process by the other tests of this file"]
fn child_uses_the_global_executor() {
    let workers = filch::block_on(async {
        filch::spawn(async {
            filch::Handle::try_current()
                .ok()
                .map(|h| h.stats().workers.len())
        })
        .await
        .unwrap()
    });
    println!(
        "GLOBAL_WORKERS={}",
        workers.expect("a task has a current executor")
    );
}

#[test]
fn the_variable_is_filch_workers() {
    assert_eq!(filch::WORKERS_ENV, "FILCH_WORKERS");
}

#[test]
fn a_valid_value_sets_the_global_worker_count() {
    for value in ["3", "1"] {
        assert_child_passes(
            module_path!(),
            "child_uses_the_global_executor",
            &[("FILCH_WORKERS", value)],
            &format!("GLOBAL_WORKERS={value}"),
        );
    }
}

#[test]
fn an_invalid_value_panics_naming_the_variable_and_the_value() {
    for value in ["lots", "0", "-3", "2x", "1.5"] {
        let out = run_child_test(
            module_path!(),
            "child_uses_the_global_executor",
            &[("FILCH_WORKERS", value)],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "FILCH_WORKERS={value:?} must make the global executor panic\nstdout: {stdout}"
        );
        assert!(
            !stdout.contains("GLOBAL_WORKERS="),
            "FILCH_WORKERS={value:?}: an executor was started anyway: {stdout}"
        );
        assert!(stderr.contains("panicked"), "stderr: {stderr}");
        assert!(
            stderr.contains("FILCH_WORKERS"),
            "the panic must name the variable: {stderr}"
        );
        assert!(
            ["\"", "`", "'"]
                .iter()
                .any(|q| stderr.contains(&format!("{q}{value}{q}"))),
            "the panic must quote the value {value:?}: {stderr}"
        );
    }
}
