//! [`IoSource`] (`source.rs`): the wrapper the net types put around a mio source, registered
//! with the IO driver of the executor current where it is made (else the global one's;
//! `driver/io.rs`), to wait for readiness and retry on `WouldBlock`; and [`Direction`], the
//! readiness it waits for (`driver/scheduled_io.rs`).
//!
//! An [`IoSource`] is registered once and deregistered when dropped. It can be polled from
//! any thread: its readiness is an atomic word and its waiters are wakers. It spends the
//! task's cooperative budget (`coop.rs`).
//!
//! **Invariant:** an operation that returned `WouldBlock` clears the readiness it was tried
//! under (unless a newer event arrived, `driver/scheduled_io.rs`), so that the task waits
//! for the next edge; every other result leaves it, so the next operation is tried at once.

mod source;

pub(crate) use crate::driver::scheduled_io::Direction;
pub(crate) use source::IoSource;
