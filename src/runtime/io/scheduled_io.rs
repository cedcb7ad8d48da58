//! [`ScheduledIo`]: the readiness of one registered source, and the tasks waiting on it in
//! each direction (any number of readers and writers).
//!
//! The readiness lives in one atomic word together with a *tick* and a shutdown bit:
//!
//! | bits   | what                                                                  |
//! |--------|-----------------------------------------------------------------------|
//! | 0..=5  | [`READABLE`], [`WRITABLE`], [`READ_CLOSED`], [`WRITE_CLOSED`], [`ERROR`],
//! [`PRIORITY`] |
//! | 16..32 | the tick: incremented by every event the driver delivers to this source |
//! | 32     | [`SHUTDOWN`]: the driver is gone; every wait returns an error          |
//!
//! A reader that saw readiness `R` at tick `t` and then got `WouldBlock` clears `R` only if
//! the tick is still `t` ([`ScheduledIo::clear_readiness`], a compare-and-swap): an event
//! that arrived between the look and the clear bumped the tick, so its readiness is kept
//! and the next poll retries the operation instead of waiting for an edge that already
//! passed. This is what makes edge-triggered registration sound. A `WouldBlock` also
//! clears [`ERROR`]: the operation would have failed with a pending socket error, so none
//! is pending any more, and the next operation must wait for a new edge.
//!
//! # Waiters
//!
//! Each direction keeps a list of waiters (a slab), so that any number of tasks can wait
//! in the same direction; an event wakes every waiter of the directions it concerns. There
//! are two kinds of entries:
//! - *owned*: the entry of one waiting operation future ([`WaitKey`], held by the future,
//!   e.g. an `accept` or a `recv_from`), which keeps its key from its first wait until it
//!   is dropped and then removes the entry;
//! - *anonymous*: the waker of a poll method with no future of its own to hold a key
//!   (`AsyncRead::poll_read` through `&TcpStream`); such an entry is removed when it is
//!   woken, and a poll finds its task's entry again by `Waker::will_wake`.
//!
//! **Who owns the wakers:** a waker stored here belongs to the source until the first of:
//! an event in its direction or the driver's shutdown (the waker is taken and woken), a
//! newer poll of the same waiter (it is replaced), the owned waiter's drop (its entry is
//! removed), the source's deregistration (every entry is dropped). An anonymous waker whose
//! task stopped polling thus stays until the source's next event, drop or shutdown. A
//! replaced or removed waker is always dropped after the lock is released, and woken
//! outside it: a waker's drop or wake may run any code, including code that polls or drops
//! this very source.
//!
//! **Invariants:**
//! - the closed bits and [`PRIORITY`] are never cleared (a closed socket stays so; a socket
//!   that had urgent data may stop a read at its mark, so short reads never clear it);
//! - [`ScheduledIo::poll_ready`] loads the word again under the `waiters` lock before it
//!   stores a waker; [`ScheduledIo::set_readiness`] updates the word before it takes the
//!   lock to take the wakers. So either the poller's load sees the event, or the setter
//!   finds the waker: no wake-up is lost.

use std::task::{Context, Poll, Waker};

use slab::Slab;

use crate::util::sync::{AtomicU64, Mutex, Ordering};
use crate::util::wake_all::wake_all;

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
/// The socket received urgent (out-of-band) data at some point: a read may stop at the
/// urgent mark with more data queued behind it. Sticky; ends no wait.
pub(crate) const PRIORITY: u64 = 1 << 5;
/// The driver shut down.
pub(crate) const SHUTDOWN: u64 = 1 << 32;

const READY_MASK: u64 = 0x3f;
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

    /// The bits a `WouldBlock` in this direction clears (module docs).
    fn clearable(self) -> u64 {
        match self {
            Direction::Read => READABLE | ERROR,
            Direction::Write => WRITABLE | ERROR,
        }
    }
}

/// What a poll saw: the readiness bits of one direction and the tick they were seen at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadyEvent {
    pub(crate) ready: u64,
    /// Whether the source ever had urgent data ([`PRIORITY`]).
    urgent: bool,
    pub(crate) tick: u16,
    direction: Direction,
}

impl ReadyEvent {
    /// Whether the peer closed its writing half (reads return end-of-file).
    pub(crate) fn is_read_closed(&self) -> bool {
        self.ready & READ_CLOSED != 0
    }

    /// Whether the source ever had urgent data, so that a short read may have stopped at
    /// the urgent mark with data behind it.
    pub(crate) fn had_urgent_data(&self) -> bool {
        self.urgent
    }
}

/// A waiting operation's place in its direction's waiter list (module docs): `None` until
/// its first wait. The operation's future must give it back with
/// [`ScheduledIo::remove_waiter`] when it is dropped.
pub(crate) type WaitKey = Option<usize>;

/// One waiter of one direction.
struct Waiter {
    /// `None` once woken, until the waiter polls again.
    waker: Option<Waker>,
    /// An owned entry (kept until its future removes it) or an anonymous one (removed when
    /// woken).
    owned: bool,
}

impl Waiter {
    /// An entry with no waker yet; `owned` as the field.
    fn empty(owned: bool) -> Waiter {
        Waiter { waker: None, owned }
    }
}

