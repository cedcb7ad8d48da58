//! [`TcpListener`] and [`TcpStream`] on filch's driver (see the `net` module docs).

use std::fmt;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;

use super::addr::resolve;
use super::stream::{stream_traits, AcceptBackoff, StreamOps};
use super::ToSocketAddrs;
use crate::driver::Driver;
use crate::global::current_driver;
use crate::io::{Direction, IoSource};

/// A TCP socket listening for connections.
///
/// ```
/// use futures::{AsyncReadExt, AsyncWriteExt};
/// filch::block_on(async {
///     let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
///     let addr = listener.local_addr()?;
///     let server = filch::spawn(async move {
///         let (mut conn, _) = listener.accept().await?;
///         conn.write_all(b"hello").await?;
///         Ok::<_, std::io::Error>(())
///     });
///     let mut client = filch::net::TcpStream::connect(addr).await?;
///     let mut got = String::new();
///     client.read_to_string(&mut got).await?;
///     assert_eq!(got, "hello");
///     server.await.unwrap()
/// })
/// .unwrap();
/// ```
pub struct TcpListener {
    io: IoSource<mio::net::TcpListener>,
    backoff: AcceptBackoff,
}

impl TcpListener {
    /// Binds to `addr` (the first of its addresses that works) and listens.
    ///
    /// A literal address is bound at once; a host name is first looked up on the blocking
    /// pool, while the worker runs other tasks ([`ToSocketAddrs`], and the
    /// [module docs](crate::net#host-names)).
    ///
    /// ```no_run
    /// filch::block_on(async {
    ///     let listener = filch::net::TcpListener::bind("localhost:8080").await?;
    ///     println!("listening on {}", listener.local_addr()?);
    ///     Ok::<_, std::io::Error>(())
    /// })
    /// .unwrap();
    /// ```
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        let driver = current_driver();
        let listener = resolve(addr).await?.try_each(mio::net::TcpListener::bind)?;
        Self::new(listener, driver)
    }

    fn new(listener: mio::net::TcpListener, driver: Arc<Driver>) -> io::Result<TcpListener> {
        Ok(TcpListener {
            io: IoSource::new(listener, driver)?,
            backoff: AcceptBackoff::default(),
        })
    }

    /// Wraps a listening std socket (made non-blocking here).
    ///
    /// ```
    /// let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// let listener = filch::net::TcpListener::from_std(std).unwrap();
    /// assert!(listener.local_addr().unwrap().port() > 0);
    /// ```
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        Self::new(mio::net::TcpListener::from_std(listener), current_driver())
    }

    /// Waits for a connection; the stream belongs to this listener's executor.
    ///
    /// An `EMFILE`/`ENFILE` error is returned, and the next call waits 50 ms before it
    /// tries again, so that a loop that logs and retries does not spin.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        self.backoff.wait().await;
        let result = self.io.io(Direction::Read, |l| l.accept()).await;
        self.backoff.note(&result);
        let (stream, addr) = result?;
        Ok((TcpStream::new(stream, Arc::clone(self.io.driver()))?, addr))
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

/// A TCP connection; `futures::io::AsyncRead + AsyncWrite`, also through `&TcpStream`.
/// See [`TcpListener`] for an example.
pub struct TcpStream {
    io: IoSource<mio::net::TcpStream>,
}

impl TcpStream {
    pub(crate) fn new(stream: mio::net::TcpStream, driver: Arc<Driver>) -> io::Result<TcpStream> {
        Ok(TcpStream {
            io: IoSource::new(stream, driver)?,
        })
    }

