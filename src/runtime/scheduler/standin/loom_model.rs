//! Loom model of the hand-over (`mod.rs`), on the shipped [`Hold`] word and [`StandIns`]
//! slots: a worker's poll ends while the ticker claims it and activates the worker's
//! stand-in, and the stand-in books itself as the worker meanwhile. Checked: the worker's end
//! sees the claim exactly when the claim succeeded; once the worker's release returned, the
//! slot is not active and its stand-in is not in its park, so the worker may book itself as
//! the worker; and no activation is left behind a poll that ended.
//!
//! And the IO driver across the hand-over (`the_driver_is_turned_across_a_hand_over`): a held
//! worker's stand-in parks as the worker, in the driver if it is free; the poll's end
//! releases it; the worker then parks in turn. An IO event from outside, at any point, is
//! delivered and its task run: nobody is left parked with the driver unturned (the lost
//! driver of issue 41), on the shipped `Idle`, `Parker` and slots, with the park models' stub
//! driver (`runtime/park/loom_model.rs`).
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib loom`

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::thread;
use std::sync::Arc;

use super::hold::Hold;
use super::slots::StandIns;
use crate::runtime::park::loom_model::Stub;
use crate::runtime::park::{Idle, Parker};

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
        // A claim that holds is seen by the poll's end; the end may also see a claim that
        // then failed (the end came between its compare-and-swap and its second read),
        // whose release found nothing active.
        assert!(
            held || !claimed.load(Ordering::SeqCst),
            "the ticker's claim held and the poll's end missed it"
        );
        assert!(
            !standins.is_active(0),
            "a stand-in was left active behind a poll that ended"
        );
        standin.join().unwrap();
    });
}

/// What the threads of the driver model share: the worker's inbox (a count), whether its one
/// task ran, and the notifier.
struct DriverModel {
    idle: Idle,
    standins: StandIns,
    inbox: AtomicUsize,
    ran: AtomicBool,
}

impl DriverModel {
    /// Takes the task from the inbox and runs it (the last work of the model: every parked
    /// thread is woken to leave).
    fn run_one(&self) -> bool {
        let queued = self.inbox.load(Ordering::SeqCst);
        if queued == 0
            || self
                .inbox
                .compare_exchange(queued, queued - 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
        {
            return false;
        }
        self.ran.store(true, Ordering::SeqCst);
        self.idle.wake_all();
        true
    }

    fn has_work(&self) -> bool {
        self.ran.load(Ordering::SeqCst) || self.inbox.load(Ordering::SeqCst) > 0
    }
}

#[test]
fn the_driver_is_turned_across_a_hand_over() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(|| {
        let model = Arc::new(DriverModel {
            idle: Idle::new(1),
            standins: StandIns::new(1),
            inbox: AtomicUsize::new(0),
            ran: AtomicBool::new(false),
        });
        // The IO event's delivery wakes a task of worker 0: to its inbox, and a targeted
        // notification (the schedule function's placement of a task a driver turn woke).
        let driver = {
            let model = Arc::clone(&model);
            Stub::new(Box::new(move || {
                model.inbox.fetch_add(1, Ordering::SeqCst);
                model.idle.notify_worker(0);
            }))
        };
        // The ticker claimed the worker's poll and activated the stand-in (the model's
        // stand-in thread below plays the started server).
        let start = || Ok(std::thread::spawn(|| {}));
        model.standins.hand_over(0, || true, &start);

        let standin = {
            let (model, driver) = (Arc::clone(&model), std::sync::Arc::clone(&driver));
            thread::spawn(move || {
                // `serve.rs`'s loop, reduced: run what is queued, else park as the worker.
                let parker = Parker::with_reactor(driver);
                let mut booked = None;
                loop {
                    if !model.standins.is_active(0) || model.ran.load(Ordering::SeqCst) {
                        break;
                    }
                    if model.run_one() {
                        continue;
                    }
                    if !model.standins.begin_park(0) {
                        break;
                    }
                    let recheck = || !model.standins.is_active(0) || model.has_work();
                    model.idle.park(0, false, &parker, recheck, &mut booked);
                    model.standins.end_park(0);
                }
            })
        };
        let io = {
            let driver = std::sync::Arc::clone(&driver);
            thread::spawn(move || driver.ready())
        };

        // The worker: its held poll ends and releases the stand-in; then its loop runs
        // what is queued, or parks (in the driver if it is free), until the task ran.
        model.standins.release(&model.idle, 0);
        let parker = Parker::with_reactor(driver);
        let mut booked = None;
        while !model.ran.load(Ordering::SeqCst) {
            if model.run_one() {
                break;
            }
            model
                .idle
                .park(0, false, &parker, || model.has_work(), &mut booked);
        }
        io.join().unwrap();
        standin.join().unwrap();
        assert!(model.ran.load(Ordering::SeqCst));
    });
}
