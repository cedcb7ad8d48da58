//! [`UnixDatagram`] on filch's driver (see the `net` module docs): a Unix-domain datagram
//! socket. Making one (`bind`, `unbound`, `pair`) and `connect` are synchronous, as std's
//! are (no network, nothing to wait for); sending and receiving wait for readiness.

use std::fmt;
use std::io;
use std::os::unix::net::SocketAddr;
use std::path::Path;

use super::datagram::datagram_ops;
use crate::executor::global::current_driver;
use crate::runtime::driver::source::{Direction, IoSource};

/// A Unix-domain datagram socket.
///
/// ```
/// filch::block_on(async {
///     let (a, b) = filch::net::UnixDatagram::pair()?;
///     a.send(b"ping").await?;
///     let mut buf = [0; 8];
///     let n = b.recv(&mut buf).await?;
///     assert_eq!(&buf[..n], b"ping");
///     Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// ```
pub struct UnixDatagram {
    io: IoSource<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    fn new(socket: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        Ok(UnixDatagram {
            io: IoSource::new(socket, current_driver())?,
        })
    }

    /// A socket bound to `path` (which must not exist yet).
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixDatagram> {
        Self::new(mio::net::UnixDatagram::bind(path)?)
    }

    /// A socket bound to no address (it can still send, and `connect`).
    pub fn unbound() -> io::Result<UnixDatagram> {
        Self::new(mio::net::UnixDatagram::unbound()?)
    }

    /// Two sockets connected to each other.
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        Ok((Self::new(a)?, Self::new(b)?))
    }

    /// Wraps a std socket (made non-blocking here).
    pub fn from_std(socket: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        socket.set_nonblocking(true)?;
        Self::new(mio::net::UnixDatagram::from_std(socket))
    }

    /// Connects the socket to the one bound at `path`: `send` goes there, `recv` takes
    /// datagrams from there only.
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.io.get_ref().connect(path)
    }

    /// Sends `buf` to the connected peer; returns the bytes sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.io(Direction::Write, |s| s.send(buf)).await
    }

    /// Receives one datagram from the connected peer into `buf`; returns its length.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.io(Direction::Read, |s| s.recv(buf)).await
    }

    /// Sends `buf` to the socket bound at `path`; returns the bytes sent.
    pub async fn send_to<P: AsRef<Path>>(&self, buf: &[u8], path: P) -> io::Result<usize> {
        let path = path.as_ref();
        self.io.io(Direction::Write, |s| s.send_to(buf, path)).await
    }

    /// Receives one datagram into `buf`: its length and its sender's address.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.io(Direction::Read, |s| s.recv_from(buf)).await
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The connected peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }
}

datagram_ops!(
    UnixDatagram,
    SocketAddr,
    impl AsRef<Path>,
    send_to: |s, buf, to| s.send_to(buf, to),
    "let dir = std::env::temp_dir().join(format!(\"filch-doc-{}-{}\", std::process::id(), line!()));
std::fs::create_dir_all(&dir)?;
let (a_path, b_path) = (dir.join(\"a\"), dir.join(\"b\"));
let _ = (std::fs::remove_file(&a_path), std::fs::remove_file(&b_path));
let a = filch::net::UnixDatagram::bind(&a_path)?;
let b = filch::net::UnixDatagram::bind(&b_path)?;
a.connect(&b_path)?;
b.connect(&a_path)?;",
    "b_path.clone()"
);

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
