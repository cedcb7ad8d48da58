//! `filch::time`: sleeps complete no earlier than their deadline, on any thread; many timers
//! created and dropped without being awaited wake nothing and leave the executor idle;
//! `timeout` gives the output or `Elapsed`, also around a future that spends the whole
//! budget; an `interval` ticks at once and then on schedule; deadlines no clock can hold
//! (`Duration::MAX`, 2^64 ms) never fire and never panic; a waker that owns timers may be
//! dropped by timer code. The tests named after a tokio scenario port it from tokio's
//! `tests/time_{sleep,timeout,interval,rt}.rs` (those that need tokio's paused clock run on
//! the real one, or on the wheel in `src/runtime/time/wheel.rs`). No timing upper bounds: the
//! watchdog catches a timer that never fires.

use filch::time::Instant;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use crate::common::{self, executor, watchdog};
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
    if let futures::future::Either::Left((out, _)) = futures::future::select(f, referee_sleep).await
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
                    timeout(
                        Duration::from_millis(u64::MAX),
                        std::future::pending::<()>()
                    ),
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
                assert_pending_for(
                    "interval(Duration::MAX)'s second tick",
                    referee,
                    every.tick()
                ),
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
    watchdog(
        20,
        "a replaced waker that owns a timer (a deadlock?)",
        || {
            executor(1).block_on(async {
                let waker = timer_owning_waker().await;
                let mut primary = Box::pin(sleep(Duration::from_secs(3600)));
                let mut cx = std::task::Context::from_waker(&waker);
                assert!(primary.as_mut().poll(&mut cx).is_pending());
                drop(waker);
                assert!(futures::poll!(primary.as_mut()).is_pending());
            });
        },
    );
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

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// tokio `time_sleep.rs::immediate_sleep`: a sleep until now completes.
#[test]
fn immediate_sleep() {
    watchdog(60, "immediate_sleep", || {
        executor(1).block_on(async {
            let now = Instant::now();
            sleep_until(now).await;
            assert!(Instant::now() >= now);
        });
    });
}

/// tokio `time_sleep.rs::delayed_sleep_level_0`.
#[test]
fn delayed_sleep_level_0() {
    watchdog(60, "delayed_sleep_level_0", || {
        executor(1).block_on(async {
            for i in [1, 10, 60] {
                let now = Instant::now();
                sleep_until(now + ms(i)).await;
                assert!(now.elapsed() >= ms(i), "a {i} ms sleep ended early");
            }
        });
    });
}

/// tokio `time_sleep.rs::sub_ms_delayed_sleep`: a deadline 1 ms and 1 ns ahead is rounded
/// up, never down.
#[test]
fn sub_ms_delayed_sleep() {
    watchdog(60, "sub_ms_delayed_sleep", || {
        executor(1).block_on(async {
            for _ in 0..5 {
                let deadline = Instant::now() + ms(1) + Duration::new(0, 1);
                sleep_until(deadline).await;
                assert!(Instant::now() >= deadline);
            }
        });
    });
}

/// tokio `time_sleep.rs::delayed_sleep_wrapping_level_0`: a deadline past the end of
/// level 0 after the wheel moved on.
#[test]
fn delayed_sleep_wrapping_level_0() {
    watchdog(60, "delayed_sleep_wrapping_level_0", || {
        executor(1).block_on(async {
            sleep(ms(5)).await;
            let now = Instant::now();
            sleep_until(now + ms(60)).await;
            assert!(now.elapsed() >= ms(60));
        });
    });
}

/// tokio `time_sleep.rs::greater_than_max`, `exactly_max` and
/// `no_out_of_bounds_close_to_max`, on the real clock: sleeps beyond the wheel's horizon
/// (5 years), of `Duration::MAX` and just under it are accepted and stay pending.
#[test]
fn greater_than_max_exactly_max_and_no_out_of_bounds_close_to_max() {
    watchdog(60, "sleeps beyond the horizon", || {
        executor(1).block_on(async {
            const YR_5: u64 = 5 * 365 * 24 * 60 * 60 * 1000;
            futures::join!(
                assert_pending_for(
                    "sleep_until(now + 5 years)",
                    ms(100),
                    sleep_until(Instant::now() + ms(YR_5)),
                ),
                assert_pending_for("sleep(Duration::MAX)", ms(100), sleep(Duration::MAX)),
                assert_pending_for(
                    "sleep(Duration::MAX - 1 ms)",
                    ms(100),
                    sleep(Duration::MAX - ms(1)),
                ),
            );
        });
    });
}

