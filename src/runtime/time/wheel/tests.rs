//! Unit tests of the timing wheel: timers scattered over every level, deadlines past, at and
//! beyond the horizon, re-arming, and a property test against a model of the wheel.

use super::*;
use futures::task::noop_waker;

/// A small xorshift, to scatter deadlines over every level.
fn rng(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn timers_fire_exactly_when_their_deadline_is_reached() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut seed = 0x2545_F491_4F6C_DD1D;
    let mut timers = Vec::new();
    for _ in 0..2000 {
        let key = wheel.insert();
        let ahead = match rng(&mut seed) % 4 {
            0 => rng(&mut seed) % 64,
            1 => rng(&mut seed) % 5_000,
            2 => rng(&mut seed) % 300_000,
            _ => rng(&mut seed) % 20_000_000,
        };
        let deadline = 1 + ahead;
        assert!(wheel.arm(key, deadline, &waker).0);
        timers.push((key, deadline));
    }
    // Remove some before they fire.
    for (key, _) in timers.drain(..200) {
        let _ = wheel.remove(key);
    }
    let mut now = 0;
    let mut wakers = Vec::new();
    while now < 20_000_002 {
        let step = match wheel.next_deadline() {
            Some(d) => d.max(now + 1),
            None => break,
        };
        // Jump to the next deadline, or a bit short of it.
        now = if rng(&mut seed) % 3 == 0 {
            step - 1
        } else {
            step
        }
        .max(now);
        wheel.advance(now, &mut wakers);
        for &(key, deadline) in &timers {
            assert_eq!(
                wheel.is_fired(key),
                deadline <= now,
                "timer for {deadline} at {now}"
            );
        }
    }
    assert!(timers.iter().all(|&(k, _)| wheel.is_fired(k)));
    for (key, _) in timers {
        let _ = wheel.remove(key);
    }
    assert_eq!(wheel.len(), 0);
    assert!(wheel.next_deadline().is_none());
}

/// A timer clamped to the horizon (`sleep(Duration::MAX)`) and a 20 s timer armed 10 s
/// before a top-level slot boundary (2^30 ms): the 20 s timer is due in the next
/// top-level slot, and the clamped one must not hide it.
#[test]
fn a_clamped_timer_does_not_hide_a_timer_due_in_the_next_top_level_slot() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let start = (5 << 30) - 10_000;
    wheel.advance(start, &mut wakers);
    let forever = wheel.insert();
    assert!(wheel.arm(forever, u64::MAX, &waker).0);
    let soon = wheel.insert();
    let due = start + 20_000;
    assert!(wheel.arm(soon, due, &waker).0);
    let next = wheel.next_deadline();
    assert!(
        next.is_some_and(|d| d <= due),
        "next deadline {next:?}, but a timer is due at {due}"
    );
    wheel.advance(due, &mut wakers);
    assert!(
        wheel.is_fired(soon),
        "the 20 s timer did not fire after 20 s"
    );
    assert!(!wheel.is_fired(forever));
}

/// A deadline beyond the wheel's reach is linked at the horizon, and when the wheel
/// gets there it is linked again, not fired: it fires at its own deadline, or never
/// (`u64::MAX`).
#[test]
fn a_timer_clamped_to_the_horizon_does_not_fire_there() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let forever = wheel.insert();
    assert!(wheel.arm(forever, u64::MAX, &waker).0);
    let far = wheel.insert();
    let far_deadline = (3 << 36) + 12_345;
    assert!(wheel.arm(far, far_deadline, &waker).0);
    let mut now = 0;
    while now < 5 << 36 {
        let next = wheel.next_deadline().expect("two timers are pending");
        assert!(next > now, "the next deadline {next} is not after {now}");
        now = next;
        wheel.advance(now, &mut wakers);
        assert!(!wheel.is_fired(forever), "a timer for never fired at {now}");
        assert_eq!(wheel.is_fired(far), far_deadline <= now, "at {now}");
        if wheel.is_fired(far) {
            // Only the timer for never is left.
            now = now.max(5 << 36);
            wheel.advance(now, &mut wakers);
        }
    }
    assert!(wheel.is_fired(far));
    assert!(!wheel.is_fired(forever));
}

