//! rayon-core's own tests of `spawn` (rayon-core 1.13.0, `src/spawn/test.rs`), ported to
//! `filch::par::spawn`.
//!
//! Not ported: `panic_fwd`, `custom_panic_handler_and_spawn` and
//! `custom_panic_handler_and_nested_spawn` (no `panic_handler`: filch reports a spawned
//! closure's panic through the panic hook); `termination_while_things_are_executing` (a
//! filch pool is an `Executor`, whose drop shuts it down and joins its workers: a closure
//! that waits for the dropping thread deadlocks that drop, and a spawn after the drop is
//! dropped unrun, where rayon's pool outlives its handle); `lifo_order`, `fifo_order`,
//! `lifo_fifo_order`, `fifo_lifo_order`, `mixed_lifo_fifo_order`, `mixed_fifo_lifo_order`
//! (rayon documents no order for `spawn`, filch's go through the injector in FIFO order, and
//! there is no `spawn_fifo`).

use std::sync::mpsc::channel;

use filch::par::{scope, spawn};

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
