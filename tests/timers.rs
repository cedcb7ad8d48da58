//! `filch::time`: sleeps complete no earlier than their deadline, on any thread; many timers
//! created and dropped without being awaited wake nothing and leave the executor idle;
//! `timeout` gives the output or `Elapsed`; an `interval` ticks at once and then on
//! schedule. No timing upper bounds: the watchdog catches a timer that never fires.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{executor, watchdog};
use filch::time::{interval, sleep, sleep_until, timeout};

#[test]
fn sleeps_never_complete_early_on_workers_and_on_block_on() {
    watchdog(60, "sleeps", || {
        let ex = executor(2);
        let tasks: Vec<_> = (0..200u64)
            .map(|i| {
                ex.spawn(async move {
                    let d = Duration::from_millis(i % 37);
                    let start = Instant::now();
                    sleep(d).await;
                    assert!(start.elapsed() >= d, "a {d:?} sleep ended early");
                })
            })
            .collect();
        ex.block_on(async {
            let deadline = Instant::now() + Duration::from_millis(20);
            sleep_until(deadline).await;
            assert!(Instant::now() >= deadline);
            for t in tasks {
                t.await.unwrap();
            }
        });
    });
}

#[test]
fn timers_dropped_unawaited_or_half_awaited_wake_nothing() {
    watchdog(60, "dropped timers", || {
        let ex = executor(1);
        let polls = Arc::new(AtomicUsize::new(0));
        let p = Arc::clone(&polls);
        ex.block_on(ex.spawn(async move {
            for i in 0..10_000u64 {
                let mut s = sleep(Duration::from_millis(50 + i % 1000));
                if i % 2 == 0 {
                    // Registered in the wheel by one poll, then dropped.
                    let waker = futures::task::noop_waker();
                    let mut cx = std::task::Context::from_waker(&waker);
                    assert!(std::pin::Pin::new(&mut s).poll(&mut cx).is_pending());
                }
                drop(s);
            }
            p.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
        // Past every deadline: a timer left in the wheel would fire into a dropped waker,
        // and the worker must simply stay idle.
        std::thread::sleep(Duration::from_millis(1100));
        let before = ex.stats().total().polls;
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            ex.stats().total().polls,
            before,
            "a dropped timer ran a task"
        );
        assert_eq!(polls.load(Ordering::SeqCst), 1);
    });
}

use std::future::Future;

#[test]
fn timeout_gives_the_output_or_elapsed() {
    watchdog(60, "timeout", || {
        let ex = executor(2);
        ex.block_on(async {
            let quick = timeout(Duration::from_secs(30), async { 5 }).await;
            assert_eq!(quick, Ok(5));
            let slow = timeout(Duration::from_millis(10), sleep(Duration::from_secs(30))).await;
            let err = slow.unwrap_err();
            assert_eq!(err.to_string(), "deadline has elapsed");
            let as_io: std::io::Error = err.into();
            assert_eq!(as_io.kind(), std::io::ErrorKind::TimedOut);
        });
    });
}

#[test]
fn an_interval_ticks_at_once_then_every_period() {
    watchdog(60, "interval", || {
        let ex = executor(1);
        ex.block_on(ex.spawn(async {
            let period = Duration::from_millis(3);
            let start = Instant::now();
            let mut every = interval(period);
            let first = every.tick().await;
            assert!(first <= Instant::now());
            let mut last = first;
            for _ in 0..5 {
                let at = every.tick().await;
                assert_eq!(at - last, period, "ticks keep to their schedule");
                assert!(Instant::now() >= at, "a tick came early");
                last = at;
            }
            assert!(start.elapsed() >= 5 * period);
        }))
        .unwrap();
    });
}

#[test]
fn a_sleep_made_on_one_executor_completes_on_a_plain_thread() {
    watchdog(60, "cross-thread sleep", || {
        let ex = executor(1);
        // Made in the executor's context (its `block_on`), not awaited there.
        let s = ex
            .block_on(async { Some(sleep(Duration::from_millis(5))) })
            .unwrap();
        let start = Instant::now();
        std::thread::spawn(move || futures::executor::block_on(s))
            .join()
            .unwrap();
        assert!(start.elapsed() >= Duration::from_millis(4));
    });
}

/// Polls `f` until a `referee` sleep ends, and panics naming `what` if `f` completed first
/// (on a tie `f` wins, so a timer that fires early cannot hide behind the referee).
async fn assert_pending_for<F: Future>(what: &str, referee: Duration, f: F)
where
    F::Output: std::fmt::Debug,
{
    let f = std::pin::pin!(f);
    let referee_sleep = std::pin::pin!(sleep(referee));
    if let futures::future::Either::Left((out, _)) =
        futures::future::select(f, referee_sleep).await
    {
        panic!("{what} completed ({out:?}) before a {referee:?} sleep");
    }
}

/// A deadline of 2^64 ms or more ahead is beyond what the driver's ms clock holds: it
/// means never, and must not wrap round to a near deadline.
#[test]
fn deadlines_of_2_pow_64_ms_or_more_never_fire() {
    watchdog(60, "deadlines of 2^64 ms", || {
        let ex = executor(1);
        ex.block_on(async {
            let two_pow_64_ms = Duration::from_millis(u64::MAX) + Duration::from_millis(1);
            futures::join!(
                assert_pending_for(
                    "timeout(u64::MAX ms, pending())",
                    Duration::from_millis(300),
                    timeout(Duration::from_millis(u64::MAX), std::future::pending::<()>()),
                ),
                assert_pending_for(
                    "sleep_until(now + 2^64 ms + 100 ms)",
                    Duration::from_millis(300),
                    sleep_until(Instant::now() + two_pow_64_ms + Duration::from_millis(100)),
                ),
            );
        });
    });
}

/// `Duration::MAX` (an `Instant` that cannot be represented) means a deadline that never
/// comes: `sleep`, `timeout` and every tick of an `interval` after the first stay pending,
/// and none panics.
#[test]
fn sleep_timeout_and_interval_of_duration_max_never_fire_and_never_panic() {
    watchdog(60, "Duration::MAX", || {
        let ex = executor(1);
        ex.block_on(async {
            let referee = Duration::from_millis(200);
            let mut every = interval(Duration::MAX);
            let first = every.tick().await;
            assert!(first <= Instant::now());
            assert_eq!(timeout(Duration::MAX, async { 7 }).await, Ok(7));
            futures::join!(
                assert_pending_for("interval(Duration::MAX)'s second tick", referee, every.tick()),
                assert_pending_for("sleep(Duration::MAX)", referee, sleep(Duration::MAX)),
                assert_pending_for(
                    "timeout(Duration::MAX, pending())",
                    referee,
                    timeout(Duration::MAX, std::future::pending::<()>()),
                ),
            );
        });
    });
}

/// tokio `time_interval.rs::interval_doesnt_panic_max_duration_when_polling`: the first
/// tick of an `interval(Duration::MAX)` is ready at once.
#[test]
fn interval_doesnt_panic_max_duration_when_polling() {
    watchdog(60, "interval(Duration::MAX)", || {
        executor(1).block_on(async {
            let mut every = interval(Duration::MAX);
            assert!(futures::poll!(std::pin::pin!(every.tick())).is_ready());
        });
    });
}

/// A waker that owns a polled `Sleep`: dropping the waker drops (removes) that timer.
struct TimerOwner {
    secondary: Option<std::pin::Pin<Box<filch::time::Sleep>>>,
}

impl std::task::Wake for TimerOwner {
    fn wake(self: Arc<Self>) {}
}

impl Drop for TimerOwner {
    fn drop(&mut self) {
        drop(self.secondary.take());
    }
}

/// A waker whose drop removes a timer of the same driver, from a `Sleep` polled once.
async fn timer_owning_waker() -> std::task::Waker {
    let mut secondary = Box::pin(sleep(Duration::from_secs(3600)));
    assert!(futures::poll!(secondary.as_mut()).is_pending());
    std::task::Waker::from(Arc::new(TimerOwner {
        secondary: Some(secondary),
    }))
}

/// tokio `time_sleep.rs::drop_from_waker_drop`: the wheel holds the last reference to a
/// waker that owns another timer; dropping the first timer drops that waker, whose drop
/// removes the second timer from the same wheel.
#[test]
fn drop_from_waker_drop() {
    watchdog(20, "drop_from_waker_drop (a deadlock?)", || {
        executor(1).block_on(async {
            let waker = timer_owning_waker().await;
            let mut primary = Box::pin(sleep(Duration::from_secs(3600)));
            let mut cx = std::task::Context::from_waker(&waker);
            assert!(primary.as_mut().poll(&mut cx).is_pending());
            drop(waker);
            drop(primary);
        });
    });
}

/// As `drop_from_waker_drop`, but the waker that owns a timer is dropped when a later poll
/// of the first timer replaces it with another waker.
#[test]
fn drop_from_waker_drop_when_a_poll_replaces_the_waker() {
    watchdog(20, "a replaced waker that owns a timer (a deadlock?)", || {
        executor(1).block_on(async {
            let waker = timer_owning_waker().await;
            let mut primary = Box::pin(sleep(Duration::from_secs(3600)));
            let mut cx = std::task::Context::from_waker(&waker);
            assert!(primary.as_mut().poll(&mut cx).is_pending());
            drop(waker);
            assert!(futures::poll!(primary.as_mut()).is_pending());
        });
    });
}

/// tokio `time_sleep.rs::drop_from_wake`: 100 timers share a waker whose wake drops all of
/// them; the driver wakes them with no lock of its own held, so the drops neither deadlock
/// nor panic.
#[test]
fn drop_from_wake() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;

    type Sleeps = Arc<Mutex<Vec<std::pin::Pin<Box<filch::time::Sleep>>>>>;
    struct DropWaker(Arc<AtomicBool>, Sleeps);
    impl std::task::Wake for DropWaker {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                *self.1.lock().expect("panic in lock") = Vec::new()
            }));
            if result.is_err() {
                self.0.store(true, Ordering::SeqCst);
            }
        }
    }

    watchdog(20, "drop_from_wake (a deadlock?)", || {
        let panicked = Arc::new(AtomicBool::new(false));
        let list: Sleeps = Arc::new(Mutex::new(Vec::new()));
        let waker = std::task::Waker::from(Arc::new(DropWaker(
            Arc::clone(&panicked),
            Arc::clone(&list),
        )));
        let ex = executor(1);
        ex.block_on(async {
            {
                let mut cx = std::task::Context::from_waker(&waker);
                let mut lock = list.lock().unwrap();
                for _ in 0..100 {
                    let mut timer = Box::pin(sleep(Duration::from_millis(10)));
                    let _ = timer.as_mut().poll(&mut cx);
                    lock.push(timer);
                }
            }
            sleep(Duration::from_millis(11)).await;
        });
        // The timers fired (on the driver's thread) and their wake emptied the list.
        common::wait_until(10, "the timers' wake to drop them", || {
            list.lock().unwrap().is_empty()
        });
        assert!(
            !panicked.load(Ordering::SeqCst),
            "panicked when dropping timers"
        );
    });
}

/// tokio `time_timeout.rs::timeout_is_not_exhausted_by_future` (tokio issue 4291): the inner
/// future spends the task's budget in every poll (and so yields), yet the deadline is still
/// checked, on a worker where the budget is in force.
#[test]
fn timeout_is_not_exhausted_by_future() {
    watchdog(20, "a timeout around a budget-spending loop", || {
        let ex = executor(1);
        let start = Instant::now();
        let out = ex
            .block_on(ex.spawn(timeout(Duration::from_millis(50), async {
                loop {
                    filch::consume_budget().await;
                }
            })))
            .unwrap();
        assert!(out.is_err());
        assert!(start.elapsed() >= Duration::from_millis(50));
    });
}
