//! [`ScheduledIo`]: the readiness of one registered source, and the two tasks waiting on it
//! (one reading, one writing).
//!
//! The readiness lives in one atomic word together with a *tick* and a shutdown bit:
//!
//! | bits   | what                                                                  |
//! |--------|-----------------------------------------------------------------------|
//! | 0..=4  | [`READABLE`], [`WRITABLE`], [`READ_CLOSED`], [`WRITE_CLOSED`], [`ERROR`] |
//! | 16..32 | the tick: incremented by every event the driver delivers to this source |
//! | 32     | [`SHUTDOWN`]: the driver is gone; every wait returns an error          |
//!
//! A reader that saw readiness `R` at tick `t` and then got `WouldBlock` clears `R` only if
//! the tick is still `t` ([`ScheduledIo::clear_readiness`], a compare-and-swap): an event
//! that arrived between the look and the clear bumped the tick, so its readiness is kept
//! and the next poll retries the operation instead of waiting for an edge that already
//! passed. This is what makes edge-triggered registration sound.
//!
//! **Invariants:**
//! - the closed and error bits are never cleared (a closed or failed socket stays so);
//! - a waker stored by [`ScheduledIo::poll_ready`] is stored under the `waiters` lock and
//!   after that the word is loaded again under the lock; [`ScheduledIo::set_readiness`]
//!   updates the word before it takes the lock to take the wakers. So either the poller's
//!   second load sees the event, or the setter finds the waker: no wake-up is lost.

use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use crate::sync::{AtomicU64, LockUnpoisoned, Ordering};

/// The source can be read (or accept, or receive).
pub(crate) const READABLE: u64 = 1;
/// The source can be written (or send, or a connect finished).
pub(crate) const WRITABLE: u64 = 1 << 1;
/// The peer closed its writing half: reads return end-of-file from now on.
pub(crate) const READ_CLOSED: u64 = 1 << 2;
/// Our writing half is closed (the peer reset, or we shut it down).
pub(crate) const WRITE_CLOSED: u64 = 1 << 3;
/// The socket has a pending error: the next operation reports it.
pub(crate) const ERROR: u64 = 1 << 4;
/// The driver shut down.
pub(crate) const SHUTDOWN: u64 = 1 << 32;

const READY_MASK: u64 = 0x1f;
const TICK_SHIFT: u32 = 16;
const TICK_MASK: u64 = 0xffff << TICK_SHIFT;

/// Which half of a source a task waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Read,
    Write,
}

impl Direction {
    /// The readiness bits that end a wait in this direction.
    fn mask(self) -> u64 {
        match self {
            Direction::Read => READABLE | READ_CLOSED | ERROR,
            Direction::Write => WRITABLE | WRITE_CLOSED | ERROR,
        }
    }

    /// The bits a `WouldBlock` in this direction clears.
    fn clearable(self) -> u64 {
        match self {
            Direction::Read => READABLE,
            Direction::Write => WRITABLE,
        }
    }
}

/// What a poll saw: the readiness bits of one direction and the tick they were seen at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadyEvent {
    pub(crate) ready: u64,
    tick: u16,
    direction: Direction,
}

impl ReadyEvent {
    /// Whether the peer closed its writing half (reads return end-of-file).
    pub(crate) fn is_read_closed(&self) -> bool {
        self.ready & READ_CLOSED != 0
    }
}

/// The tasks waiting for readiness.
#[derive(Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
}

/// The readiness and waiters of one registered source (module docs).
pub(crate) struct ScheduledIo {
    /// `ready | tick << 16 | shutdown << 32` (module docs).
    readiness: AtomicU64,
    waiters: Mutex<Waiters>,
    /// Distinguishes this registration from earlier ones that used the same slab key, so
    /// that a late event for a closed source is not delivered to its successor.
    pub(crate) generation: u32,
    /// The source's key in its driver's slab.
    pub(crate) key: usize,
}

fn tick(word: u64) -> u16 {
    ((word & TICK_MASK) >> TICK_SHIFT) as u16
}

impl ScheduledIo {
    pub(crate) fn new(generation: u32, key: usize) -> ScheduledIo {
        ScheduledIo {
            readiness: AtomicU64::new(0),
            waiters: Mutex::new(Waiters::default()),
            generation,
            key,
        }
    }