/// tokio `time_sleep.rs::issue_5183`: a sleep of `u64::MAX / 10` seconds beside a 1 ns one;
/// the short one completes.
#[test]
fn issue_5183() {
    watchdog(60, "issue_5183", || {
        executor(1).block_on(async {
            let big = Duration::from_secs(u64::MAX / 10);
            let (big, tiny) = (pin!(sleep(big)), pin!(sleep(Duration::from_nanos(1))));
            let out = futures::future::select(big, tiny).await;
            assert!(matches!(out, futures::future::Either::Right(_)));
        });
    });
}

/// tokio `time_sleep.rs::short_sleeps`.
#[test]
fn short_sleeps() {
    watchdog(60, "short_sleeps", || {
        executor(1).block_on(async {
            for _ in 0..1000 {
                sleep(ms(0)).await;
            }
        });
    });
}

/// tokio `time_timeout.rs::simultaneous_deadline_future_completion` (and
/// `completed_future_past_deadline`): a future that is ready wins over a deadline that has
/// passed.
#[test]
fn simultaneous_deadline_future_completion() {
    watchdog(60, "simultaneous_deadline_future_completion", || {
        executor(1).block_on(async {
            assert_eq!(timeout(Duration::ZERO, async { 1 }).await, Ok(1));
        });
    });
}

/// tokio `time_timeout.rs::future_and_timeout_in_future`, on the real clock: the inner
/// future completes before the deadline.
#[test]
fn future_and_timeout_in_future() {
    watchdog(60, "future_and_timeout_in_future", || {
        executor(1).block_on(async {
            let (tx, rx) = futures::channel::oneshot::channel();
            let mut fut = pin!(timeout(ms(100), rx));
            assert!(futures::poll!(fut.as_mut()).is_pending());
            sleep(ms(10)).await;
            assert!(futures::poll!(fut.as_mut()).is_pending());
            tx.send(()).unwrap();
            assert_eq!(fut.await, Ok(Ok(())));
        });
    });
}

/// tokio `time_timeout.rs::very_large_timeout`: a `Duration::MAX` timeout is accepted, stays
/// pending, and gives the inner future's output.
#[test]
fn very_large_timeout() {
    watchdog(60, "very_large_timeout", || {
        executor(1).block_on(async {
            let (tx, rx) = futures::channel::oneshot::channel();
            let mut fut = pin!(timeout(Duration::MAX, rx));
            assert!(futures::poll!(fut.as_mut()).is_pending());
            sleep(ms(10)).await;
            assert!(futures::poll!(fut.as_mut()).is_pending());
            tx.send(()).unwrap();
            assert_eq!(fut.await, Ok(Ok(())));
        });
    });
}

/// tokio `time_timeout.rs::deadline_now_elapses`: a zero timeout on a pending future.
#[test]
fn deadline_now_elapses() {
    watchdog(60, "deadline_now_elapses", || {
        executor(1).block_on(async {
            assert!(timeout(Duration::ZERO, std::future::pending::<()>())
                .await
                .is_err());
        });
    });
}

/// tokio `time_timeout.rs::deadline_future_elapses`, on the real clock.
#[test]
fn deadline_future_elapses() {
    watchdog(60, "deadline_future_elapses", || {
        executor(1).block_on(async {
            let start = Instant::now();
            let mut fut = pin!(timeout(ms(300), std::future::pending::<()>()));
            assert!(futures::poll!(fut.as_mut()).is_pending());
            assert!(fut.await.is_err());
            assert!(start.elapsed() >= ms(300));
        });
    });
}

/// tokio `time_interval.rs::interval_zero_duration`.
#[test]
#[should_panic(expected = "period above zero")]
fn interval_zero_duration() {
    let _ = interval(ms(0));
}

