//! rayon-core's own tests of `ThreadPoolBuilder` (rayon-core 1.13.0, `src/test.rs`), ported
//! to `filch::par`: `current_thread_index`, `current_num_threads`, the start and exit
//! handlers, the builder's settings and its error type.
//!
//! Adapted: filch's drop of a pool joins its workers, so the exit handlers have all run when
//! it returns: rayon's barrier inside the exit handler (which waits for the dropping thread)
//! would deadlock there, and the count is read after the drop instead. filch has no
//! `panic_handler`: a panicking handler is caught and reported by the panic hook, and the
//! test of it checks that the pool still works and every handler ran. Not ported:
//! `cleared_current_thread` (no `spawn_handler`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use filch::par::{ThreadPoolBuildError, ThreadPoolBuilder};

use crate::common::watchdog;

// origin: rayon-core src/test.rs::worker_thread_index
#[test]
fn worker_thread_index() {
    watchdog(60, "worker_thread_index", || {
        let pool = ThreadPoolBuilder::new().num_threads(22).build().unwrap();
        assert_eq!(pool.current_num_threads(), 22);
        assert_eq!(pool.current_thread_index(), None);
        let index = pool.install(|| pool.current_thread_index().unwrap());
        assert!(index < 22);
        // The free functions agree inside the pool.
        let (free_index, free_threads) = pool.install(|| {
            (
                filch::par::current_thread_index(),
                filch::par::current_num_threads(),
            )
        });
        assert!(free_index.unwrap() < 22);
        assert_eq!(free_threads, 22);
    });
}

// origin: rayon-core src/test.rs::start_callback_called
#[test]
fn start_callback_called() {
    watchdog(60, "start_callback_called", || {
        let n_threads = 16;
        let n_called = Arc::new(AtomicUsize::new(0));
        // Wait for all the threads in the pool plus the one running tests.
        let barrier = Arc::new(Barrier::new(n_threads + 1));

        let b = Arc::clone(&barrier);
        let nc = Arc::clone(&n_called);
        let start_handler = move |_| {
            nc.fetch_add(1, Ordering::SeqCst);
            b.wait();
        };

        let conf = ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .start_handler(start_handler);
        let _pool = conf.build().unwrap();

        // Wait for all the threads to have been scheduled to run.
        barrier.wait();

        // The handler must have been called on every started thread.
        assert_eq!(n_called.load(Ordering::SeqCst), n_threads);
    });
}

// origin: rayon-core src/test.rs::exit_callback_called
#[test]
fn exit_callback_called() {
    watchdog(60, "exit_callback_called", || {
        let n_threads = 16;
        let n_called = Arc::new(AtomicUsize::new(0));
        // Each worker's index, once.
        let indices: Arc<Vec<AtomicUsize>> =
            Arc::new((0..n_threads).map(|_| AtomicUsize::new(0)).collect());

        let nc = Arc::clone(&n_called);
        let seen = Arc::clone(&indices);
        let exit_handler = move |i: usize| {
            nc.fetch_add(1, Ordering::SeqCst);
            seen[i].fetch_add(1, Ordering::SeqCst);
        };

        let conf = ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .exit_handler(exit_handler);
        {
            let _pool = conf.build().unwrap();
            // Drop the pool so it stops the running threads.
        }

        // The handler must have been called on every exiting thread.
        assert_eq!(n_called.load(Ordering::SeqCst), n_threads);
        assert!(indices.iter().all(|i| i.load(Ordering::SeqCst) == 1));
    });
}

// origin: rayon-core src/test.rs::handler_panics_handled_correctly
#[test]
fn handler_panics_handled_correctly() {
    watchdog(60, "handler_panics_handled_correctly", || {
        let n_threads = 16;
        let n_called = Arc::new(AtomicUsize::new(0));

        let nc = Arc::clone(&n_called);
        let start_handler = move |_| {
            nc.fetch_add(1, Ordering::SeqCst);
            panic!("ensure panic handler is called when starting");
        };
        let nc = Arc::clone(&n_called);
        let exit_handler = move |_| {
            nc.fetch_add(1, Ordering::SeqCst);
            panic!("ensure panic handler is called when exiting");
        };

        let conf = ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .start_handler(start_handler)
            .exit_handler(exit_handler);
        {
            let pool = conf.build().unwrap();
            // The workers survived their start handlers' panics.
            let (a, b) = pool.join(|| 1, || 2);
            assert_eq!(a + b, 3);
            // Drop the pool so it stops the running threads.
        }

        // Every handler ran: twice on every thread.
        assert_eq!(n_called.load(Ordering::SeqCst), 2 * n_threads);
    });
}

// origin: rayon-core src/test.rs::check_config_build
#[test]
fn check_config_build() {
    watchdog(60, "check_config_build", || {
        let pool = ThreadPoolBuilder::new().num_threads(22).build().unwrap();
        assert_eq!(pool.current_num_threads(), 22);
    });
}

/// Helper used by check_error_send_sync to ensure ThreadPoolBuildError is Send + Sync
fn _send_sync<T: Send + Sync>() {}

// origin: rayon-core src/test.rs::check_error_send_sync
#[test]
fn check_error_send_sync() {
    _send_sync::<ThreadPoolBuildError>();
}

// origin: rayon-core src/test.rs::configuration
// Adapted: every method of filch's builder (rayon's deprecated `Configuration` has them, and
// `panic_handler` and `breadth_first`, which filch lacks).
#[test]
fn configuration() {
    watchdog(60, "configuration", || {
        let start_handler = move |_| {};
        let exit_handler = move |_| {};
        let thread_name = move |i| format!("thread_name_{i}");

        // Ensure we can call all public methods on the builder
        let pool = ThreadPoolBuilder::new()
            .thread_name(thread_name)
            .num_threads(5)
            .stack_size(4e6 as usize)
            .start_handler(start_handler)
            .exit_handler(exit_handler)
            .build()
            .unwrap();
        let name = pool.install(|| std::thread::current().name().map(str::to_owned));
        assert!(name.unwrap().starts_with("thread_name_"));
    });
}

// origin: rayon-core src/test.rs::default_pool
#[test]
fn default_pool() {
    watchdog(60, "default_pool", || {
        let pool = ThreadPoolBuilder::default().build().unwrap();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(pool.current_num_threads(), cpus);
    });
}
