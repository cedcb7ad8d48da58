//! Loom models of the paused clock's idle protocol (`auto_advance.rs`): the shipped
//! notifier (`park/`), the shipped activity count (`runtime/time/clock.rs`) and the shipped counted
//! `block_on` (`runtime/driver/block_on.rs`), with a worker that parks through its re-check and a
//! one-timer model of the auto-advance (the shipped one needs a whole executor; this one has its
//! loop: under the `advancing` lock, while every worker is booked asleep and nothing counts
//! as busy, fire the next timer).
//!
//! Checked: the timer fires only while its `block_on` is not polling (never early), and it
//! does fire (never lost): a jump that nobody makes leaves the `block_on` parked for good,
//! and loom reports the deadlock. With two wakers of the `block_on` at once, the count
//! returns to zero at the end (each thread counted once).
//!
//! Run with the feature:
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom cargo test --release
//! --features test-util --lib loom`.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc as StdArc, Weak};
use std::task::{Context, Poll, Waker};

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::sync::{Arc, Mutex};
use loom::thread;

use crate::runtime::driver::block_on::block_on_counted;
use crate::runtime::park::loom_model::Stub;
use crate::runtime::park::{Idle, NoReactor, Parker};
use crate::runtime::scheduler::auto_advance::{
    advance_or_wake_holder, advance_while_idle, wake_a_worker_if_idle,
};
use crate::runtime::time::clock::Activity;

/// One worker, one timer, and the flags the checks read.
struct PausedClockModel {
    idle: Idle,
    activity: StdArc<Activity>,
    /// The armed timer's waker (`None`: not armed, or fired).
    timer: Mutex<Option<Waker>>,
    /// Set while the `block_on`'s future is being polled.
    polling: AtomicBool,
    fired: AtomicBool,
    /// The `block_on` returned: the worker may stop.
    done: AtomicBool,
    /// Extra wakes of the `block_on` made by another thread (the second model).
    extra_wakes: AtomicUsize,
}

impl PausedClockModel {
    fn new() -> StdArc<PausedClockModel> {
        let model = StdArc::new(PausedClockModel {
            idle: Idle::new(1),
            activity: StdArc::new(Activity::new()),
            timer: Mutex::new(None),
            polling: AtomicBool::new(false),
            fired: AtomicBool::new(false),
            done: AtomicBool::new(false),
            extra_wakes: AtomicUsize::new(0),
        });
        // As `Executor`'s build sets it: a weak reference, the hook belongs to the model.
        let weak: Weak<PausedClockModel> = StdArc::downgrade(&model);
        // The shipped hook: it wakes the worker, whose re-check jumps.
        model.activity.set_on_idle(Box::new(move || {
            if let Some(model) = weak.upgrade() {
                wake_a_worker_if_idle(&model.idle, &model.activity, || model.is_idle());
            }
        }));
        model
    }

    /// The idle test: every worker booked asleep, nothing busy.
    fn is_idle(&self) -> bool {
        self.idle.all_parked() && self.activity.is_idle()
    }

    /// The auto-advance (`auto_advance.rs`, its shipped loop) over this model's one timer.
    fn advance_if_idle(&self) -> bool {
        advance_while_idle(
            &self.activity,
            || self.is_idle(),
            // No IO in this model: a turn delivers nothing.
            || false,
            || {
                let Some(waker) = self.timer.lock().unwrap().take() else {
                    return false;
                };
                assert!(
                    !self.polling.load(SeqCst),
                    "the clock jumped while the block_on's future was being polled"
                );
                self.fired.store(true, SeqCst);
                waker.wake();
                true
            },
        )
    }

    /// A worker with no tasks: it parks, and its re-check may advance the clock.
    fn worker(&self) {
        let parker = Parker::<NoReactor>::new();
        // Woken as a searcher (the idle hook's wake), it parks again as one, as the worker
        // loop does when it finds nothing.
        let mut searching = false;
        loop {
            if self.done.load(SeqCst) {
                return;
            }
            let re_check = || self.done.load(SeqCst) || self.advance_if_idle();
            let parked = self.idle.park(0, searching, &parker, re_check, &mut None);
            searching = parked.searching();
            if !parked.slept() {
                thread::yield_now();
            }
        }
    }
}

/// The `block_on`'s future: arms the timer on its first poll, ready once it fired.
struct UntilFired(StdArc<PausedClockModel>);

