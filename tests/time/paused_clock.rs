//! The paused clock (feature `test-util`): `time::pause`, `resume`, `advance` and
//! `#[filch::test(start_paused = true)]`. While paused, an idle executor jumps its clock to
//! the next timer, on any number of workers: an hour-long sleep finishes at once, each timer
//! fires with the clock at its deadline and its task runs before the clock moves on, and
//! nothing jumps while a blocking job runs or a woken `block_on` has yet to poll. The
//! scenarios of tokio's `tests/time_pause.rs` and `tests/time_sleep.rs` (its paused ones)
//! follow at the end.
//!
//! No test measures wall time: each asserts the paused clock's readings (exact: a pause
//! stops the clock on a whole millisecond, and sleeps of whole milliseconds land on their
//! deadlines exactly), and a watchdog turns a clock that never jumps into a failure.

use filch::time::Instant;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Wake, Waker};
use std::time::Duration;

use filch::time::{
    advance, interval, interval_at, now, pause, resume, sleep, sleep_until, timeout, timeout_at,
    MissedTickBehavior,
};
use tokio_test::{assert_pending, assert_ready, assert_ready_eq, task};

use crate::common::{executor, leak_checked, mix, panic_message, watchdog};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const HOUR: Duration = Duration::from_secs(3600);

/// Runs `body` inside `block_on` of a new executor of `workers` workers whose clock is
/// paused first, under a watchdog of 20 s (a clock that fails to jump is a hang).
fn paused<F, Fut>(workers: usize, name: &str, body: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    watchdog(20, name, move || {
        let ex = executor(workers);
        ex.block_on(async move {
            pause();
            body().await
        })
    })
}

// ---------------------------------------------------------------------------------------
// Auto-advance
// ---------------------------------------------------------------------------------------

/// The "done when": a one-hour sleep finishes at once (the watchdog gives it 20 s),
/// with the clock an hour on; in `block_on`, in a task, and as a `timeout`, on 1, 2 and 4
/// workers.
#[test]
fn an_hour_long_sleep_finishes_at_once() {
    for workers in [1, 2, 4] {
        watchdog(20, &format!("an hour on {workers} worker(s)"), move || {
            let ex = leak_checked(workers);
            ex.block_on(async {
                pause();
                let start = now();
                sleep(HOUR).await;
                assert_eq!(now() - start, HOUR, "block_on");
                let in_task = filch::spawn(async {
                    let start = now();
                    sleep(HOUR).await;
                    now() - start
                });
                assert_eq!(in_task.await.unwrap(), HOUR, "a task");
                let start = now();
                let never = std::future::pending::<()>();
                assert!(timeout(HOUR, never).await.is_err());
                assert_eq!(now() - start, HOUR, "a timeout");
            });
        });
    }
}

/// Many tasks, each sleeping a chain of pseudo-random whole milliseconds: every one wakes
/// with the clock exactly at its deadline (the clock never jumps while a woken task has yet
/// to run, and never skips a timer), on 1, 2 and 4 workers, with `block_on` sleeping too.
/// The last worker to park must jump the clock each time: a lost jump hangs.
#[test]
fn timers_fire_at_their_deadlines_on_1_2_and_4_workers() {
    for workers in [1, 2, 4] {
        paused(
            workers,
            &format!("chains on {workers} worker(s)"),
            move || async move {
                let start = now();
                let tasks: Vec<_> = (0..16u64)
                    .map(|t| {
                        filch::spawn(async move {
                            let mut expected = now();
                            for k in 0..40u64 {
                                let d = ms(mix(t * 1000 + k) % 50 + 1);
                                expected += d;
                                sleep(d).await;
                                assert_eq!(now(), expected, "task {t}, sleep {k}");
                            }
                            expected
                        })
                    })
                    .collect();
                let mut expected = start;
                for k in 0..20 {
                    let d = ms(mix(k) % 90 + 1);
                    expected += d;
                    sleep(d).await;
                    assert_eq!(now(), expected, "block_on, sleep {k}");
                }
                let mut last = expected;
                for task in tasks {
                    last = last.max(task.await.unwrap());
                }
                assert!(now() >= last);
            },
        );
    }
}

/// Tasks parked on different workers wake each other through channels while timers of
/// others are pending: the clock jumps only once no worker has anything to do, so a reply
/// always comes before the timer that would otherwise overtake it.
#[test]
fn the_clock_waits_for_work_that_other_workers_still_have() {
    for workers in [2, 4] {
        paused(
            workers,
            &format!("ping-pong on {workers} workers"),
            move || async move {
                let start = now();
                let (to_b, mut at_b) = futures::channel::mpsc::unbounded::<u32>();
                let (to_a, mut at_a) = futures::channel::mpsc::unbounded::<u32>();
                let b = filch::spawn(async move {
                    use futures::StreamExt;
                    while let Some(n) = at_b.next().await {
                        to_a.unbounded_send(n + 1).unwrap();
                    }
                });
                let alarm = filch::spawn(async move {
                    sleep(ms(10)).await;
                    now()
                });
                use futures::StreamExt;
                for n in 0..200u32 {
                    to_b.unbounded_send(n).unwrap();
                    assert_eq!(at_a.next().await, Some(n + 1));
                    // No time passes while the two exchange messages.
                    assert_eq!(now(), start, "round {n}");
                }
                drop(to_b);
                b.await.unwrap();
                assert_eq!(alarm.await.unwrap(), start + ms(10));
            },
        );
    }
}

