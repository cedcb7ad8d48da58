//! [`Driver`]: one executor's driver stack: the IO driver ([`IoDriver`], `runtime/io/`: the
//! OS poller, the registered sources and their readiness) and the time driver
//! ([`TimeDriver`], `runtime/time/`: the timing wheel and the clock), composed here as tokio's
//! `runtime/driver.rs` composes its own. Neither driver knows the other: the stack gives the time
//! driver the IO driver's waker to end a wait early, and a turn asks the time driver how long to
//! wait, turns the IO driver, then fires the due timers. The stack is the [`Reactor`] a worker's
//! parker waits in (`runtime/park/parker.rs`). This folder also holds what sits on the stack: the
//! IO sources of `filch::net` and `filch::signal` (`source.rs`) and `block_on` (`block_on.rs`),
//! which sleeps on a parker that waits in it.
//!
//! # Who turns
//!
//! The OS poll and the scratch space of a turn ([`Exclusive`]) sit behind a try-lock, private
//! to this module: at most one thread waits in the OS poll at a time; a worker that parks
//! while another holds it sleeps on its parker's condition variable instead. A turn
//! delivers the readiness of every event to its source (which wakes the waiting tasks),
//! then fires the timers that are due. The next timer deadline bounds the wait.
//!
//! Threads that do not hold the driver take a turn that does not block through one method,
//! [`Driver::turn_nonblocking`], with one pacing rule ([`Pace`]): a busy thread (a worker
//! between polls) takes one if
//! [`BUSY_TURN_INTERVAL`] has passed since the last such turn of any thread, by std's clock
//! (paused or not); a worker about to park, or whose yielded tasks wait for a turn, takes one
//! now. A turn that does not block skips the OS poll while no source is registered
//! (`runtime/io/poller.rs`), where the `epoll_wait` would be most of the cost of a yield.
//!
//! With `test-util`, the holder of a paused clock's driver runs the auto-advance after
//! each wait in the OS poll (`after_wait`, `runtime/scheduler/auto_advance.rs`): only the
//! holder jumps.
//!
//! **Invariants:**
//! - no timer's waker is woken or dropped while the timers' lock is held
//!   (`runtime/time/driver.rs`);
//! - after [`Driver::shutdown`] no source can register, every registered source has the
//!   `SHUTDOWN` bit, every timer is fired (its task woken), and the OS poller is closed.

pub(crate) mod block_on;
pub(crate) mod source;

#[cfg(all(test, not(loom)))]
mod tests;

use std::task::Waker;
use std::time::Duration;

pub(crate) use crate::runtime::io::poller::{gone, IoDriver, Poller};
use crate::runtime::park::Reactor;
pub(crate) use crate::runtime::time::driver::TimeDriver;
use crate::util::sync::{AtomicU64, Mutex, MutexGuard, Ordering};

/// The least time between two paced turns ([`Pace::IfDue`]), whichever busy threads take
/// them: a turn costs an `epoll_wait`, too much to pay every few microseconds. With the
/// polls or loop items already running, it bounds how late an IO event or a timer is seen
/// while every worker is busy.
const BUSY_TURN_INTERVAL: Duration = Duration::from_micros(100);

/// When a non-blocking turn ([`Driver::turn_nonblocking`]) is taken.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pace {
    /// If [`BUSY_TURN_INTERVAL`] has passed since the last paced turn: a busy thread (a
    /// worker between polls, a long poll between its steps) that looks at the driver now
    /// and then.
    IfDue,
    /// Now: a worker about to park, or whose deferred tasks wait for a turn.
    Now,
}

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
    /// When the last paced turn ([`Pace::IfDue`]) was taken, in std's µs since the clock's
    /// origin (the wall clock, paused or not): tells a busy thread whether another is due. A
    /// hint, read and written Relaxed: a stale value only makes a turn come a little early
    /// or late.
    last_paced_turn_us: AtomicU64,
    /// What the thread holding the driver runs after each blocking wait (`test-util`):
    /// the paused clock's auto-advance, whose jumps only the holder makes
    /// (`runtime/scheduler/auto_advance.rs`). Set once, when the executor is built.
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
            last_paced_turn_us: AtomicU64::new(0),
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

    /// A turn that does not block, by the thread holding the driver (`exclusive`); whether
    /// it woke any source or timer.
    pub(crate) fn turn_now(&self, exclusive: &mut Exclusive) -> bool {
        self.turn(exclusive, Some(Duration::ZERO), || {}) > 0
    }

    /// The one non-blocking turn of a thread that does not hold the driver: if `pace`
    /// allows it and no other thread holds the OS poll, takes it and turns once without
    /// blocking. Returns whether the turn woke a source or a timer; `false` if it was not
    /// taken (a thread waiting in the OS poll holds it and serves the events itself). The
    /// wakers of what it woke run on this thread.
    ///
    /// Only paced turns read the clock (once, to test the interval); `Pace::Now` reads none.
    pub(crate) fn turn_nonblocking(&self, pace: Pace) -> bool {
        if pace == Pace::IfDue {
            let now = self.clock().real_us();
            // Relaxed: a hint (see the field).
            let last = self.last_paced_turn_us.load(Ordering::Relaxed);
            if now < last.saturating_add(BUSY_TURN_INTERVAL.as_micros() as u64) {
                return false;
            }
            // Relaxed: a hint (see the field). Stored before the try-lock, so that the
            // other busy threads do not all try it at once.
            self.last_paced_turn_us.store(now, Ordering::Relaxed);
        }
        match self.try_hold() {
            Some(mut held) => Reactor::turn_now(self, &mut held),
            None => false,
        }
    }

    /// The IO driver: registration of sources.
    pub(crate) fn io(&self) -> &IoDriver {
        &self.io
    }

    /// The time driver: timers and their clock.
    pub(crate) fn time(&self) -> &TimeDriver {
        &self.time
    }

    /// The clock of the timers (`runtime/time/clock.rs`).
    pub(crate) fn clock(&self) -> &crate::runtime::time::clock::Clock {
        self.time.clock()
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        self.io.is_shut_down()
    }

    /// Takes the OS poll if no other thread holds it.
    fn try_lock(&self) -> Option<MutexGuard<'_, Option<Exclusive>>> {
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
                // delivered nothing (`runtime/scheduler/auto_advance.rs`): a thread that finds the
                // executor idle while this one holds the driver wakes it for that.
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
