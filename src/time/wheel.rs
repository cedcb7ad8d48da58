//! [`Wheel`]: the hierarchical timing wheel of one driver, in whole milliseconds since the
//! driver started.
//!
//! Six levels of 64 slots: a slot of level `L` spans `64^L` ms, so one turn of the top level
//! spans `64^6` ms (about 795 days). A timer goes to the level of the highest bit in which
//! its link position differs from the wheel's `elapsed` time, so its slot always starts
//! after `elapsed`; when the wheel reaches a slot of a level above 0, the timers in it move
//! down (a timer moves at most five times per turn of the top level). The timers of a slot
//! form a doubly linked list through their slab entries, and each level keeps a bitmap of
//! its non-empty slots, so that inserting and removing a timer is O(1) and finding the next
//! deadline is O(levels).
//!
//! A timer's link position is its deadline, clamped to the horizon: the last millisecond of
//! the top-level slot just before the current one, one turn ahead (see [`Wheel::link`]).
//! The entry keeps its own deadline, so a clamped timer that the wheel reaches early is
//! linked again (clamped again), never fired: a deadline of `u64::MAX` never fires.
//!
//! **Invariants:**
//! - an entry is in exactly one slot list iff it is armed and has not fired; `fired`
//!   entries (and entries not yet armed) are in no list;
//! - bit `s` of `occupied[L]` is set iff slot `s` of level `L` has a non-empty list;
//! - every armed entry's slot starts after `elapsed`, and no slot that holds `elapsed` is
//!   occupied, at any level: the slots of each level, searched from the one that holds
//!   `elapsed`, come in the order of their start times (the top level's wrap around, one
//!   turn ahead).

use std::task::Waker;

use slab::Slab;

const LEVELS: usize = 6;
const SLOT_BITS: u32 = 6;
const SLOTS: usize = 1 << SLOT_BITS;
/// The span of one turn of the top level, in ms.
const TURN: u64 = 1 << (SLOT_BITS as usize * LEVELS);
/// The span of one top-level slot, in ms.
const TOP_SLOT: u64 = 1 << (SLOT_BITS as usize * (LEVELS - 1));

const NONE: u32 = u32::MAX;

/// One timer.
struct ArmedTimer {
    /// The deadline in ms (`u64::MAX`: never), also when it lies beyond the horizon.
    deadline: u64,
    waker: Option<Waker>,
    prev: u32,
    next: u32,
    /// Where it is linked: `level * SLOTS + slot`, or [`NONE`].
    at: u32,
    fired: bool,
}

/// The timing wheel (module docs).
pub(crate) struct Wheel {
    entries: Slab<ArmedTimer>,
    heads: Box<[u32; LEVELS * SLOTS]>,
    occupied: [u64; LEVELS],
    /// The wheel's time in ms: every timer with a deadline up to it has fired.
    elapsed: u64,
}

/// The key of a timer in its wheel.
pub(crate) type TimerKey = usize;

/// Stores `waker` in `slot` unless the waker there already wakes the same task; returns
/// the waker it replaced.
fn replace_waker(slot: &mut Option<Waker>, waker: &Waker) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(waker) => None,
        _ => slot.replace(waker.clone()),
    }
}

fn slot_range(level: usize) -> u64 {
    1 << (SLOT_BITS as usize * level)
}

fn level_range(level: usize) -> u64 {
    1 << (SLOT_BITS as usize * (level + 1))
}

impl Wheel {
    pub(crate) fn new() -> Wheel {
        Wheel {
            entries: Slab::new(),
            heads: Box::new([NONE; LEVELS * SLOTS]),
            occupied: [0; LEVELS],
            elapsed: 0,
        }
    }

    /// A new timer, not armed yet (no deadline). O(1), wakes nothing.
    ///
    /// # Panics
    /// If the wheel already holds 2^32 - 1 timers (links are `u32`s, and [`NONE`] is one).
    pub(crate) fn insert(&mut self) -> TimerKey {
        // A slab's new key is at most its length, so every key stays below `NONE`.
        assert!(
            self.entries.len() < NONE as usize,
            "filch: 2^32 - 1 timers on one executor already"
        );
        self.entries.insert(ArmedTimer {
            deadline: 0,
            waker: None,
            prev: NONE,
            next: NONE,
            at: NONE,
            fired: false,
        })
    }

