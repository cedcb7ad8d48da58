//! [`TcpListener`] and [`TcpStream`] on filch's driver (see the `net` module docs).

use std::fmt;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;

use super::addr::resolve;
use super::stream::{stream_halves, stream_traits, AcceptBackoff, StreamOps};
use super::ToSocketAddrs;
use crate::executor::global::current_driver;
use crate::runtime::driver::source::{Direction, IoSource};
use crate::runtime::driver::Driver;

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
}

stream_halves!(
    TcpStream,
    "let listener = filch::net::TcpListener::bind(\"127.0.0.1:0\").await?;
let mut client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
let (mut server, _) = listener.accept().await?;"
);

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
