//! rayon-core's own tests of `ThreadPool` (rayon-core 1.13.0, `src/thread_pool/test.rs`),
//! ported to `filch::par`: `install` (panics, nesting in one pool and across pools),
//! `scope` on a pool, `in_place_scope`, and the workers' start and stop.
//!
//! Adapted: rayon's `registry.wait_until_stopped()` (internal) is the count of the pool's
//! exit handlers, which filch's drop has run when it returns (it joins the workers);
//! `wait_for_counter` waits without a deadline of its own (the watchdog bounds it). Not
//! ported: `check_thread_pool_new` (rayon's deprecated `Configuration`) and
//! `spawn_lifo_order` (filch's `spawn` goes through the injector in FIFO order). The yield
//! tests run on fork-join work of the global executor (rayon's `registry::in_worker` is
//! internal) and also assert that the calls are `None` off the workers.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use filch::par::{
    join, yield_local, yield_now, Scope, ScopeFifo, ThreadPool, ThreadPoolBuilder, Yield,
};

use crate::common::watchdog;

// origin: rayon-core src/thread_pool/test.rs::panic_propagate
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate() {
    watchdog(60, "panic_propagate", || {
        let thread_pool = ThreadPoolBuilder::new().build().unwrap();
        thread_pool.install(|| {
            panic!("Hello, world!");
        });
    });
}

/// A start or exit handler that counts its calls (rayon's `count_handler`).
fn count_handler() -> (Arc<AtomicUsize>, impl Fn(usize) + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    (Arc::clone(&count), move |_| {
        count.fetch_add(1, Ordering::SeqCst);
    })
}

/// Waits until a counter is no longer shared (the pool dropped its handler), then returns its
/// value (rayon's `wait_for_counter`; the test's watchdog bounds the wait).
fn wait_for_counter(mut counter: Arc<AtomicUsize>) -> usize {
    loop {
        counter = match Arc::try_unwrap(counter) {
            Ok(counter) => return counter.into_inner(),
            Err(counter) => {
                thread::sleep(Duration::from_millis(1));
                counter
            }
        };
    }
}

fn join_a_lot(n: usize) {
    if n > 0 {
        join(|| join_a_lot(n - 1), || join_a_lot(n - 1));
    }
}

// origin: rayon-core src/thread_pool/test.rs::workers_stop
#[test]
fn workers_stop() {
    watchdog(120, "workers_stop", || {
        let (exits, exit_handler) = count_handler();
        {
            // once we exit this block, thread pool will be dropped
            let thread_pool = ThreadPoolBuilder::new()
                .num_threads(22)
                .exit_handler(exit_handler)
                .build()
                .unwrap();
            let threads = thread_pool.install(|| {
                // do some work on these threads
                join_a_lot(22);

                filch::par::current_num_threads()
            });
            assert_eq!(threads, 22);
            assert_eq!(thread_pool.current_num_threads(), 22);
        }

        // once thread pool is dropped, every worker has stopped
        assert_eq!(wait_for_counter(exits), 22);
    });
}

// origin: rayon-core src/thread_pool/test.rs::sleeper_stop
#[test]
fn sleeper_stop() {
    watchdog(60, "sleeper_stop", || {
        let (exits, exit_handler) = count_handler();
        {
            // once we exit this block, thread pool will be dropped
            let _thread_pool = ThreadPoolBuilder::new()
                .num_threads(22)
                .exit_handler(exit_handler)
                .build()
                .unwrap();

            // Give time for at least some of the thread pool to fall asleep (a filch worker
            // parks after 25 µs without work; rayon sleeps 1 s here).
            thread::sleep(Duration::from_millis(100));
        }

        // once thread pool is dropped, every worker has stopped
        assert_eq!(wait_for_counter(exits), 22);
    });
}

