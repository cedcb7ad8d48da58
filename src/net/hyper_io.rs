//! hyper 1.x's `rt::Read` and `rt::Write` for the stream sockets (cargo feature `hyper`),
//! and the read into uninitialised memory that both this and `tokio_io.rs` use.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use mio::event::Source;

use super::stream::StreamOps;
use super::TcpStream;
#[cfg(unix)]
use super::UnixStream;
use crate::io::IoSource;

/// Reads from `source` into the uninitialised `dst`; the number of bytes now initialised
/// at its start.
pub(super) fn poll_read_uninit<E: Source + AsRawFd>(
    source: &IoSource<E>,
    cx: &mut Context<'_>,
    dst: &mut [MaybeUninit<u8>],
) -> Poll<io::Result<usize>> {
    let len = dst.len();
    source.poll_read_stream(cx, len, |io| {
        // SAFETY: `dst` is valid for writes of `len` bytes, and `recv` writes at most that
        // many (it never reads them, so their being uninitialised does not matter).
        let n = unsafe { libc::recv(io.as_raw_fd(), dst.as_mut_ptr().cast(), len, 0) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    })
}

macro_rules! hyper_io {
    ($ty:ty) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]

        impl hyper::rt::Read for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                mut buf: hyper::rt::ReadBufCursor<'_>,
            ) -> Poll<io::Result<()>> {
                // SAFETY: `poll_read_uninit` only writes into the slice (see there).
                let n = ready!(poll_read_uninit(self.source(), cx, unsafe { buf.as_mut() }))?;
                // SAFETY: the kernel initialised the first `n` bytes of the cursor.
                unsafe { buf.advance(n) };
                Poll::Ready(Ok(()))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]

        impl hyper::rt::Write for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.poll_write_vectored_priv(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.poll_close_priv()
            }
        }
    };
}

hyper_io!(TcpStream);
#[cfg(unix)]
hyper_io!(UnixStream);