/// A `block_on` woken by its timer is busy from the wake to its next poll: a background
/// task ticking every millisecond cannot make the clock jump past the body's deadline
/// before the body has read the clock.
#[test]
fn a_woken_block_on_runs_before_the_clock_moves_on() {
    for workers in [1, 2, 4] {
        paused(
            workers,
            &format!("block_on on {workers} worker(s)"),
            move || async move {
                let ticks = Arc::new(AtomicUsize::new(0));
                let ticker = {
                    let ticks = Arc::clone(&ticks);
                    filch::spawn(async move {
                        let mut every = interval(ms(1));
                        loop {
                            every.tick().await;
                            ticks.fetch_add(1, SeqCst);
                        }
                    })
                };
                for round in 0..30 {
                    let before = now();
                    sleep(ms(7)).await;
                    assert_eq!(now() - before, ms(7), "round {round}");
                }
                assert!(ticks.load(SeqCst) >= 30 * 7);
                ticker.abort();
                assert!(ticker.await.unwrap_err().is_cancelled());
            },
        );
    }
}

/// A blocking-pool job counts as busy from its spawn to its end: while it runs, the clock
/// stays put although a timer is pending and every worker is idle; once it ends, the clock
/// jumps and the timer fires.
#[test]
fn no_auto_advance_while_a_blocking_job_runs() {
    for workers in [1, 2] {
        paused(
            workers,
            &format!("blocking on {workers} worker(s)"),
            move || async move {
                let start = now();
                let handle = filch::Handle::current();
                let sleeper = filch::spawn(async move {
                    sleep(HOUR).await;
                    now()
                });
                let (release, released) = mpsc::channel::<()>();
                let job = filch::spawn_blocking(move || {
                    // Until the sleeper's timer is armed, then as long as the test lets it run:
                    // long enough for a worker to park and jump the clock, if it would.
                    crate::common::wait_until(10, "the sleeper's timer", || {
                        handle.stats().timers == 1
                    });
                    released.recv().unwrap();
                    now()
                });
                // Give every worker the chance to park and (wrongly) jump the clock.
                let checks = filch::spawn_blocking(move || {
                    for _ in 0..20 {
                        std::thread::sleep(ms(2));
                        assert_eq!(now(), start, "the clock moved while a blocking job ran");
                    }
                    release.send(()).unwrap();
                });
                checks.await.unwrap();
                assert_eq!(job.await.unwrap(), start, "the job saw the clock move");
                assert_eq!(sleeper.await.unwrap(), start + HOUR);
            },
        );
    }
}

/// The same guarantee for a job nobody awaits: its end alone lets the clock jump.
#[test]
fn a_detached_blocking_job_lets_the_clock_jump_when_it_ends() {
    paused(1, "a detached blocking job", || async {
        let start = now();
        let (release, released) = mpsc::channel::<()>();
        drop(filch::spawn_blocking(move || released.recv().unwrap()));
        let sleeper = filch::spawn(async move {
            sleep(HOUR).await;
            now()
        });
        // The body waits (and does not count) while the job holds the clock.
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(ms(20));
            release.send(()).unwrap();
        });
        assert_eq!(sleeper.await.unwrap(), start + HOUR);
        releaser.join().unwrap();
    });
}

/// Ticks under auto-advance keep to their schedule exactly, with each behaviour; after a
/// jump made by `advance` (the task late by 25 ms), each behaviour catches up as tokio's
/// documentation says: `Burst` fires the missed ticks at once and keeps the schedule,
/// `Delay` starts the schedule again from the late tick, `Skip` drops the missed ones and
/// keeps the schedule.
#[test]
fn interval_ticks_under_auto_advance_with_each_missed_tick_behavior() {
    // The ticks after the late one (due at 50, taken at 75), from the start.
    for (behavior, after_late) in [
        (MissedTickBehavior::Burst, [60, 70, 80]),
        (MissedTickBehavior::Delay, [85, 95, 105]),
        (MissedTickBehavior::Skip, [80, 90, 100]),
    ] {
        paused(2, &format!("{behavior:?}"), move || async move {
            let start = now();
            let mut every = interval(ms(10));
            every.set_missed_tick_behavior(behavior);
            for k in 0..5 {
                let tick = every.tick().await;
                assert_eq!(tick, start + ms(10 * k), "{behavior:?}: on time, tick {k}");
                assert_eq!(now(), tick, "{behavior:?}: the clock at tick {k}");
            }
            // The next tick is due at 50: come 25 ms late.
            let late_from = now();
            advance(ms(35)).await;
            assert_eq!(now(), late_from + ms(35));
            assert_eq!(
                every.tick().await,
                start + ms(50),
                "{behavior:?}: the late tick"
            );
            assert_eq!(
                now(),
                start + ms(75),
                "{behavior:?}: a late tick fires at once"
            );
            for (k, at) in after_late.into_iter().enumerate() {
                let tick = every.tick().await;
                assert_eq!(tick, start + ms(at), "{behavior:?}: tick {k} after");
                assert_eq!(
                    now(),
                    tick.max(start + ms(75)),
                    "{behavior:?}: clock at {k}"
                );
            }
        });
    }
}

