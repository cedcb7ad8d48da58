//! [`Driver`]: one executor's IO and timer driver: the OS poller (mio), the registered
//! sources, the waker that interrupts a wait, and the timing wheel.
//!
//! # Why mio
//!
//! The driver needs edge-triggered registration (`EPOLLET`: registered once per descriptor,
//! never re-armed), one `epoll_wait` per turn, and a waker (an eventfd) that interrupts it.
//! mio (what tokio stands on) and smol's `polling` 3.x both offer that; mio's wait makes
//! fewer syscalls (`polling` re-arms a timerfd and its notifier eventfd on every wait), and
//! was never the slower of the two in `benches/os_poll.rs` (`docs/benchmarks.md` has the
//! table).
//!
//! # Who polls
//!
//! The poller sits behind a try-lock ([`Driver::try_lock`]): at most one thread waits in
//! the OS poll at a time; a worker that parks while another holds it sleeps on its parker's
//! condition variable instead (`park/parker.rs`, where this driver is a parker's
//! `Reactor`). A busy worker takes the lock now and then for a turn that does not block. A
//! turn delivers the readiness of every event to its
//! source's [`ScheduledIo`] (which wakes the waiting tasks), then fires the timers that are
//! due. The next timer deadline bounds the wait. A turn that does not block skips the OS
//! poll while no source is registered: there is no event to take then (a pending wake of
//! the driver's own waker only matters to a wait), and a worker whose tasks yield takes such
//! a turn every few dozen polls (`worker/mod.rs`), where the `epoll_wait` would be most of
//! the cost of a yield.
//!
//! Timers are due by the driver's [`Clock`] (`time/clock.rs`): std's clock, or with the
//! `test-util` feature a clock that may be paused. A paused clock moves only by an advance
//! (`time::advance`, which fires what fell due itself) or by the executor's auto-advance
//! when it is idle (`time/auto_advance.rs`); the wait of the OS poll is still bounded by the
//! next deadline's distance on that clock, in real time. The busy threads' turns
//! ([`Driver::turn_if_due`]) are paced by std's clock, paused or not.
//!
//! # Sources
//!
//! Each registered source has a slab key and an `Arc<ScheduledIo>`; its mio token is the
//! key and the registration's generation, so that an event still in flight for a closed
//! source is dropped rather than delivered to the source that reused the key.
//!
//! **Invariants:**
//! - a source is registered once, edge-triggered, for reading and writing, and
//!   deregistered when its IO object is dropped;
//! - after [`Driver::shutdown`] no source can register, every registered source has the
//!   `SHUTDOWN` bit, every timer is fired (its task woken), and the OS poller is closed;
//! - no timer's waker is woken or dropped while the timers' lock is held (a waker may own
//!   a timer, whose drop takes that lock).

use std::io;
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use mio::event::Source;
use mio::{Events, Interest, Poll, Token};
use slab::Slab;

use super::scheduled_io::{
    ScheduledIo, ERROR, PRIORITY, READABLE, READ_CLOSED, SHUTDOWN, WRITABLE, WRITE_CLOSED,
};
use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, MutexGuard, Ordering};
use crate::time::clock::Clock;
use crate::time::wheel::{TimerKey, Wheel};

/// A source's token holds its slab key and its generation, 32 bits each.
const _TOKEN_BITS: () = assert!(
    usize::BITS == 64,
    "filch's IO driver packs a source's key and generation into a 64-bit mio token"
);

/// The token of the driver's own waker.
const WAKE_TOKEN: Token = Token(usize::MAX);

/// How often, in ms, a busy thread takes a turn of the driver ([`Driver::turn_if_due`]):
/// the bound, beyond the cost of the items already running, on how late an IO event or a
/// timer is seen while every worker is busy.
const TURN_INTERVAL_MS: u64 = 1;

/// How many events one turn takes from the OS at most.
const EVENTS_CAPACITY: usize = 1024;

/// The registered sources and the next generation to hand out.
struct Sources {
    slab: Slab<Arc<ScheduledIo>>,
    generation: u32,
}