    /// Connects to `addr` (each of its addresses in turn, until one accepts); else the
    /// last address's error.
    ///
    /// A literal address needs no lookup. A host name is looked up by the system resolver
    /// on the blocking pool, while the worker runs other tasks ([`ToSocketAddrs`], and the
    /// [module docs](crate::net#host-names)).
    ///
    /// ```no_run
    /// use filch::net::TcpStream;
    /// filch::block_on(async {
    ///     let stream = TcpStream::connect(("example.com", 80)).await?;
    ///     # drop(stream);
    ///     Ok::<_, std::io::Error>(())
    /// })
    /// .unwrap();
    /// ```
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        let driver = current_driver();
        let (first, rest) = resolve(addr).await?.split();
        let mut result = Self::connect_one(first, Arc::clone(&driver)).await;
        for addr in rest {
            if result.is_ok() {
                break;
            }
            result = Self::connect_one(addr, Arc::clone(&driver)).await;
        }
        result
    }

    async fn connect_one(addr: SocketAddr, driver: Arc<Driver>) -> io::Result<TcpStream> {
        let stream = TcpStream::new(mio::net::TcpStream::connect(addr)?, driver)?;
        // The connect is done when the socket turns writable (mio's docs): then either an
        // error is pending, or the peer address is known.
        stream
            .io
            .io(Direction::Write, |s| {
                if let Some(e) = s.take_error()? {
                    return Err(e);
                }
                match s.peer_addr() {
                    Ok(_) => Ok(()),
                    // Not connected yet (a spurious wake-up): wait for the next edge.
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => {
                        Err(io::ErrorKind::WouldBlock.into())
                    }
                    Err(e) => Err(e),
                }
            })
            .await?;
        Ok(stream)
    }

    /// Wraps a connected std stream (made non-blocking here).
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        stream.set_nonblocking(true)?;
        Self::new(mio::net::TcpStream::from_std(stream), current_driver())
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// Sets `TCP_NODELAY` (no Nagle delay for small writes).
    pub fn set_nodelay(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_nodelay(on)
    }

    /// Shuts down the reading half, the writing half, or both.
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.get_ref().shutdown(how)
    }

    /// Waits until the stream can be read (data, end of file, or an error), without
    /// reading: pair it with [`TcpStream::try_read`]. Any number of tasks may wait.
    ///
    /// ```
    /// # filch::block_on(async {
    /// let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
    /// let (server, _) = listener.accept().await?;
    /// server.writable().await?;
    /// server.try_write(b"hi")?;
    /// let mut buf = [0; 8];
    /// let n = loop {
    ///     client.readable().await?;
    ///     match client.try_read(&mut buf) {
    ///         Ok(n) => break n,
    ///         Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
    ///         Err(e) => return Err(e),
    ///     }
    /// };
    /// assert_eq!(&buf[..n], b"hi");
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn readable(&self) -> io::Result<()> {
        self.io.ready(Direction::Read).await
    }

    /// Waits until the stream can be written (or has failed), without writing: pair it with
    /// [`TcpStream::try_write`].
    pub async fn writable(&self) -> io::Result<()> {
        self.io.ready(Direction::Write).await
    }

    /// Reads what is there now into `buf`, without waiting: `WouldBlock` if nothing is (the
    /// readiness is then cleared, and [`TcpStream::readable`] waits for new data); `Ok(0)`
    /// at end of file.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        use std::io::Read;
        self.io.try_io(Direction::Read, |s| (&mut &*s).read(buf))
    }

    /// Writes what fits now from `buf`, without waiting: `WouldBlock` if nothing fits.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        use std::io::Write;
        self.io.try_io(Direction::Write, |s| (&mut &*s).write(buf))
    }

    /// Reads what has come into `buf` without taking it off the stream: the next read (or
    /// peek) sees the same bytes. Waits until there is something (or end of file, `Ok(0)`).
    ///
    /// ```
    /// use futures::AsyncReadExt;
    /// # filch::block_on(async {
    /// let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
    /// let (mut server, _) = listener.accept().await?;
    /// client.writable().await?;
    /// client.try_write(b"hi")?;
    /// let mut buf = [0; 2];
    /// let peeked = server.peek(&mut buf).await?;
    /// let mut again = [0; 2];
    /// server.read_exact(&mut again).await?;
    /// assert_eq!((peeked, &again), (2, b"hi"));
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.io(Direction::Read, |s| s.peek(buf)).await
    }

    /// Splits the stream into a read half and a write half that borrow it, with no lock and
    /// no reference count (tokio's `split`); for halves that move to other tasks, see
    /// [`TcpStream::into_split`]. Closing or shutting down the write half shuts down the
    /// stream's writing side; dropping it does nothing.
    ///
    /// `futures::io::AsyncReadExt` has a `split(self)` too, which Rust picks for
    /// `stream.split()` when that trait is in scope; `TcpStream::split(&mut stream)` (or
    /// `(&mut stream).split()`) always means this one.
    ///
    /// ```
    /// use futures::{AsyncReadExt, AsyncWriteExt};
    /// # filch::block_on(async {
    /// let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let mut client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
    /// let (mut server, _) = listener.accept().await?;
    /// let (mut read, mut write) = filch::net::TcpStream::split(&mut server);
    /// // Echo one message: both halves in one task, at once.
    /// let echo = async {
    ///     let mut buf = [0; 5];
    ///     read.read_exact(&mut buf).await?;
    ///     write.write_all(&buf).await
    /// };
    /// let talk = async {
    ///     client.write_all(b"hello").await?;
    ///     let mut back = [0; 5];
    ///     client.read_exact(&mut back).await?;
    ///     Ok::<_, std::io::Error>(back)
    /// };
    /// let (echoed, back) = futures::join!(echo, talk);
    /// echoed?;
    /// assert_eq!(&back?, b"hello");
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        let stream = &*self;
        (ReadHalf { stream }, WriteHalf { stream })
    }

    /// Splits the stream into a read half and a write half that can move to different tasks
    /// (each owns a share of the stream). Dropping the write half shuts down the writing
    /// side, as [`AsyncWriteExt::close`](futures::AsyncWriteExt::close) does.
    ///
    /// ```
    /// use futures::{AsyncReadExt, AsyncWriteExt};
    /// # filch::block_on(async {
    /// let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
    /// let (server, _) = listener.accept().await?;
    /// let (mut read, mut write) = server.into_split();
    /// let echo = filch::spawn(async move {
    ///     let mut buf = [0; 5];
    ///     read.read_exact(&mut buf).await?;
    ///     write.write_all(&buf).await
    /// });
    /// let mut client = client;
    /// client.write_all(b"hello").await?;
    /// let mut back = Vec::new();
    /// client.read_to_end(&mut back).await?; // the write half's drop ends the stream
    /// assert_eq!(back, b"hello");
    /// echo.await.unwrap()?;
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        let stream = Arc::new(self);
        (
            OwnedReadHalf {
                stream: Arc::clone(&stream),
            },
            OwnedWriteHalf {
                stream,
                shutdown_on_drop: true,
            },
        )
    }
}

