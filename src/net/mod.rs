//! Sockets on filch's IO driver: [`TcpListener`], [`TcpStream`] (and its halves,
//! [`OwnedReadHalf`] and [`OwnedWriteHalf`]), [`UdpSocket`], and on unix [`UnixListener`],
//! [`UnixStream`] and [`UnixDatagram`].
//!
//! Each is registered once with the driver of the executor current where it is made (a
//! worker, a `block_on`, a blocking-pool thread of that executor), else with the global
//! executor's; a stream accepted by a listener belongs to the listener's executor. Any
//! thread may poll them. Once their executor has shut down, their operations return an
//! error.
//!
//! The streams implement `futures::io::AsyncRead` and `AsyncWrite` (also through a shared
//! reference, so that one task can read while another writes), and with the cargo features
//! `hyper` and `tokio-io` hyper's `rt::Read`/`rt::Write` and tokio's
//! `AsyncRead`/`AsyncWrite`.
//!
//! # Waiting, errors and readiness
//!
//! Any number of tasks may wait on one socket in the same direction: several `accept`
//! loops on one `Arc<TcpListener>`, readers through `&TcpStream`, `recv_from` on a shared
//! `UdpSocket`. An event wakes every task waiting in its direction; each tries its
//! operation, and those that would block wait again.
//!
//! An error the socket reports (an ICMP error on a connected UDP socket, a reset) is
//! returned by the next operation, once; the operation after it waits for new readiness.
//!
//! Readiness is edge-triggered and cleared only when an operation would block, with one
//! exception that saves a system call per read: a TCP read that fills less than the buffer
//! takes the socket's receive queue as empty, unless the socket ever received urgent data
//! (a read stops at the urgent mark, with data queued behind it). A Unix stream read, which
//! stops after a segment that carried descriptors, never counts as draining.
//!
//! # Host names
//!
//! [`TcpListener::bind`], [`TcpStream::connect`], [`UdpSocket::bind`] and
//! [`UdpSocket::send_to`] take filch's [`ToSocketAddrs`] (tokio's set of address types).
//! A literal address (a `SocketAddr`, `(IpAddr, u16)`, `"127.0.0.1:80"`,
//! `("127.0.0.1", 80)`) is used at once, inside the calling task's poll. A host name
//! (`"localhost:8080"`, `("example.com", 443)`) is looked up by the system resolver
//! (`getaddrinfo`) on the blocking pool of the current executor, else of the global one
//! (see [`spawn_blocking`](crate::spawn_blocking)): the task waits for it as for any IO,
//! and its worker runs other tasks meanwhile. No worker ever blocks on DNS.
//!
//! ```no_run
//! filch::block_on(async {
//!     // Looked up on the blocking pool; each address is tried in turn.
//!     let stream = filch::net::TcpStream::connect(("localhost", 8080)).await?;
//!     # drop(stream);
//!     Ok::<_, std::io::Error>(())
//! })
//! .unwrap();
//! ```
//!
//! # Accept back-off
//!
//! A listener whose `accept` fails for want of file descriptors (`EMFILE`, `ENFILE`)
//! reports the error and waits 50 ms (`ACCEPT_BACKOFF`) before its next `accept` tries
//! again, so that an accept loop that logs and retries does not spin a core.

mod addr;
mod datagram;
mod stream;
mod tcp;
mod udp;
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub mod unix;
#[cfg(unix)]
mod unix_datagram;

#[cfg(feature = "hyper")]
mod hyper_io;
#[cfg(feature = "tokio-io")]
mod tokio_io;

pub use addr::ToSocketAddrs;
pub use tcp::{
    OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, TcpListener, TcpStream, WriteHalf,
};
pub use udp::UdpSocket;
#[cfg(unix)]
pub use unix::{UnixListener, UnixStream};
#[cfg(unix)]
pub use unix_datagram::UnixDatagram;