    /// Adds `ready` (an event from the driver, or [`SHUTDOWN`]), bumps the tick, and wakes
    /// the waiters it concerns.
    pub(crate) fn set_readiness(&self, ready: u64) {
        // AcqRel: Release pairs with the Acquire loads in `poll_ready` (the task then sees
        // what happened before the event); Acquire keeps the tick sequence with `clear`.
        let _ = self
            .readiness
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
                let tick = tick(word).wrapping_add(1);
                Some((word & !TICK_MASK) | ready | (u64::from(tick) << TICK_SHIFT))
            });
        let (reader, writer) = {
            let mut waiters = self.waiters.lock_unpoisoned();
            let reader = if ready & (Direction::Read.mask() | SHUTDOWN) != 0 {
                waiters.reader.take()
            } else {
                None
            };
            let writer = if ready & (Direction::Write.mask() | SHUTDOWN) != 0 {
                waiters.writer.take()
            } else {
                None
            };
            (reader, writer)
        };
        // Woken outside the lock: a waker may do anything, including polling this source.
        if let Some(w) = reader {
            w.wake();
        }
        if let Some(w) = writer {
            w.wake();
        }
    }

    /// Ready when the source is ready in `direction` (or closed, failed, or shut down);
    /// otherwise stores the task's waker in that direction's slot.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<Result<ReadyEvent, Gone>> {
        // Acquire: pairs with the AcqRel update in `set_readiness`.
        let word = self.readiness.load(Ordering::Acquire);
        if let Some(ready) = Self::ready_in(word, direction) {
            return Poll::Ready(ready);
        }
        let mut waiters = self.waiters.lock_unpoisoned();
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
        };
        match slot {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => *slot = Some(cx.waker().clone()),
        }
        // The re-check under the lock (module invariants).
        let word = self.readiness.load(Ordering::Acquire);
        match Self::ready_in(word, direction) {
            Some(ready) => Poll::Ready(ready),
            None => Poll::Pending,
        }
    }

    fn ready_in(word: u64, direction: Direction) -> Option<Result<ReadyEvent, Gone>> {
        if word & SHUTDOWN != 0 {
            return Some(Err(Gone));
        }
        let ready = word & READY_MASK & direction.mask();
        (ready != 0).then_some(Ok(ReadyEvent {
            ready,
            tick: tick(word),
            direction,
        }))
    }

    /// Clears the readiness of `event` after its operation would block, unless a newer
    /// event arrived since it was seen (module docs).
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        let clear = event.ready & event.direction.clearable();
        // Acquire/Release as in `set_readiness`; a failed exchange means a new tick, and
        // then nothing is cleared.
        let _ = self
            .readiness
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
                (tick(word) == event.tick).then_some(word & !clear)
            });
    }

    /// Drops the stored wakers (the source is being closed).
    pub(crate) fn clear_wakers(&self) {
        let taken = std::mem::take(&mut *self.waiters.lock_unpoisoned());
        drop(taken);
    }
}

impl std::fmt::Debug for ScheduledIo {
    /// The readiness word decoded into names, e.g.
    /// `ScheduledIo { ready: [READABLE, READ_CLOSED], tick: 3, shutdown: false, .. }`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Relaxed: a snapshot for printing only.
        let word = self.readiness.load(Ordering::Relaxed);
        let names: Vec<&str> = [
            (READABLE, "READABLE"),
            (WRITABLE, "WRITABLE"),
            (READ_CLOSED, "READ_CLOSED"),
            (WRITE_CLOSED, "WRITE_CLOSED"),
            (ERROR, "ERROR"),
        ]
        .iter()
        .filter(|(bit, _)| word & bit != 0)
        .map(|&(_, name)| name)
        .collect();
        f.debug_struct("ScheduledIo")
            .field("ready", &names)
            .field("tick", &tick(word))
            .field("shutdown", &(word & SHUTDOWN != 0))
            .field("key", &self.key)
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

/// The driver of a source is gone (its executor shut down).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gone;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use futures::task::noop_waker;

    fn poll(io: &ScheduledIo, d: Direction) -> Poll<Result<ReadyEvent, Gone>> {
        let waker = noop_waker();
        io.poll_ready(&mut Context::from_waker(&waker), d)
    }

    #[test]
    fn a_clear_that_races_a_new_event_keeps_the_new_readiness() {
        let io = ScheduledIo::new(0, 0);
        assert!(poll(&io, Direction::Read).is_pending());
        io.set_readiness(READABLE);
        let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
            panic!("not ready after an event")
        };
        // A new event arrives between the look and the WouldBlock's clear.
        io.set_readiness(READABLE);
        io.clear_readiness(seen);
        assert!(
            poll(&io, Direction::Read).is_ready(),
            "the new event was lost"
        );
        let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
            unreachable!()
        };
        io.clear_readiness(seen);
        assert!(poll(&io, Direction::Read).is_pending());
    }

    #[test]
    fn closed_bits_survive_a_clear_and_shutdown_ends_every_wait() {
        let io = ScheduledIo::new(0, 0);
        io.set_readiness(READABLE | READ_CLOSED);
        let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
            unreachable!()
        };
        io.clear_readiness(seen);
        assert!(poll(&io, Direction::Read).is_ready());
        assert!(poll(&io, Direction::Write).is_pending());
        io.set_readiness(SHUTDOWN);
        assert!(matches!(
            poll(&io, Direction::Write),
            Poll::Ready(Err(Gone))
        ));
    }
}
