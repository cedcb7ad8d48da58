//! Tests of the worker loop: most need a whole executor (built through the public
//! `Builder`, reaching into the state through `Handle::state`); the last one checks the
//! rule a searcher that takes a piece wakes by.

use std::sync::Arc;
use std::time::Duration;

use crate::util::fault::{self, Fault};
use crate::Builder;

/// A worker whose loop unwinds while it is parked (as when a waker
/// that the reactor calls panics) gives back its booking in the notifier and runs
/// again: later tasks run (on a one-worker executor, only that worker can run them),
/// later pushes still wake it, and shutdown frees the state.
#[test]
fn a_worker_whose_loop_unwinds_recovers() {
    let ex = Builder::new()
        .worker_threads(1)
        .thread_name("unwinds")
        .build()
        .unwrap();
    let state = Arc::downgrade(ex.handle().state());
    let (tx, rx) = std::sync::mpsc::channel();
    for round in 0..3 {
        fault::arm(Fault::Park, "unwinds-", 0);
        // Wake the worker so that it parks again (and panics there).
        let tx = tx.clone();
        drop(ex.spawn(async move { tx.send(round).unwrap() }));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(round));
        // Let it reach its park and unwind.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while fault::is_armed(Fault::Park, "unwinds-") {
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

/// A waker that panics when woken, counting its calls.
#[cfg(feature = "test-util")]
#[derive(Default)]
struct PanickingWaker(std::sync::atomic::AtomicUsize);

#[cfg(feature = "test-util")]
impl std::task::Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        panic!("filch test: a panicking waker");
    }
}

/// On a paused clock the last worker to park jumps the clock in its re-check and fires the
/// due timers there, so the re-check can run a waker that panics. That unwinds with the
/// worker booked as sleeping; the worker gives the booking back (as for a panic in its
/// sleep) and runs on: no stale booking is left in the notifier.
#[cfg(feature = "test-util")]
#[test]
fn a_waker_that_panics_in_the_park_recheck_leaves_no_stale_booking() {
    use std::future::Future;

    let ex = Builder::new()
        .worker_threads(1)
        .thread_name("recheck")
        .build()
        .unwrap();
    let bad = Arc::new(PanickingWaker::default());
    let (tx, rx) = std::sync::mpsc::channel();
    // A task that waits: the executor jumps its paused clock only while somebody waits on it
    // (`runtime/scheduler/auto_advance.rs`).
    let _waiter = ex.spawn(std::future::pending::<()>());
    {
        let bad = Arc::clone(&bad);
        // On the worker, with no `block_on` running: the worker's park does the jump.
        drop(ex.spawn(async move {
            crate::time::pause();
            let waker = std::task::Waker::from(bad);
            let mut sleep = Box::pin(crate::time::sleep(Duration::from_secs(60)));
            let pending = sleep
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker))
                .is_pending();
            tx.send((pending, sleep)).unwrap();
        }));
    }
    let (pending, sleep) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(pending);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while bad.0.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the paused clock never jumped"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // The worker unwound out of its re-check: it parks again, sleeping (no CPU), booked
    // once in the notifier, and stays so (20 checks in a row: the thread may sleep for a
    // moment while its panic is being reported, before its loop starts again).
    let state = ex.handle().state().clone();
    let mut settled = 0;
    while settled < 20 {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker never slept again with one booking (booked: {:?})",
            state.idle.sleepers()
        );
        if thread_sleeps("recheck-0") && state.idle.sleepers() == vec![0] {
            settled += 1;
        } else {
            settled = 0;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(ex.block_on(ex.spawn(async { 7 })).unwrap(), 7);
    drop((sleep, state));
}

/// Whether the thread of this process named `name` is asleep (state `S` in `/proc`).
#[cfg(feature = "test-util")]
fn thread_sleeps(name: &str) -> bool {
    std::fs::read_dir("/proc/self/task").unwrap().any(|task| {
        let path = task.unwrap().path();
        let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        // The state follows the command name's closing parenthesis.
        comm.trim() == name
            && stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('S'))
    })
}

/// The last searcher to leave, taking the only piece on the board, leaves nothing to wake a
/// worker for: the piece is its own. (Counted as left over, it would wake a sleeper, a
/// worker's stand-in included, for every piece a spinning worker takes: a futex wake-up of
/// about 15 µs before the piece's first item, in every call of a loop of short parallel
/// iterators.)
#[test]
fn a_searcher_that_takes_the_only_piece_wakes_nobody() {
    use super::{left_over, LeftOver};
    assert_eq!(left_over(false, 1, false), LeftOver::Nothing);
    assert_eq!(left_over(false, 0, true), LeftOver::Nothing);
    // More than its own piece: the rest is for another worker.
    assert_eq!(left_over(false, 2, false), LeftOver::Pieces);
    assert_eq!(left_over(false, 1, true), LeftOver::Pieces);
    // Tasks are left over whatever the pieces.
    assert_eq!(left_over(true, 1, false), LeftOver::Tasks);
    assert_eq!(left_over(true, 0, true), LeftOver::Tasks);
}