/// What only the thread holding the poller touches.
pub(crate) struct Poller {
    poll: Poll,
    events: Events,
    /// Scratch space for the sources of one turn's events.
    ready: Vec<(Arc<ScheduledIo>, u64)>,
    wakers: Vec<Waker>,
}

/// The timers and the deadline the poller waits for.
struct Timers {
    wheel: Wheel,
    /// While a thread waits in the OS poll: the ms deadline it wakes up at by itself
    /// (`u64::MAX`: none). A timer armed for earlier must wake it. `None` while nobody
    /// waits: the next turn looks at the wheel anyway, so arming wakes nobody.
    waiting_until: Option<u64>,
}

/// One executor's driver (module docs).
pub(crate) struct Driver {
    poller: Mutex<Option<Poller>>,
    registry: mio::Registry,
    waker: mio::Waker,
    sources: Mutex<Sources>,
    /// The length of `sources`' slab, stored under its lock after every change: a source
    /// counts from before it is added to the OS poller until after it is taken out. Read
    /// without the lock by a turn that does not block, to skip the OS poll when it is 0.
    registered: AtomicUsize,
    timers: Mutex<Timers>,
    /// The time of the timers, with the wheel's time zero (`time/clock.rs`).
    clock: Clock,
    /// When the last [`Driver::turn_if_due`] turn was taken, in std's ms since the clock's
    /// origin (the wall clock, paused or not): tells a busy thread whether another is due. A
    /// hint, read and written Relaxed: a stale value only makes a turn come a little early
    /// or late.
    last_turn_ms: AtomicU64,
    /// Set once by [`Driver::shutdown`]. SeqCst: checked by `register` after it inserted
    /// its source, and set before shutdown empties the slab (one of the two sees the other).
    shutdown: AtomicBool,
}

/// What every source is registered for: reading and writing, and on Linux urgent data too
/// (`EPOLLPRI`), so that a TCP read stopped at the urgent mark does not lose the readiness
/// of the data behind it (`IoSource::poll_read_stream`).
fn interest() -> Interest {
    let interest = Interest::READABLE | Interest::WRITABLE;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let interest = interest | Interest::PRIORITY;
    interest
}

/// The error of an IO object whose executor shut down.
pub(crate) fn gone() -> io::Error {
    io::Error::other("filch: the executor this IO object belongs to has shut down")
}

