//! filch's IO driver: one per executor ([`Driver`], `driver.rs`), the readiness of each
//! registered source ([`ScheduledIo`], `scheduled_io.rs`), and [`IoSource`] (`source.rs`),
//! the wrapper the net types put around a mio source to wait for readiness and retry on
//! `WouldBlock`.
//!
//! Layers: `driver.rs` and `scheduled_io.rs` sit below the executor's state (which holds the
//! driver); `source.rs` sits above it (it spends the task's cooperative budget, `coop.rs`,
//! which reads the worker context).
//!
//! An [`IoSource`] is registered once, with the driver of the executor current where it is
//! made (else the global one), and deregistered when dropped. It can be polled from any
//! thread: its readiness is an atomic word and its waiters are wakers.
//!
//! **Invariant:** an operation that returned `WouldBlock` clears the readiness it was tried
//! under (unless a newer event arrived, `scheduled_io.rs`), so that the task waits for the
//! next edge; every other result leaves it, so the next operation is tried at once.

pub(crate) mod driver;
pub(crate) mod scheduled_io;
mod source;

pub(crate) use driver::{gone, Driver};
pub(crate) use scheduled_io::{Direction, ReadyEvent, ScheduledIo};
pub(crate) use source::IoSource;
