//! The `futures::task::Spawn` impls of `Handle` and `Executor`.

use std::sync::mpsc;
use std::time::Duration;

use crate::common::{executor, watchdog, Tally};
use futures::task::{Spawn, SpawnExt};

/// Generic code that only knows `Spawn`.
fn spawn_answer(spawner: &impl Spawn, tx: mpsc::Sender<u32>) {
    spawner
        .spawn(async move { tx.send(42).unwrap() })
        .expect("the executor is running");
}

#[test]
fn spawn_ext_works_on_handle_and_executor() {
    watchdog(30, "SpawnExt", || {
        let ex = executor(2);
        let (tx, rx) = mpsc::channel();
        spawn_answer(&ex.handle(), tx.clone());
        spawn_answer(&ex, tx);
        for _ in 0..2 {
            assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(42));
        }
        assert!(Spawn::status(&ex).is_ok());
        assert!(Spawn::status(&ex.handle()).is_ok());
        let remote = SpawnExt::spawn_with_handle(&ex, async { 7 }).unwrap();
        assert_eq!(ex.block_on(remote), 7);
    });
}

#[test]
fn spawn_after_shutdown_is_an_error_and_drops_the_future() {
    watchdog(30, "Spawn after shutdown", || {
        let ex = executor(1);
        let handle = ex.handle();
        drop(ex);
        assert!(Spawn::status(&handle).unwrap_err().is_shutdown());
        let tally = Tally::new();
        let probe = tally.probe();
        let err = SpawnExt::spawn(&handle, async move {
            let _probe = probe;
        })
        .unwrap_err();
        assert!(err.is_shutdown());
        tally.assert_all_dropped_once("a future refused after shutdown");
    });
}
