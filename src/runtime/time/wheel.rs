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

    /// Moves the armed, unfired timer `key` to `deadline` (ms), keeping its waker. If the
    /// deadline has already passed (`due`: on the caller's clock, or on the wheel's), the
    /// timer fires now: its waker is returned, for the caller to wake after unlocking the
    /// wheel.
    #[must_use]
    pub(crate) fn rearm(&mut self, key: TimerKey, deadline: u64, due: bool) -> Option<Waker> {
        debug_assert!(!self.entries[key].fired, "rearm of a fired timer");
        self.unlink(key);
        let entry = &mut self.entries[key];
        entry.deadline = deadline;
        if due || deadline <= self.elapsed {
            entry.fired = true;
            return entry.waker.take();
        }
        self.link(key);
        None
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
mod tests;
