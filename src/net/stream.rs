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

use crate::runtime::driver::source::{Direction, IoSource};
use crate::util::sync::Mutex;

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
        $crate::net::stream::futures_read!([] $ty, this => this);
        $crate::net::stream::futures_read!(['a] &'a $ty, this => *this);
        $crate::net::stream::futures_write!([] $ty, this => this);
        $crate::net::stream::futures_write!(['a] &'a $ty, this => *this);
    };
}
pub(crate) use stream_traits;

/// `futures::io::AsyncRead` for `$ty`, reading from the stream `$stream` names (`$this`
/// is `&$ty`).
macro_rules! futures_read {
    ([$($generics:tt)*] $ty:ty, $this:ident => $stream:expr) => {
        impl<$($generics)*> futures::io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $this = &*self;
                $stream.poll_read_priv(cx, buf)
            }
        }
    };
}
pub(crate) use futures_read;

/// `futures::io::AsyncWrite` for `$ty`, writing to the stream `$stream` names (`$this` is
/// `&$ty`); `poll_close` shuts down the stream's writing side, after `$on_close` (run on
/// `&mut $ty`, as `$this`), if given.
macro_rules! futures_write {
    ([$($generics:tt)*] $ty:ty, $this:ident => $stream:expr $(, on_close: $on_close:expr)?) => {
        impl<$($generics)*> futures::io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $this = &*self;
                $stream.poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $this = &*self;
                $stream.poll_write_vectored_priv(cx, bufs)
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }

            // `mut` for `$on_close` only.
            #[allow(unused_mut)]
            fn poll_close(
                mut self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                $({
                    let $this = &mut *self;
                    $on_close;
                })?
                let $this = &*self;
                $stream.poll_close_priv()
            }
        }
    };
}
pub(crate) use futures_write;

/// `$trait` for `$ty` (with `[$generics]`), as its `futures::io::AsyncWrite` impl (a
/// shutdown is its `poll_close`): hyper's `rt::Write` and tokio's `AsyncWrite` have the same
/// methods. `$feature` is the cargo feature the impl needs (for the docs).
#[cfg(any(feature = "hyper", feature = "tokio-io"))]
macro_rules! write_through_futures {
    ($feature:literal, $trait:path, [$($generics:tt)*] $ty:ty) => {
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        impl<$($generics)*> $trait for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                futures::io::AsyncWrite::poll_write(self, cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                futures::io::AsyncWrite::poll_write_vectored(self, cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                futures::io::AsyncWrite::poll_flush(self, cx)
            }

            fn poll_shutdown(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                futures::io::AsyncWrite::poll_close(self, cx)
            }
        }
    };
}
#[cfg(any(feature = "hyper", feature = "tokio-io"))]
pub(crate) use write_through_futures;

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
                crate::time::sleep_until(until.into()).await;
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

