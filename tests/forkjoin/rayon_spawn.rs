//! rayon-core's own tests of `spawn` (rayon-core 1.13.0, `src/spawn/test.rs`), ported to
//! `filch::par::spawn`.
//!
//! Not ported: `panic_fwd`, `custom_panic_handler_and_spawn` and
//! `custom_panic_handler_and_nested_spawn` (no `panic_handler`: filch reports a spawned
//! closure's panic through the panic hook); `termination_while_things_are_executing` (a
//! filch pool is an `Executor`, whose drop shuts it down and joins its workers: a closure
//! that waits for the dropping thread deadlocks that drop, and a spawn after the drop is
//! dropped unrun, where rayon's pool outlives its handle); `lifo_order`, `lifo_fifo_order`,
//! `fifo_lifo_order`, `mixed_lifo_fifo_order`, `mixed_fifo_lifo_order` (they assert that
//! `spawn` runs LIFO on one thread: filch's `spawn`, as its `spawn_fifo`, goes through the
//! injector in FIFO order). `fifo_order` is ported.

use std::sync::mpsc::channel;

use filch::par::{scope, spawn, spawn_fifo, ThreadPoolBuilder};

use crate::common::watchdog;

// origin: rayon-core src/spawn/test.rs::spawn_then_join_in_worker
#[test]
fn spawn_then_join_in_worker() {
    watchdog(60, "spawn_then_join_in_worker", || {
        let (tx, rx) = channel();
        scope(move |_| {
            spawn(move || tx.send(22).unwrap());
        });
        assert_eq!(22, rx.recv().unwrap());
    });
}

// origin: rayon-core src/spawn/test.rs::spawn_then_join_outside_worker
#[test]
fn spawn_then_join_outside_worker() {
    watchdog(60, "spawn_then_join_outside_worker", || {
        let (tx, rx) = channel();
        spawn(move || tx.send(22).unwrap());
        assert_eq!(22, rx.recv().unwrap());
    });
}

// origin: rayon-core src/spawn/test.rs::fifo_order
#[test]
fn fifo_order() {
    watchdog(60, "fifo_order", || {
        // In the absence of stealing, `spawn_fifo()` jobs on a thread will run in FIFO order.
        let builder = ThreadPoolBuilder::new().num_threads(1);
        let pool = builder.build().unwrap();
        let (tx, rx) = channel();
        pool.install(move || {
            for i in 0..10 {
                let tx = tx.clone();
                spawn_fifo(move || {
                    for j in 0..10 {
                        let tx = tx.clone();
                        spawn_fifo(move || {
                            tx.send(i * 10 + j).unwrap();
                        });
                    }
                });
            }
        });
        let vec = rx.iter().collect::<Vec<i32>>();
        let expected: Vec<i32> = (0..100).collect(); // FIFO -> natural order
        assert_eq!(vec, expected);
    });
}