#[test]
fn a_deadline_in_the_past_fires_at_once_and_rearming_moves_a_timer() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    wheel.advance(100, &mut wakers);
    let key = wheel.insert();
    assert!(!wheel.arm(key, 50, &waker).0);
    assert!(wheel.is_fired(key));
    assert!(wheel.arm(key, 5_000, &waker).0);
    assert!(wheel.arm(key, 150, &waker).0);
    // The wheel may wake up earlier to move the timer down a level, never later.
    assert!(wheel.next_deadline().is_some_and(|d| d <= 150));
    wheel.advance(149, &mut wakers);
    assert!(!wheel.is_fired(key));
    wheel.advance(150, &mut wakers);
    assert!(wheel.is_fired(key));
    assert!(
        wheel.next_deadline().is_none(),
        "a re-armed timer was left behind"
    );
}

/// tokio `time_sleep.rs::long_wait_sleep_does_not_break_other_timers`, on the wheel (its
/// `advance` plays tokio's paused clock): a timer far beyond the horizon, then, just
/// before a top-level slot boundary, a 10 ms timer fires after 10 ms.
#[test]
fn long_wait_sleep_does_not_break_other_timers() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let long = wheel.insert();
    assert!(wheel.arm(long, 10 << 36, &waker).0);
    let now = (1 << 30) - 1;
    wheel.advance(now, &mut wakers);
    let short = wheel.insert();
    assert!(wheel.arm(short, now + 10, &waker).0);
    wheel.advance(now + 9, &mut wakers);
    assert!(!wheel.is_fired(short));
    wheel.advance(now + 10, &mut wakers);
    assert!(wheel.is_fired(short));
    assert!(!wheel.is_fired(long));
}

/// tokio `time_sleep.rs::long_wait_sleep_does_not_corrupt_wheel`, on the wheel: timers
/// armed and removed around a top-level slot boundary, with a timer far beyond the
/// horizon, leave the lists and bitmaps consistent (unlinking would panic otherwise).
#[test]
fn long_wait_sleep_does_not_corrupt_wheel() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let long = wheel.insert();
    assert!(wheel.arm(long, 10 << 36, &waker).0);
    let mut now = (1 << 30) - 1;
    wheel.advance(now, &mut wakers);
    let first = wheel.insert();
    assert!(wheel.arm(first, now + 10, &waker).0);
    let second = wheel.insert();
    assert!(wheel.arm(second, now + 20, &waker).0);
    now += 30;
    wheel.advance(now, &mut wakers);
    assert!(wheel.is_fired(first) && wheel.is_fired(second));
    let _ = wheel.remove(first);
    now += 1 << 31;
    wheel.advance(now, &mut wakers);
    let _ = wheel.remove(second);
    assert!(!wheel.is_fired(long));
    assert!(wheel
        .next_deadline()
        .is_some_and(|d| d > now && d <= 10 << 36));
    let _ = wheel.remove(long);
    assert!(wheel.next_deadline().is_none());
    assert_eq!(wheel.len(), 0);
}

/// A timer clamped to the horizon of an earlier time sits in a top-level slot before
/// the slot of a timer armed later, one turn ahead, whose deadline is earlier: the
/// earliest deadline is the later-armed timer's (a paused clock's jump goes there).
#[cfg(feature = "test-util")]
#[test]
fn the_earliest_deadline_looks_past_a_timer_clamped_to_an_earlier_horizon() {
    let waker = noop_waker();
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let far = wheel.insert();
    assert!(wheel.arm(far, 1_107_733_787_388, &waker).0);
    wheel.advance(1 << 30, &mut wakers);
    let near = wheel.insert();
    let near_deadline = (1 << 30) + TURN - 64;
    assert!(wheel.arm(near, near_deadline, &waker).0);
    assert_eq!(wheel.earliest_deadline(), Some(near_deadline));
    let _ = wheel.remove(near);
    assert_eq!(wheel.earliest_deadline(), Some(1_107_733_787_388));
    let _ = wheel.remove(far);
    assert_eq!(wheel.earliest_deadline(), None);
}

