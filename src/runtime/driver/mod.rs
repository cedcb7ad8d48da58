//! [`Driver`]: one executor's driver stack: the IO driver ([`IoDriver`], `io.rs`: the OS
//! poller, the registered sources and their readiness, `scheduled_io.rs`) and the time
//! driver ([`TimeDriver`], `time.rs`: the timing wheel, `wheel.rs`, and the clock,
//! `clock.rs`), composed here as tokio's `runtime/driver.rs` composes its own. Neither
//! driver knows the other: the stack gives the time driver the IO driver's waker to end a
//! wait early, and a turn asks the time driver how long to wait, turns the IO driver, then
//! fires the due timers. The stack is the [`Reactor`] a worker's parker waits in
//! (`park/parker.rs`).
//!
//! # Who turns
//!
//! The OS poll and the scratch space of a turn ([`Exclusive`]) sit behind a try-lock
//! ([`Driver::try_lock`]): at most one thread waits in the OS poll at a time; a worker that
//! parks while another holds it sleeps on its parker's condition variable instead. A busy
//! worker takes the lock now and then for a turn that does not block. A turn delivers the
//! readiness of every event to its source (which wakes the waiting tasks), then fires the
//! timers that are due. The next timer deadline bounds the wait. A turn that does not block
//! skips the OS poll while no source is registered (`io.rs`), and a worker whose tasks
//! yield takes such a turn every few dozen polls (`worker/mod.rs`), where the
//! `epoll_wait` would be most of the cost of a yield.
//!
//! The busy threads' turns ([`Driver::turn_if_due`]) are paced by std's clock, paused or
//! not. With `test-util`, the holder of a paused clock's driver runs the auto-advance after
//! each wait in the OS poll (`after_wait`, `auto_advance.rs`): only the holder jumps.
//!
//! **Invariants:**
//! - no timer's waker is woken or dropped while the timers' lock is held (`time.rs`);
//! - after [`Driver::shutdown`] no source can register, every registered source has the
//!   `SHUTDOWN` bit, every timer is fired (its task woken), and the OS poller is closed.

pub(crate) mod block_on;
pub(crate) mod source;

#[cfg(all(test, not(loom)))]
mod tests;

use std::task::Waker;
use std::time::Duration;

pub(crate) use crate::runtime::io::driver::{gone, IoDriver, Poller};
use crate::runtime::park::Reactor;
pub(crate) use crate::runtime::time::driver::TimeDriver;
use crate::util::sync::{AtomicU64, Mutex, MutexGuard, Ordering};

/// How often, in ms, a busy thread takes a turn of the driver ([`Driver::turn_if_due`]):
/// the bound, beyond the cost of the items already running, on how late an IO event or a
/// timer is seen while every worker is busy.
const TURN_INTERVAL_MS: u64 = 1;

/// What only the thread turning the driver touches.
pub(crate) struct Exclusive {
    poller: Poller,
    /// Scratch space for the wakers of the timers one turn fires.
    wakers: Vec<Waker>,
}

/// One executor's driver stack (module docs).
pub(crate) struct Driver {
    io: IoDriver,
    time: TimeDriver,
    /// `None` once shut down (the OS poller is closed).
    exclusive: Mutex<Option<Exclusive>>,
    /// When the last [`Driver::turn_if_due`] turn was taken, in std's ms since the clock's
    /// origin (the wall clock, paused or not): tells a busy thread whether another is due. A
    /// hint, read and written Relaxed: a stale value only makes a turn come a little early
    /// or late.
    last_turn_ms: AtomicU64,
    /// What the thread holding the driver runs after each blocking wait (`test-util`):
    /// the paused clock's auto-advance, whose jumps only the holder makes
    /// (`auto_advance.rs`). Set once, when the executor is built.
    #[cfg(feature = "test-util")]
    after_wait: std::sync::OnceLock<AfterWait>,
}

/// The hook of [`Driver::set_after_wait`]: given the held driver, for more turns.
#[cfg(feature = "test-util")]
pub(crate) type AfterWait = Box<dyn Fn(&mut Exclusive) + Send + Sync>;

impl Driver {
    pub(crate) fn new() -> std::io::Result<Driver> {
        let (io, poller) = IoDriver::new()?;
        let time = TimeDriver::new(Box::new(io.waker()));
        Ok(Driver {
            io,
            time,
            exclusive: Mutex::new(Some(Exclusive {
                poller,
                wakers: Vec::new(),
            })),
            last_turn_ms: AtomicU64::new(0),
            #[cfg(feature = "test-util")]
            after_wait: std::sync::OnceLock::new(),
        })
    }

