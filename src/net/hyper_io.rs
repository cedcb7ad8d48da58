//! hyper 1.x's `rt::Read` and `rt::Write` for the stream sockets (cargo feature `hyper`).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::stream::StreamOps;
use super::TcpStream;
#[cfg(unix)]
use super::UnixStream;

macro_rules! hyper_io {
    ($ty:ty) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]

        impl hyper::rt::Read for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                mut buf: hyper::rt::ReadBufCursor<'_>,
            ) -> Poll<io::Result<()>> {
                // SAFETY: `poll_read_uninit_priv` only writes into the slice (see there).
                let n = ready!(self.poll_read_uninit_priv(cx, unsafe { buf.as_mut() }))?;
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