/// The tasks waiting for readiness, per direction.
#[derive(Default)]
struct Waiters {
    read: Slab<Waiter>,
    write: Slab<Waiter>,
}

impl Waiters {
    fn of(&mut self, direction: Direction) -> &mut Slab<Waiter> {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }
}

/// Wakers taken under the lock, to be woken after it: the first few inline (an event
/// usually wakes one or two tasks, and allocates nothing then), the rest in a vector.
#[derive(Default)]
struct WakeList {
    inline: [Option<Waker>; 4],
    len: usize,
    spill: Vec<Waker>,
}

impl WakeList {
    fn push(&mut self, waker: Waker) {
        match self.inline.get_mut(self.len) {
            Some(slot) => {
                *slot = Some(waker);
                self.len += 1;
            }
            None => self.spill.push(waker),
        }
    }

    /// Wakes every waker, even if one panics (`util/wake_all.rs`).
    fn wake_all(self) {
        wake_all(self.inline.into_iter().flatten().chain(self.spill));
    }
}

/// Takes the wakers of every waiter in `list` into `out`, removing the anonymous entries.
fn take_wakers(list: &mut Slab<Waiter>, out: &mut WakeList) {
    list.retain(|_, waiter| {
        if let Some(waker) = waiter.waker.take() {
            out.push(waker);
        }
        waiter.owned
    });
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
    // Lossless: the mask keeps 16 bits, shifted down to the bottom.
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
        let read = ready & (Direction::Read.mask() | SHUTDOWN) != 0;
        let write = ready & (Direction::Write.mask() | SHUTDOWN) != 0;
        if !read && !write {
            return;
        }
        let mut wakers = WakeList::default();
        {
            let mut waiters = self.waiters.lock();
            if read {
                take_wakers(&mut waiters.read, &mut wakers);
            }
            if write {
                take_wakers(&mut waiters.write, &mut wakers);
            }
        }
        // Woken outside the lock (module docs).
        wakers.wake_all();
    }

    /// Ready when the source is ready in `direction` (or closed, failed, or shut down);
    /// otherwise stores the task's waker in that direction's list: in the owned entry
    /// `key` (made on the first wait) if the caller holds one, else in an anonymous entry.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: Option<&mut WaitKey>,
    ) -> Poll<Result<ReadyEvent, Gone>> {
        // Acquire: pairs with the AcqRel update in `set_readiness`.
        let word = self.readiness.load(Ordering::Acquire);
        if let Some(ready) = Self::ready_in(word, direction) {
            return Poll::Ready(ready);
        }
        let replaced;
        {
            let mut waiters = self.waiters.lock();
            // The re-check under the lock, before storing (module invariants).
            let word = self.readiness.load(Ordering::Acquire);
            if let Some(ready) = Self::ready_in(word, direction) {
                return Poll::Ready(ready);
            }
            let list = waiters.of(direction);
            let k = match key {
                // An operation future's own entry, made at its first wait.
                Some(key) => *key.get_or_insert_with(|| list.insert(Waiter::empty(true))),
                // A poll method's anonymous entry: the one this waker already has, if any.
                None => list
                    .iter()
                    .find_map(|(k, w)| {
                        (!w.owned && w.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())))
                            .then_some(k)
                    })
                    .unwrap_or_else(|| list.insert(Waiter::empty(false))),
            };
            let entry = &mut list[k];
            replaced = match &entry.waker {
                Some(w) if w.will_wake(cx.waker()) => None,
                _ => entry.waker.replace(cx.waker().clone()),
            };
        }
        // Dropped outside the lock (module docs).
        drop(replaced);
        Poll::Pending
    }

    /// The readiness in `direction` now, without waiting: `None` if not ready.
    pub(crate) fn ready_now(&self, direction: Direction) -> Option<Result<ReadyEvent, Gone>> {
        // Acquire: pairs with the AcqRel update in `set_readiness`.
        Self::ready_in(self.readiness.load(Ordering::Acquire), direction)
    }

    /// Removes the owned waiter `key` (its operation future is dropped).
    pub(crate) fn remove_waiter(&self, direction: Direction, key: WaitKey) {
        let Some(key) = key else { return };
        let removed = self.waiters.lock().of(direction).try_remove(key);
        // Dropped outside the lock (module docs).
        drop(removed);
    }

    fn ready_in(word: u64, direction: Direction) -> Option<Result<ReadyEvent, Gone>> {
        if word & SHUTDOWN != 0 {
            return Some(Err(Gone));
        }
        let ready = word & READY_MASK & direction.mask();
        (ready != 0).then_some(Ok(ReadyEvent {
            ready,
            urgent: word & PRIORITY != 0,
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
        let taken = std::mem::take(&mut *self.waiters.lock());
        // Dropped outside the lock (module docs).
        drop(taken);
    }

    /// The waiters stored now, both directions (tests).
    #[cfg(all(test, not(loom)))]
    fn waiters_len(&self) -> usize {
        let waiters = self.waiters.lock();
        waiters.read.len() + waiters.write.len()
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
            (PRIORITY, "PRIORITY"),
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
mod tests;