/// `timeout` and `timeout_at` on a future that is never ready give `Elapsed`, with the
/// clock exactly at the deadline; a ready future wins over a due deadline.
#[test]
fn timeout_on_a_never_ready_future_elapses() {
    paused(2, "timeouts", || async {
        let start = now();
        let day = Duration::from_secs(86_400);
        let e = timeout(day, std::future::pending::<()>())
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "deadline has elapsed");
        assert_eq!(now() - start, day);
        let deadline = now() + ms(1500);
        assert!(timeout_at(deadline, std::future::pending::<()>())
            .await
            .is_err());
        assert_eq!(now(), deadline);
        assert_eq!(timeout(ms(0), async { 7 }).await.unwrap(), 7);
    });
}

// ---------------------------------------------------------------------------------------
// advance
// ---------------------------------------------------------------------------------------

/// A waker that records its name when called.
struct Recorder {
    name: u64,
    log: Arc<Mutex<Vec<u64>>>,
}

impl Wake for Recorder {
    fn wake(self: Arc<Self>) {
        self.log.lock().unwrap().push(self.name);
    }
}

/// `advance` fires exactly the timers due by the new time, all of them and no other, in
/// deadline order, before it first returns `Pending`; the clock moves by exactly the
/// amount.
#[test]
fn advance_fires_exactly_the_due_timers_in_deadline_order() {
    paused(1, "advance", || async {
        let start = now();
        let log = Arc::new(Mutex::new(Vec::new()));
        let deadlines = [30u64, 10, 70, 20, 50, 40, 60, 35];
        let mut sleeps: Vec<_> = deadlines
            .iter()
            .map(|&d| {
                let waker = Waker::from(Arc::new(Recorder {
                    name: d,
                    log: Arc::clone(&log),
                }));
                (d, Box::pin(sleep_until(start + ms(d))), waker)
            })
            .collect();
        for (_, s, waker) in &mut sleeps {
            assert!(s
                .as_mut()
                .poll(&mut Context::from_waker(waker))
                .is_pending());
        }
        let mut advancing = pin!(advance(ms(45)));
        let noop = futures::task::noop_waker();
        assert!(advancing
            .as_mut()
            .poll(&mut Context::from_waker(&noop))
            .is_pending());
        assert_eq!(*log.lock().unwrap(), [10, 20, 30, 35, 40]);
        advancing.await;
        assert_eq!(now() - start, ms(45));
        for (d, s, waker) in &mut sleeps {
            let done = s.as_mut().poll(&mut Context::from_waker(waker)).is_ready();
            assert_eq!(done, *d <= 45, "the sleep until {d}");
        }
        advance(ms(25)).await;
        assert_eq!(*log.lock().unwrap(), [10, 20, 30, 35, 40, 50, 60, 70]);
    });
}

/// On one worker, a task that calls `advance` runs again only after the tasks the advance
/// woke on its worker (its yield puts it behind them).
#[test]
fn advance_in_a_task_lets_the_woken_tasks_run_first() {
    paused(1, "advance in a task", || async {
        let log = Arc::new(Mutex::new(Vec::new()));
        let armed = Arc::new(AtomicUsize::new(0));
        let sleepers: Vec<_> = (1..=3u64)
            .map(|i| {
                let (log, armed) = (Arc::clone(&log), Arc::clone(&armed));
                filch::spawn(async move {
                    let timer = sleep(ms(10 * i));
                    let mut timer = pin!(timer);
                    assert!(futures::poll!(timer.as_mut()).is_pending());
                    armed.fetch_add(1, SeqCst);
                    timer.await;
                    log.lock().unwrap().push(i);
                })
            })
            .collect();
        let controller = {
            let log = Arc::clone(&log);
            filch::spawn(async move {
                while armed.load(SeqCst) < 3 {
                    filch::yield_now().await;
                }
                advance(ms(25)).await;
                let mut seen = log.lock().unwrap().clone();
                seen.sort_unstable();
                assert_eq!(seen, [1, 2], "the woken tasks ran before advance returned");
            })
        };
        controller.await.unwrap();
        for s in sleepers {
            s.await.unwrap();
        }
        assert_eq!(
            log.lock().unwrap()[2],
            3,
            "the third woke after the advance"
        );
    });
}

// ---------------------------------------------------------------------------------------
// pause, resume, now, and #[filch::test(start_paused = true)]
// ---------------------------------------------------------------------------------------

/// tokio's `rt_time_start_paused.rs`: the clock stands still while std's runs on.
#[cfg(feature = "macros")]
#[filch::test(start_paused = true)]
async fn start_paused_stops_the_clock() {
    let start = now();
    for _ in 0..5 {
        std::thread::sleep(ms(1));
        assert_eq!(now(), start);
    }
    let day = Duration::from_secs(86_400);
    sleep(day).await;
    assert_eq!(now() - start, day);
}

#[cfg(feature = "macros")]
#[filch::test(start_paused = true, worker_threads = 4)]
async fn start_paused_on_four_workers() {
    let start = now();
    let tasks: Vec<_> = (1..=8u64)
        .map(|h| filch::spawn(async move { sleep(HOUR * h as u32).await }))
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(now() - start, HOUR * 8);
}