/// tokio `time_interval.rs::burst`, on the real clock: ticks missed while the task was
/// busy are all ready at once, each with its scheduled time, and the one after keeps to
/// the schedule.
#[test]
fn burst() {
    watchdog(60, "burst", || {
        executor(1).block_on(async {
            let period = ms(30);
            let mut every = interval(period);
            let start = every.tick().await;
            // Busy through two and a half periods (this is block_on's thread, no worker).
            std::thread::sleep(period * 5 / 2);
            for k in 1..=2 {
                assert_eq!(
                    futures::poll!(pin!(every.tick())),
                    Poll::Ready(start + period * k),
                    "missed tick {k}"
                );
            }
            let next = every.tick().await;
            assert_eq!(next, start + period * 3);
            assert!(Instant::now() >= next);
        });
    });
}

/// tokio `time_rt.rs::timer_with_threaded_runtime`: a sleep in a task on workers.
#[test]
fn timer_with_threaded_runtime() {
    watchdog(60, "timer_with_threaded_runtime", || {
        let ex = executor(2);
        let (tx, rx) = std::sync::mpsc::channel();
        // Dropping the handle detaches the task.
        drop(ex.spawn(async move {
            let when = Instant::now() + ms(10);
            sleep_until(when).await;
            assert!(Instant::now() >= when);
            tx.send(()).unwrap();
        }));
        rx.recv().unwrap();
    });
}

/// tokio `time_rt.rs::timer_with_current_thread_scheduler`: a sleep in `block_on`.
#[test]
fn timer_with_current_thread_scheduler() {
    watchdog(60, "timer_with_current_thread_scheduler", || {
        let (tx, rx) = std::sync::mpsc::channel();
        executor(1).block_on(async move {
            let when = Instant::now() + ms(10);
            sleep_until(when).await;
            assert!(Instant::now() >= when);
            tx.send(()).unwrap();
        });
        rx.recv().unwrap();
    });
}

/// tokio `time_rt.rs::starving`: a future that wakes itself in every poll, around a sleep,
/// does not keep the sleep from completing (on one and two workers, and in `block_on`).
#[test]
fn starving() {
    struct Starve<T: Future<Output = ()> + Unpin>(T, u64);

    impl<T: Future<Output = ()> + Unpin> Future for Starve<T> {
        type Output = u64;

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<u64> {
            if std::pin::Pin::new(&mut self.0).poll(cx).is_ready() {
                return Poll::Ready(self.1);
            }
            self.1 += 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    async fn starve() {
        let when = Instant::now() + ms(10);
        Starve(Box::pin(sleep_until(when)), 0).await;
        assert!(Instant::now() >= when);
    }

    watchdog(60, "starving", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            ex.block_on(ex.spawn(starve())).unwrap();
            ex.block_on(starve());
        }
    });
}

/// tokio `time_rt.rs::timeout_value`: a timeout on a future that never completes.
#[test]
fn timeout_value() {
    watchdog(60, "timeout_value", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            ex.block_on(ex.spawn(async {
                let (_tx, rx) = futures::channel::oneshot::channel::<()>();
                let now = Instant::now();
                let dur = ms(10);
                assert!(timeout(dur, rx).await.is_err());
                assert!(Instant::now() >= now + dur);
            }))
            .unwrap();
        }
    });
}

/// Ticks of `every` after its first, with the task blocked for `stall` right after the first:
/// (the first tick, when the stall ended, the next three ticks).
fn ticks_after_a_stall(
    behavior: filch::time::MissedTickBehavior,
    period: std::time::Duration,
    stall: std::time::Duration,
) -> (Instant, Instant, [Instant; 3]) {
    let ex = common::leak_checked(1);
    ex.block_on(ex.spawn(async move {
        let mut every = filch::time::interval(period);
        every.set_missed_tick_behavior(behavior);
        let first = every.tick().await;
        std::thread::sleep(stall);
        let stalled_until = Instant::now();
        let next = [every.tick().await, every.tick().await, every.tick().await];
        (first, stalled_until, next)
    }))
    .unwrap()
}

/// tokio's `time_interval::burst`: the missed ticks come at once, on the original schedule.
#[test]
fn missed_ticks_burst_on_the_original_schedule() {
    watchdog(30, "burst", || {
        let period = std::time::Duration::from_millis(10);
        let (first, _, next) = ticks_after_a_stall(
            filch::time::MissedTickBehavior::Burst,
            period,
            std::time::Duration::from_millis(35),
        );
        assert_eq!(
            next,
            [first + period, first + period * 2, first + period * 3]
        );
    });
}

