//! [`UdpSocket`] on filch's driver (see the `net` module docs).

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

use super::addr::resolve;
use super::datagram::datagram_ops;
use super::ToSocketAddrs;
use crate::executor::global::current_driver;
use crate::runtime::driver::source::{Direction, IoSource};

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
    /// A literal address is bound at once; a host name is first looked up on the blocking
    /// pool, while the worker runs other tasks ([`ToSocketAddrs`], and the
    /// [module docs](crate::net#host-names)).
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        let driver = current_driver();
        let socket = resolve(addr).await?.try_each(mio::net::UdpSocket::bind)?;
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
    /// A literal address is used at once. A host name is looked up on the blocking pool,
    /// on every call, while the worker runs other tasks ([`ToSocketAddrs`], and the
    /// [module docs](crate::net#host-names)); to send many datagrams to one host, look it
    /// up once (std's `ToSocketAddrs` inside [`spawn_blocking`](crate::spawn_blocking))
    /// and pass its `SocketAddr`.
    ///
    /// ```no_run
    /// filch::block_on(async {
    ///     let socket = filch::net::UdpSocket::bind("0.0.0.0:0").await?;
    ///     socket.send_to(b"ping", "localhost:9000").await?;
    ///     Ok::<_, std::io::Error>(())
    /// })
    /// .unwrap();
    /// ```
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], to: A) -> io::Result<usize> {
        let to = resolve(to).await?.first();
        self.io.io(Direction::Write, |s| s.send_to(buf, to)).await
    }

    /// Connects the socket to `addr` (the first of its addresses that works): [`send`] then
    /// goes there, [`recv`] takes datagrams from there only, and errors the peer's host
    /// reports (an ICMP "port unreachable") come back from the next operation, once.
    ///
    /// [`send`]: UdpSocket::send
    /// [`recv`]: UdpSocket::recv
    ///
    /// ```
    /// filch::block_on(async {
    ///     let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.connect(b.local_addr()?).await?;
    ///     b.connect(a.local_addr()?).await?;
    ///     a.send(b"ping").await?;
    ///     let mut buf = [0; 8];
    ///     let n = b.recv(&mut buf).await?;
    ///     assert_eq!(&buf[..n], b"ping");
    ///     Ok::<_, std::io::Error>(())
    /// })
    /// .unwrap();
    /// ```
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let addrs = resolve(addr).await?;
        addrs.try_each(|addr| self.io.get_ref().connect(addr))
    }

    /// Sends `buf` to the connected peer ([`UdpSocket::connect`]); returns the bytes sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.io(Direction::Write, |s| s.send(buf)).await
    }

    /// Receives one datagram from the connected peer into `buf`; returns its length.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.io(Direction::Read, |s| s.recv(buf)).await
    }

    /// The sender of the next datagram, which stays queued (the next receive gets it): what
    /// a QUIC endpoint reads before it decides where a datagram goes.
    ///
    /// ```
    /// # filch::block_on(async {
    /// let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// let b = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// a.send_to(b"who", b.local_addr()?).await?;
    /// assert_eq!(b.peek_sender().await?, a.local_addr()?);
    /// let mut buf = [0; 8];
    /// assert_eq!(b.recv_from(&mut buf).await?, (3, a.local_addr()?)); // still there
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.io
            .io(Direction::Read, |s| {
                s.peek_from(&mut []).map(|(_, from)| from)
            })
            .await
    }

    /// [`UdpSocket::peek_sender`] now, or `WouldBlock`.
    ///
    /// ```
    /// # filch::block_on(async {
    /// let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// let b = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// a.send_to(b"who", b.local_addr()?).await?;
    /// b.readable().await?;
    /// assert_eq!(b.try_peek_sender()?, a.local_addr()?);
    /// let mut buf = [0; 8];
    /// assert_eq!(b.try_peek_from(&mut buf)?, (3, a.local_addr()?));
    /// assert_eq!(b.try_recv_from(&mut buf)?, (3, a.local_addr()?));
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.try_io(Direction::Read, |s| {
            s.peek_from(&mut []).map(|(_, from)| from)
        })
    }

    /// [`UdpSocket::peek_sender`] as a poll function.
    ///
    /// ```
    /// use std::future::poll_fn;
    /// # filch::block_on(async {
    /// let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// let b = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
    /// a.send_to(b"who", b.local_addr()?).await?;
    /// assert_eq!(poll_fn(|cx| b.poll_peek_sender(cx)).await?, a.local_addr()?);
    /// let mut buf = [0; 8];
    /// assert_eq!(poll_fn(|cx| b.poll_peek_from(cx, &mut buf)).await?, (3, a.local_addr()?));
    /// # Ok::<_, std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.io.poll_io(cx, Direction::Read, |s| {
            s.peek_from(&mut []).map(|(_, from)| from)
        })
    }

    /// [`UdpSocket::peek_from`] now, or `WouldBlock` (example: [`UdpSocket::try_peek_sender`]).
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.try_io(Direction::Read, |s| s.peek_from(buf))
    }

    /// [`UdpSocket::peek_from`] as a poll function (example:
    /// [`UdpSocket::poll_peek_sender`]).
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.io.poll_io(cx, Direction::Read, |s| s.peek_from(buf))
    }

    /// Like [`UdpSocket::recv_from`], but leaves the datagram queued: the next receive gets
    /// it again.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.io(Direction::Read, |s| s.peek_from(buf)).await
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

datagram_ops!(
    UdpSocket,
    SocketAddr,
    SocketAddr,
    send_to: |s, buf, to| s.send_to(buf, *to),
    "let a = filch::net::UdpSocket::bind(\"127.0.0.1:0\").await?;
let b = filch::net::UdpSocket::bind(\"127.0.0.1:0\").await?;
a.connect(b.local_addr()?).await?;
b.connect(a.local_addr()?).await?;",
    "b.local_addr()?"
);

impl fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