    /// Arms timer `key` for `deadline` (ms) with `waker`, re-arming it if it was armed or
    /// fired. Returns whether it is pending (`false`: the deadline has already passed, and
    /// the timer is fired and keeps no waker), and the waker it held before.
    ///
    /// Every waker the wheel lets go of (here, in [`Wheel::set_waker`] and
    /// [`Wheel::remove`]) is handed back, for the caller to drop after unlocking the wheel:
    /// a waker's drop may run any code, such as dropping another timer of this wheel.
    #[must_use]
    pub(crate) fn arm(
        &mut self,
        key: TimerKey,
        deadline: u64,
        waker: &Waker,
    ) -> (bool, Option<Waker>) {
        self.unlink(key);
        let entry = &mut self.entries[key];
        entry.deadline = deadline;
        if deadline <= self.elapsed {
            entry.fired = true;
            return (false, entry.waker.take());
        }
        entry.fired = false;
        let old = replace_waker(&mut entry.waker, waker);
        self.link(key);
        (true, old)
    }

    /// Replaces the waker of an armed timer; returns the one it replaced (see
    /// [`Wheel::arm`]).
    #[must_use]
    pub(crate) fn set_waker(&mut self, key: TimerKey, waker: &Waker) -> Option<Waker> {
        replace_waker(&mut self.entries[key].waker, waker)
    }

    /// Whether timer `key` has fired since it was last armed.
    pub(crate) fn is_fired(&self, key: TimerKey) -> bool {
        self.entries[key].fired
    }

    /// Removes timer `key`; returns its waker (see [`Wheel::arm`]). O(1), wakes nothing.
    #[must_use]
    pub(crate) fn remove(&mut self, key: TimerKey) -> Option<Waker> {
        self.unlink(key);
        self.entries.remove(key).waker
    }

