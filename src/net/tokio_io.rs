//! tokio's `AsyncRead` and `AsyncWrite` (cargo feature `tokio-io`) on every stream type,
//! shared reference and half that has the `futures::io` ones: [`TcpStream`], `&TcpStream`,
//! the owned and borrowed halves, and on unix [`UnixStream`], `&UnixStream` and its halves.
//!
//! Reads go through the stream's read into uninitialised memory (no zeroing of tokio's
//! `ReadBuf`); writes, flushes and shutdowns are the `futures::io::AsyncWrite` impl of the
//! same type (a write half's shutdown is its close: it shuts down the stream's writing side).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::stream::StreamOps;
use super::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use super::TcpStream;
#[cfg(unix)]
use super::UnixStream;

/// tokio's `AsyncRead` for `$ty`, reading from the stream `$stream` names (`$this` is
/// `&$ty`).
macro_rules! tokio_read {
    ([$($generics:tt)*] $ty:ty, $this:ident => $stream:expr) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "tokio-io")))]
        impl<$($generics)*> tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let $this = &*self;
                let stream = $stream;
                // SAFETY: `poll_read_uninit_priv` only writes into the slice.
                let n = ready!(stream.poll_read_uninit_priv(cx, unsafe { buf.unfilled_mut() }))?;
                // SAFETY: the kernel initialised the first `n` unfilled bytes.
                unsafe { buf.assume_init(n) };
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }
    };
}

/// tokio's `AsyncWrite` for `$ty`, as its `futures::io::AsyncWrite` impl.
macro_rules! tokio_write {
    ([$($generics:tt)*] $ty:ty) => {
        super::stream::write_through_futures!(
            "tokio-io",
            tokio::io::AsyncWrite,
            [$($generics)*] $ty
        );
    };
}

tokio_read!([] TcpStream, this => this);
tokio_write!([] TcpStream);
tokio_read!(['a] &'a TcpStream, this => *this);
tokio_write!(['a] &'a TcpStream);
tokio_read!([] OwnedReadHalf, this => AsRef::<TcpStream>::as_ref(this));
tokio_write!([] OwnedWriteHalf);
tokio_read!(['a] ReadHalf<'a>, this => AsRef::<TcpStream>::as_ref(this));
tokio_write!(['a] WriteHalf<'a>);
#[cfg(unix)]
tokio_read!([] UnixStream, this => this);
#[cfg(unix)]
tokio_write!([] UnixStream);
#[cfg(unix)]
tokio_read!(['a] &'a UnixStream, this => *this);
#[cfg(unix)]
tokio_write!(['a] &'a UnixStream);
#[cfg(unix)]
tokio_read!([] super::unix::OwnedReadHalf, this => AsRef::<UnixStream>::as_ref(this));
#[cfg(unix)]
tokio_write!([] super::unix::OwnedWriteHalf);
#[cfg(unix)]
tokio_read!(['a] super::unix::ReadHalf<'a>, this => AsRef::<UnixStream>::as_ref(this));
#[cfg(unix)]
tokio_write!(['a] super::unix::WriteHalf<'a>);