impl Driver {
    pub(crate) fn new() -> io::Result<Driver> {
        let poll = Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let waker = mio::Waker::new(poll.registry(), WAKE_TOKEN)?;
        Ok(Driver {
            poller: Mutex::new(Some(Poller {
                poll,
                events: Events::with_capacity(EVENTS_CAPACITY),
                ready: Vec::new(),
                wakers: Vec::new(),
            })),
            registry,
            waker,
            sources: Mutex::new(Sources {
                slab: Slab::new(),
                generation: 0,
            }),
            registered: AtomicUsize::new(0),
            timers: Mutex::new(Timers {
                wheel: Wheel::new(),
                waiting_until: None,
            }),
            clock: Clock::new(),
            last_turn_ms: AtomicU64::new(0),
            shutdown: AtomicBool::new(false),
        })
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Interrupts the thread waiting in the OS poll, if any (or makes the next wait return
    /// at once).
    pub(crate) fn wake(&self) {
        // An error here would mean the eventfd is full or gone: a wake-up is then already
        // pending, or nobody waits any more.
        let _ = self.waker.wake();
    }

    /// Registers `source` for reading and writing, edge-triggered.
    pub(crate) fn register(&self, source: &mut impl Source) -> io::Result<Arc<ScheduledIo>> {
        if self.is_shut_down() {
            return Err(gone());
        }
        let (key, io) = {
            let mut sources = self.sources.lock();
            sources.generation = sources.generation.wrapping_add(1);
            let generation = sources.generation;
            let entry = sources.slab.vacant_entry();
            let key = entry.key();
            let io = Arc::new(ScheduledIo::new(generation, key));
            entry.insert(Arc::clone(&io));
            self.count_sources(&sources);
            (key, io)
        };
        // The key in the low 32 bits, the generation in the high ones (a 64-bit `usize`, see
        // `TOKEN_BITS`). The key fits: each source holds a descriptor, and descriptors
        // number fewer than 2^31.
        debug_assert!(key < 1 << 32, "a slab key of {key} sources");
        let token = Token(key | (io.generation as usize) << 32);
        if let Err(e) = self.registry.register(source, token, interest()) {
            let mut sources = self.sources.lock();
            sources.slab.remove(key);
            self.count_sources(&sources);
            return Err(e);
        }
        if self.is_shut_down() {
            // Shutdown may have emptied the slab before our insert: mark it ourselves.
            io.set_readiness(SHUTDOWN);
        }
        Ok(io)
    }

    /// Deregisters `source` (registered as `io`) before it is closed.
    pub(crate) fn deregister(&self, source: &mut impl Source, io: &ScheduledIo) {
        // After shutdown the poller is closed and the source is already forgotten.
        if !self.is_shut_down() {
            let _ = self.registry.deregister(source);
        }
        let mut sources = self.sources.lock();
        if sources
            .slab
            .get(io.key)
            .is_some_and(|s| std::ptr::eq(&**s, io))
        {
            sources.slab.remove(io.key);
            self.count_sources(&sources);
        }
        drop(sources);
        io.clear_wakers();
    }

    /// Stores the slab's length in `registered`; called under the sources' lock after every
    /// change of the slab.
    fn count_sources(&self, sources: &Sources) {
        // Relaxed: every store is made under the sources' lock, so the stores are ordered as
        // the slab's changes. A turn that reads it (`turn`) needs no more than coherence: if
        // a registration happens before the turn (the registering task yielded, or told the
        // yielding one through any synchronisation), the turn reads that store or a later
        // one, which is 0 only if that source was deregistered again.
        self.registered.store(sources.slab.len(), Ordering::Relaxed);
    }

    /// Takes the poller if no other thread holds it.
    pub(crate) fn try_lock(&self) -> Option<MutexGuard<'_, Option<Poller>>> {
        self.poller.try_lock()
    }

    /// The clock of the timers (`time/clock.rs`).
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The current time on the clock of the timers.
    #[inline]
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    /// The time in whole ms since the wheel's origin, rounded down.
    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// `deadline` in the wheel's ms, rounded up (a timer never fires early). A deadline
    /// 2^64 ms or more after the origin, beyond what the wheel's clock holds, is `u64::MAX`,
    /// which the wheel never fires.
    pub(crate) fn deadline_ms(&self, deadline: Instant) -> u64 {
        let d = deadline.saturating_duration_since(self.clock.origin());
        // `as_nanos` is below 2^94, so the division cannot overflow the u128; the result
        // saturates rather than wraps.
        u64::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX)
    }