impl Future for UntilFired {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let model = &self.0;
        model.polling.store(true, SeqCst);
        let ready = model.fired.load(SeqCst);
        if !ready {
            *model.timer.lock().unwrap() = Some(cx.waker().clone());
        }
        model.polling.store(false, SeqCst);
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

fn check(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(f);
}

/// A `block_on` waits for a timer while the only worker parks: whichever goes idle last
/// (the worker booking its park, the `block_on` moving to `WAITING`) jumps the clock, and
/// only then.
#[test]
fn the_last_to_go_idle_jumps_the_clock() {
    check(|| {
        let model = PausedClockModel::new();
        let worker = {
            let model = StdArc::clone(&model);
            thread::spawn(move || model.worker())
        };
        block_on_counted(UntilFired(StdArc::clone(&model)), &model.activity);
        assert!(model.fired.load(SeqCst));
        model.done.store(true, SeqCst);
        model.idle.wake_all();
        worker.join().unwrap();
        assert!(model.activity.is_idle(), "a count was left behind");
    });
}

/// Another thread wakes the `block_on` too, at any moment: the wake-ups race in the
/// counted signal (`WAITING` to `NOTIFIED` once, the other waker taking its count back), the
/// timer still fires only while nothing polls, and the count ends at zero.
#[test]
fn two_wakers_count_the_block_on_once() {
    check(|| {
        let model = PausedClockModel::new();
        let (waker_tx, waker_rx) = loom::sync::mpsc::channel::<Waker>();
        let waker_thread = {
            let model = StdArc::clone(&model);
            thread::spawn(move || {
                let waker = waker_rx.recv().unwrap();
                waker.wake_by_ref();
                model.extra_wakes.fetch_add(1, SeqCst);
            })
        };
        let sent = Arc::new(AtomicBool::new(false));
        let first = {
            let (model, sent) = (StdArc::clone(&model), Arc::clone(&sent));
            std::future::poll_fn(move |cx| {
                if !sent.swap(true, SeqCst) {
                    waker_tx.send(cx.waker().clone()).unwrap();
                }
                Pin::new(&mut UntilFired(StdArc::clone(&model))).poll(cx)
            })
        };
        let worker = {
            let model = StdArc::clone(&model);
            thread::spawn(move || model.worker())
        };
        block_on_counted(first, &model.activity);
        model.done.store(true, SeqCst);
        model.idle.wake_all();
        worker.join().unwrap();
        waker_thread.join().unwrap();
        assert_eq!(model.extra_wakes.load(SeqCst), 1);
        assert!(model.activity.is_idle(), "a count was left behind");
    });
}

/// Two workers share a driver (`runtime/park/loom_model.rs`'s stub: a try-lock, an OS poll, one IO
/// event). Worker 0 makes the IO event ready (a task of it wrote a byte on a socket) and
/// then parks; worker 1 parks, and may be waiting in the driver's OS poll, woken by the
/// kernel, when worker 0's park finds the executor idle. The jump rule that ships
/// (`advance_or_wake_holder`: take the driver and jump after a turn that delivered
/// nothing, or wake its holder, which tests and jumps after its wait, as the shipped
/// driver's `after_wait` does) must never jump while the event is ready and undelivered
/// (the assertion), and must jump in the end (a jump nobody makes leaves both workers
/// asleep, and loom reports the deadlock).
#[test]
fn no_jump_while_the_driver_holder_has_an_event_to_deliver() {
    check(|| {
        struct Model {
            idle: Idle,
            activity: StdArc<Activity>,
            delivered: AtomicBool,
            fired: AtomicBool,
        }
        let model = StdArc::new(Model {
            idle: Idle::new(2),
            activity: StdArc::new(Activity::new()),
            delivered: AtomicBool::new(false),
            fired: AtomicBool::new(false),
        });
        // The event's waker belongs to no task of the executor: it stays idle, and only the
        // order of delivery and jump is at stake.
        let driver = {
            let model = StdArc::clone(&model);
            Stub::new(Box::new(move || model.delivered.store(true, SeqCst)))
        };
        let is_idle = {
            let model = StdArc::clone(&model);
            move || model.idle.all_parked() && model.activity.is_idle()
        };
        let jump = {
            let model = StdArc::clone(&model);
            move || {
                if model.fired.swap(true, SeqCst) {
                    return false;
                }
                assert!(
                    model.delivered.load(SeqCst),
                    "the clock jumped while an IO event that came first was undelivered"
                );
                model.idle.wake_all();
                true
            }
        };
        {
            // The holder's hook. Weak, as the shipped driver's: the hook belongs to the stub.
            let weak = StdArc::downgrade(&driver);
            let (model, is_idle, jump) = (StdArc::clone(&model), is_idle.clone(), jump.clone());
            driver.set_after_wait(Box::new(move || {
                if let Some(driver) = weak.upgrade() {
                    advance_while_idle(&model.activity, &is_idle, || driver.deliver(), &jump);
                }
            }));
        }
        let workers: Vec<_> = (0..2)
            .map(|index| {
                let (model, driver) = (StdArc::clone(&model), StdArc::clone(&driver));
                let (is_idle, jump) = (is_idle.clone(), jump.clone());
                thread::spawn(move || {
                    if index == 0 {
                        driver.ready();
                    }
                    let parker = Parker::with_reactor(StdArc::clone(&driver));
                    while !model.fired.load(SeqCst) {
                        let re_check = || {
                            model.fired.load(SeqCst)
                                || advance_or_wake_holder(
                                    &*driver,
                                    &model.activity,
                                    &is_idle,
                                    &jump,
                                )
                        };
                        if !model
                            .idle
                            .park(index, false, &parker, re_check, &mut None)
                            .slept()
                        {
                            thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        assert!(model.delivered.load(SeqCst));
    });
}
