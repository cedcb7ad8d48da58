//! Sockets on filch's IO driver: [`TcpListener`], [`TcpStream`], [`UdpSocket`], and on unix
//! [`UnixListener`] and [`UnixStream`].
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
//! # Host names
//!
//! [`TcpListener::bind`], [`TcpStream::connect`], [`UdpSocket::bind`] and
//! [`UdpSocket::send_to`] take any [`std::net::ToSocketAddrs`] and resolve it on the calling
//! thread. A literal address (a `SocketAddr`, `"127.0.0.1:80"`, `(IpAddr, u16)`) needs no
//! lookup, but a host name (`"example.com:80"`) is looked up by the system resolver
//! (`getaddrinfo`), which blocks: std's trait may borrow and need not be `Send`, so the
//! lookup cannot be moved to another thread. On a worker, the tasks queued privately on it
//! (the task the current poll spawned or woke, the tasks that yielded) are first handed to
//! where the other workers can take them, and a sleeping worker is woken, so they do not
//! wait for the lookup; the task that resolves, and its worker, still do. To keep the
//! worker free, resolve on the blocking pool yourself and pass the addresses:
//!
//! ```no_run
//! use std::net::{SocketAddr, ToSocketAddrs};
//! filch::block_on(async {
//!     let addrs: Vec<SocketAddr> = filch::spawn_blocking(|| {
//!         ("localhost", 8080).to_socket_addrs().map(|a| a.collect())
//!     })
//!     .await??;
//!     let stream = filch::net::TcpStream::connect(&addrs[..]).await?;
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

mod stream;
mod tcp;
mod udp;
#[cfg(unix)]
mod unix;

#[cfg(feature = "hyper")]
mod hyper_io;
#[cfg(feature = "tokio-io")]
mod tokio_io;

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

pub use tcp::{TcpListener, TcpStream};
pub use udp::UdpSocket;
#[cfg(unix)]
pub use unix::{UnixListener, UnixStream};

/// How long a listener waits after an `accept` failed with `EMFILE`/`ENFILE` before it
/// tries again (module docs).
pub(crate) const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Whether an accept error means the process or system is out of descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE))
}

/// Resolves `addr` on this thread (no lookup for literal addresses), failing if it names
/// nothing. A host name blocks in the system resolver, so a worker first hands off its
/// private work (module docs); that costs next to nothing when it has none.
fn resolve<A: std::net::ToSocketAddrs>(addr: A) -> io::Result<Vec<SocketAddr>> {
    crate::worker::hand_off_private_work();
    let addrs: Vec<SocketAddr> = addr.to_socket_addrs()?.collect();
    if addrs.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "filch: the address resolved to no socket address",
        ));
    }
    Ok(addrs)
}

/// Tries `f` on each address in turn; the last error if none works.
fn each_addr<T>(
    addrs: Vec<SocketAddr>,
    mut f: impl FnMut(SocketAddr) -> io::Result<T>,
) -> io::Result<T> {
    let mut last = None;
    for addr in addrs {
        match f(addr) {
            Ok(t) => return Ok(t),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("resolve returns at least one address"))
}