mod model {
    //! The wheel against a reference model (a map of deadlines): random sequences of
    //! inserts, arms and re-arms, removes and advances, small and huge, across top-level
    //! slot and turn boundaries, with deadlines past, near, far, beyond the horizon and
    //! never (`u64::MAX`).

    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use proptest::sample::Index;

    use super::super::*;
    use futures::task::noop_waker;

    /// Where a timer is armed, from the wheel's time `now`.
    #[derive(Clone, Debug)]
    enum Ahead {
        /// `now - n`: fires at once.
        Back(u64),
        /// `now + n`.
        By(u64),
        /// `u64::MAX`: never (linked at the horizon, again and again).
        Never,
    }

    /// Where an advance goes, from `now`.
    #[derive(Clone, Debug)]
    enum Step {
        By(u64),
        /// To the wheel's next deadline, or one ms short of it.
        ToNext {
            short: bool,
        },
        /// To the next multiple of `1 << bits` after `now` (2^30: a top-level slot,
        /// 2^36: a turn of the top level), moved by `offset` ms.
        ToBoundary {
            bits: u32,
            offset: i64,
        },
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert,
        Arm(Index, Ahead),
        Remove(Index),
        Advance(Step),
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Timer {
        Unarmed,
        Pending(u64),
        Fired,
    }

    fn ahead() -> impl Strategy<Value = Ahead> {
        prop_oneof![
            1 => (0u64..100).prop_map(Ahead::Back),
            3 => (1u64..64).prop_map(Ahead::By),
            3 => (1u64..1 << 20).prop_map(Ahead::By),
            2 => (1u64..1 << 36).prop_map(Ahead::By),
            1 => ((1u64 << 36) - 64..(1 << 36) + 64).prop_map(Ahead::By),
            1 => (1u64 << 36..1 << 44).prop_map(Ahead::By),
            1 => Just(Ahead::Never),
        ]
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            2 => (0u64..100).prop_map(Step::By),
            1 => (0u64..1 << 40).prop_map(Step::By),
            3 => any::<bool>().prop_map(|short| Step::ToNext { short }),
            2 => (prop_oneof![Just(30u32), Just(36)], -3i64..=3)
                .prop_map(|(bits, offset)| Step::ToBoundary { bits, offset }),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => Just(Op::Insert),
            4 => (any::<Index>(), ahead()).prop_map(|(i, a)| Op::Arm(i, a)),
            1 => any::<Index>().prop_map(Op::Remove),
            3 => step().prop_map(Op::Advance),
        ]
    }

