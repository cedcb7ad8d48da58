//! `#[filch::test]` and `#[filch::main]` (the `macros` feature): the body runs on an
//! executor of its own, with the number of workers asked for; `spawn` inside reaches that
//! executor; a `Result` body becomes the function's value. The misuse errors are
//! compile-fail tests in `macros/tests/`.

use futures::channel::oneshot;

fn workers() -> usize {
    filch::Handle::current().stats().workers.len()
}

#[filch::test]
async fn a_test_runs_on_one_worker_by_default() {
    assert_eq!(workers(), 1);
    // The body really is awaited: a task spawned on the worker comes back.
    assert_eq!(filch::spawn(async { 6 * 7 }).await.unwrap(), 42);
}

// Three workers and, below, five: numbers a machine's CPU count (the default when the
// argument is ignored) is unlikely to be.
#[filch::test(worker_threads = 3)]
async fn worker_threads_sets_the_number_of_workers() {
    assert_eq!(workers(), 3);
}

/// While a spawned task waits, the test's own executor counts it: `spawn` went there, not
/// to the global executor, which has one worker per CPU.
#[filch::test(worker_threads = 3)]
async fn spawn_reaches_the_tests_executor() {
    let here = filch::Handle::current();
    assert_eq!(here.stats().alive_tasks, 0);
    let (release, released) = oneshot::channel::<()>();
    let task = filch::spawn(async move {
        released.await.unwrap();
        workers()
    });
    assert_eq!(here.stats().alive_tasks, 1);
    release.send(()).unwrap();
    assert_eq!(task.await.unwrap(), 3);
}

#[filch::test]
async fn a_test_may_return_ok() -> Result<(), std::io::Error> {
    let socket = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    socket.local_addr()?;
    Ok(())
}

// The body runs on the test's thread: its panic is the test's, and other attributes stay.
#[filch::test]
#[should_panic(expected = "the body panicked")]
async fn a_panic_in_the_body_fails_the_test() {
    panic!("the body panicked");
}

// `#[filch::main]` works on any `async fn` without arguments, which lets a plain test call
// it: it blocks on the body and returns the body's value, an `Err` included.
#[filch::main(worker_threads = 5)]
async fn main_with_an_error() -> Result<usize, String> {
    let n = filch::spawn(async { workers() }).await.unwrap();
    Err(format!("{n} workers"))
}

#[filch::main]
async fn main_with_the_default_workers() -> usize {
    workers()
}

/// Each `#[filch::test]` above is a test of the harness: a function that the attribute left
/// a plain `fn` would be skipped without a word (not even a dead-code warning, as the
/// lint passes over macro output).
#[test]
fn the_attribute_makes_tests() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .arg("--list")
        .output()
        .unwrap();
    let list = String::from_utf8(out.stdout).unwrap();
    for name in [
        "a_test_runs_on_one_worker_by_default",
        "worker_threads_sets_the_number_of_workers",
        "spawn_reaches_the_tests_executor",
        "a_test_may_return_ok",
        "a_panic_in_the_body_fails_the_test",
    ] {
        assert!(
            list.contains(&format!("{name}: test")),
            "{name} is not in:\n{list}"
        );
    }
}

#[test]
fn main_returns_the_bodys_value() {
    assert_eq!(main_with_an_error(), Err("5 workers".to_string()));
    let default = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(main_with_the_default_workers(), default);
    // Each call had its own executor, gone once it returned.
    assert!(filch::Handle::try_current().is_err());
}

/// tokio's habits: `flavor = "multi_thread"` (one worker per CPU unless `worker_threads`
/// says otherwise, for `test` as for `main`), `flavor = "current_thread"` (one worker),
/// `crate = "path"` and `start_paused` on `main`; and the expansion leaves no warning of any
/// lint in the user's code, which this module denies (tokio issue 4175 was one:
/// `unused_braces` on the body).
mod tokio_habits {
    #![deny(warnings)]

    use super::workers;

    fn cpus() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    #[filch::test(flavor = "multi_thread")]
    async fn multi_thread_has_a_worker_per_cpu() {
        assert_eq!(workers(), cpus());
    }

    #[filch::test(flavor = "multi_thread", worker_threads = 3)]
    async fn multi_thread_with_worker_threads() {
        assert_eq!(workers(), 3);
    }

    #[filch::test(flavor = "current_thread")]
    async fn current_thread_has_one_worker() {
        assert_eq!(workers(), 1);
    }

    /// filch through a re-export.
    mod reexport {
        pub use ::filch;
    }

    #[filch::test(crate = "reexport::filch", worker_threads = 2)]
    async fn crate_names_the_path_to_filch() {
        assert_eq!(workers(), 2);
    }

    #[filch::main(flavor = "multi_thread", worker_threads = 2)]
    async fn a_main_with_tokios_arguments() -> usize {
        workers()
    }

    #[test]
    fn main_takes_the_same_arguments() {
        assert_eq!(a_main_with_tokios_arguments(), 2);
    }

    #[cfg(feature = "test-util")]
    #[filch::main(start_paused = true)]
    async fn a_paused_main() -> std::time::Duration {
        let start = filch::time::now();
        filch::time::sleep(std::time::Duration::from_secs(3600)).await;
        filch::time::now() - start
    }

    #[cfg(feature = "test-util")]
    #[test]
    fn start_paused_works_on_main() {
        assert_eq!(a_paused_main(), std::time::Duration::from_secs(3600));
    }
}

/// The executor of `#[filch::main]` is the one the free functions find on a thread the
/// program starts (outside every executor) while `main` runs: `filch::spawn` there lands on
/// its 5 workers, and no global executor starts beside it.
#[filch::main(worker_threads = 5)]
async fn a_main_whose_threads_spawn() -> (usize, usize) {
    let from_thread = std::thread::spawn(|| {
        futures::executor::block_on(filch::spawn(async { workers() })).unwrap()
    })
    .join()
    .unwrap();
    let from_thread_blocking =
        std::thread::spawn(|| futures::executor::block_on(filch::spawn_blocking(workers)).unwrap())
            .join()
            .unwrap();
    (from_thread, from_thread_blocking)
}

#[test]
fn free_functions_on_mains_threads_use_mains_executor() {
    assert_eq!(a_main_whose_threads_spawn(), (5, 5));
    // Once it returned, they fall back to the global executor again.
    assert!(filch::Handle::try_current().is_err());
}
