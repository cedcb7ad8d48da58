//! `Builder::build` reports bad input as an error instead of panicking (shared/API.md,
//! Builder): zero worker threads, and a thread-name prefix holding a NUL byte (which std's
//! thread builder would panic on), are `Err(ErrorKind::InvalidInput)`; after such an error
//! the next build works.

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
