//! hyper 1.x's `rt::Read` and `rt::Write` for the stream sockets (cargo feature `hyper`):
//! reads into uninitialised memory, writes as the streams' `futures::io::AsyncWrite`.

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

        super::stream::write_through_futures!("hyper", hyper::rt::Write, [] $ty);
    };
}

hyper_io!(TcpStream);
#[cfg(unix)]
hyper_io!(UnixStream);
