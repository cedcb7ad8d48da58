//! Signals, delivered through filch's own IO driver: [`ctrl_c`] and, on unix,
//! [`unix::signal`] for any catchable signal.
//!
//! ```no_run
//! filch::block_on(async {
//!     // Waits for the next SIGINT (Ctrl-C): the process is not killed by it.
//!     filch::signal::ctrl_c().await?;
//!     println!("shutting down");
//!     Ok::<_, std::io::Error>(())
//! })
//! .unwrap();
//! ```
//!
//! # How a signal reaches a task
//!
//! - **The handler.** The first [`unix::signal`] for a signal number installs one
//!   process-wide handler for it, through `signal-hook-registry` (which keeps any handler
//!   installed before it and chains to it). The handler does only async-signal-safe work: it
//!   sets the signal's *pending* flag (an atomic) and writes one byte to a process-wide
//!   self-pipe (non-blocking; a full pipe already wakes a reader, so errors are ignored). It stays
//!   installed for the rest of the process: the signal's default action (terminating the process,
//!   for SIGINT and SIGTERM) is replaced from then on, even once every [`unix::Signal`] is dropped.
//! - **The pipe.** Its read end is an IO source of filch's driver, registered with the driver
//!   of the executor current where the process's first `signal` is made (else the global
//!   executor's), as every filch IO object is. No thread of its own: the workers waiting in
//!   that driver see the pipe become readable. The write end is never closed.
//! - **Delivery.** Whichever waiter gets to read the pipe drains it, then, for every signal
//!   whose pending flag it clears, increments that signal's *generation* (an atomic counter
//!   of its deliveries) and notifies its *dispatcher* (an `event_listener::Event` per signal
//!   number), which wakes the waiters of that signal wherever they are (another task,
//!   another executor, a plain thread). **The rule** (tokio's): a signal that arrives while
//!   its kind is registered reaches every [`unix::Signal`] of its kind that exists when it is
//!   delivered, whichever thread the kernel ran its handler on: a `Signal` made after the
//!   handler ran but before the delivery sees it.
//! - **Who is woken.** Each [`unix::Signal`] remembers the generation it last saw (at first,
//!   the one current when it was made). A task in [`unix::Signal::recv`] first compares it
//!   with the signal's generation (different: a signal was delivered, `recv` returns); else
//!   it listens on the dispatcher, checks the generation once more, and waits for the pipe to
//!   be readable, which it drains and delivers itself. So any number of `Signal`s of one kind
//!   each see every signal, and the signals that arrive between two `recv` calls of one
//!   `Signal` make its next `recv` return at once, as one.
//! - **When the pipe's executor shuts down.** Its driver reports the pipe as gone to every
//!   waiter; the next `signal`, and each waiting or later `recv`, registers the read end
//!   afresh with the driver of the executor current where it runs (a shut-down one, as in a
//!   `Handle::block_on` after the drop, gives way to the global executor's). Bytes left in
//!   the pipe are reported by the new registration at once; nothing is lost, since a waiter
//!   always checks its generation first. Until then the old, shut-down driver stays
//!   allocated (the pipe's source holds it).
//!
//! The pipe's registration counts as one IO source of its executor
//! ([`Stats::io_sources`](crate::Stats::io_sources)).

use std::io;

#[cfg(unix)]
mod registry;
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub mod unix;

/// Waits for the next SIGINT (Ctrl-C) of the process, through filch's driver.
///
/// The handler is installed on the first poll (not when `ctrl_c()` is called), and the future
/// completes on the first SIGINT delivered after that poll: one that arrived before it and
/// that no listener has delivered yet counts too (a second Ctrl-C pressed while the program
/// was not listening is not lost; module docs, "Delivery"). From the first poll on, SIGINT
/// no longer terminates the process, for the rest of its life. An error means that the
/// handler could not be installed, or the signal pipe could not be registered with the
/// driver. Outside unix, the error `Unsupported`.
///
/// ```no_run
/// let ex = filch::Executor::new();
/// ex.block_on(async {
///     let server = filch::spawn(async { /* serve until aborted */ });
///     filch::signal::ctrl_c().await.expect("cannot wait for Ctrl-C");
///     server.abort();
/// });
/// ```
pub async fn ctrl_c() -> io::Result<()> {
    #[cfg(unix)]
    {
        let mut interrupts = unix::signal(unix::SignalKind::interrupt())?;
        interrupts.recv().await;
        Ok(())
    }
    #[cfg(not(unix))]
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "filch: signals are supported on unix only",
        ))
    }
}