    /// One turn of the driver, by the thread holding the poller (`poller`): waits in the OS
    /// poll for at most `timeout` (`None`: until an event, a wake or the next timer), calls
    /// `woke` once the wait is over, then delivers the events and fires the due timers.
    /// Returns how many sources and timers it woke (IO events and timers that fired).
    pub(crate) fn turn(
        &self,
        poller: &mut Poller,
        timeout: Option<Duration>,
        woke: impl FnOnce(),
    ) -> usize {
        let timeout = if timeout == Some(Duration::ZERO) {
            // No wait: the next timer cannot shorten it.
            timeout
        } else {
            let now = self.now_ms();
            let mut timers = self.timers.lock();
            let next = timers.wheel.next_deadline();
            let until_timer = next.map(|d| Duration::from_millis(d.saturating_sub(now)));
            let timeout = match (timeout, until_timer) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if timeout != Some(Duration::ZERO) {
                timers.waiting_until = Some(next.unwrap_or(u64::MAX));
            }
            timeout
        };
        // Relaxed: see `count_sources`.
        let result =
            if timeout == Some(Duration::ZERO) && self.registered.load(Ordering::Relaxed) == 0 {
                // No source: no event to take (module docs).
                poller.events.clear();
                Ok(())
            } else {
                poller.poll.poll(&mut poller.events, timeout)
            };
        if timeout != Some(Duration::ZERO) {
            self.timers.lock().waiting_until = None;
        }
        woke();
        if let Err(e) = result {
            // EINTR: a signal; anything else cannot happen with a valid epoll fd.
            debug_assert_eq!(e.kind(), io::ErrorKind::Interrupted, "{e}");
        }
        if !poller.events.is_empty() {
            let sources = self.sources.lock();
            for event in poller.events.iter() {
                let token = event.token();
                if token == WAKE_TOKEN {
                    continue;
                }
                // Lossless: the shift leaves the 32 bits of the generation (see `register`).
                let (key, generation) = (token.0 & 0xffff_ffff, (token.0 >> 32) as u32);
                let Some(io) = sources.slab.get(key) else {
                    continue;
                };
                if io.generation != generation {
                    continue;
                }
                let mut ready = 0;
                if event.is_readable() {
                    ready |= READABLE;
                }
                if event.is_writable() {
                    ready |= WRITABLE;
                }
                if event.is_read_closed() {
                    ready |= READ_CLOSED;
                }
                if event.is_write_closed() {
                    ready |= WRITE_CLOSED;
                }
                if event.is_error() {
                    ready |= ERROR;
                }
                if event.is_priority() {
                    ready |= PRIORITY;
                }
                poller.ready.push((Arc::clone(io), ready));
            }
        }
        // Wakers run with no driver lock but the poller held.
        let mut woken = poller.ready.len();
        for (io, ready) in poller.ready.drain(..) {
            io.set_readiness(ready);
        }
        woken += self.fire_timers(&mut poller.wakers);
        woken
    }

    /// A turn that does not block, if one is due ([`TURN_INTERVAL_MS`] since the last turn
    /// taken here) and no other thread holds the poller: for a thread that is busy for a
    /// long while (a data-parallel loop's helper between its items), so that IO events and
    /// timers are served while every worker is busy. Returns how many sources and timers it
    /// woke. A thread waiting in the OS poll holds the poller and serves them itself. Only
    /// these turns are timed (the worker loop's own turns read no clock for it).
    pub(crate) fn turn_if_due(&self) -> usize {
        let now = self.clock.real_ms();
        // Relaxed: a hint (see the field).
        let last = self.last_turn_ms.load(Ordering::Relaxed);
        if now < last.saturating_add(TURN_INTERVAL_MS) {
            return 0;
        }
        let Some(mut guard) = self.try_lock() else {
            return 0;
        };
        // Relaxed: a hint (see the field).
        self.last_turn_ms.store(now, Ordering::Relaxed);
        match guard.as_mut() {
            Some(poller) => self.turn(poller, Some(Duration::ZERO), || {}),
            None => 0,
        }
    }

    /// Fires the timers that are due on the clock now, calling their wakers on this thread
    /// (the paused clock's advances, `time/`); returns how many.
    #[cfg(feature = "test-util")]
    pub(crate) fn fire_due_timers(&self) -> usize {
        self.fire_timers(&mut Vec::new())
    }

    /// The earliest deadline of a timer, in the wheel's ms; `None` if no timer is armed, or
    /// if the earliest never comes (`u64::MAX`).
    #[cfg(feature = "test-util")]
    pub(crate) fn earliest_timer_ms(&self) -> Option<u64> {
        let earliest = self.timers.lock().wheel.earliest_deadline();
        earliest.filter(|&ms| ms != u64::MAX)
    }

    /// Fires the due timers; returns how many.
    fn fire_timers(&self, wakers: &mut Vec<Waker>) -> usize {
        {
            let mut timers = self.timers.lock();
            // The clock is read only when some timer is armed.
            let Some(next) = timers.wheel.next_deadline() else {
                return 0;
            };
            let now = self.now_ms();
            if next > now {
                return 0;
            }
            timers.wheel.advance(now, wakers);
        }
        let fired = wakers.len();
        for waker in wakers.drain(..) {
            waker.wake();
        }
        fired
    }