/// A pause stops the clock on a whole ms, so whole-ms sleeps land on exact instants.
#[test]
fn a_paused_clock_reads_the_same_in_every_run() {
    fn run() -> Vec<Duration> {
        paused(1, "a deterministic run", || async {
            let start = now();
            let mut times = Vec::new();
            for k in 0..500u64 {
                // Up to a second, to the nanosecond (tokio's `paused_time_stress_run`).
                sleep(Duration::from_nanos(mix(k) % 1_000_000_000)).await;
                times.push(now() - start);
            }
            times
        })
    }
    assert_eq!(run(), run());
}

#[test]
fn pause_resume_and_advance_refuse_what_makes_no_sense() {
    let caught = std::panic::catch_unwind(pause).unwrap_err();
    assert!(
        panic_message(&*caught).contains("needs an executor"),
        "{}",
        panic_message(&*caught)
    );
    let ex = executor(1);
    ex.block_on(async {
        let caught = std::panic::catch_unwind(resume).unwrap_err();
        assert!(panic_message(&*caught).contains("not paused"));
        let caught = futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(advance(ms(1))))
            .await
            .unwrap_err();
        assert!(panic_message(&*caught).contains("not paused"));
        pause();
        let caught = std::panic::catch_unwind(pause).unwrap_err();
        assert!(panic_message(&*caught).contains("already paused"));
        let caught =
            futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(advance(Duration::MAX)))
                .await
                .unwrap_err();
        assert!(panic_message(&*caught).contains("Instant"));
        resume();
    });
}

/// After `resume` the clock goes on from std's clock plus what it was moved: never back,
/// and its timers run on real time again.
#[test]
fn resume_goes_on_from_the_moved_clock() {
    watchdog(20, "resume", || {
        let ex = executor(2);
        ex.block_on(async {
            let before = Instant::from_std(std::time::Instant::now());
            pause();
            advance(HOUR).await;
            let moved = now();
            assert!(moved >= before + HOUR);
            resume();
            let real = Instant::from_std(std::time::Instant::now());
            let after = now();
            assert!(after >= moved);
            assert!(after >= real + HOUR);
            sleep(ms(2)).await;
            assert!(now() >= after + ms(2));
            // A second pause stops it again, later than before.
            pause();
            assert!(now() >= after);
        });
    });
}

/// Each executor has its own clock; outside any executor `now` is std's clock.
#[test]
fn each_executor_has_its_own_clock() {
    watchdog(20, "two clocks", || {
        let before = Instant::from_std(std::time::Instant::now());
        assert!(now() >= before);
        let paused_ex = executor(1);
        let running_ex = executor(1);
        let moved = paused_ex.block_on(async {
            pause();
            advance(HOUR).await;
            now()
        });
        let other = running_ex.block_on(async { now() });
        assert!(other < moved, "the other executor's clock moved too");
        // Outside both, std's clock; under an enter guard, that executor's clock.
        assert!(now() < moved);
        let _enter = paused_ex.enter();
        assert_eq!(now(), moved);
    });
}

// ---------------------------------------------------------------------------------------
// tokio's tests/time_pause.rs and the paused cases of tests/time_sleep.rs
// ---------------------------------------------------------------------------------------

#[test]
fn tokio_pause_time_in_main_and_in_task() {
    watchdog(20, "pause in main and in a task", || {
        executor(1).block_on(async { pause() });
        let ex = executor(1);
        ex.block_on(async {
            filch::spawn(async { pause() }).await.unwrap();
            let start = now();
            sleep(HOUR).await;
            assert_eq!(now() - start, HOUR);
        });
    });
}

#[test]
fn tokio_advance_after_poll() {
    paused(1, "advance_after_poll", || async {
        sleep(ms(1)).await;
        let start = now();
        let mut sleep = task::spawn(sleep_until(start + ms(300)));
        assert_pending!(sleep.poll());
        let before = now();
        advance(ms(100)).await;
        assert_eq!(now() - before, ms(100));
        assert_pending!(sleep.poll());
    });
}

#[test]
fn tokio_sleep_no_poll() {
    paused(1, "sleep_no_poll", || async {
        let start = now();
        advance(ms(1)).await;
        let mut sleep = task::spawn(sleep_until(start + ms(300)));
        let before = now();
        advance(ms(100)).await;
        assert_eq!(now() - before, ms(100));
        assert_pending!(sleep.poll());
    });
}

#[test]
fn tokio_interval() {
    paused(1, "interval", || async {
        let start = now();
        advance(ms(1)).await;
        let mut i = task::spawn(interval_at(start, ms(300)));
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        assert_ready_eq!(poll_next(), start);
        assert_pending!(poll_next());
        advance(ms(100)).await;
        assert_pending!(poll_next());
        advance(ms(200)).await;
        assert_ready_eq!(poll_next(), start + ms(300));
        assert_pending!(poll_next());
        advance(ms(400)).await;
        assert_ready_eq!(poll_next(), start + ms(600));
        assert_pending!(poll_next());
        advance(ms(500)).await;
        assert_ready_eq!(poll_next(), start + ms(900));
        assert_ready_eq!(poll_next(), start + ms(1200));
        assert_pending!(poll_next());
    });
}

