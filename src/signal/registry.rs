//! The process-wide half of signal handling (see the `signal` module docs): one slot per
//! signal number (generation, pending flag, dispatcher), the self-pipe, the handler, and the
//! pipe's registration with a live driver.
//!
//! The atomics and locks here are std's, never loom's (`crate::util::sync`): they live in a static
//! (loom's have no `const fn new`), and the atomics are touched by a signal handler, which
//! must only use lock-free atomics. The locks ignore poisoning as `crate::util::sync`'s do
//! ([`lock`]).

use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
// std's, not `crate::util::sync`'s: a static, and a signal handler's (module docs).
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use event_listener::{Event, EventListener};
use mio::unix::{pipe, SourceFd};

use crate::executor::global::{current_driver, global};
use crate::runtime::driver::source::IoSource;
use crate::runtime::driver::Driver;

/// Signal numbers below this have a slot (Linux's go up to 64, the BSDs' up to 128).
pub(super) const SLOTS: usize = 128;

/// The read end of the pipe, registered with a driver.
pub(super) type PipeSource = IoSource<SourceFd<'static>>;

/// One signal number's state.
struct SignalSlot {
    /// How many times a drain of the pipe found the signal pending: the signal's deliveries
    /// by the driver ([`Globals::dispatch`] increments it). A `Signal` compares it with the
    /// generation it last saw, and starts from the one current when it is made, so that it
    /// sees every signal delivered after that, including one that arrived before it but was
    /// not delivered yet (tokio's rule).
    generation: AtomicU64,
    /// Set by the handler, cleared by the reader that drained the pipe, which then
    /// increments `generation` and notifies `dispatcher`.
    pending: AtomicBool,
    /// Whether the handler is installed (set once, under `Globals::install`).
    installed: AtomicBool,
    /// The waiters of this signal: notified after each drain of the pipe that found the
    /// signal pending.
    dispatcher: Event,
}

/// Everything process-wide: made on the first `signal` of the process, never dropped.
pub(super) struct Globals {
    slots: Box<[SignalSlot]>,
    /// The pipe's ends (kept here so that their descriptors stay open for the process's
    /// life: the handler writes to `write_fd` at any time).
    receiver: pipe::Receiver,
    _sender: pipe::Sender,
    read_fd: RawFd,
    write_fd: RawFd,
    /// The pipe's read end registered with a driver, replaced once that driver shut down.
    reader: Mutex<Option<Arc<PipeSource>>>,
    /// Held while a handler is being installed.
    install: Mutex<()>,
}

/// The process-wide state, made on first use.
pub(super) fn globals() -> io::Result<&'static Globals> {
    static GLOBALS: OnceLock<Globals> = OnceLock::new();
    static INIT: Mutex<()> = Mutex::new(());
    if let Some(globals) = GLOBALS.get() {
        return Ok(globals);
    }
    let _init = lock(&INIT);
    if let Some(globals) = GLOBALS.get() {
        return Ok(globals);
    }
    // Non-blocking and close-on-exec, both ends.
    let (sender, receiver) = pipe::new()?;
    let globals = Globals {
        slots: (0..SLOTS)
            .map(|_| SignalSlot {
                generation: AtomicU64::new(0),
                pending: AtomicBool::new(false),
                installed: AtomicBool::new(false),
                dispatcher: Event::new(),
            })
            .collect(),
        read_fd: receiver.as_raw_fd(),
        write_fd: sender.as_raw_fd(),
        receiver,
        _sender: sender,
        reader: Mutex::new(None),
        install: Mutex::new(()),
    };
    Ok(GLOBALS.get_or_init(|| globals))
}

/// The driver of the current executor, else the global one's; the global one's as well if
/// the current one has shut down (a `Handle::block_on` after the executor's drop).
fn live_driver() -> Arc<Driver> {
    let driver = current_driver();
    if driver.is_shut_down() {
        Arc::clone(&global().handle().state().driver)
    } else {
        driver
    }
}

