//! tokio's `AsyncRead` and `AsyncWrite` for the stream sockets (cargo feature `tokio-io`).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::stream::StreamOps;
use super::TcpStream;
#[cfg(unix)]
use super::UnixStream;

macro_rules! tokio_io {
    ($ty:ty) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "tokio-io")))]

        impl tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                // SAFETY: `poll_read_uninit_priv` only writes into the slice.
                let n = ready!(self.poll_read_uninit_priv(cx, unsafe { buf.unfilled_mut() }))?;
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