#[test]
fn tokio_advance_by_sub_ms_and_odd_amounts_moves_by_exactly_that() {
    paused(1, "sub-ms advances", || async {
        for dur in [
            Duration::from_micros(51_592),
            Duration::from_micros(1),
            Duration::from_micros(3_141_592),
            Duration::from_micros(3_123_456),
            ms(1),
            ms(1),
        ] {
            let before = now();
            advance(dur).await;
            assert_eq!(now() - before, dur);
        }
    });
}

#[test]
fn tokio_regression_3710_with_submillis_advance() {
    paused(1, "regression_3710", || async {
        let start = now();
        advance(ms(1)).await;
        let mut sleep = task::spawn(sleep_until(start + Duration::from_secs(60)));
        assert_pending!(sleep.poll());
        let before = now();
        let dur = Duration::from_micros(51_592);
        advance(dur).await;
        assert_eq!(now() - before, dur);
        assert_pending!(sleep.poll());
    });
}

#[test]
fn tokio_advance_once_with_timer() {
    paused(1, "advance once with a timer", || async {
        let mut once = task::spawn(sleep(ms(1)));
        assert_pending!(once.poll());
        advance(Duration::from_micros(250)).await;
        assert_pending!(once.poll());
        advance(Duration::from_micros(1500)).await;
        assert!(once.is_woken());
        assert_ready!(once.poll());
    });
}

#[test]
fn tokio_advance_multi_with_timer() {
    paused(1, "advance in steps with a timer", || async {
        let mut multi = task::spawn(sleep(ms(1)));
        assert_pending!(multi.poll());
        for _ in 0..3 {
            advance(Duration::from_micros(250)).await;
            assert_pending!(multi.poll());
        }
        advance(Duration::from_micros(250)).await;
        assert!(multi.is_woken());
        assert_ready!(multi.poll());
    });
}

#[test]
fn tokio_is_elapsed() {
    paused(1, "is_elapsed", || async {
        let sleep = sleep(ms(10));
        let mut sleep = pin!(sleep);
        assert!(!sleep.is_elapsed());
        assert!(futures::poll!(sleep.as_mut()).is_pending());
        assert!(!sleep.is_elapsed());
        sleep.as_mut().await;
        assert!(sleep.is_elapsed());
    });
}

#[test]
fn tokio_delayed_sleeps_land_on_their_deadlines() {
    paused(1, "delayed sleeps", || async {
        for i in [1, 10, 60] {
            let start = now();
            sleep_until(start + ms(i)).await;
            assert_eq!(now() - start, ms(i));
        }
        // A deadline a nanosecond past a whole ms fires on the next ms.
        for _ in 0..5 {
            let start = now();
            sleep_until(start + ms(1) + Duration::from_nanos(1)).await;
            assert_eq!(now() - start, ms(2));
        }
        sleep(ms(5)).await;
        let start = now();
        sleep_until(start + ms(60)).await;
        assert_eq!(now() - start, ms(60));
    });
}

#[test]
fn tokio_reset_before_and_after_fire() {
    paused(1, "resets", || async {
        // reset_future_sleep_before_fire
        let start = now();
        let mut s = task::spawn(Box::pin(sleep_until(start + ms(100))));
        assert_pending!(s.poll());
        let mut s = s.into_inner();
        s.as_mut().reset(now() + ms(200));
        s.await;
        assert_eq!(now() - start, ms(200));
        // reset_past_sleep_before_turn
        let start = now();
        let mut s = task::spawn(Box::pin(sleep_until(start + ms(100))));
        assert_pending!(s.poll());
        let mut s = s.into_inner();
        s.as_mut().reset(start + ms(80));
        s.await;
        assert_eq!(now() - start, ms(80));
        // reset_past_sleep_before_fire
        let start = now();
        let mut s = task::spawn(Box::pin(sleep_until(start + ms(100))));
        assert_pending!(s.poll());
        let mut s = s.into_inner();
        sleep(ms(10)).await;
        s.as_mut().reset(start + ms(80));
        s.await;
        assert_eq!(now() - start, ms(80));
        // reset_future_sleep_after_fire
        let start = now();
        let mut s = Box::pin(sleep_until(start + ms(100)));
        s.as_mut().await;
        assert_eq!(now() - start, ms(100));
        s.as_mut().reset(start + ms(110));
        s.await;
        assert_eq!(now() - start, ms(110));
        // reset_sleep_to_past
        let start = now();
        let mut s = task::spawn(Box::pin(sleep_until(start + ms(100))));
        assert_pending!(s.poll());
        sleep(ms(50)).await;
        assert!(!s.is_woken());
        s.as_mut().reset(start + ms(40));
        assert_ready!(s.poll());
    });
}

#[test]
fn tokio_long_sleeps() {
    paused(1, "long sleeps", || async {
        // greater_than_max: five years, beyond the wheel's reach.
        sleep_until(now() + ms(5 * 365 * 24 * 60 * 60 * 1000)).await;
        // multi_long_sleeps
        for _ in 0..5 {
            sleep(Duration::from_secs(365 * 24 * 3600)).await;
        }
        let deadline = now() + Duration::from_secs(10 * 365 * 24 * 3600);
        sleep_until(deadline).await;
        assert!(now() >= deadline);
        // long_sleeps
        let deadline = now() + Duration::from_secs(10 * 365 * 24 * 3600);
        sleep_until(deadline).await;
        assert!(now() >= deadline && now() <= deadline + ms(1));
    });
}

