//! [`UdpSocket`] on filch's driver (see the `net` module docs).

use std::fmt;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};

use super::{each_addr, resolve};
use crate::global::current_driver;
use crate::io::{Direction, IoSource};

/// A UDP socket.
///
/// ```
/// filch::block_on(async {
///     let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
///     let b = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
///     a.send_to(b"ping", b.local_addr()?).await?;
///     let mut buf = [0; 16];
///     let (n, from) = b.recv_from(&mut buf).await?;
///     assert_eq!(&buf[..n], b"ping");
///     assert_eq!(from, a.local_addr()?);
///     Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// ```
pub struct UdpSocket {
    io: IoSource<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// Binds to `addr` (the first of its addresses that works).
    ///
    /// A host name in `addr` is looked up on the calling thread, which blocks meanwhile
    /// (std's `ToSocketAddrs` cannot be moved to another thread); a worker first hands the
    /// tasks queued on it to the other workers. To keep the worker free, resolve on the
    /// blocking pool and pass the addresses (see
    /// [`TcpStream::connect`](crate::net::TcpStream::connect), and the
    /// [module docs](crate::net#host-names)).
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        let driver = current_driver();
        let socket = each_addr(resolve(addr)?, mio::net::UdpSocket::bind)?;
        Ok(UdpSocket {
            io: IoSource::new(socket, driver)?,
        })
    }

    /// Wraps a bound std socket (made non-blocking here).
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        Ok(UdpSocket {
            io: IoSource::new(mio::net::UdpSocket::from_std(socket), current_driver())?,
        })
    }

    /// Sends `buf` to `to` (its first address); returns the bytes sent.
    ///
    /// A host name in `to` is looked up on the calling thread, on every call, which blocks
    /// meanwhile (std's `ToSocketAddrs` cannot be moved to another thread); a worker first
    /// hands the tasks queued on it to the other workers. Resolve once, on the blocking
    /// pool, and pass a `SocketAddr` (see
    /// [`TcpStream::connect`](crate::net::TcpStream::connect), and the
    /// [module docs](crate::net#host-names)).
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], to: A) -> io::Result<usize> {
        let to = resolve(to)?[0];
        self.io.io(Direction::Write, |s| s.send_to(buf, to)).await
    }

    /// Receives one datagram into `buf`: its length and sender.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.io(Direction::Read, |s| s.recv_from(buf)).await
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }
}

impl fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
