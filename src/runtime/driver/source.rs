//! [`IoSource`]: a mio source registered with its executor's driver. Its retry rule (a
//! `WouldBlock` clears the readiness it was tried under, unless an event came since) is
//! `ScheduledIo`'s, stated in `runtime/io/scheduled_io.rs`.

use std::io;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::event::Source;

use crate::runtime::coop;
use crate::runtime::driver::{gone, Driver};
pub(crate) use crate::runtime::io::scheduled_io::Direction;
use crate::runtime::io::scheduled_io::{ReadyEvent, ScheduledIo, WaitKey};

/// A mio source registered with a driver (module docs).
pub(crate) struct IoSource<E: Source> {
    /// `None` once dropped (taken in `Drop` to deregister it first).
    io: Option<E>,
    driver: Arc<Driver>,
    sched: Arc<ScheduledIo>,
    /// The source as tokio-console sees it: a resource of kind `io` named after the mio
    /// type (`TcpStream`, `UdpSocket`, …), whose waiting polls are its ops
    /// (`runtime/observe/console/resource.rs`).
    #[cfg(feature = "console")]
    console: crate::runtime::observe::console::resource::Resource,
}

/// The name tokio-console shows for the op of a poll in `direction`.
#[cfg(feature = "console")]
fn op_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Read => "poll_read",
        Direction::Write => "poll_write",
    }
}

impl<E: Source> IoSource<E> {
    /// Registers `io` with `driver`.
    pub(crate) fn new(mut io: E, driver: Arc<Driver>) -> io::Result<IoSource<E>> {
        let sched = driver.io().register(&mut io)?;
        #[cfg(feature = "console")]
        let console = {
            let type_name = std::any::type_name::<E>();
            let short = type_name.rsplit("::").next().unwrap_or(type_name);
            crate::runtime::observe::console::resource::Resource::new(
                short,
                "io",
                "IoSource::poll_io",
                None,
            )
        };
        Ok(IoSource {
            io: Some(io),
            driver,
            sched,
            #[cfg(feature = "console")]
            console,
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

    /// Clears readiness after an operation returned `WouldBlock` under `event`.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.sched.clear_readiness(event);
    }

    /// Runs `op` once the source is ready in `direction`, retrying after each `WouldBlock`
    /// (which clears the readiness it was tried under). For poll methods with no future of
    /// their own (the `AsyncRead`/`AsyncWrite` impls): the task waits in an anonymous
    /// entry of the direction's waiter list (`runtime/io/scheduled_io.rs`). Spends one unit
    /// of the task's cooperative budget when `op` completes; yields when the budget is
    /// spent.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        op: impl FnMut(&E) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.poll_io_as(cx, direction, None, op, |_, _| false)
    }

    /// [`IoSource::poll_io`] as a future that holds its own entry in the direction's waiter
    /// list from its first wait until it is dropped: what every `async fn` operation of the
    /// net types uses, so that any number of them can wait on one source.
    pub(crate) async fn io<R>(
        &self,
        direction: Direction,
        mut op: impl FnMut(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let mut waiter = OwnedWaiter::new(&self.sched, direction);
        std::future::poll_fn(|cx| {
            self.poll_io_as(cx, direction, Some(&mut waiter.key), &mut op, |_, _| false)
        })
        .await
    }

    /// Waits until the source is ready in `direction` (or closed, or failed), holding its own
    /// waiter entry (as [`IoSource::io`]); clears nothing. Spends one unit of the budget.
    pub(crate) async fn ready(&self, direction: Direction) -> io::Result<()> {
        let mut waiter = OwnedWaiter::new(&self.sched, direction);
        std::future::poll_fn(|cx| self.poll_ready_with(cx, direction, Some(&mut waiter.key))).await
    }

    /// [`IoSource::ready`] as a poll function (an anonymous waiter entry, as
    /// [`IoSource::poll_io`]): ready once the source is ready in `direction` (or closed, or
    /// failed); clears nothing. Spends one unit of the budget.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<()>> {
        self.poll_ready_with(cx, direction, None)
    }

    /// The body of [`IoSource::ready`] and [`IoSource::poll_ready`], with the caller's waiter
    /// entry if it has one.
    fn poll_ready_with(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: Option<&mut WaitKey>,
    ) -> Poll<io::Result<()>> {
        self.traced(direction, || -> Poll<io::Result<()>> {
            ready!(coop::poll_proceed(cx));
            ready!(self.poll_ready_as(cx, direction, key))?;
            coop::spend();
            Poll::Ready(Ok(()))
        })
    }

    /// Runs `poll`, a wait in `direction`; with `console`, as the source's poll op for
    /// tokio-console.
    #[inline]
    #[cfg_attr(not(feature = "console"), allow(unused_variables))]
    fn traced<T>(&self, direction: Direction, poll: impl FnOnce() -> Poll<T>) -> Poll<T> {
        #[cfg(feature = "console")]
        return self.console.poll_op(op_name(direction), poll);
        #[cfg(not(feature = "console"))]
        poll()
    }

    /// Runs `op` once, now, if the source is ready in `direction`: `WouldBlock` if it is not
    /// (then `op` does not run), or if `op` would block (which clears that readiness, so
    /// that the next wait waits for a new edge). Spends no budget and stores no waker.
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let event = match self.sched.ready_now(direction) {
            None => return Err(io::ErrorKind::WouldBlock.into()),
            Some(Err(_)) => return Err(gone()),
            Some(Ok(event)) => event,
        };
        let result = op(self.get_ref());
        if matches!(&result, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.clear_readiness(event);
        }
        result
    }

