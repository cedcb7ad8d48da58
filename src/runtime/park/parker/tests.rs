//! White-box tests of `runtime/park/parker.rs`.

use crate::util::sync::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use super::{Parker, Reactor};

/// Runs `f` on its own thread; fails naming `what` if it has not finished within 60 s
/// (a lost wake-up leaves a thread parked for good).
pub(crate) fn watchdog(what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let runner = thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => runner.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // `f` panicked: pass the panic on.
            if let Err(payload) = runner.join() {
                std::panic::resume_unwind(payload);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: {what} (a lost wake-up)"),
    }
}

/// `sleepers` threads each park on their own parker until the round counter they share
/// reaches the next value. For each round, one of `wakers` threads sets it, and then
/// every waker wakes every sleeper once, racing one another and the parks (so that a
/// sleeper may be woken before, while and after it parks). Every round must reach every
/// sleeper: a lost wake-up leaves a sleeper parked with its round already set, and the
/// wakers waiting for it.
pub(crate) fn every_wake_up_is_delivered<R: Reactor>(make: impl Fn() -> Parker<R>) {
    const ROUNDS: usize = 5_000;
    const SLEEPERS: usize = 3;
    const WAKERS: usize = 2;
    let parkers: Vec<Arc<Parker<R>>> = (0..SLEEPERS).map(|_| Arc::new(make())).collect();
    let round = Arc::new(AtomicUsize::new(0));
    // How many sleepers saw their round, in all.
    let seen = Arc::new(AtomicUsize::new(0));
    let sleeping: Vec<_> = parkers
        .iter()
        .map(|parker| {
            let (parker, round, seen) = (Arc::clone(parker), Arc::clone(&round), Arc::clone(&seen));
            thread::spawn(move || {
                for want in 1..=ROUNDS {
                    while round.load(Ordering::SeqCst) < want {
                        parker.park();
                    }
                    seen.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    let waking: Vec<_> = (0..WAKERS)
        .map(|me| {
            let (parkers, round, seen) = (parkers.clone(), Arc::clone(&round), Arc::clone(&seen));
            thread::spawn(move || {
                for next in 1..=ROUNDS {
                    // Every sleeper saw the last round (it is parked, or about to park).
                    while seen.load(Ordering::SeqCst) < SLEEPERS * (next - 1) {
                        thread::yield_now();
                    }
                    if next % WAKERS == me {
                        round.store(next, Ordering::SeqCst);
                    }
                    while round.load(Ordering::SeqCst) < next {
                        thread::yield_now();
                    }
                    for parker in &parkers {
                        parker.waker().wake_by_ref();
                    }
                }
            })
        })
        .collect();
    for t in sleeping.into_iter().chain(waking) {
        t.join().unwrap();
    }
    assert_eq!(seen.load(Ordering::SeqCst), SLEEPERS * ROUNDS);
}

#[test]
fn every_wake_up_reaches_a_condvar_parker() {
    watchdog("every_wake_up_reaches_a_condvar_parker", || {
        every_wake_up_is_delivered(Parker::new);
    });
}

/// A wake-up that comes before the park is kept: the park returns at once, and only
/// once (the next park sleeps until the next wake-up).
#[test]
fn a_wake_up_before_the_park_is_kept_once() {
    watchdog("a_wake_up_before_the_park_is_kept_once", || {
        let parker = Arc::new(Parker::new());
        parker.waker().wake_by_ref();
        parker.waker().wake_by_ref();
        parker.park();
        // The second park returns only for the wake-up sent after a while.
        let woken = Arc::new(AtomicU64::new(0));
        let waker = {
            let (parker, woken) = (Arc::clone(&parker), Arc::clone(&woken));
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                woken.store(1, Ordering::SeqCst);
                parker.waker().wake_by_ref();
            })
        };
        while woken.load(Ordering::SeqCst) == 0 {
            parker.park();
        }
        waker.join().unwrap();
    });
}