/// tokio's `exactly_max` and `no_out_of_bounds_close_to_max`: a sleep of `Duration::MAX`
/// (30 years, as tokio's far future) ends under a paused clock, as tokio's does; and
/// `issue_5183`: a sleep too long for an `Instant` loses to a short one.
#[test]
fn tokio_sleeps_near_duration_max() {
    paused(1, "near Duration::MAX", || async {
        sleep(Duration::MAX).await;
        sleep(Duration::MAX - ms(1)).await;
        let big = sleep(Duration::from_secs(u64::MAX / 10));
        let small = sleep(Duration::from_nanos(1));
        futures::pin_mut!(big, small);
        match futures::future::select(big, small).await {
            futures::future::Either::Right(_) => {}
            futures::future::Either::Left(_) => panic!("the huge sleep ended first"),
        }
    });
}

#[test]
fn tokio_long_wait_sleep_does_not_break_other_timers() {
    paused(1, "long wait", || async {
        let long = filch::spawn(sleep(ms(10 << 36)));
        advance(ms((1 << 30) - 1)).await;
        let start = now();
        sleep(ms(10)).await;
        assert_eq!(now() - start, ms(10));
        long.abort();
    });
}

#[test]
fn tokio_long_wait_sleep_does_not_corrupt_wheel() {
    paused(1, "long wait, wheel", || async {
        let long = filch::spawn(sleep(ms(10 << 36)));
        advance(ms((1 << 30) - 1)).await;
        let mut first = Box::pin(sleep(ms(10)));
        assert_pending!(futures::poll!(first.as_mut()));
        let mut second = Box::pin(sleep(ms(20)));
        assert_pending!(futures::poll!(second.as_mut()));
        advance(ms(30)).await;
        drop(first);
        advance(ms(1 << 31)).await;
        drop(second);
        long.abort();
    });
}

/// The clock of a paused executor that a blocking job reads is that executor's.
#[test]
fn a_blocking_job_reads_its_executors_clock() {
    paused(1, "the clock in a blocking job", || async {
        advance(HOUR).await;
        let here = now();
        assert_eq!(filch::spawn_blocking(now).await.unwrap(), here);
    });
}

/// `Sleep`, `Interval` and `Timeout` made before a pause follow the paused clock.
#[test]
fn timers_made_before_the_pause_follow_the_paused_clock() {
    watchdog(20, "timers before the pause", || {
        let ex = executor(2);
        ex.block_on(async {
            let long = sleep(HOUR);
            let done = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&done);
            let waiter = filch::spawn(async move {
                long.await;
                flag.store(true, SeqCst);
            });
            pause();
            waiter.await.unwrap();
            assert!(done.load(SeqCst));
        });
    });
}

// ---------------------------------------------------------------------------------------
// IO on a paused clock
// ---------------------------------------------------------------------------------------

/// A byte written on a loopback TCP connection is in the kernel before the executor goes
/// idle: its readiness must be delivered before the clock jumps. The only timer is the
/// reader's `timeout(10 s, readable())`, so a jump taken while the event waits undelivered
/// (another worker holds the driver, in its OS poll, woken by the kernel but not yet
/// delivering) elapses it. 300 rounds on 1, 2 and 4 workers, each in two shapes: task W
/// writes one byte while task R waits; and one task that starts waiting, writes, and
/// awaits (its worker runs out of work right after the write). The paused clock behaves
/// the same on every number of workers.
#[test]
fn a_ready_socket_is_served_before_the_paused_clock_jumps() {
    for workers in [1, 2, 4] {
        let jumped = paused(
            workers,
            &format!("readable on {workers} worker(s)"),
            move || async move {
                let listener = filch::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let (client, accepted) =
                    futures::join!(filch::net::TcpStream::connect(addr), listener.accept());
                let writer = client.unwrap();
                // Each byte goes out at its write: without it, Nagle's algorithm holds a
                // byte back until the peer acknowledges the last (a delayed ACK under load),
                // and the byte is not in the reader's kernel buffer when the writer returns.
                writer.set_nodelay(true).unwrap();
                let writer = Arc::new(writer);
                let reader = Arc::new(accepted.unwrap().0);
                // The rounds run in a task: the executor goes idle with every worker parked,
                // not through `block_on`'s thread.
                filch::spawn(async move {
                    let mut jumped = [0usize; 2];
                    for round in 0..300 {
                        let byte = round as u8;
                        let seen = if round % 2 == 0 {
                            two_tasks(&reader, &writer, byte).await
                        } else {
                            one_task(&reader, &writer, byte).await
                        };
                        // A timeout that elapsed, or a readiness seen only after the clock
                        // jumped to the timeout's deadline (both woken by the same turn).
                        if seen != Ok(Duration::ZERO) {
                            jumped[round % 2] += 1;
                        }
                        take_byte(&reader, byte).await;
                    }
                    jumped
                })
                .await
                .unwrap()
            },
        );
        assert_eq!(
            jumped,
            [0, 0],
            "{workers} worker(s): rounds in which the paused clock jumped to the timeout \
             though the byte was there, of 150 each (two tasks, one task)"
        );
    }
}