    /// A new timer (not armed). O(1), wakes nothing.
    pub(crate) fn timer_insert(&self) -> TimerKey {
        self.timers.lock().wheel.insert()
    }

    /// Arms timer `key` for `deadline`; `false` if it is already due. Wakes the thread in
    /// the OS poll only if the deadline comes before the one it waits for.
    ///
    /// Here and in [`Driver::timer_poll`] and [`Driver::timer_remove`], the waker the wheel
    /// lets go of is dropped after the timers' lock is released: its drop may drop another
    /// timer of this driver (a waker that owns a `Sleep`), which takes the lock.
    pub(crate) fn timer_arm(&self, key: TimerKey, deadline: Instant, waker: &Waker) -> bool {
        let ms = self.deadline_ms(deadline);
        let (pending, wake, replaced) = {
            let mut timers = self.timers.lock();
            let (pending, replaced) = timers.wheel.arm(key, ms, waker);
            let wake = pending && timers.waiting_until.is_some_and(|until| ms < until);
            (pending, wake, replaced)
        };
        drop(replaced);
        if wake {
            self.wake();
        }
        pending
    }

    /// Whether timer `key` fired; if not, `waker` replaces its waker.
    pub(crate) fn timer_poll(&self, key: TimerKey, waker: &Waker) -> bool {
        let replaced = {
            let mut timers = self.timers.lock();
            if timers.wheel.is_fired(key) {
                return true;
            }
            timers.wheel.set_waker(key, waker)
        };
        drop(replaced);
        false
    }

    /// Removes timer `key`. O(1), wakes nothing.
    pub(crate) fn timer_remove(&self, key: TimerKey) {
        // The guard is a temporary of this statement: the waker outlives the lock.
        let waker = self.timers.lock().wheel.remove(key);
        drop(waker);
    }

    /// The IO sources registered now (`Stats::io_sources`).
    pub(crate) fn sources_len(&self) -> usize {
        self.sources.lock().slab.len()
    }

    /// The timers the wheel holds now (`Stats::timers`).
    pub(crate) fn timers_len(&self) -> usize {
        self.timers.lock().wheel.len()
    }

    /// Shuts the driver down (the executor is gone): every source reports an error from now
    /// on, every timer's task is woken (its next poll panics), the poller is closed.
    pub(crate) fn shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let sources: Vec<Arc<ScheduledIo>> = {
            let mut sources = self.sources.lock();
            let drained = sources.slab.drain().collect();
            self.count_sources(&sources);
            drained
        };
        for io in sources {
            io.set_readiness(SHUTDOWN);
        }
        let mut wakers = Vec::new();
        self.timers.lock().wheel.fire_all(&mut wakers);
        for waker in wakers {
            waker.wake();
        }
        // Wait for a thread still in the poll (a worker that was not joined) to let go.
        self.wake();
        drop(self.poller.lock().take());
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::io::IoSource;

    /// 10k sources registered and dropped leave no slab entry behind (no memory leak in the
    /// driver), and a late event for a closed source is not delivered to the next one.
    #[test]
    fn sources_registered_and_dropped_leave_nothing_behind() {
        let driver = Arc::new(Driver::new().unwrap());
        for _ in 0..10_000 {
            let socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let source = IoSource::new(socket, Arc::clone(&driver)).unwrap();
            assert_eq!(driver.sources_len(), 1);
            assert_eq!(driver.registered.load(Ordering::SeqCst), 1);
            drop(source);
        }
        assert_eq!(driver.sources_len(), 0);
        assert_eq!(driver.registered.load(Ordering::SeqCst), 0);
        // Turns after all that deliver nothing stale (and do not panic): one with no source
        // (no OS poll), one with a new source (an OS poll, which may still hold events of
        // the closed ones).
        let mut guard = driver.try_lock().unwrap();
        let poller = guard.as_mut().unwrap();
        driver.turn(poller, Some(Duration::ZERO), || {});
        let socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let source = IoSource::new(socket, Arc::clone(&driver)).unwrap();
        assert!(driver.turn(poller, Some(Duration::ZERO), || {}) <= 1);
        drop(source);
        assert_eq!(driver.sources_len(), 0);
        assert_eq!(driver.registered.load(Ordering::SeqCst), 0);
    }

