//! Unit tests of the driver stack: sources registered and dropped, turns without sources,
//! wakers dropped outside the timers' lock, shutdown, and parkers waiting in the stack.

use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use super::*;
use crate::runtime::park::parker::tests::{every_wake_up_is_delivered, watchdog};
use crate::runtime::park::Parker;
use crate::runtime::time::wheel::TimerKey;

/// 10k sources registered and dropped leave no slab entry behind (no memory leak in the
/// driver), and a late event for a closed source is not delivered to the next one.
#[test]
fn sources_registered_and_dropped_leave_nothing_behind() {
    let driver = Driver::new().unwrap();
    let io = driver.io();
    for _ in 0..10_000 {
        let mut socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let source = io.register(&mut socket).unwrap();
        assert_eq!(io.sources_len(), 1);
        assert_eq!(io.registered_len(), 1);
        io.deregister(&mut socket, &source);
    }
    assert_eq!(io.sources_len(), 0);
    assert_eq!(io.registered_len(), 0);
    // Turns after all that deliver nothing stale (and do not panic): one with no source
    // (no OS poll), one with a new source (an OS poll, which may still hold events of
    // the closed ones).
    let mut guard = driver.try_lock().unwrap();
    let exclusive = guard.as_mut().unwrap();
    driver.turn(exclusive, Some(Duration::ZERO), || {});
    let mut socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let source = io.register(&mut socket).unwrap();
    assert!(driver.turn(exclusive, Some(Duration::ZERO), || {}) <= 1);
    io.deregister(&mut socket, &source);
    assert_eq!(io.sources_len(), 0);
    assert_eq!(io.registered_len(), 0);
}

/// A turn that does not block skips the OS poll while no source is registered, and
/// still fires the timers that are due.
#[test]
fn a_turn_without_sources_still_fires_due_timers() {
    let driver = Driver::new().unwrap();
    let time = driver.time();
    let key = time.insert();
    let waker = futures::task::noop_waker();
    assert!(time.arm(key, Instant::now() + Duration::from_millis(1), &waker));
    std::thread::sleep(Duration::from_millis(3));
    let mut guard = driver.try_lock().unwrap();
    let exclusive = guard.as_mut().unwrap();
    assert_eq!(driver.turn(exclusive, Some(Duration::ZERO), || {}), 1);
    drop(guard);
    time.remove(key);
}

/// A waker whose drop removes timer `key` of `driver` (takes the timers' lock).
struct RemovesOnDrop {
    driver: Arc<Driver>,
    key: TimerKey,
}

impl std::task::Wake for RemovesOnDrop {
    fn wake(self: Arc<Self>) {}
}

impl Drop for RemovesOnDrop {
    fn drop(&mut self) {
        self.driver.time().remove(self.key);
    }
}

/// Every way the driver lets go of a timer's waker (re-arming, re-arming for a past
/// deadline, polling with another waker, removing) drops it after unlocking the timers:
/// a waker whose drop removes another timer of the same driver does not deadlock.
#[test]
fn a_waker_the_driver_drops_may_remove_a_timer_of_the_same_driver() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let driver = Arc::new(Driver::new().unwrap());
        let noop = futures::task::noop_waker();
        let far = Instant::now() + Duration::from_secs(3600);
        let timer = driver.time().insert();
        let owner = |driver: &Arc<Driver>| {
            let key = driver.time().insert();
            assert!(driver.time().arm(key, far, &noop));
            Waker::from(Arc::new(RemovesOnDrop {
                driver: Arc::clone(driver),
                key,
            }))
        };
        let step = |what: &str, let_go: &dyn Fn(&TimeDriver), left: usize| {
            assert!(driver.time().arm(timer, far, &owner(&driver)));
            assert_eq!(driver.time().timers_len(), 2);
            let_go(driver.time());
            assert_eq!(
                driver.time().timers_len(),
                left,
                "{what}: the owned timer is left"
            );
            tx.send(what.to_owned()).unwrap();
        };
        step("re-arm", &|t| assert!(t.arm(timer, far, &noop)), 1);
        let past = driver.clock().origin();
        step(
            "re-arm for the past",
            &|t| assert!(!t.arm(timer, past, &noop)),
            1,
        );
        step("poll", &|t| assert!(!t.poll(timer, &noop)), 1);
        step("remove", &|t| t.remove(timer), 0);
        tx.send(String::new()).unwrap();
    });
    let mut done = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(what) if what.is_empty() => break,
            Ok(what) => done.push(what),
            Err(_) => panic!("deadlocked after {done:?}"),
        }
    }
}

/// After shutdown, registering fails with the executor's error and every timer fired.
#[test]
fn shutdown_refuses_sources_and_fires_timers() {
    let driver = Driver::new().unwrap();
    let waker = futures::task::noop_waker();
    let key = driver.time().insert();
    assert!(driver
        .time()
        .arm(key, Instant::now() + Duration::from_secs(3600), &waker));
    driver.shutdown();
    assert!(driver.time().poll(key, &waker));
    let mut socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let err = driver.io().register(&mut socket).unwrap_err();
    assert!(err.to_string().contains("shut down"));
    driver.time().remove(key);
}

/// Parkers sharing one driver stack: one waits in its OS poll, the others on their
/// condition variables, and who holds the driver changes from park to park; every wake-up
/// reaches its parker (`runtime/park/parker.rs`).
#[test]
fn every_wake_up_reaches_parkers_sharing_a_driver() {
    watchdog("every_wake_up_reaches_parkers_sharing_a_driver", || {
        let driver = Arc::new(Driver::new().unwrap());
        every_wake_up_is_delivered(|| Parker::with_reactor(Arc::clone(&driver)));
    });
}

/// A parker that holds the driver waits in its OS poll, which delivers what comes there:
/// a timer fires during the park, and its waker (this parker's own, run on the parked
/// thread while it delivers) ends the park.
#[test]
fn a_parker_in_the_driver_delivers_timers_and_wakes_itself() {
    watchdog("a_parker_in_the_driver_delivers_timers", || {
        let driver = Arc::new(Driver::new().unwrap());
        let parker = Parker::with_reactor(Arc::clone(&driver));
        let time = driver.time();
        let key = time.insert();
        let deadline = Instant::now() + Duration::from_millis(20);
        assert!(time.arm(key, deadline, parker.waker()));
        while !time.poll(key, parker.waker()) {
            parker.park();
        }
        assert!(Instant::now() >= deadline);
        time.remove(key);
    });
}