/// A poll that holds its worker (`block_in_place`: its stand-in serves in its place at once,
/// booked in the notifier as the worker) is busy: the paused clock does not jump while it
/// runs, though every other thread sleeps. The stand-in polls the sleeper, which arms a
/// one-second timer, and parks; then `block_on` goes idle: a jump taken while the held poll
/// still runs fires the timer before the flag is set.
#[test]
fn a_held_poll_keeps_the_paused_clock_still() {
    for round in 0..5 {
        let done = paused(
            1,
            &format!("held poll, round {round}"),
            move || async move {
                let flag = Arc::new(AtomicBool::new(false));
                let held = {
                    let flag = Arc::clone(&flag);
                    filch::spawn(async move {
                        filch::task::block_in_place(|| {
                            std::thread::sleep(ms(30));
                            flag.store(true, SeqCst);
                        });
                    })
                };
                let sleeper = {
                    let flag = Arc::clone(&flag);
                    filch::spawn(async move {
                        sleep(Duration::from_secs(1)).await;
                        flag.load(SeqCst)
                    })
                };
                // `block_on` goes idle (its idle hook tests the executor) once the stand-in
                // has polled the sleeper and parked.
                std::thread::sleep(ms(10));
                held.await.unwrap();
                sleeper.await.unwrap()
            },
        );
        assert!(
            done,
            "round {round}: the clock jumped to the sleeper's timer while a held poll ran"
        );
    }
}

type Stream = Arc<filch::net::TcpStream>;

/// Task R waits for `reader` with a 10 s timeout while task W writes `byte` on `writer`;
/// R's wait on the clock, or the elapsed timeout.
async fn two_tasks(
    reader: &Stream,
    writer: &Stream,
    byte: u8,
) -> Result<Duration, filch::time::Elapsed> {
    let r = {
        let reader = Arc::clone(reader);
        filch::spawn(async move {
            let start = now();
            let seen = timeout(Duration::from_secs(10), reader.readable()).await;
            seen.map(|ready| {
                ready.unwrap();
                now() - start
            })
        })
    };
    let w = {
        let writer = Arc::clone(writer);
        filch::spawn(async move {
            writer.writable().await.unwrap();
            assert_eq!(writer.try_write(&[byte]).unwrap(), 1);
        })
    };
    w.await.unwrap();
    r.await.unwrap()
}

/// One task polls `timeout(10 s, reader.readable())` once, writes `byte` on `writer`, and
/// awaits the timeout: its worker runs out of work right after the write.
async fn one_task(
    reader: &Stream,
    writer: &Stream,
    byte: u8,
) -> Result<Duration, filch::time::Elapsed> {
    let (reader, writer) = (Arc::clone(reader), Arc::clone(writer));
    filch::spawn(async move {
        let start = now();
        let mut seen = pin!(timeout(Duration::from_secs(10), reader.readable()));
        if let std::task::Poll::Ready(seen) = futures::poll!(seen.as_mut()) {
            panic!("the reader was ready before the write: {seen:?}");
        }
        writer.writable().await.unwrap();
        assert_eq!(writer.try_write(&[byte]).unwrap(), 1);
        seen.await.map(|ready| {
            ready.unwrap();
            now() - start
        })
    })
    .await
    .unwrap()
}