    /// A turn that does not block skips the OS poll while no source is registered, and
    /// still fires the timers that are due.
    #[test]
    fn a_turn_without_sources_still_fires_due_timers() {
        let driver = Driver::new().unwrap();
        let key = driver.timer_insert();
        let waker = futures::task::noop_waker();
        assert!(driver.timer_arm(key, Instant::now() + Duration::from_millis(1), &waker));
        std::thread::sleep(Duration::from_millis(3));
        let mut guard = driver.try_lock().unwrap();
        let poller = guard.as_mut().unwrap();
        assert_eq!(driver.turn(poller, Some(Duration::ZERO), || {}), 1);
        drop(guard);
        driver.timer_remove(key);
    }

    /// A waker whose drop removes timer `key` of `driver` (takes the timers' lock).
    struct RemovesOnDrop {
        driver: Arc<Driver>,
        key: TimerKey,
    }

    impl std::task::Wake for RemovesOnDrop {
        fn wake(self: Arc<Self>) {}
    }

    impl Drop for RemovesOnDrop {
        fn drop(&mut self) {
            self.driver.timer_remove(self.key);
        }
    }

    /// Every way the driver lets go of a timer's waker (re-arming, re-arming for a past
    /// deadline, polling with another waker, removing) drops it after unlocking the timers:
    /// a waker whose drop removes another timer of the same driver does not deadlock.
    #[test]
    fn a_waker_the_driver_drops_may_remove_a_timer_of_the_same_driver() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let driver = Arc::new(Driver::new().unwrap());
            let noop = futures::task::noop_waker();
            let far = Instant::now() + Duration::from_secs(3600);
            let timer = driver.timer_insert();
            let owner = |driver: &Arc<Driver>| {
                let key = driver.timer_insert();
                assert!(driver.timer_arm(key, far, &noop));
                Waker::from(Arc::new(RemovesOnDrop {
                    driver: Arc::clone(driver),
                    key,
                }))
            };
            let step = |what: &str, let_go: &dyn Fn(&Driver), left: usize| {
                assert!(driver.timer_arm(timer, far, &owner(&driver)));
                assert_eq!(driver.timers_len(), 2);
                let_go(&driver);
                assert_eq!(driver.timers_len(), left, "{what}: the owned timer is left");
                tx.send(what.to_owned()).unwrap();
            };
            step("re-arm", &|d| assert!(d.timer_arm(timer, far, &noop)), 1);
            let past = driver.clock().origin();
            step(
                "re-arm for the past",
                &|d| assert!(!d.timer_arm(timer, past, &noop)),
                1,
            );
            step("poll", &|d| assert!(!d.timer_poll(timer, &noop)), 1);
            step("remove", &|d| d.timer_remove(timer), 0);
            tx.send(String::new()).unwrap();
        });
        let mut done = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(what) if what.is_empty() => break,
                Ok(what) => done.push(what),
                Err(_) => panic!("deadlocked after {done:?}"),
            }
        }
    }

    /// After shutdown, registering fails with the executor's error and every timer fired.
    #[test]
    fn shutdown_refuses_sources_and_fires_timers() {
        let driver = Driver::new().unwrap();
        let waker = futures::task::noop_waker();
        let key = driver.timer_insert();
        assert!(driver.timer_arm(key, Instant::now() + Duration::from_secs(3600), &waker));
        driver.shutdown();
        assert!(driver.timer_poll(key, &waker));
        let mut socket = mio::net::UdpSocket::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let err = driver.register(&mut socket).unwrap_err();
        assert!(err.to_string().contains("shut down"));
        driver.timer_remove(key);
    }
}