// origin: rayon-core src/thread_pool/test.rs::failed_thread_stack
#[test]
fn failed_thread_stack() {
    watchdog(60, "failed_thread_stack", || {
        // Note: we first tried to force failure with a `usize::MAX` stack, but
        // macOS and Windows weren't fazed, or at least didn't fail the way we want.
        // They work with `isize::MAX`, but 32-bit platforms may feasibly allocate a
        // 2GB stack, so it might not fail until the second thread.
        let stack_size = isize::MAX as usize;

        let (start_count, start_handler) = count_handler();
        let (exit_count, exit_handler) = count_handler();
        let builder = ThreadPoolBuilder::new()
            .num_threads(10)
            .stack_size(stack_size)
            .start_handler(start_handler)
            .exit_handler(exit_handler);

        let pool = builder.build();
        assert!(pool.is_err(), "thread stack should have failed!");

        // With such a huge stack, 64-bit will probably fail on the first thread;
        // 32-bit might manage the first 2GB, but certainly fail the second.
        let start_count = wait_for_counter(start_count);
        assert!(start_count <= 1);
        assert_eq!(start_count, wait_for_counter(exit_count));
    });
}

// origin: rayon-core src/thread_pool/test.rs::panic_thread_name
// Adapted: filch names every worker before it starts any, so the panic of the 6th name
// comes before any thread starts (rayon starts 5 first); what holds in both is that the
// panic reaches the caller and every started thread exits again.
#[test]
fn panic_thread_name() {
    watchdog(60, "panic_thread_name", || {
        let (start_count, start_handler) = count_handler();
        let (exit_count, exit_handler) = count_handler();
        let builder = ThreadPoolBuilder::new()
            .num_threads(10)
            .start_handler(start_handler)
            .exit_handler(exit_handler)
            .thread_name(|i| {
                if i >= 5 {
                    panic!();
                }
                format!("panic_thread_name#{i}")
            });

        let pool = catch_unwind(AssertUnwindSafe(|| builder.build()));
        assert!(pool.is_err(), "thread-name panic should propagate!");

        let started = wait_for_counter(start_count);
        assert!(started <= 5);
        assert_eq!(started, wait_for_counter(exit_count));
    });
}

// origin: rayon-core src/thread_pool/test.rs::self_install
#[test]
fn self_install() {
    watchdog(60, "self_install", || {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();

        // If the inner `install` blocks, then nothing will actually run it!
        assert!(pool.install(|| pool.install(|| true)));
    });
}

// origin: rayon-core src/thread_pool/test.rs::mutual_install
#[test]
fn mutual_install() {
    watchdog(60, "mutual_install", || {
        let pool1 = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let pool2 = ThreadPoolBuilder::new().num_threads(1).build().unwrap();

        let ok = pool1.install(|| {
            // This creates a dependency from `pool1` -> `pool2`
            pool2.install(|| {
                // This creates a dependency from `pool2` -> `pool1`
                pool1.install(|| {
                    // If they blocked on inter-pool installs, there would be no
                    // threads left to run this!
                    true
                })
            })
        });
        assert!(ok);
    });
}

// origin: rayon-core src/thread_pool/test.rs::mutual_install_sleepy
#[test]
fn mutual_install_sleepy() {
    watchdog(60, "mutual_install_sleepy", || {
        let pool1 = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let pool2 = ThreadPoolBuilder::new().num_threads(1).build().unwrap();

        let ok = pool1.install(|| {
            // This creates a dependency from `pool1` -> `pool2`
            pool2.install(|| {
                // Give `pool1` time to fall asleep (a filch worker parks after 25 µs without
                // work; rayon sleeps 1 s here and below).
                thread::sleep(Duration::from_millis(100));

                // This creates a dependency from `pool2` -> `pool1`
                pool1.install(|| {
                    // Give `pool2` time to fall asleep.
                    thread::sleep(Duration::from_millis(100));

                    // If they blocked on inter-pool installs, there would be no
                    // threads left to run this!
                    true
                })
            })
        });
        assert!(ok);
    });
}