/// Reads the one byte waiting on `reader` (there whether or not a timeout elapsed), then
/// reads on until `WouldBlock`, which clears the readiness it saw: the next round's
/// `readable()` waits for the next byte.
async fn take_byte(reader: &Stream, expected: u8) {
    let mut buf = [0u8; 2];
    let mut got = Vec::new();
    loop {
        match reader.try_read(&mut buf) {
            Ok(0) => panic!("the writer closed"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if !got.is_empty() {
                    break;
                }
                reader.readable().await.unwrap();
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got, [expected]);
}

// ---------------------------------------------------------------------------------------
// Interval resets (tokio's `tests/time_interval.rs`)
// ---------------------------------------------------------------------------------------

/// An interval of 300 ms from `start` that ticked at 0 and 300 ms, with the clock 401 ms
/// on, as each of tokio's reset tests sets it up.
async fn ticked_twice(start: Instant) -> tokio_test::task::Spawn<filch::time::Interval> {
    advance(ms(1)).await;
    let mut i = task::spawn(interval_at(start, ms(300)));
    assert_ready_eq!(i.enter(|cx, mut i| pin!(i.tick()).poll(cx)), start);
    advance(ms(100)).await;
    assert_pending!(i.enter(|cx, mut i| pin!(i.tick()).poll(cx)));
    advance(ms(200)).await;
    assert_ready_eq!(
        i.enter(|cx, mut i| pin!(i.tick()).poll(cx)),
        start + ms(300)
    );
    advance(ms(100)).await;
    assert_pending!(i.enter(|cx, mut i| pin!(i.tick()).poll(cx)));
    i
}

// origin: tokio tests/time_interval.rs `reset`
#[test]
fn tokio_interval_reset() {
    paused(1, "interval reset", || async {
        let start = now();
        let mut i = ticked_twice(start).await;
        i.reset();
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        advance(ms(250)).await;
        assert_pending!(poll_next());
        advance(ms(50)).await;
        assert_ready_eq!(poll_next(), start + ms(701));
        advance(ms(300)).await;
        assert_ready_eq!(poll_next(), start + ms(1001));
    });
}

// origin: tokio tests/time_interval.rs `reset_immediately`
#[test]
fn tokio_interval_reset_immediately() {
    paused(1, "interval reset_immediately", || async {
        let start = now();
        let mut i = ticked_twice(start).await;
        i.reset_immediately();
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        assert_ready_eq!(poll_next(), start + ms(401));
        advance(ms(100)).await;
        assert_pending!(poll_next());
        advance(ms(200)).await;
        assert_ready_eq!(poll_next(), start + ms(701));
    });
}

// origin: tokio tests/time_interval.rs `reset_after`
#[test]
fn tokio_interval_reset_after() {
    paused(1, "interval reset_after", || async {
        let start = now();
        let mut i = ticked_twice(start).await;
        i.reset_after(ms(20));
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        advance(ms(20)).await;
        assert_ready_eq!(poll_next(), start + ms(421));
        advance(ms(100)).await;
        assert_pending!(poll_next());
        advance(ms(200)).await;
        assert_ready_eq!(poll_next(), start + ms(721));
    });
}

// origin: tokio tests/time_interval.rs `reset_at`
#[test]
fn tokio_interval_reset_at() {
    paused(1, "interval reset_at", || async {
        let start = now();
        let mut i = ticked_twice(start).await;
        i.reset_at(now() + ms(40));
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        advance(ms(40)).await;
        assert_ready_eq!(poll_next(), start + ms(441));
        advance(ms(100)).await;
        assert_pending!(poll_next());
        advance(ms(200)).await;
        assert_ready_eq!(poll_next(), start + ms(741));
    });
}

// origin: tokio tests/time_interval.rs `reset_at_bigger_than_interval`
#[test]
fn tokio_interval_reset_at_bigger_than_interval() {
    paused(1, "interval reset_at beyond a period", || async {
        let start = now();
        let mut i = ticked_twice(start).await;
        i.reset_at(now() + ms(1000));
        let mut poll_next = || i.enter(|cx, mut i| pin!(i.tick()).poll(cx));
        for _ in 0..3 {
            advance(ms(300)).await;
            assert_pending!(poll_next());
        }
        advance(ms(100)).await;
        assert_ready_eq!(poll_next(), start + ms(1401));
        advance(ms(300)).await;
        assert_ready_eq!(poll_next(), start + ms(1701));
    });
}

// origin: tokio tests/time_interval.rs `reset_doesnt_panic_max_duration`,
// `reset_after_doesnt_panic_max_duration`
#[test]
fn tokio_interval_resets_of_duration_max_do_not_panic() {
    paused(1, "interval resets of Duration::MAX", || async {
        let mut i = interval(Duration::MAX);
        i.reset();
        let mut i = interval(ms(1));
        i.reset_after(Duration::MAX);
        let mut i = task::spawn(i);
        assert_pending!(i.enter(|cx, mut i| pin!(i.tick()).poll(cx)));
    });
}

/// `filch::time::Instant` (tokio's habit: `time::Instant`) follows the paused clock:
/// `Instant::now()` and `elapsed()` measure the time the clock moved, not the few
/// microseconds that passed for real (a back-off measured with std's `Instant` saw 385 µs
/// where 700 ms of paused time had passed).
#[test]
fn time_instant_measures_the_paused_clock() {
    paused(2, "time::Instant", || async {
        let start = Instant::now();
        for attempt in 0..3u32 {
            sleep(ms(100) * 2u32.pow(attempt)).await;
        }
        // Exactly the time the clock moved: the real clock would show what the jumps took
        // on top, however little.
        assert_eq!(start.elapsed(), ms(700));
        assert_eq!(Instant::now() - start, ms(700));
        assert_eq!(Instant::now(), now());
        assert_eq!(Instant::from_std(start.into_std()), start);
    });
}

/// origin: tokio `tests/time_rt.rs::tickspace`: two executors with paused clocks, the second
/// started a millisecond later; a `Sleep` made under the first, reset by a millisecond
/// inside the second's `block_on`, then awaited under the first, measures 2 ms of the
/// first's paused time. Between the poll that arms the timer and its reset nobody waits on
/// the first executor (no task, no `block_on`), so its clock must not jump, although its
/// workers are idle (`runtime/scheduler/auto_advance.rs`). Repeated: the jump it rules out
/// came in about one run in seven.
#[test]
fn tickspace() {
    use futures::task::noop_waker_ref;
    use std::future::Future as _;
    use std::task::Context;

    watchdog(60, "tickspace", || {
        for _ in 0..50 {
            let paused_executor = || {
                let ex = executor(1);
                ex.block_on(async { pause() });
                ex
            };
            let ex_past = paused_executor();
            std::thread::sleep(Duration::from_millis(1));
            let ex = paused_executor();

            let _guard = ex_past.enter();
            let mut sleep = std::pin::pin!(sleep(Duration::from_millis(1)));
            assert!(sleep
                .as_mut()
                .poll(&mut Context::from_waker(noop_waker_ref()))
                .is_pending());

            let deadline = sleep.deadline();
            ex.block_on(async { sleep.as_mut().reset(deadline + Duration::from_millis(1)) });

            let now = Instant::now();
            ex_past.block_on(sleep);
            assert_eq!(now.elapsed(), Duration::from_millis(2));
        }
    });
}
