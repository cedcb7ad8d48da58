//! [`IoDriver`]: one executor's IO driver: the OS poller (mio), the registered sources, and
//! the waker that interrupts a wait. It knows nothing of timers: the driver stack
//! (`runtime/driver/mod.rs`) bounds its waits and fires the timers after them.
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
//! # Waits
//!
//! The [`Poller`] (the OS poll and its event buffer) belongs to the thread that holds the
//! driver stack's try-lock. A wait ([`IoDriver::wait`]) takes the events; the stack then
//! delivers them ([`IoDriver::dispatch`]): the readiness of each event goes to its source's
//! [`ScheduledIo`], which wakes the waiting tasks. A wait that does not block skips the OS
//! poll while no source is registered: there is no event to take then (a pending wake of
//! the driver's own waker only matters to a wait that blocks).
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
//! - after [`IoDriver::shutdown`] no source can register, and every registered source has
//!   the `SHUTDOWN` bit.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use mio::event::Source;
use mio::{Events, Interest, Poll, Token};
use slab::Slab;

use super::scheduled_io::{
    ScheduledIo, ERROR, PRIORITY, READABLE, READ_CLOSED, SHUTDOWN, WRITABLE, WRITE_CLOSED,
};
use crate::util::sync::{AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::util::wake_all::{call_each, call_each_quietly};

/// A source's token holds its slab key and its generation, 32 bits each.
const _TOKEN_BITS: () = assert!(
    usize::BITS == 64,
    "filch's IO driver packs a source's key and generation into a 64-bit mio token"
);

/// The token of the driver's own waker.
const WAKE_TOKEN: Token = Token(usize::MAX);

/// How many events one wait takes from the OS at most.
const EVENTS_CAPACITY: usize = 1024;

/// The registered sources and the next generation to hand out.
struct SourceTable {
    slab: Slab<Arc<ScheduledIo>>,
    generation: u32,
}

/// What only the thread waiting in the OS poll touches.
pub(crate) struct Poller {
    poll: Poll,
    events: Events,
    /// Scratch space for the sources of one wait's events.
    ready: Vec<(Arc<ScheduledIo>, u64)>,
}

/// One executor's IO driver (module docs).
pub(crate) struct IoDriver {
    registry: mio::Registry,
    /// Shared with the time driver, which ends a wait through it (`IoDriver::waker`).
    waker: Arc<mio::Waker>,
    sources: Mutex<SourceTable>,
    /// The length of `sources`' slab, stored under its lock after every change: a source
    /// counts from before it is added to the OS poller until after it is taken out. Read
    /// without the lock by a wait that does not block, to skip the OS poll when it is 0.
    registered: AtomicUsize,
    /// Set once by [`IoDriver::shutdown`]. SeqCst: checked by `register` after it inserted
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

impl IoDriver {
    /// A driver with no source, and the OS poll its waits use.
    pub(crate) fn new() -> io::Result<(IoDriver, Poller)> {
        let poll = Poll::new()?;
        let registry = poll.registry().try_clone()?;
        let waker = Arc::new(mio::Waker::new(poll.registry(), WAKE_TOKEN)?);
        let driver = IoDriver {
            registry,
            waker,
            sources: Mutex::new(SourceTable {
                slab: Slab::new(),
                generation: 0,
            }),
            registered: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
        };
        let poller = Poller {
            poll,
            events: Events::with_capacity(EVENTS_CAPACITY),
            ready: Vec::new(),
        };
        Ok((driver, poller))
    }

    pub(crate) fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Interrupts the thread waiting in the OS poll, if any (or makes the next wait return
    /// at once).
    pub(crate) fn wake(&self) {
        wake(&self.waker);
    }

    /// What [`IoDriver::wake`] does, as a function that owns what it needs (for the time
    /// driver).
    pub(crate) fn waker(&self) -> impl Fn() + Send + Sync + 'static + use<> {
        let waker = Arc::clone(&self.waker);
        move || wake(&waker)
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
        // `_TOKEN_BITS`). The key fits: each source holds a descriptor, and descriptors
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
    fn count_sources(&self, sources: &SourceTable) {
        // Relaxed: every store is made under the sources' lock, so the stores are ordered as
        // the slab's changes. A wait that reads it (`wait`) needs no more than coherence: if
        // a registration happens before the wait (the registering task yielded, or told the
        // yielding one through any synchronisation), the wait reads that store or a later
        // one, which is 0 only if that source was deregistered again.
        self.registered.store(sources.slab.len(), Ordering::Relaxed);
    }

    /// The slab's length as last stored for the waits that do not block (white-box tests).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn registered_len(&self) -> usize {
        self.registered.load(Ordering::SeqCst)
    }

    /// The IO sources registered now (`Stats::io_sources`).
    pub(crate) fn sources_len(&self) -> usize {
        self.sources.lock().slab.len()
    }

    /// Waits in the OS poll for at most `timeout` (`None`: until an event or a wake), by the
    /// thread holding `poller`; the events stay in `poller` for [`IoDriver::dispatch`]. A
    /// wait that does not block skips the OS poll while no source is registered.
    pub(crate) fn wait(&self, poller: &mut Poller, timeout: Option<Duration>) {
        // Relaxed: see `count_sources`.
        if timeout == Some(Duration::ZERO) && self.registered.load(Ordering::Relaxed) == 0 {
            // No source: no event to take (module docs).
            poller.events.clear();
            return;
        }
        if let Err(e) = poller.poll.poll(&mut poller.events, timeout) {
            // EINTR: a signal; anything else cannot happen with a valid epoll fd.
            debug_assert_eq!(e.kind(), io::ErrorKind::Interrupted, "{e}");
        }
    }

    /// Delivers the events of the last [`IoDriver::wait`] on `poller` to their sources
    /// (whose wakers run on this thread, with no lock of the driver held); returns how many
    /// sources had an event. That counts sources, not wakers: a source with an event but
    /// no waiter counts, though it woke nobody.
    pub(crate) fn dispatch(&self, poller: &mut Poller) -> usize {
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
        let woken = poller.ready.len();
        // Every source gets its readiness, even if a waker of one panics: the events were
        // taken from the OS (edge-triggered, they do not come again).
        call_each(poller.ready.drain(..), |(io, ready)| {
            io.set_readiness(ready)
        });
        woken
    }

    /// Refuses sources from now on and marks every registered one `SHUTDOWN` (the executor
    /// is gone): each reports an error from now on. The OS poll itself is closed by
    /// dropping its [`Poller`].
    pub(crate) fn shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let sources: Vec<Arc<ScheduledIo>> = {
            let mut sources = self.sources.lock();
            let drained = sources.slab.drain().collect();
            self.count_sources(&sources);
            drained
        };
        call_each_quietly(sources, |io| io.set_readiness(SHUTDOWN));
    }
}

/// Wakes the OS poll through `waker`.
fn wake(waker: &mio::Waker) {
    // An error here would mean the eventfd is full or gone: a wake-up is then already
    // pending, or nobody waits any more.
    let _ = waker.wake();
}