/// The read half of a [`TcpStream`], from [`TcpStream::into_split`];
/// `futures::io::AsyncRead`.
#[derive(Debug)]
pub struct OwnedReadHalf {
    stream: Arc<TcpStream>,
}

impl OwnedReadHalf {
    /// Puts the stream back together from its two halves: `Err` with both halves if they
    /// come from different streams.
    ///
    /// ```
    /// # filch::block_on(async {
    /// let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let stream = filch::net::TcpStream::connect(listener.local_addr()?).await?;
    /// let (read, write) = stream.into_split();
    /// let stream = read.reunite(write).expect("halves of one stream");
    /// # drop(stream);
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reunite(self, mut other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        if !Arc::ptr_eq(&self.stream, &other.stream) {
            return Err(ReuniteError(self, other));
        }
        // The stream goes on: the write half's drop must not shut it down.
        other.shutdown_on_drop = false;
        drop(other);
        Ok(Arc::into_inner(self.stream)
            .expect("filch: the two halves hold the only references to their stream"))
    }

    /// Reads what has come without taking it off the stream ([`TcpStream::peek`]).
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.peek(buf).await
    }
}

/// The two halves given to [`OwnedReadHalf::reunite`], which came from different streams.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tried to reunite halves that are not from the same socket")
    }
}

impl std::error::Error for ReuniteError {}

/// The read half of a [`TcpStream`] borrowed by [`TcpStream::split`];
/// `futures::io::AsyncRead`.
#[derive(Debug)]
pub struct ReadHalf<'a> {
    stream: &'a TcpStream,
}

/// The write half of a [`TcpStream`] borrowed by [`TcpStream::split`];
/// `futures::io::AsyncWrite`. Closing it shuts down the stream's writing side; dropping it
/// does not.
#[derive(Debug)]
pub struct WriteHalf<'a> {
    stream: &'a TcpStream,
}

impl ReadHalf<'_> {
    /// Reads what has come without taking it off the stream ([`TcpStream::peek`]).
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.peek(buf).await
    }
}

/// The stream this half reads from (for its addresses, `readable`, `try_read`).
impl AsRef<TcpStream> for ReadHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.stream
    }
}

/// The stream this half writes to (for its addresses, `writable`, `try_write`).
impl AsRef<TcpStream> for WriteHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.stream
    }
}

/// The write half of a [`TcpStream`], from [`TcpStream::into_split`];
/// `futures::io::AsyncWrite`. Dropping it shuts down the writing side of the stream.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    stream: Arc<TcpStream>,
    /// Cleared once `poll_close` shut the writing side down (nothing left to do at drop).
    shutdown_on_drop: bool,
}

/// The stream this half reads from (for its addresses, `readable`, `try_read`).
impl AsRef<TcpStream> for OwnedReadHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.stream
    }
}

/// The stream this half writes to (for its addresses, `writable`, `try_write`).
impl AsRef<TcpStream> for OwnedWriteHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.stream
    }
}

impl futures::io::AsyncRead for OwnedReadHalf {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_read_priv(cx, buf)
    }
}

impl futures::io::AsyncRead for ReadHalf<'_> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_read_priv(cx, buf)
    }
}

impl futures::io::AsyncWrite for WriteHalf<'_> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_write_priv(cx, buf)
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_write_vectored_priv(cx, bufs)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_close(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.stream.poll_close_priv()
    }
}

impl futures::io::AsyncWrite for OwnedWriteHalf {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_write_priv(cx, buf)
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<io::Result<usize>> {
        self.stream.poll_write_vectored_priv(cx, bufs)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_close(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.shutdown_on_drop = false;
        self.stream.poll_close_priv()
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // Already closed or reset: nothing to shut down, and nobody to tell.
            let _ = self.stream.shutdown(Shutdown::Write);
        }
    }
}

impl StreamOps<mio::net::TcpStream> for TcpStream {
    const SHORT_READ_DRAINS: bool = true;

    fn source(&self) -> &IoSource<mio::net::TcpStream> {
        &self.io
    }

    fn shutdown_raw(io: &mio::net::TcpStream, how: Shutdown) -> io::Result<()> {
        io.shutdown(how)
    }
}

stream_traits!(TcpStream);

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