/// tokio's `time_interval::delay`: the late tick fires, and the schedule restarts from it.
#[test]
fn missed_ticks_delay_restarts_the_schedule() {
    watchdog(30, "delay", || {
        let period = std::time::Duration::from_millis(10);
        let (first, stalled_until, next) = ticks_after_a_stall(
            filch::time::MissedTickBehavior::Delay,
            period,
            std::time::Duration::from_millis(35),
        );
        assert_eq!(
            next[0],
            first + period,
            "the late tick reports its scheduled time"
        );
        assert!(
            next[1] >= stalled_until + period,
            "{:?}",
            next[1] - stalled_until
        );
        // On the real clock: a tick that itself fires late (a busy machine) restarts the
        // schedule again, from its own firing, so only the lower bound holds (tokio's test
        // runs on a paused clock, where it is exact).
        assert!(
            next[2] >= next[1] + period,
            "{:?}",
            (next[1] + period).checked_duration_since(next[2])
        );
    });
}

/// tokio's `time_interval::skip`: the missed ticks are skipped, the schedule is kept.
#[test]
fn missed_ticks_skip_keeps_the_schedule() {
    watchdog(30, "skip", || {
        let period = std::time::Duration::from_millis(10);
        let (first, stalled_until, next) = ticks_after_a_stall(
            filch::time::MissedTickBehavior::Skip,
            period,
            std::time::Duration::from_millis(35),
        );
        assert_eq!(next[0], first + period);
        assert!(next[1] > stalled_until, "a skipped tick fired");
        let since = (next[1] - first).as_nanos();
        assert_eq!(
            since % period.as_nanos(),
            0,
            "off the schedule by {since} ns"
        );
        // On the real clock the third tick is the next one on the schedule unless the second
        // fired a period late (a busy machine), which skips again: a whole number of periods
        // on (tokio's test runs on a paused clock, where it is exactly one).
        let gap = (next[2] - next[1]).as_nanos();
        assert!(
            gap >= period.as_nanos() && gap % period.as_nanos() == 0,
            "the third tick is {gap} ns after the second"
        );
    });
}

/// `Sleep::reset` moves a completed or pending sleep; `is_elapsed` follows the deadline.
#[test]
fn a_reset_sleep_completes_at_its_new_deadline() {
    watchdog(30, "sleep reset", || {
        let ex = common::leak_checked(1);
        ex.block_on(ex.spawn(async {
            let start = Instant::now();
            let mut sleep = Box::pin(filch::time::sleep(std::time::Duration::from_secs(3600)));
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            assert!(!sleep.is_elapsed());
            let soon = start + std::time::Duration::from_millis(5);
            sleep.as_mut().reset(soon);
            assert_eq!(sleep.deadline(), soon);
            sleep.as_mut().await;
            assert!(sleep.is_elapsed() && Instant::now() >= soon);
            // Reset after completion: it completes again, later.
            let again = Instant::now() + std::time::Duration::from_millis(5);
            sleep.as_mut().reset(again);
            assert!(!sleep.is_elapsed());
            sleep.as_mut().await;
            assert!(Instant::now() >= again);
        }))
        .unwrap();
    });
}

