//! [`IoSource`]: a mio source registered with its executor's driver (see the `io` module
//! docs for its invariant).

use std::io;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::event::Source;

use super::{gone, Direction, Driver, ReadyEvent, ScheduledIo};
use crate::coop;

/// A mio source registered with a driver (module docs).
pub(crate) struct IoSource<E: Source> {
    /// `None` once dropped (taken in `Drop` to deregister it first).
    io: Option<E>,
    driver: Arc<Driver>,
    sched: Arc<ScheduledIo>,
}

impl<E: Source> IoSource<E> {
    /// Registers `io` with `driver`.
    pub(crate) fn new(mut io: E, driver: Arc<Driver>) -> io::Result<IoSource<E>> {
        let sched = driver.register(&mut io)?;
        Ok(IoSource {
            io: Some(io),
            driver,
            sched,
        })
    }

    /// The mio source.
    pub(crate) fn get_ref(&self) -> &E {
        self.io
            .as_ref()
            .expect("an IoSource is only emptied by its drop")
    }

    /// The driver it is registered with.
    pub(crate) fn driver(&self) -> &Arc<Driver> {
        &self.driver
    }

    /// Waits until the source is ready in `direction` (or closed, or failed).
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.sched
            .poll_ready(cx, direction)
            .map(|r| r.map_err(|_| gone()))
    }

    /// Clears readiness after an operation returned `WouldBlock` under `event`.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.sched.clear_readiness(event);
    }

    /// Runs `op` once the source is ready in `direction`, retrying after each `WouldBlock`
    /// (which clears the readiness it was tried under). Spends one unit of the task's
    /// cooperative budget when `op` completes; yields when the budget is spent.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut(&E) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(coop::poll_proceed(cx));
        loop {
            let event = ready!(self.poll_ready(cx, direction))?;
            match op(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(event),
                result => {
                    coop::spend();
                    return Poll::Ready(result);
                }
            }
        }
    }

    /// Like [`IoSource::poll_io`] for a read of a stream socket into `len` bytes: a short
    /// read (`0 < n < len`) also clears the readability, since edge-triggered epoll reports
    /// the next arrival as a new event (and a racing one bumps the tick); this saves the
    /// read that would fail with `WouldBlock`.
    pub(crate) fn poll_read_stream(
        &self,
        cx: &mut Context<'_>,
        len: usize,
        mut op: impl FnMut(&E) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        ready!(coop::poll_proceed(cx));
        loop {
            let event = ready!(self.poll_ready(cx, Direction::Read))?;
            match op(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(event),
                Ok(n) if n > 0 && n < len && !event.is_read_closed() => {
                    self.clear_readiness(event);
                    coop::spend();
                    return Poll::Ready(Ok(n));
                }
                result => {
                    coop::spend();
                    return Poll::Ready(result);
                }
            }
        }
    }
}

impl<E: Source> Drop for IoSource<E> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            self.driver.deregister(&mut io, &self.sched);
        }
    }
}