// origin: rayon-core src/thread_pool/test.rs::scope_lifo_order
#[test]
fn scope_lifo_order() {
    watchdog(60, "scope_lifo_order", || {
        let builder = ThreadPoolBuilder::new().num_threads(1);
        let pool = builder.build().unwrap();
        let vec = pool.install(|| {
            let vec = Mutex::new(vec![]);
            pool.scope(|scope| {
                let vec = &vec;
                for i in 0..10 {
                    scope.spawn(move |_| {
                        vec.lock().unwrap().push(i);
                    });
                }
            });
            vec.into_inner().unwrap()
        });
        let expected: Vec<i32> = (0..10).rev().collect(); // LIFO -> reversed
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/thread_pool/test.rs::nested_scopes
#[test]
fn nested_scopes() {
    watchdog(60, "nested_scopes", || {
        // Create matching scopes for every thread pool.
        fn nest<'scope, OP>(pools: &[ThreadPool], scopes: Vec<&Scope<'scope>>, op: OP)
        where
            OP: FnOnce(&[&Scope<'scope>]) + Send,
        {
            if let Some((pool, tail)) = pools.split_first() {
                pool.scope(move |s| {
                    // This move reduces the reference lifetimes by variance to match s,
                    // but the actual scopes are still tied to the invariant 'scope.
                    let mut scopes = scopes;
                    scopes.push(s);
                    nest(tail, scopes, op)
                })
            } else {
                (op)(&scopes)
            }
        }

        let pools: Vec<_> = (0..10)
            .map(|_| ThreadPoolBuilder::new().num_threads(1).build().unwrap())
            .collect();

        let counter = AtomicUsize::new(0);
        nest(&pools, vec![], |scopes| {
            for &s in scopes {
                s.spawn(|_| {
                    // Our 'scope lets us borrow the counter in every pool.
                    counter.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(counter.into_inner(), pools.len());
    });
}

// origin: rayon-core src/thread_pool/test.rs::in_place_scope_no_deadlock
#[test]
fn in_place_scope_no_deadlock() {
    watchdog(60, "in_place_scope_no_deadlock", || {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (tx, rx) = channel();
        let rx_ref = &rx;
        pool.in_place_scope(move |s| {
            // With regular scopes this closure would never run because this scope op
            // itself would block the only worker thread.
            s.spawn(move |_| {
                tx.send(()).unwrap();
            });
            rx_ref.recv().unwrap();
        });
    });
}

// origin: rayon-core src/thread_pool/test.rs::scope_fifo_order
#[test]
fn scope_fifo_order() {
    watchdog(60, "scope_fifo_order", || {
        let builder = ThreadPoolBuilder::new().num_threads(1);
        let pool = builder.build().unwrap();
        let vec = pool.install(|| {
            let vec = Mutex::new(vec![]);
            pool.scope_fifo(|scope| {
                let vec = &vec;
                for i in 0..10 {
                    scope.spawn_fifo(move |_| {
                        vec.lock().unwrap().push(i);
                    });
                }
            });
            vec.into_inner().unwrap()
        });
        let expected: Vec<i32> = (0..10).collect(); // FIFO -> natural order
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/thread_pool/test.rs::spawn_fifo_order
#[test]
fn spawn_fifo_order() {
    watchdog(60, "spawn_fifo_order", || {
        let builder = ThreadPoolBuilder::new().num_threads(1);
        let pool = &builder.build().unwrap();
        let (tx, rx) = channel();
        pool.install(move || {
            for i in 0..10 {
                let tx = tx.clone();
                pool.spawn_fifo(move || {
                    tx.send(i).unwrap();
                });
            }
        });
        let vec = rx.iter().collect::<Vec<i32>>();
        let expected: Vec<i32> = (0..10).collect(); // FIFO -> natural order
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/thread_pool/test.rs::nested_fifo_scopes
#[test]
fn nested_fifo_scopes() {
    watchdog(60, "nested_fifo_scopes", || {
        // Create matching fifo scopes for every thread pool.
        fn nest<'scope, OP>(pools: &[ThreadPool], scopes: Vec<&ScopeFifo<'scope>>, op: OP)
        where
            OP: FnOnce(&[&ScopeFifo<'scope>]) + Send,
        {
            if let Some((pool, tail)) = pools.split_first() {
                pool.scope_fifo(move |s| {
                    // This move reduces the reference lifetimes by variance to match s,
                    // but the actual scopes are still tied to the invariant 'scope.
                    let mut scopes = scopes;
                    scopes.push(s);
                    nest(tail, scopes, op)
                })
            } else {
                (op)(&scopes)
            }
        }

        let pools: Vec<_> = (0..10)
            .map(|_| ThreadPoolBuilder::new().num_threads(1).build().unwrap())
            .collect();

        let counter = AtomicUsize::new(0);
        nest(&pools, vec![], |scopes| {
            for &s in scopes {
                s.spawn_fifo(|_| {
                    // Our 'scope lets us borrow the counter in every pool.
                    counter.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(counter.into_inner(), pools.len());
    });
}

// origin: rayon-core src/thread_pool/test.rs::in_place_scope_fifo_no_deadlock
#[test]
fn in_place_scope_fifo_no_deadlock() {
    watchdog(60, "in_place_scope_fifo_no_deadlock", || {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (tx, rx) = channel();
        let rx_ref = &rx;
        pool.in_place_scope_fifo(move |s| {
            // With regular scopes this closure would never run because this scope op
            // itself would block the only worker thread.
            s.spawn_fifo(move |_| {
                tx.send(()).unwrap();
            });
            rx_ref.recv().unwrap();
        });
    });
}

// origin: rayon-core src/thread_pool/test.rs::yield_now_to_spawn
#[test]
fn yield_now_to_spawn() {
    watchdog(60, "yield_now_to_spawn", || {
        let (tx, rx) = channel();

        // Queue a regular spawn.
        filch::par::spawn(move || tx.send(22).unwrap());

        // Off the workers there is nothing to yield to.
        assert_eq!(yield_now(), None);
        let outcome = filch::par::scope(|_| yield_now());
        assert!(outcome.is_some());

        // The spawn **must** have started by now, but we still might have to wait
        // for it to finish if a different thread stole it first.
        assert_eq!(22, rx.recv().unwrap());
    });
}

// origin: rayon-core src/thread_pool/test.rs::yield_local_to_spawn
#[test]
fn yield_local_to_spawn() {
    watchdog(60, "yield_local_to_spawn", || {
        let (tx, rx) = channel();

        // Queue a regular spawn.
        filch::par::spawn(move || tx.send(22).unwrap());

        assert_eq!(yield_local(), None);
        let outcome = filch::par::scope(|_| yield_local());
        assert!(outcome.is_some());

        // The spawn **must** have started by now, but we still might have to wait
        // for it to finish if a different thread stole it first.
        assert_eq!(22, rx.recv().unwrap());
    });
}

/// `yield_now` and `yield_local` run a piece addressed to the calling worker (a
/// `spawn_broadcast`'s part) and say so; with nothing pending they are `Idle`; the pool's
/// forms are `None` off its workers. Not one of rayon's tests.
#[test]
fn yield_runs_own_part() {
    watchdog(60, "yield_runs_own_part", || {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let other = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (local, now, idle, pending) = pool.install(|| {
            let (first, second) = (Arc::clone(&log), Arc::clone(&log));
            filch::par::spawn_broadcast(move |_| first.lock().unwrap().push(1));
            filch::par::spawn_broadcast(move |_| second.lock().unwrap().push(2));
            let pending = filch::par::current_thread_has_pending_tasks();
            let local = yield_local();
            assert_eq!(*log.lock().unwrap(), [1]);
            let now = pool.yield_now();
            assert_eq!(*log.lock().unwrap(), [1, 2]);
            (local, now, pool.yield_local(), pending)
        });
        assert_eq!(pending, Some(true));
        assert_eq!(local, Some(Yield::Executed));
        assert_eq!(now, Some(Yield::Executed));
        assert_eq!(idle, Some(Yield::Idle));
        assert_eq!(pool.install(|| other.yield_now()), None);
        assert_eq!(pool.current_thread_has_pending_tasks(), None);
    });
}