impl Globals {
    /// Installs the handler of `signum` (`0 < signum < SLOTS`, not forbidden: checked by the
    /// caller) unless it is installed already.
    pub(super) fn install(&'static self, signum: usize) -> io::Result<()> {
        let slot = &self.slots[signum];
        // Acquire: pairs with the Release store below (the installing thread's work is done).
        if slot.installed.load(Ordering::Acquire) {
            return Ok(());
        }
        let _install = lock(&self.install);
        if slot.installed.load(Ordering::Acquire) {
            return Ok(());
        }
        let raw = libc::c_int::try_from(signum).expect("a slot's number fits a c_int");
        // SAFETY: `signal_hook_registry::register` requires the action to be
        // async-signal-safe. `record` only touches lock-free atomics of a `'static` value and
        // calls write(2), which POSIX lists as async-signal-safe; it allocates nothing, takes
        // no lock and cannot panic. The caller has checked that `raw` is not one of the
        // registry's forbidden signals (whose registration panics).
        let registered =
            unsafe { signal_hook_registry::register(raw, move || self.record(signum)) };
        if let Err(e) = registered {
            return Err(io::Error::new(
                e.kind(),
                format!("filch: cannot install a handler for signal {raw}: {e}"),
            ));
        }
        // Release: pairs with the Acquire loads above.
        slot.installed.store(true, Ordering::Release);
        Ok(())
    }

    /// The signal handler's action (async-signal-safe: see `install`).
    fn record(&self, signum: usize) {
        if let Some(slot) = self.slots.get(signum) {
            // The pending flag first, the byte next: a reader that drains the byte finds the
            // flag.
            slot.pending.store(true, Ordering::SeqCst);
        }
        let byte = 1u8;
        // SAFETY: `write_fd` is the pipe's write end, open for the process's life (the
        // `Globals` holding it is a static that is never dropped); the buffer is one valid
        // byte. write(2) is async-signal-safe. A full pipe (EAGAIN) needs no second byte: a
        // reader is due anyway.
        let _ = unsafe { libc::write(self.write_fd, (&raw const byte).cast(), 1) };
    }

    /// How many times `signum` was delivered so far (drains that found it pending).
    pub(super) fn generation(&self, signum: usize) -> u64 {
        self.slots[signum].generation.load(Ordering::SeqCst)
    }

    /// A listener on `signum`'s dispatcher.
    pub(super) fn listen(&self, signum: usize) -> EventListener {
        self.slots[signum].dispatcher.listen()
    }

    /// The pipe's read end registered with a live driver: the one registered already, else
    /// (the first call, or its driver shut down) a new registration with the current
    /// executor's driver (else the global one's; see [`live_driver`]).
    pub(super) fn reader(&'static self) -> io::Result<Arc<PipeSource>> {
        let mut reader = lock(&self.reader);
        if let Some(source) = reader.as_ref() {
            if !source.driver().is_shut_down() {
                return Ok(Arc::clone(source));
            }
        }
        let source = loop {
            let driver = live_driver();
            match IoSource::new(SourceFd(&self.read_fd), Arc::clone(&driver)) {
                Ok(source) => break Arc::new(source),
                // It shut down since `live_driver` looked: look again (the global executor's
                // driver never shuts down).
                Err(_) if driver.is_shut_down() => continue,
                Err(e) => return Err(e),
            }
        };
        let old = reader.replace(Arc::clone(&source));
        drop(reader);
        // The old source (if no waiter holds it any more) is dropped outside the lock: its
        // deregistration drops wakers.
        drop(old);
        Ok(source)
    }

    /// Reads everything in the pipe: `Ok` with the bytes read, `WouldBlock` if there were
    /// none (the operation of the waiters' `IoSource::io`).
    pub(super) fn drain(&self) -> io::Result<usize> {
        let mut buf = [0u8; 64];
        let mut total = 0;
        loop {
            match (&self.receiver).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // WouldBlock: drained. Any other error cannot happen on a pipe whose both
                // ends this process holds open; it would be taken for an empty pipe.
                Err(_) => break,
            }
        }
        if total == 0 {
            Err(io::ErrorKind::WouldBlock.into())
        } else {
            Ok(total)
        }
    }

    /// After a drain: delivers every signal found pending (its generation moves on) and
    /// wakes its waiters. A signal is delivered to every `Signal` of its kind that exists at
    /// this moment, whichever thread its handler ran on.
    pub(super) fn dispatch(&self) {
        for slot in self.slots.iter() {
            // The load saves a write to the slots of signals that did not arrive.
            if slot.pending.load(Ordering::SeqCst) && slot.pending.swap(false, Ordering::SeqCst) {
                slot.generation.fetch_add(1, Ordering::SeqCst);
                slot.dispatcher.notify(usize::MAX);
            }
        }
    }
}

/// Locks one of this module's std mutexes, ignoring poisoning as `crate::util::sync::Mutex` does.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