    /// Runs `ops` on a wheel and on the model, checking after each one that the wheel
    /// fired exactly the timers whose deadline is at or before its time (none early,
    /// none missed, each once), that its next deadline is after its time and no later
    /// than the earliest pending deadline, and (`test-util`) that it knows that earliest
    /// deadline.
    fn run(ops: &[Op]) {
        let waker = noop_waker();
        let mut wheel = Wheel::new();
        let mut model: BTreeMap<TimerKey, Timer> = BTreeMap::new();
        let mut now = 0u64;
        let mut wakers = Vec::new();
        for op in ops {
            let pick = |i: &Index, model: &BTreeMap<TimerKey, Timer>| {
                (!model.is_empty()).then(|| *model.keys().nth(i.index(model.len())).unwrap())
            };
            match op {
                Op::Insert => {
                    model.insert(wheel.insert(), Timer::Unarmed);
                }
                Op::Arm(i, ahead) => {
                    let Some(key) = pick(i, &model) else { continue };
                    let deadline = match *ahead {
                        Ahead::Back(n) => now.saturating_sub(n),
                        Ahead::By(n) => now + n,
                        Ahead::Never => u64::MAX,
                    };
                    let (pending, _) = wheel.arm(key, deadline, &waker);
                    assert_eq!(pending, deadline > now, "armed for {deadline} at {now}");
                    model.insert(
                        key,
                        if pending {
                            Timer::Pending(deadline)
                        } else {
                            Timer::Fired
                        },
                    );
                }
                Op::Remove(i) => {
                    let Some(key) = pick(i, &model) else { continue };
                    let _ = wheel.remove(key);
                    model.remove(&key);
                }
                Op::Advance(step) => {
                    let to = match *step {
                        Step::By(n) => now + n,
                        Step::ToNext { short } => match wheel.next_deadline() {
                            Some(d) => d - u64::from(short),
                            None => now + 1,
                        },
                        Step::ToBoundary { bits, offset } => {
                            let boundary = (now >> bits).wrapping_add(1) << bits;
                            boundary.saturating_add_signed(offset)
                        }
                    }
                    .max(now);
                    wheel.advance(to, &mut wakers);
                    let mut fired = 0;
                    for timer in model.values_mut() {
                        if let Timer::Pending(d) = *timer {
                            if d <= to {
                                *timer = Timer::Fired;
                                fired += 1;
                            }
                        }
                    }
                    assert_eq!(wakers.len(), fired, "wakers from the advance to {to}");
                    wakers.clear();
                    now = to;
                }
            }
            for (&key, &timer) in &model {
                assert_eq!(
                    wheel.is_fired(key),
                    timer == Timer::Fired,
                    "timer {key} ({timer:?}) at {now}: fired early or missed"
                );
            }
            let earliest = model
                .values()
                .filter_map(|t| match *t {
                    Timer::Pending(d) => Some(d),
                    _ => None,
                })
                .min();
            #[cfg(feature = "test-util")]
            assert_eq!(
                wheel.earliest_deadline(),
                earliest,
                "the earliest deadline at {now}"
            );
            let next = wheel.next_deadline();
            match earliest {
                Some(e) => assert!(
                    next.is_some_and(|n| now < n && n <= e),
                    "next deadline {next:?} at {now}, earliest pending {e}"
                ),
                None => assert_eq!(next, None, "nothing is pending at {now}"),
            }
            assert_eq!(wheel.len(), model.len());
        }
    }

    proptest! {
        #[test]
        fn the_wheel_fires_what_the_model_fires(ops in prop::collection::vec(op(), 1..200)) {
            run(&ops);
        }
    }
}

/// `rearm` moves an armed timer earlier or later with its waker, and fires one moved to a
/// deadline already passed (on the wheel's time, or due on the caller's clock), handing
/// its waker back.
#[test]
fn rearm_keeps_the_waker_and_fires_a_passed_deadline() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::Arc;
    use std::task::{Wake, Waker};
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(Arc::clone(&count));
    let mut wheel = Wheel::new();
    let mut wakers = Vec::new();
    let key = wheel.insert();
    assert!(wheel.arm(key, 10_000, &waker).0);
    // Earlier, across levels.
    assert!(wheel.rearm(key, 30, false).is_none());
    assert_eq!(wheel.next_deadline(), Some(30));
    wheel.advance(29, &mut wakers);
    assert!(!wheel.is_fired(key) && wakers.is_empty());
    wheel.advance(30, &mut wakers);
    assert!(wheel.is_fired(key));
    wakers.drain(..).for_each(Waker::wake);
    assert_eq!(count.0.load(SeqCst), 1);
    // Later, then to a deadline the wheel has passed.
    assert!(wheel.arm(key, 40, &waker).0);
    assert!(wheel.rearm(key, 5_000, false).is_none());
    wheel.advance(100, &mut wakers);
    assert!(!wheel.is_fired(key) && wakers.is_empty());
    let fired = wheel
        .rearm(key, 99, false)
        .expect("a passed deadline fires");
    assert!(wheel.is_fired(key));
    fired.wake();
    assert_eq!(count.0.load(SeqCst), 2);
    // Due on the caller's clock, ahead of the wheel's time: fires too.
    assert!(wheel.arm(key, 400, &waker).0);
    let fired = wheel.rearm(key, 300, true).expect("a due deadline fires");
    assert!(wheel.is_fired(key));
    fired.wake();
    assert_eq!(count.0.load(SeqCst), 3);
    assert_eq!(wheel.next_deadline(), None);
}