    /// The number of timers (armed, fired or not yet armed).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn level_for(&self, position: u64) -> usize {
        // The highest bit in which the position differs from `elapsed` picks the level; the
        // low slot bits are forced on so that level 0 is the least (and `masked` is at least
        // 63, so the subtraction cannot underflow).
        let masked = (self.elapsed ^ position) | (SLOTS as u64 - 1);
        let significant = 63 - masked.leading_zeros() as usize;
        (significant / SLOT_BITS as usize).min(LEVELS - 1)
    }

    /// Links an armed entry (deadline after `elapsed`) into the slot of its link position:
    /// its deadline, clamped to the last ms of the top-level slot just before the current
    /// one, one turn ahead. A position up to there lies in a slot that starts after
    /// `elapsed` and is never the current top-level slot (whose index a position one turn
    /// ahead would share, hiding the timers of the next slot from [`Wheel::next_expiration`]).
    fn link(&mut self, key: TimerKey) {
        // Cannot overflow before `elapsed` (the driver's clock, in ms) reaches 2^64 - 2^36,
        // half a billion years from the driver's start; it saturates rather than wraps.
        let horizon = (self.elapsed & !(TOP_SLOT - 1)).saturating_add(TURN - 1);
        let position = self.entries[key].deadline.min(horizon);
        let level = self.level_for(position);
        // The `as usize` keeps the low bits (all of them on 64-bit targets), which hold the
        // slot; `at` is below `LEVELS * SLOTS`, and keys fit a `u32` (`insert`).
        let slot = ((position >> (SLOT_BITS as usize * level)) as usize) % SLOTS;
        let at = level * SLOTS + slot;
        let head = self.heads[at];
        if head != NONE {
            self.entries[head as usize].prev = key as u32;
        }
        let entry = &mut self.entries[key];
        entry.prev = NONE;
        entry.next = head;
        entry.at = at as u32;
        self.heads[at] = key as u32;
        self.occupied[level] |= 1 << slot;
    }

    fn unlink(&mut self, key: TimerKey) {
        let (prev, next, at) = {
            let e = &self.entries[key];
            (e.prev, e.next, e.at)
        };
        if at == NONE {
            return;
        }
        if prev != NONE {
            self.entries[prev as usize].next = next;
        } else {
            self.heads[at as usize] = next;
        }
        if next != NONE {
            self.entries[next as usize].prev = prev;
        }
        if self.heads[at as usize] == NONE {
            let (level, slot) = (at as usize / SLOTS, at as usize % SLOTS);
            self.occupied[level] &= !(1 << slot);
        }
        let e = &mut self.entries[key];
        e.prev = NONE;
        e.next = NONE;
        e.at = NONE;
    }

    /// The start of the next non-empty slot, with its level and slot: the earliest time the
    /// wheel has something to do.
    fn next_expiration(&self) -> Option<(u64, usize, usize)> {
        let now = self.elapsed;
        (0..LEVELS).find_map(|level| {
            let occupied = self.occupied[level];
            if occupied == 0 {
                return None;
            }
            let now_slot = ((now / slot_range(level)) % SLOTS as u64) as u32;
            debug_assert_eq!(occupied & (1 << now_slot), 0, "level {level}: now's slot");
            // `occupied` is not zero, so `trailing_zeros` is below 64 and the sum below 128.
            let slot =
                (occupied.rotate_right(now_slot).trailing_zeros() + now_slot) as usize % SLOTS;
            Some((self.slot_start(level, slot), level, slot))
        })
    }

    /// The start of occupied slot `slot` of level `level`: in the level range that holds
    /// `elapsed`, or (the top level only) one turn ahead.
    fn slot_start(&self, level: usize, slot: usize) -> u64 {
        let now = self.elapsed;
        // Cannot overflow: the start of a slot of the level range that holds `now`.
        let start = (now & !(level_range(level) - 1)) + slot as u64 * slot_range(level);
        if start <= now {
            // Only the top level wraps: the slot is one turn ahead (module invariants).
            // Saturates only in the last turn before 2^64 ms (see `link`).
            debug_assert_eq!(level, LEVELS - 1);
            return start.saturating_add(level_range(level));
        }
        start
    }

    /// The earliest deadline the driver must wake up for, in ms.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.next_expiration().map(|(deadline, _, _)| deadline)
    }

    /// The earliest deadline of an armed timer, in ms, even where it lies beyond the
    /// horizon (`None`: no armed timer). Only the paused clock's auto-advance asks, once per
    /// jump.
    ///
    /// Every entry's deadline is at or after the start of its slot. Below the top level the
    /// timers of a level all come before those of the levels above, and the slots of a level
    /// in the order [`Wheel::next_expiration`] finds them, so the earliest is in the first
    /// slot it finds (scanned: O(timers in that slot)). At the top level an entry clamped to
    /// an earlier horizon may sit in a slot before one that holds an earlier deadline, so the
    /// top level's slots are scanned in order until one starts after the earliest deadline
    /// seen.
    #[cfg(feature = "test-util")]
    pub(crate) fn earliest_deadline(&self) -> Option<u64> {
        let (_, level, slot) = self.next_expiration()?;
        if level < LEVELS - 1 {
            return Some(self.earliest_in(level, slot));
        }
        let now_slot = ((self.elapsed / TOP_SLOT) % SLOTS as u64) as usize;
        let mut earliest = u64::MAX;
        for k in 0..SLOTS {
            let slot = (now_slot + k) % SLOTS;
            if self.occupied[level] & (1 << slot) == 0 {
                continue;
            }
            if self.slot_start(level, slot) > earliest {
                break;
            }
            earliest = earliest.min(self.earliest_in(level, slot));
        }
        Some(earliest)
    }

    /// The earliest deadline in the list of slot `slot` of level `level` (`u64::MAX` if
    /// empty).
    #[cfg(feature = "test-util")]
    fn earliest_in(&self, level: usize, slot: usize) -> u64 {
        let mut key = self.heads[level * SLOTS + slot];
        let mut earliest = u64::MAX;
        while key != NONE {
            let entry = &self.entries[key as usize];
            earliest = earliest.min(entry.deadline);
            key = entry.next;
        }
        earliest
    }

    /// Advances the wheel to `now` (ms), firing every timer whose deadline is at or before
    /// it; their wakers are pushed onto `wakers`, to be called outside the wheel's lock.
    pub(crate) fn advance(&mut self, now: u64, wakers: &mut Vec<Waker>) {
        while let Some((deadline, level, slot)) = self.next_expiration() {
            if deadline > now {
                break;
            }
            self.elapsed = deadline;
            let at = level * SLOTS + slot;
            let mut key = std::mem::replace(&mut self.heads[at], NONE);
            self.occupied[level] &= !(1 << slot);
            while key != NONE {
                let entry = &mut self.entries[key as usize];
                let next = entry.next;
                entry.prev = NONE;
                entry.next = NONE;
                entry.at = NONE;
                if entry.deadline <= deadline {
                    entry.fired = true;
                    wakers.extend(entry.waker.take());
                } else {
                    // Cascade to a lower level, or (a deadline beyond the horizon) to the
                    // new horizon.
                    self.link(key as usize);
                }
                key = next;
            }
        }
        self.elapsed = self.elapsed.max(now);
    }

    /// Fires every timer (the driver shut down), pushing their wakers onto `wakers`.
    pub(crate) fn fire_all(&mut self, wakers: &mut Vec<Waker>) {
        let keys: Vec<usize> = self.entries.iter().map(|(k, _)| k).collect();
        for key in keys {
            self.unlink(key);
            let entry = &mut self.entries[key];
            entry.fired = true;
            wakers.extend(entry.waker.take());
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
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
}
