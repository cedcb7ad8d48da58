//! The loom model of this folder's concurrent core, on the shipped code
//! (`RUSTFLAGS="--cfg loom" cargo test --release --lib loom`): the ticker's park
//! (`epoch.rs`) is never lost.

use loom::sync::Arc;
use loom::thread;

use super::epoch::Ticker;

/// The ticker's park (`epoch.rs`, the shipped `Ticker`): the ticker thread parks while no
/// worker is active, and a worker enters while it may be parking. The ticker must see each
/// entry (it "ticks": notifies the worker) whatever the interleaving; a lost wake-up leaves
/// the ticker parked and the worker waiting for its tick, which loom reports as a deadlock.
/// The worker enters twice, leaving in between, so that the ticker also parks again after a
/// wake-up.
#[test]
fn ticker_park_is_never_lost() {
    use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use loom::sync::Notify;

    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(|| {
        let ticker = Arc::new(Ticker::new());
        // The ticks, and the entry the last one was for (a `Notify` may wake spuriously).
        let ticked = Arc::new(Notify::new());
        let ticked_for = Arc::new(AtomicUsize::new(0));
        // Entries so far (the worker counts one before each `enter`).
        let entries = Arc::new(AtomicUsize::new(0));
        let thread = {
            let (ticker, ticked) = (Arc::clone(&ticker), Arc::clone(&ticked));
            let (entries, last) = (Arc::clone(&entries), Arc::clone(&ticked_for));
            thread::spawn(move || {
                // The ticker's loop without its sleeps: one tick per entry it finds active,
                // a park while no worker is active.
                let mut ticked_for = 0;
                while ticked_for < 2 {
                    let entry = entries.load(SeqCst);
                    if !ticker.is_active() {
                        ticker.park_while_idle();
                    } else if entry > ticked_for {
                        ticked_for = entry;
                        last.store(entry, SeqCst);
                        ticked.notify();
                    } else {
                        // The entry it ticked for is still active.
                        thread::yield_now();
                    }
                }
            })
        };
        for entry in 1..=2 {
            entries.store(entry, SeqCst);
            let active = ticker.enter();
            while ticked_for.load(SeqCst) < entry {
                ticked.wait();
            }
            drop(active);
        }
        thread.join().unwrap();
    });
}
