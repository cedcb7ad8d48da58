//! `Builder::build` reports bad input as an error instead of panicking (shared/API.md,
//! Builder): zero worker threads, an absurd number of them (more than 65,535), and a
//! thread-name prefix holding a NUL byte (which std's thread builder would panic on), are
//! `Err(ErrorKind::InvalidInput)`; after such an error the next build works. Every
//! `Duration` the builder takes works up to `Duration::MAX`.

use std::io::{self, ErrorKind};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::common::{panic_message, watchdog};
use filch::{Builder, Executor};

/// Builds, turning a panic inside `build` into a test failure that quotes it.
fn build(builder: Builder, what: &str) -> io::Result<Executor> {
    catch_unwind(AssertUnwindSafe(|| builder.build())).unwrap_or_else(|payload| {
        panic!(
            "{what}: build panicked instead of returning Err(InvalidInput): {:?}",
            panic_message(&*payload)
        )
    })
}

fn assert_invalid_input(result: io::Result<Executor>, what: &str) {
    match result {
        Ok(_) => panic!("{what}: build succeeded, expected Err(InvalidInput)"),
        Err(err) => assert_eq!(err.kind(), ErrorKind::InvalidInput, "{what}: {err}"),
    }
}

#[test]
fn zero_workers_is_invalid_input() {
    assert_invalid_input(
        build(Executor::builder().worker_threads(0), "Executor::builder"),
        "0 workers",
    );
    assert_invalid_input(
        build(Builder::default().worker_threads(0), "Builder::default"),
        "0 workers, Builder::default",
    );
}

#[test]
fn an_absurd_number_of_workers_is_invalid_input() {
    for workers in [usize::MAX, usize::MAX / 2, 1 << 32, 65_536] {
        let what = format!("worker_threads({workers})");
        assert_invalid_input(build(Builder::new().worker_threads(workers), &what), &what);
    }
}

// `Duration::MAX` (saturating, as tokio's): the slow-poll threshold is never crossed, and an
// idle blocking-pool thread waits for its next job however long it takes.
#[test]
fn durations_up_to_the_maximum_work() {
    watchdog(30, "Duration::MAX in the builder", || {
        let ex = build(
            Builder::new()
                .worker_threads(1)
                .max_blocking_threads(1)
                .thread_keep_alive(std::time::Duration::MAX)
                .slow_poll_threshold(std::time::Duration::MAX)
                .on_slow_poll(|report| panic!("reported: {report}")),
            "Duration::MAX",
        )
        .expect("a build with Duration::MAX");
        for i in 0..3 {
            // One thread: the later jobs go to the one the first job started, once it is
            // idle (or before it goes idle).
            assert_eq!(ex.block_on(ex.spawn_blocking(move || i)).unwrap(), i);
        }
        assert_eq!(ex.stats().blocking_threads, 1);
        ex.block_on(ex.spawn(async {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }))
        .unwrap();
        assert_eq!(ex.stats().total().slow_polls, 0);
    });
}

#[test]
fn a_thread_name_with_a_nul_byte_is_invalid_input() {
    watchdog(30, "NUL in the thread name", || {
        for (prefix, workers) in [("a\0b", 2), ("a\0b", 1), ("trailing\0", 3), ("\0", 2)] {
            let what = format!("thread_name({prefix:?}) with {workers} worker(s)");
            let builder = Builder::new().thread_name(prefix).worker_threads(workers);
            assert_invalid_input(build(builder, &what), &what);
        }
        // Nothing broken: a good build after the errors runs tasks.
        let ex = Builder::new()
            .thread_name("after-nul")
            .worker_threads(2)
            .build()
            .expect("a valid build after the errors");
        assert_eq!(ex.block_on(ex.spawn(async { 3 })).unwrap(), 3);
    });
}
