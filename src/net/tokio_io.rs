//! tokio's `AsyncRead` and `AsyncWrite` for the stream sockets (cargo feature `tokio-io`).

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

/// Reads from `source` into the uninitialised `dst` (as `hyper_io.rs` does; kept here too
/// so that either feature builds alone).
fn poll_read_uninit<E: Source + AsRawFd>(
    source: &IoSource<E>,
    cx: &mut Context<'_>,
    dst: &mut [MaybeUninit<u8>],
) -> Poll<io::Result<usize>> {
    let len = dst.len();
    source.poll_read_stream(cx, len, |io| {
        // SAFETY: `dst` is valid for writes of `len` bytes, and `recv` writes at most that
        // many (it never reads them).
        let n = unsafe { libc::recv(io.as_raw_fd(), dst.as_mut_ptr().cast(), len, 0) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    })
}

macro_rules! tokio_io {
    ($ty:ty) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "tokio-io")))]

        impl tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                // SAFETY: `poll_read_uninit` only writes into the slice.
                let n = ready!(poll_read_uninit(self.source(), cx, unsafe {
                    buf.unfilled_mut()
                }))?;
                // SAFETY: the kernel initialised the first `n` unfilled bytes.
                unsafe { buf.assume_init(n) };
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "tokio-io")))]

        impl tokio::io::AsyncWrite for $ty {
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

tokio_io!(TcpStream);
#[cfg(unix)]
tokio_io!(UnixStream);
