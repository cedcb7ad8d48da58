//! [`UnixListener`] and [`UnixStream`] on filch's driver (see the `net` module docs), and
//! the halves of a `UnixStream` (`split`, `into_split`): `filch::net::unix::{OwnedReadHalf,
//! OwnedWriteHalf, ReadHalf, WriteHalf, ReuniteError}`, as tokio's `net::unix`.

use std::fmt;
use std::io;
use std::net::Shutdown;
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use super::stream::{stream_halves, stream_traits, AcceptBackoff, StreamOps};
use crate::executor::global::current_driver;
use crate::runtime::driver::source::{Direction, IoSource};
use crate::runtime::driver::Driver;

/// A Unix-domain socket listening for connections.
///
/// ```
/// use futures::{AsyncReadExt, AsyncWriteExt};
/// let dir = std::env::temp_dir().join(format!("filch-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("sock");
/// let _ = std::fs::remove_file(&path);
/// filch::block_on(async {
///     let listener = filch::net::UnixListener::bind(&path).await?;
///     let mut client = filch::net::UnixStream::connect(&path).await?;
///     let (mut conn, _) = listener.accept().await?;
///     client.write_all(b"hi").await?;
///     let mut buf = [0; 2];
///     conn.read_exact(&mut buf).await?;
///     assert_eq!(&buf, b"hi");
///     Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct UnixListener {
    io: IoSource<mio::net::UnixListener>,
    backoff: AcceptBackoff,
}

impl UnixListener {
    /// Binds to the socket path `path` and listens.
    pub async fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixListener> {
        Self::new(mio::net::UnixListener::bind(path)?, current_driver())
    }

    fn new(listener: mio::net::UnixListener, driver: Arc<Driver>) -> io::Result<UnixListener> {
        Ok(UnixListener {
            io: IoSource::new(listener, driver)?,
            backoff: AcceptBackoff::default(),
        })
    }

    /// Wraps a listening std socket (made non-blocking here).
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        listener.set_nonblocking(true)?;
        Self::new(mio::net::UnixListener::from_std(listener), current_driver())
    }

    /// Waits for a connection; the stream belongs to this listener's executor. Out of
    /// descriptors, it backs off as [`crate::net::TcpListener::accept`] does.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        self.backoff.wait().await;
        let result = self.io.io(Direction::Read, |l| l.accept()).await;
        self.backoff.note(&result);
        let (stream, addr) = result?;
        Ok((
            UnixStream {
                io: IoSource::new(stream, Arc::clone(self.io.driver()))?,
            },
            addr,
        ))
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

/// A Unix-domain stream; `futures::io::AsyncRead + AsyncWrite`, also through
/// `&UnixStream`. See [`UnixListener`] for an example.
pub struct UnixStream {
    io: IoSource<mio::net::UnixStream>,
}

impl UnixStream {
    /// Connects to the socket at `path`.
    pub async fn connect<P: AsRef<Path>>(path: P) -> io::Result<UnixStream> {
        let stream = UnixStream {
            io: IoSource::new(mio::net::UnixStream::connect(path)?, current_driver())?,
        };
        stream
            .io
            .io(Direction::Write, |s| match s.take_error()? {
                Some(e) => Err(e),
                None => Ok(()),
            })
            .await?;
        Ok(stream)
    }

    /// A connected pair of streams (`socketpair`), on the current executor's driver (else
    /// the global one's). Synchronous, as std's and tokio's.
    ///
    /// ```
    /// use futures::{AsyncReadExt, AsyncWriteExt};
    /// # filch::block_on(async {
    /// let (mut a, mut b) = filch::net::UnixStream::pair()?;
    /// a.write_all(b"ping").await?;
    /// let mut buf = [0; 4];
    /// b.read_exact(&mut buf).await?;
    /// assert_eq!(&buf, b"ping");
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        let driver = current_driver();
        Ok((
            UnixStream {
                io: IoSource::new(a, Arc::clone(&driver))?,
            },
            UnixStream {
                io: IoSource::new(b, driver)?,
            },
        ))
    }

    /// Wraps a connected std stream (made non-blocking here).
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        stream.set_nonblocking(true)?;
        Ok(UnixStream {
            io: IoSource::new(mio::net::UnixStream::from_std(stream), current_driver())?,
        })
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// Shuts down the reading half, the writing half, or both.
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.get_ref().shutdown(how)
    }
}

stream_halves!(
    UnixStream,
    "let (mut client, mut server) = filch::net::UnixStream::pair()?;"
);

impl StreamOps<mio::net::UnixStream> for UnixStream {
    const SHORT_READ_DRAINS: bool = false;

    fn source(&self) -> &IoSource<mio::net::UnixStream> {
        &self.io
    }

    fn shutdown_raw(io: &mio::net::UnixStream, how: Shutdown) -> io::Result<()> {
        io.shutdown(how)
    }
}

stream_traits!(UnixStream);

impl fmt::Debug for UnixStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
