//! Loom model of the hand-over (`mod.rs`), on the shipped [`Hold`] word and [`StandIns`]
//! slots: a worker's poll ends while the ticker claims it and activates the worker's
//! stand-in, and the stand-in books itself as the worker meanwhile. Checked: the worker's end
//! sees the claim exactly when the claim succeeded; once the worker's release returned, the
//! slot is not active and its stand-in is not in its park, so the worker may book itself as
//! the worker; and no activation is left behind a poll that ended.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib loom`

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::thread;
use std::sync::Arc;

use super::hold::Hold;
use super::slots::StandIns;
use crate::runtime::park::Idle;

/// The word of the first poll in flight (sequence 1, `IN_POLL`): what the ticker saw.
const FIRST_POLL: u64 = 4 | 1;

#[test]
fn a_held_polls_end_releases_what_its_claim_activated() {
    loom::model(|| {
        let hold = Arc::new(Hold::new());
        let standins = Arc::new(StandIns::new(1));
        let idle = Arc::new(Idle::new(1));
        let claimed = Arc::new(AtomicBool::new(false));
        // The worker starts its poll before the ticker looks (the ticker saw it twice).
        hold.begin();

        let ticker = {
            let (hold, standins, claimed) = (
                Arc::clone(&hold),
                Arc::clone(&standins),
                Arc::clone(&claimed),
            );
            thread::spawn(move || {
                // A server thread that exits at once: the model plays the stand-in's part
                // below, on the slot it serves.
                let start = || Ok(std::thread::spawn(|| {}));
                standins.hand_over(
                    0,
                    || {
                        let won = hold.claim_if_held(FIRST_POLL);
                        claimed.store(won, Ordering::SeqCst);
                        won
                    },
                    &start,
                );
            })
        };
        let standin = {
            let standins = Arc::clone(&standins);
            thread::spawn(move || {
                // Serving: it parks as the worker while the slot is active.
                if standins.begin_park(0) {
                    standins.end_park(0);
                }
            })
        };

        // The worker's poll ends; if it was held, it releases its stand-in.
        let held = hold.end();
        if held {
            standins.release(&idle, 0);
        }
        // The worker may now book itself as the worker: nobody else is, or will be, for this
        // poll.
        assert!(
            !held || !standins.is_active(0),
            "the slot is active after the held poll's release"
        );
        ticker.join().unwrap();
        assert_eq!(
            held,
            claimed.load(Ordering::SeqCst),
            "the poll's end and the ticker's claim disagree"
        );
        assert!(
            !standins.is_active(0),
            "a stand-in was left active behind a poll that ended"
        );
        standin.join().unwrap();
    });
}