    /// Sets what the driver's holder runs after each blocking wait (once; later calls are
    /// ignored).
    #[cfg(feature = "test-util")]
    pub(crate) fn set_after_wait(&self, hook: AfterWait) {
        let _ = self.after_wait.set(hook);
    }

    /// A turn that does not block, by the thread holding the driver; whether it woke any
    /// source or timer.
    pub(crate) fn turn_now(&self, exclusive: &mut Exclusive) -> bool {
        self.turn(exclusive, Some(Duration::ZERO), || {}) > 0
    }

    /// The IO driver: registration of sources.
    pub(crate) fn io(&self) -> &IoDriver {
        &self.io
    }

    /// The time driver: timers and their clock.
    pub(crate) fn time(&self) -> &TimeDriver {
        &self.time
    }

    /// The clock of the timers (`clock.rs`).
    pub(crate) fn clock(&self) -> &crate::runtime::time::clock::Clock {
        self.time.clock()
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        self.io.is_shut_down()
    }

    /// Takes the OS poll if no other thread holds it.
    pub(crate) fn try_lock(&self) -> Option<MutexGuard<'_, Option<Exclusive>>> {
        self.exclusive.try_lock()
    }

    /// One turn of the driver, by the thread holding it (`exclusive`): waits in the OS
    /// poll for at most `timeout` (`None`: until an event, a wake or the next timer), calls
    /// `woke` once the wait is over, then delivers the events and fires the due timers.
    /// Returns how many sources and timers it woke (IO events and timers that fired).
    pub(crate) fn turn(
        &self,
        exclusive: &mut Exclusive,
        timeout: Option<Duration>,
        woke: impl FnOnce(),
    ) -> usize {
        let timeout = self.time.begin_wait(timeout);
        self.io.wait(&mut exclusive.poller, timeout);
        if timeout != Some(Duration::ZERO) {
            self.time.end_wait();
        }
        woke();
        // Wakers run with no driver lock but the OS poll held.
        let woken = self.io.dispatch(&mut exclusive.poller);
        woken + self.time.fire_due(&mut exclusive.wakers)
    }

    /// A turn that does not block, if one is due ([`TURN_INTERVAL_MS`] since the last turn
    /// taken here) and no other thread holds the OS poll: for a thread that is busy for a
    /// long while (a data-parallel loop's helper between its items), so that IO events and
    /// timers are served while every worker is busy. Returns whether it woke a source or a
    /// timer. A thread waiting in the OS poll holds it and serves them itself. Only these
    /// turns are timed (the worker loop's own turns read no clock for it).
    pub(crate) fn turn_if_due(&self) -> bool {
        let now = self.time.clock().real_ms();
        // Relaxed: a hint (see the field).
        let last = self.last_turn_ms.load(Ordering::Relaxed);
        if now < last.saturating_add(TURN_INTERVAL_MS) {
            return false;
        }
        let Some(mut held) = self.try_hold() else {
            return false;
        };
        // Relaxed: a hint (see the field).
        self.last_turn_ms.store(now, Ordering::Relaxed);
        Reactor::turn_now(self, &mut held)
    }

    /// Shuts the driver down (the executor is gone): every source reports an error from now
    /// on, every timer's task is woken (its next poll panics), the OS poller is closed.
    pub(crate) fn shutdown(&self) {
        self.io.shutdown();
        self.time.shutdown();
        // Wait for a thread still in the poll (a worker that was not joined) to let go.
        self.io.wake();
        drop(self.exclusive.lock().take());
    }
}

/// The driver stack as a parker's reactor: its OS poll behind the try-lock.
impl Reactor for Driver {
    type Held<'a> = MutexGuard<'a, Option<Exclusive>>;

    fn try_hold(&self) -> Option<Self::Held<'_>> {
        // A driver that shut down has no OS poll left: its parkers use their condvar.
        self.try_lock().filter(|exclusive| exclusive.is_some())
    }

    fn wait(&self, held: &mut Self::Held<'_>, woke: impl FnOnce()) {
        match held.as_mut() {
            Some(exclusive) => {
                self.turn(exclusive, None, woke);
                // A paused clock jumps only by the driver's holder, after a turn that
                // delivered nothing (`auto_advance.rs`): a thread that finds the executor
                // idle while this one holds the driver wakes it for that.
                #[cfg(feature = "test-util")]
                if self.clock().is_paused() {
                    if let Some(hook) = self.after_wait.get() {
                        hook(exclusive);
                    }
                }
            }
            None => woke(),
        }
    }

    fn wake(&self) {
        self.io.wake();
    }

    fn turn_now(&self, held: &mut Self::Held<'_>) -> bool {
        held.as_mut()
            .is_some_and(|exclusive| Driver::turn_now(self, exclusive))
    }
}
