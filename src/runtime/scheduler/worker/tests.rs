//! Tests of the worker loop that need a whole executor (built through the public
//! `Builder`, reaching into the state through `Handle::state`).

use std::sync::Arc;
use std::time::Duration;

use crate::Builder;

/// A worker whose loop unwinds while it is parked (as when a waker
/// that the reactor calls panics) gives back its booking in the notifier and runs
/// again: later tasks run (on a one-worker executor, only that worker can run them),
/// later pushes still wake it, and shutdown frees the state.
#[test]
fn a_worker_whose_loop_unwinds_recovers() {
    let ex = Builder::new().worker_threads(1).build().unwrap();
    let state = Arc::downgrade(ex.handle().state());
    let (tx, rx) = std::sync::mpsc::channel();
    for round in 0..3 {
        ex.handle()
            .state()
            .fault_next_park
            .store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the worker so that it parks again (and panics there).
        let tx = tx.clone();
        drop(ex.spawn(async move { tx.send(round).unwrap() }));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(round));
        // Let it reach its park and unwind.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while ex
            .handle()
            .state()
            .fault_next_park
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the worker never parked"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    // The worker must still be alive and wakeable.
    let answer = ex.spawn(async { 42 });
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || done_tx.send(futures::executor::block_on(answer)));
    let got = done_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("a task spawned after the worker's loop unwound never ran");
    assert_eq!(got.unwrap(), 42);
    waiter.join().unwrap().unwrap();
    // Once it sleeps again it is booked once: the unwound parks gave their bookings back.
    let state_now = ex.handle().state().clone();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while state_now.idle.sleepers().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker never slept again"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        state_now.idle.sleepers(),
        vec![0],
        "stale bookings in the notifier"
    );
    drop(state_now);
    drop(ex);
    assert!(state.upgrade().is_none(), "the state leaked");
}
