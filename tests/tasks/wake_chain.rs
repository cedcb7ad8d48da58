//! 100,000-long chains of wake-ups (each task woken by the completion of the previous one):
//! no stack overflow, no lost link, and a long pending chain drops cleanly at shutdown.

use crate::common::{executor, watchdog, Tally};
use filch::JoinHandle;
use futures::channel::oneshot;

const CHAIN: usize = 100_000;

#[test]
fn join_handle_chain_of_100k() {
    watchdog(60, "join_handle_chain_of_100k", || {
        let ex = executor(2);
        let last = ex.block_on(async {
            // Every task waits for its predecessor; the first waits for the gate, which
            // opens only once the whole chain exists, so each link is a real wake-up.
            let (gate_tx, gate_rx) = oneshot::channel::<usize>();
            let mut prev: JoinHandle<usize> = filch::spawn(async move { gate_rx.await.unwrap() });
            for _ in 1..CHAIN {
                let p = prev;
                prev = filch::spawn(async move { p.await.unwrap() + 1 });
            }
            gate_tx.send(0).unwrap();
            prev.await.unwrap()
        });
        assert_eq!(last, CHAIN - 1);
    });
}

#[test]
fn oneshot_chain_of_100k_spawned_from_a_worker() {
    watchdog(60, "oneshot 100k chain", || {
        let ex = executor(2);
        let (first_tx, first_rx) = oneshot::channel::<usize>();
        let (last_tx, last_rx) = oneshot::channel::<usize>();
        // A task builds the chain, so every link is spawned from a worker.
        let builder = ex.spawn(async move {
            let mut rx = first_rx;
            for _ in 1..CHAIN {
                let (tx, next_rx) = oneshot::channel::<usize>();
                let prev_rx = std::mem::replace(&mut rx, next_rx);
                drop(filch::spawn(async move {
                    let v = prev_rx.await.unwrap();
                    tx.send(v + 1).unwrap();
                }));
            }
            drop(filch::spawn(async move {
                let v = rx.await.unwrap();
                last_tx.send(v + 1).unwrap();
            }));
        });
        ex.block_on(builder).unwrap();
        first_tx.send(0).unwrap();
        assert_eq!(ex.block_on(last_rx).unwrap(), CHAIN);
    });
}

#[test]
fn a_pending_chain_of_100k_is_dropped_at_shutdown() {
    watchdog(60, "pending 100k chain", || {
        let ex = executor(2);
        let tally = Tally::new();
        let (gate_tx, gate_rx) = oneshot::channel::<()>();
        let probe = tally.probe();
        let mut last: JoinHandle<()> = ex.spawn(async move {
            let _probe = probe;
            let _ = gate_rx.await;
        });
        for _ in 1..CHAIN {
            let (prev, probe) = (last, tally.probe());
            last = ex.spawn(async move {
                let _probe = probe;
                let _ = prev.await;
            });
        }
        drop(ex);
        tally.assert_all_dropped_once("the pending chain");
        assert_eq!(tally.made(), CHAIN);
        assert!(futures::executor::block_on(last)
            .unwrap_err()
            .is_cancelled());
        drop(gate_tx);
    });
}