/// The operations and halves of a stream type `$stream` (`StreamOps` in scope where it is
/// invoked; `$make_pair`: doc-test lines that make a connected `mut client` and `mut
/// server` of it): readiness, `try_read`/`try_write`, `peek`, `split`, `into_split`; the
/// `OwnedReadHalf` and `OwnedWriteHalf` (of `into_split`, put back together by
/// `OwnedReadHalf::reunite`, `ReuniteError` when they come from two streams), and `ReadHalf` and
/// `WriteHalf` (of `split`, borrowed), with their `futures::io` impls. A macro, as
/// [`stream_traits`]: `net::tcp` and `net::unix` each have their own halves, as tokio's do, and
/// their docs name their own stream type.
macro_rules! stream_halves {
    ($stream:ident, $make_pair:literal) => {
        impl $stream {
            #[doc = concat!(
                "Waits until the stream can be read (data, end of file, or an error), without ",
                "reading: pair it with [`", stringify!($stream), "::try_read`]. Any number of ",
                "tasks may wait.\n\n",
                "```\n# filch::block_on(async {\n", $make_pair, "\n",
                "server.writable().await?;\n",
                "server.try_write(b\"hi\")?;\n",
                "let mut buf = [0; 8];\n",
                "let n = loop {\n",
                "    client.readable().await?;\n",
                "    match client.try_read(&mut buf) {\n",
                "        Ok(n) => break n,\n",
                "        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,\n",
                "        Err(e) => return Err(e),\n",
                "    }\n",
                "};\n",
                "assert_eq!(&buf[..n], b\"hi\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub async fn readable(&self) -> std::io::Result<()> {
                self.source().ready($crate::runtime::driver::source::Direction::Read).await
            }

            #[doc = concat!(
                "Waits until the stream can be written (or has failed), without writing: pair ",
                "it with [`", stringify!($stream), "::try_write`] (example: [`",
                stringify!($stream), "::readable`])."
            )]
            pub async fn writable(&self) -> std::io::Result<()> {
                self.source().ready($crate::runtime::driver::source::Direction::Write).await
            }

            #[doc = concat!(
                "Reads what is there now into `buf`, without waiting: `WouldBlock` if nothing ",
                "is (the readiness is then cleared, and [`", stringify!($stream),
                "::readable`] waits for new data); `Ok(0)` at end of file (example: [`",
                stringify!($stream), "::readable`])."
            )]
            pub fn try_read(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                use std::io::Read;
                self.source()
                    .try_io($crate::runtime::driver::source::Direction::Read, |s| (&mut &*s).read(buf))
            }

            #[doc = concat!(
                "Writes what fits now from `buf`, without waiting: `WouldBlock` if nothing ",
                "fits (example: [`", stringify!($stream), "::readable`])."
            )]
            pub fn try_write(&self, buf: &[u8]) -> std::io::Result<usize> {
                use std::io::Write;
                self.source()
                    .try_io($crate::runtime::driver::source::Direction::Write, |s| (&mut &*s).write(buf))
            }

            #[doc = concat!(
                "Reads what has come into `buf` without taking it off the stream: the next ",
                "read (or peek) sees the same bytes. Waits until there is something (or end ",
                "of file, `Ok(0)`).\n\n",
                "```\nuse futures::AsyncReadExt;\n# filch::block_on(async {\n", $make_pair, "\n",
                "client.writable().await?;\n",
                "client.try_write(b\"hi\")?;\n",
                "let mut buf = [0; 2];\n",
                "let peeked = server.peek(&mut buf).await?;\n",
                "let mut again = [0; 2];\n",
                "server.read_exact(&mut again).await?;\n",
                "assert_eq!((peeked, &again), (2, b\"hi\"));\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub async fn peek(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.source()
                    .io($crate::runtime::driver::source::Direction::Read, |s| $crate::net::stream::peek_raw(s, buf))
                    .await
            }

            #[doc = concat!(
                "Splits the stream into a read half and a write half that borrow it, with no ",
                "lock and no reference count (tokio's `split`); for halves that move to other ",
                "tasks, see [`", stringify!($stream), "::into_split`]. Closing or shutting ",
                "down the write half shuts down the stream's writing side; dropping it does ",
                "nothing.\n\n",
                "`futures::io::AsyncReadExt` has a `split(self)` too, which Rust picks for ",
                "`stream.split()` when that trait is in scope; `", stringify!($stream),
                "::split(&mut stream)` (or `(&mut stream).split()`) always means this one.\n\n",
                "```\nuse futures::{AsyncReadExt, AsyncWriteExt};\n# filch::block_on(async {\n",
                $make_pair, "\n",
                "let (mut read, mut write) = filch::net::", stringify!($stream),
                "::split(&mut server);\n",
                "// Echo one message: both halves in one task, at once.\n",
                "let echo = async {\n",
                "    let mut buf = [0; 5];\n",
                "    read.read_exact(&mut buf).await?;\n",
                "    write.write_all(&buf).await\n",
                "};\n",
                "let talk = async {\n",
                "    client.write_all(b\"hello\").await?;\n",
                "    let mut back = [0; 5];\n",
                "    client.read_exact(&mut back).await?;\n",
                "    Ok::<_, std::io::Error>(back)\n",
                "};\n",
                "let (echoed, back) = futures::join!(echo, talk);\n",
                "echoed?;\n",
                "assert_eq!(&back?, b\"hello\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
                let stream = &*self;
                (ReadHalf { stream }, WriteHalf { stream })
            }

            #[doc = concat!(
                "Splits the stream into a read half and a write half that can move to ",
                "different tasks (each owns a share of the stream; [`OwnedReadHalf::reunite`] ",
                "puts them back together). Dropping the write half shuts down the writing ",
                "side, as [`AsyncWriteExt::close`](futures::AsyncWriteExt::close) does.\n\n",
                "```\nuse futures::{AsyncReadExt, AsyncWriteExt};\n# filch::block_on(async {\n",
                $make_pair, "\n",
                "let (mut read, mut write) = server.into_split();\n",
                "let echo = filch::spawn(async move {\n",
                "    let mut buf = [0; 5];\n",
                "    read.read_exact(&mut buf).await?;\n",
                "    write.write_all(&buf).await\n",
                "});\n",
                "client.write_all(b\"hello\").await?;\n",
                "let mut back = Vec::new();\n",
                "client.read_to_end(&mut back).await?; // the write half's drop ends the stream\n",
                "assert_eq!(back, b\"hello\");\n",
                "echo.await.unwrap()?;\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
                let stream = std::sync::Arc::new(self);
                (
                    OwnedReadHalf {
                        stream: std::sync::Arc::clone(&stream),
                    },
                    OwnedWriteHalf {
                        stream,
                        shutdown_on_drop: true,
                    },
                )
            }
        }

        #[doc = concat!("The read half of a [`", stringify!($stream), "`], from [`", stringify!($stream), "::into_split`]; `futures::io::AsyncRead`.")]
        #[doc = concat!(
            "\n\n```\nuse futures::{AsyncReadExt, AsyncWriteExt};\n# filch::block_on(async {\n",
            $make_pair,
            "\nlet (mut read, mut write) = client.into_split();\n",
            "let writer = filch::spawn(async move { write.write_all(b\"to the server\").await });\n",
            "let mut buf = [0; 13];\n",
            "server.read_exact(&mut buf).await?;\n",
            "writer.await.unwrap()?;\n",
            "server.write_all(b\"back\").await?;\n",
            "let mut back = [0; 4];\n",
            "read.read_exact(&mut back).await?;\n",
            "assert_eq!((&buf[..], &back), (&b\"to the server\"[..], b\"back\"));\n",
            "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
        )]
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            stream: std::sync::Arc<$stream>,
        }

        impl OwnedReadHalf {
            /// Puts the stream back together from its two halves: `Err` with both halves if they
            /// come from different streams.
            ///
            #[doc = concat!(
                "```\n# filch::block_on(async {\n",
                $make_pair,
                "\nlet (read, write) = client.into_split();\n",
                "let stream = read.reunite(write).expect(\"halves of one stream\");\n",
                "# drop(stream);\n# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn reunite(self, mut other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                if !std::sync::Arc::ptr_eq(&self.stream, &other.stream) {
                    return Err(ReuniteError(self, other));
                }
                // The stream goes on: the write half's drop must not shut it down.
                other.shutdown_on_drop = false;
                drop(other);
                Ok(std::sync::Arc::into_inner(self.stream)
                    .expect("filch: the two halves hold the only references to their stream"))
            }

            #[doc = concat!("Reads what has come without taking it off the stream ([`", stringify!($stream), "::peek`]).")]
            #[doc = concat!(
                "\n\n```\nuse futures::{AsyncReadExt, AsyncWriteExt};\n# filch::block_on(async {\n",
                $make_pair,
                "\nserver.write_all(b\"hi\").await?;\n",
                "let (mut read, _write) = client.into_split();\n",
                "let mut buf = [0; 2];\n",
                "assert_eq!(read.peek(&mut buf).await?, 2);\n",
                "let mut again = [0; 2];\n",
                "read.read_exact(&mut again).await?;\n",
                "assert_eq!(&again, b\"hi\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub async fn peek(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.stream.peek(buf).await
            }
        }

        /// The two halves given to [`OwnedReadHalf::reunite`], which came from different streams.
        ///
        #[doc = concat!(
            "```\n# filch::block_on(async {\n",
            $make_pair,
            "\nlet (read, _) = client.into_split();\n",
            "let (_, write) = server.into_split();\n",
            "let err = read.reunite(write).unwrap_err();\n",
            "let (read, write) = (err.0, err.1); // both halves come back\n",
            "# drop((read, write));\n",
            "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
        )]
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("tried to reunite halves that are not from the same socket")
            }
        }

        impl std::error::Error for ReuniteError {}

        #[doc = concat!("The read half of a [`", stringify!($stream), "`] borrowed by [`", stringify!($stream), "::split`]; `futures::io::AsyncRead`.")]
        #[doc = concat!(
            "\n\n```\nuse futures::{AsyncReadExt, AsyncWriteExt};\n# filch::block_on(async {\n",
            $make_pair,
            "\nlet (mut read, mut write) = filch::net::", stringify!($stream), "::split(&mut client);\n",
            "write.write_all(b\"ping\").await?;\n",
            "let mut buf = [0; 4];\n",
            "server.read_exact(&mut buf).await?;\n",
            "server.write_all(&buf).await?;\n",
            "let mut back = [0; 4];\n",
            "read.read_exact(&mut back).await?;\n",
            "assert_eq!(&back, b\"ping\");\n",
            "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
        )]
        #[derive(Debug)]
        pub struct ReadHalf<'a> {
            stream: &'a $stream,
        }

        #[doc = concat!("The write half of a [`", stringify!($stream), "`] borrowed by [`", stringify!($stream), "::split`]; `futures::io::AsyncWrite`. Closing it shuts down the stream's writing side; dropping it does not.")]
        #[doc = "\n\nExample: [`ReadHalf`]."]
        #[derive(Debug)]
        pub struct WriteHalf<'a> {
            stream: &'a $stream,
        }

        impl ReadHalf<'_> {
            #[doc = concat!("Reads what has come without taking it off the stream ([`", stringify!($stream), "::peek`]).")]
            #[doc = "\n\nExample: [`OwnedReadHalf::peek`]."]
            pub async fn peek(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.stream.peek(buf).await
            }
        }

        /// The stream this half reads from (for its addresses, `readable`, `try_read`).
        impl AsRef<$stream> for ReadHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.stream
            }
        }

        /// The stream this half writes to (for its addresses, `writable`, `try_write`).
        impl AsRef<$stream> for WriteHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.stream
            }
        }

        #[doc = concat!("The write half of a [`", stringify!($stream), "`], from [`", stringify!($stream), "::into_split`]; `futures::io::AsyncWrite`. Dropping it shuts down the writing side of the stream.")]
        #[doc = "\n\nExample: [`OwnedReadHalf`]."]
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            stream: std::sync::Arc<$stream>,
            /// Cleared once `poll_close` shut the writing side down (nothing left to do at drop).
            shutdown_on_drop: bool,
        }

        /// The stream this half reads from (for its addresses, `readable`, `try_read`).
        impl AsRef<$stream> for OwnedReadHalf {
            fn as_ref(&self) -> &$stream {
                &self.stream
            }
        }

        /// The stream this half writes to (for its addresses, `writable`, `try_write`).
        impl AsRef<$stream> for OwnedWriteHalf {
            fn as_ref(&self) -> &$stream {
                &self.stream
            }
        }

        $crate::net::stream::futures_read!([] OwnedReadHalf, this => this.stream);
        $crate::net::stream::futures_read!([] ReadHalf<'_>, this => this.stream);
        $crate::net::stream::futures_write!([] WriteHalf<'_>, this => this.stream);
        // Closed: nothing left for the drop to shut down.
        $crate::net::stream::futures_write!(
            [] OwnedWriteHalf,
            this => this.stream,
            on_close: this.shutdown_on_drop = false
        );

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    // Already closed or reset: nothing to shut down, and nobody to tell.
                    let _ = self.stream.shutdown(std::net::Shutdown::Write);
                }
            }
        }
    };
}

pub(crate) use stream_halves;

/// Reads what has come on stream socket `io` into `buf` without taking it off the socket
/// (`recv` with `MSG_PEEK`); `WouldBlock` if nothing has.
pub(crate) fn peek_raw(io: &impl std::os::fd::AsRawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes, the most `recv` writes; the
    // descriptor is the open socket `io` holds for the duration of the call.
    let n = unsafe {
        libc::recv(
            io.as_raw_fd(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_PEEK,
        )
    };
    // Non-negative `n` is at most `buf.len()`, a `usize`: the conversion is lossless.
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}