/// Two `Sleep`s polled with a panicking waker and a task sleeping to the same deadline, on
/// one worker: the turn that fires the three calls every waker, though the first it calls
/// panics (the wakers were already out of the wheel), and the worker lives on.
#[test]
fn a_panicking_timer_waker_loses_no_other_wake_up() {
    watchdog(60, "a panicking timer waker", || {
        // The scenario needs the task's timer registered before the deadline passes; on a
        // busy machine its first poll may come later, and the scenario is run again with a
        // later deadline (never a failure: the order is what is tested, not the timing).
        for delay_ms in [50, 200, 1_000, 5_000] {
            let ex = executor(1);
            let deadline = Instant::now() + Duration::from_millis(delay_ms);
            let bad = Arc::new(common::PanickingWaker::default());
            let bad_waker = std::task::Waker::from(Arc::clone(&bad));
            let mut cx = std::task::Context::from_waker(&bad_waker);
            let set_up = ex.block_on(async {
                let mut first = Box::pin(sleep_until(deadline));
                if first.as_mut().poll(&mut cx).is_ready() {
                    return None;
                }
                let task = filch::spawn(async move {
                    sleep_until(deadline).await;
                    Instant::now()
                });
                // The task's timer between the two in the wheel's order.
                let handle = filch::Handle::current();
                common::wait_until(10, "the task's timer", || {
                    handle.stats().timers == 2 || Instant::now() >= deadline
                });
                if handle.stats().timers != 2 {
                    return None;
                }
                let mut second = Box::pin(sleep_until(deadline));
                if second.as_mut().poll(&mut cx).is_ready() {
                    return None;
                }
                Some((first, second, task))
            });
            let Some((first, second, task)) = set_up else {
                continue;
            };
            let woke_at = ex.block_on(task).expect("the task was lost");
            assert!(woke_at >= deadline);
            assert_eq!(bad.calls(), 2, "each panicking waker called once");
            drop((first, second));
            // The worker survived: it still runs tasks.
            assert_eq!(ex.block_on(ex.spawn(async { 7 })).unwrap(), 7);
            return;
        }
        panic!("the task's timer was never registered before a deadline 5 s away");
    });
}

/// A `Sleep` shared behind a mutex, awaited by one thread and reset to an earlier deadline
/// by another: the waiting task wakes at the new deadline, not the old one (the reset moves
/// the registered timer at once and keeps its waker). The old deadline is 10 s away; the
/// watchdog fails the test after 5.
// origin: async-io tests/timer.rs `set` (10 s moved to 0.3 s)
#[test]
fn a_reset_from_another_thread_moves_the_waiting_timer() {
    watchdog(5, "a sleep reset from another thread", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            ex.block_on(async {
                let start = Instant::now();
                let timer = Arc::new(std::sync::Mutex::new(sleep(Duration::from_secs(10))));
                let resetter = {
                    let timer = Arc::clone(&timer);
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(100));
                        let mut timer = timer.lock().unwrap();
                        Pin::new(&mut *timer).reset(start + Duration::from_millis(300));
                    })
                };
                std::future::poll_fn(|cx| Pin::new(&mut *timer.lock().unwrap()).poll(cx)).await;
                assert!(start.elapsed() >= Duration::from_millis(300));
                resetter.join().unwrap();
            });
        }
    });
}

/// The same for a task in a worker and a reset to a deadline already passed: it wakes at
/// once.
#[test]
fn a_reset_to_a_passed_deadline_wakes_the_waiting_task() {
    watchdog(5, "a sleep reset to the past", || {
        let ex = executor(2);
        let timer = {
            let _on_ex = ex.enter();
            Arc::new(std::sync::Mutex::new(sleep(Duration::from_secs(10))))
        };
        let polled = Arc::new(AtomicUsize::new(0));
        let task = {
            let (timer, polled) = (Arc::clone(&timer), Arc::clone(&polled));
            ex.spawn(std::future::poll_fn(move |cx| {
                polled.fetch_add(1, Ordering::SeqCst);
                Pin::new(&mut *timer.lock().unwrap()).poll(cx)
            }))
        };
        common::wait_until(5, "the task's first poll", || {
            polled.load(Ordering::SeqCst) > 0
        });
        Pin::new(&mut *timer.lock().unwrap()).reset(Instant::now() - Duration::from_millis(1));
        ex.block_on(task).unwrap();
    });
}

/// An `Interval` shared behind a mutex whose first tick is 10 s away, reset by another
/// thread while a task waits for that tick: the tick comes one period after the reset.
#[test]
fn an_interval_reset_from_another_thread_moves_the_waiting_tick() {
    watchdog(5, "an interval reset from another thread", || {
        let ex = executor(2);
        ex.block_on(async {
            let start = Instant::now();
            let every = filch::time::interval_at(
                start + Duration::from_secs(10),
                Duration::from_millis(100),
            );
            let every = Arc::new(std::sync::Mutex::new(every));
            let resetter = {
                let every = Arc::clone(&every);
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(50));
                    every.lock().unwrap().reset();
                })
            };
            let tick = std::future::poll_fn(|cx| {
                let mut every = every.lock().unwrap();
                pin!(every.tick()).poll(cx)
            })
            .await;
            assert!(tick >= start + Duration::from_millis(150));
            resetter.join().unwrap();
        });
    });
}
