//! What the stream sockets ([`super::TcpStream`], [`super::UnixStream`]) share: reading,
//! writing and shutting down through an [`IoSource`], the `futures::io` impls for the type
//! and for a shared reference to it (the [`stream_traits`] macro), and the accept back-off
//! of the listeners.
//!
//! TCP reads clear readability after a short read unless the socket had urgent data; Unix
//! stream reads and all writes clear it on `WouldBlock` only (`IoSource::poll_read_stream`).

use std::io::{self, IoSlice, Read, Write};
use std::net::Shutdown;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mio::event::Source;

use crate::io::{Direction, IoSource};
use crate::sync::Mutex;

/// The operations of a stream socket over a mio stream `E`.
pub(crate) trait StreamOps<E>
where
    E: Source + std::os::fd::AsRawFd,
    for<'a> &'a E: Read + Write,
{
    /// Whether a short read means the socket's receive queue is empty (see
    /// `IoSource::poll_read_stream`): true for TCP, false for Unix streams, whose reads
    /// stop after a segment that carried descriptors.
    const SHORT_READ_DRAINS: bool;

    fn source(&self) -> &IoSource<E>;
    fn shutdown_raw(io: &E, how: Shutdown) -> io::Result<()>;

    fn poll_read_priv(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let len = buf.len();
        self.source()
            .poll_read_stream(cx, len, Self::SHORT_READ_DRAINS, |io| (&mut &*io).read(buf))
    }

    /// Reads into the uninitialised `dst` (hyper's and tokio's read traits); the number of
    /// bytes now initialised at its start.
    #[cfg(any(feature = "hyper", feature = "tokio-io"))]
    fn poll_read_uninit_priv(
        &self,
        cx: &mut Context<'_>,
        dst: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        let len = dst.len();
        self.source()
            .poll_read_stream(cx, len, Self::SHORT_READ_DRAINS, |io| {
                // SAFETY: `dst` is valid for writes of `len` bytes, and `recv` writes at most
                // that many (it never reads them, so their being uninitialised does not
                // matter).
                let n = unsafe { libc::recv(io.as_raw_fd(), dst.as_mut_ptr().cast(), len, 0) };
                // Non-negative `n` is at most `len`, a `usize`: the cast is lossless.
                usize::try_from(n).map_err(|_| io::Error::last_os_error())
            })
    }

    fn poll_write_priv(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.source()
            .poll_io(cx, Direction::Write, |io| (&mut &*io).write(buf))
    }

    fn poll_write_vectored_priv(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.source()
            .poll_io(cx, Direction::Write, |io| (&mut &*io).write_vectored(bufs))
    }

    fn poll_close_priv(&self) -> Poll<io::Result<()>> {
        match Self::shutdown_raw(self.source().get_ref(), Shutdown::Write) {
            // Already shut down, or the peer is gone: closed either way.
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Poll::Ready(Ok(())),
            r => Poll::Ready(r),
        }
    }
}

/// Implements `futures::io::AsyncRead` and `AsyncWrite` for a stream type and for a shared
/// reference to it, through its [`StreamOps`].
macro_rules! stream_traits {
    ($ty:ty) => {
        impl futures::io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.get_mut().poll_read_priv(cx, buf)
            }
        }

        impl futures::io::AsyncRead for &$ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                (**self).poll_read_priv(cx, buf)
            }
        }

        impl futures::io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.get_mut().poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.get_mut().poll_write_vectored_priv(cx, bufs)
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.get_mut().poll_close_priv()
            }
        }

        impl futures::io::AsyncWrite for &$ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                (**self).poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                (**self).poll_write_vectored_priv(cx, bufs)
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                (**self).poll_close_priv()
            }
        }
    };
}
pub(crate) use stream_traits;

/// The back-off of a listener after it ran out of descriptors (`net` module docs).
#[derive(Default)]
pub(crate) struct AcceptBackoff {
    until: Mutex<Option<Instant>>,
}

impl AcceptBackoff {
    /// Waits out a back-off started by an earlier failed accept, if any.
    pub(crate) async fn wait(&self) {
        let until = *self.until.lock();
        if let Some(until) = until {
            if Instant::now() < until {
                crate::time::sleep_until(until).await;
            }
        }
    }

    /// Notes the result of an accept: an out-of-descriptors error starts a back-off.
    pub(crate) fn note<T>(&self, result: &io::Result<T>) {
        if let Err(e) = result {
            if out_of_descriptors(e) {
                *self.until.lock() = Some(Instant::now() + ACCEPT_BACKOFF);
            }
        }
    }
}

/// How long a listener waits after an `accept` failed with `EMFILE`/`ENFILE` before it
/// tries again (`net` module docs).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Whether an accept error means the process or system is out of descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE))
}