    /// The loop behind every waiting operation: `key` is the caller's owned waiter entry,
    /// if it has one; `drained` says whether a successful result also shows the readiness
    /// used up (then it is cleared as after a `WouldBlock`, which saves that call).
    fn poll_io_as<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: Option<&mut WaitKey>,
        op: impl FnMut(&E) -> io::Result<R>,
        drained: impl Fn(&R, &ReadyEvent) -> bool,
    ) -> Poll<io::Result<R>> {
        self.traced(direction, || {
            self.poll_io_now(cx, direction, key, op, drained)
        })
    }

    /// [`poll_io_as`](IoSource::poll_io_as) itself.
    #[inline]
    fn poll_io_now<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut key: Option<&mut WaitKey>,
        mut op: impl FnMut(&E) -> io::Result<R>,
        drained: impl Fn(&R, &ReadyEvent) -> bool,
    ) -> Poll<io::Result<R>> {
        ready!(coop::poll_proceed(cx));
        let mut cleared_at = None;
        loop {
            let event = ready!(self.poll_ready_as(cx, direction, key.as_deref_mut()))?;
            if cleared_at == Some(event.tick) {
                // Still ready at the tick whose readiness a `WouldBlock` just cleared: only
                // bits that are never cleared (closed) are left, yet the operation would
                // block. Yield rather than spin inside this poll.
                return coop::yield_now(cx);
            }
            match op(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.clear_readiness(event);
                    cleared_at = Some(event.tick);
                }
                result => {
                    if matches!(&result, Ok(r) if drained(r, &event)) {
                        self.clear_readiness(event);
                    }
                    coop::spend();
                    return Poll::Ready(result);
                }
            }
        }
    }

    fn poll_ready_as(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: Option<&mut WaitKey>,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.sched
            .poll_ready(cx, direction, key)
            .map(|r| r.map_err(|_| gone()))
    }

    /// Like [`IoSource::poll_io`] for a read of a stream socket into `len` bytes. With
    /// `short_read_drains` (TCP), a short read (`0 < n < len`) also clears the readability:
    /// edge-triggered epoll reports the next arrival as a new event (and a racing one bumps
    /// the tick), which saves the read that would fail with `WouldBlock`. Not once the
    /// socket had urgent data, where a read stops at the urgent mark with data behind it;
    /// and never for Unix streams (`short_read_drains` false), where a read stops after a
    /// segment that carried descriptors. Then only a `WouldBlock` clears it.
    pub(crate) fn poll_read_stream(
        &self,
        cx: &mut Context<'_>,
        len: usize,
        short_read_drains: bool,
        op: impl FnMut(&E) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        self.poll_io_as(cx, Direction::Read, None, op, |&n, event| {
            short_read_drains
                && n > 0
                && n < len
                && !event.is_read_closed()
                && !event.had_urgent_data()
        })
    }
}

/// An operation future's own entry in a waiter list; removed when the future is dropped.
struct OwnedWaiter<'a> {
    sched: &'a ScheduledIo,
    direction: Direction,
    key: WaitKey,
}

impl<'a> OwnedWaiter<'a> {
    fn new(sched: &'a ScheduledIo, direction: Direction) -> OwnedWaiter<'a> {
        OwnedWaiter {
            sched,
            direction,
            key: None,
        }
    }
}

impl Drop for OwnedWaiter<'_> {
    fn drop(&mut self) {
        self.sched.remove_waiter(self.direction, self.key.take());
    }
}

impl<E: Source> Drop for IoSource<E> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            self.driver.io().deregister(&mut io, &self.sched);
        }
    }
}
