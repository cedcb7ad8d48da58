//! [`ToSocketAddrs`], the address argument of `filch::net`, and [`resolve`], which turns
//! one into socket addresses without blocking the calling thread.
//!
//! The trait is sealed: an argument only says what it is ([`sealed::Target`]: one socket
//! address, a list of them, a host and a port, or a string), and this module decides how
//! to get addresses from it. A string that parses as a socket address, and a host that
//! parses as an IP address, are literals; any other string is split as std splits it
//! (`host:port`, at the last colon), and is an error if it has no colon or its port is no
//! `u16`. What remains is a host name, which std's resolver (`getaddrinfo`) looks up on
//! the blocking pool of the current executor (else of the global one).
//!
//! **Invariants:**
//! - a literal becomes its addresses inside the calling poll, and an argument that is no
//!   address its error: [`resolve`]'s future is ready at its first poll, no thread is asked
//!   for anything, and a single address is not allocated;
//! - a host name is looked up only by a blocking-pool job, never on the calling thread, so a
//!   worker never blocks on DNS;
//! - what [`resolve`] yields holds at least one address ([`Addrs`] cannot be empty): an
//!   empty list or lookup is an `InvalidInput` error that names filch, and a lookup that
//!   fails gives the resolver's error unchanged.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::panic::resume_unwind;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::vec;

use crate::runtime::scheduler::join_handle::JoinHandle;

/// An address argument of `filch::net`: what [`TcpListener::bind`], [`TcpStream::connect`],
/// [`UdpSocket::bind`] and [`UdpSocket::send_to`] take.
///
/// Implemented for tokio's set: [`SocketAddr`], [`SocketAddrV4`], [`SocketAddrV6`],
/// `(IpAddr, u16)`, `(Ipv4Addr, u16)`, `(Ipv6Addr, u16)`, `&str` and `String`
/// (`"host:port"`), `(&str, u16)`, `(String, u16)` and `&[SocketAddr]` (tried in order);
/// beyond tokio's, `Vec<SocketAddr>`; and a reference to any of them (`&String`,
/// `&Vec<SocketAddr>`, `&SocketAddr`...).
///
/// A literal address (a socket address, an IP address with a port, a string that parses
/// as either, such as `"127.0.0.1:80"`, `"[::1]:80"` or `("10.0.0.1", 80)`) is used as it
/// is, inside the calling task's poll. A host name (`"localhost:80"`,
/// `("example.com", 443)`) is looked up by the system resolver on the blocking pool of the
/// current executor, else of the global one, so a worker never blocks on DNS; the call
/// waits for the lookup as for any IO. Each call looks the name up again.
///
/// A string that is neither (no `:port`, a port that is not a number) is an
/// [`InvalidInput`](io::ErrorKind::InvalidInput) error, and so is a name or list that
/// gives no address; a lookup that fails returns the resolver's error.
///
/// ```
/// use std::net::{Ipv4Addr, SocketAddr};
/// filch::block_on(async {
///     // Literals: no lookup.
///     let a = filch::net::UdpSocket::bind("127.0.0.1:0").await?;
///     let b = filch::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await?;
///     let to: Vec<SocketAddr> = vec![b.local_addr()?];
///     a.send_to(b"hi", &to[..]).await?;
///     // Neither a socket address nor "host:port".
///     let err = filch::net::UdpSocket::bind("127.0.0.1").await.unwrap_err();
///     assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
///     Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// ```
///
/// A host name is looked up on the blocking pool:
///
/// ```no_run
/// filch::block_on(async {
///     let stream = filch::net::TcpStream::connect(("example.com", 80)).await?;
///     println!("connected to {}", stream.peer_addr()?);
///     Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// ```
///
/// The trait is sealed; a type of your own cannot implement it:
///
/// ```compile_fail,E0277
/// struct Mine;
/// impl filch::net::ToSocketAddrs for Mine {}
/// ```
///
/// [`TcpListener::bind`]: crate::net::TcpListener::bind
/// [`TcpStream::connect`]: crate::net::TcpStream::connect
/// [`UdpSocket::bind`]: crate::net::UdpSocket::bind
/// [`UdpSocket::send_to`]: crate::net::UdpSocket::send_to
pub trait ToSocketAddrs: sealed::Sealed {}

/// The part of [`ToSocketAddrs`] that only filch can name.
pub(crate) mod sealed {
    use std::net::SocketAddr;

    /// What an address argument is; [`super::resolve`] decides what to do with it.
    // `pub` in a private module: nameable by filch only, yet allowed in the bound of the
    // public `ToSocketAddrs` (a sealed trait).
    pub trait Sealed {
        /// This argument, borrowed.
        fn target(&self) -> Target<'_>;
    }

    /// An address argument, borrowed (see [`Sealed`]).
    #[derive(Debug, Clone, Copy)]
    pub enum Target<'a> {
        /// One socket address.
        One(SocketAddr),
        /// Several, to try in order.
        Many(&'a [SocketAddr]),
        /// A host (an IP address or a name) and a port.
        HostPort(&'a str, u16),
        /// A socket address, or `"host:port"`.
        Str(&'a str),
    }
}

use sealed::{Sealed, Target};

/// Implements the trait for each type, with `$target` the [`Target`] of `$arg: &Self`.
macro_rules! impl_to_socket_addrs {
    ($($ty:ty => |$arg:ident| $target:expr;)*) => {$(
        impl ToSocketAddrs for $ty {}

        impl Sealed for $ty {
            fn target(&self) -> Target<'_> {
                let $arg = self;
                $target
            }
        }
    )*};
}

impl_to_socket_addrs! {
    SocketAddr => |a| Target::One(*a);
    SocketAddrV4 => |a| Target::One(SocketAddr::V4(*a));
    SocketAddrV6 => |a| Target::One(SocketAddr::V6(*a));
    (IpAddr, u16) => |a| Target::One(SocketAddr::from(*a));
    (Ipv4Addr, u16) => |a| Target::One(SocketAddr::from(*a));
    (Ipv6Addr, u16) => |a| Target::One(SocketAddr::from(*a));
    [SocketAddr] => |a| Target::Many(a);
    Vec<SocketAddr> => |a| Target::Many(a);
    str => |a| Target::Str(a);
    String => |a| Target::Str(a);
    (&str, u16) => |a| Target::HostPort(a.0, a.1);
    (String, u16) => |a| Target::HostPort(&a.0, a.1);
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}

impl<T: Sealed + ?Sized> Sealed for &T {
    fn target(&self) -> Target<'_> {
        (**self).target()
    }
}

/// The addresses of an argument: at least one, in the order to try them.
#[derive(Debug)]
pub(crate) struct Addrs {
    first: SocketAddr,
    rest: vec::IntoIter<SocketAddr>,
}

impl Addrs {
    fn one(addr: SocketAddr) -> Addrs {
        Addrs {
            first: addr,
            rest: Vec::new().into_iter(),
        }
    }

    /// `None` if `addrs` is empty.
    fn from_vec(addrs: Vec<SocketAddr>) -> Option<Addrs> {
        let mut rest = addrs.into_iter();
        let first = rest.next()?;
        Some(Addrs { first, rest })
    }

    /// The first address (where a datagram goes).
    pub(crate) fn first(&self) -> SocketAddr {
        self.first
    }

    /// The first address and the others, to try in turn.
    pub(crate) fn split(self) -> (SocketAddr, vec::IntoIter<SocketAddr>) {
        (self.first, self.rest)
    }

    /// Tries `f` on each address in turn until it succeeds; else the last error.
    pub(crate) fn try_each<T>(
        self,
        mut f: impl FnMut(SocketAddr) -> io::Result<T>,
    ) -> io::Result<T> {
        let mut result = f(self.first);
        for addr in self.rest {
            if result.is_ok() {
                break;
            }
            result = f(addr);
        }
        result
    }
}

/// Resolves `addr` (module docs): at once for a literal, on the blocking pool for a host
/// name. Call it within the poll of the operation that uses the addresses, so that a lookup
/// goes to that poll's executor.
pub(crate) fn resolve<A: ToSocketAddrs>(addr: A) -> Resolve {
    let state = match parse(addr.target()) {
        Ok(Parsed::Addrs(addrs)) => ResolveStage::Ready(Some(Ok(addrs))),
        Ok(Parsed::Name(host, port)) => {
            let job_host = host.clone();
            ResolveStage::Lookup {
                handle: crate::spawn_blocking(move || look_up(&job_host, port)),
                host,
            }
        }
        Err(e) => ResolveStage::Ready(Some(Err(e))),
    };
    Resolve { state }
}

/// A target, understood without any lookup.
enum Parsed {
    Addrs(Addrs),
    /// A host name (not an IP address) and a port.
    Name(String, u16),
}

fn parse(target: Target<'_>) -> io::Result<Parsed> {
    match target {
        Target::One(addr) => Ok(Parsed::Addrs(Addrs::one(addr))),
        Target::Many(addrs) => Addrs::from_vec(addrs.to_vec())
            .map(Parsed::Addrs)
            .ok_or_else(|| invalid_input("filch: an empty list of socket addresses".to_owned())),
        Target::HostPort(host, port) => Ok(host_port(host, port)),
        Target::Str(s) => {
            if let Ok(addr) = s.parse::<SocketAddr>() {
                return Ok(Parsed::Addrs(Addrs::one(addr)));
            }
            // "host:port", as std reads it: the port follows the last colon.
            let Some((host, port)) = s.rsplit_once(':') else {
                return Err(invalid_input(format!(
                    "filch: {s:?} is no socket address: expected an IP address and port \
                     (\"127.0.0.1:80\", \"[::1]:80\") or a host name and port \
                     (\"localhost:80\")"
                )));
            };
            let port = port.parse::<u16>().map_err(|_| {
                invalid_input(format!(
                    "filch: {s:?} is no socket address: its port {port:?} is not a number \
                     from 0 to 65535"
                ))
            })?;
            Ok(host_port(host, port))
        }
    }
}

/// A literal if `host` is an IP address (as std's `(&str, u16)` reads it), else a name.
fn host_port(host: &str, port: u16) -> Parsed {
    match host.parse::<IpAddr>() {
        Ok(ip) => Parsed::Addrs(Addrs::one(SocketAddr::new(ip, port))),
        Err(_) => Parsed::Name(host.to_owned(), port),
    }
}

/// The blocking lookup of a host name (a blocking-pool job): the resolver's addresses, or
/// its error.
fn look_up(host: &str, port: u16) -> io::Result<Addrs> {
    let addrs = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))?.collect();
    Addrs::from_vec(addrs).ok_or_else(|| {
        invalid_input(format!(
            "filch: the host name {host:?} resolved to no socket address"
        ))
    })
}

fn invalid_input(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// The future of [`resolve`]: the addresses of an argument.
#[must_use = "a Resolve does nothing unless awaited"]
pub(crate) struct Resolve {
    state: ResolveStage,
}

enum ResolveStage {
    /// A literal, or an argument that is no address: taken by the first poll.
    Ready(Option<io::Result<Addrs>>),
    /// A host name being looked up on the blocking pool.
    Lookup {
        handle: JoinHandle<io::Result<Addrs>>,
        host: String,
    },
}

impl Future for Resolve {
    type Output = io::Result<Addrs>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<Addrs>> {
        match &mut self.state {
            ResolveStage::Ready(result) => Poll::Ready(
                result
                    .take()
                    .expect("filch: a resolved address was polled after it completed"),
            ),
            ResolveStage::Lookup { handle, host } => match ready!(Pin::new(handle).poll(cx)) {
                Ok(result) => Poll::Ready(result),
                Err(e) if e.is_cancelled() => Poll::Ready(Err(io::Error::other(format!(
                    "filch: the lookup of the host name {host:?} did not run: the executor \
                     whose blocking pool it was given to has shut down"
                )))),
                // The resolver panicked: the task that asked for the lookup panics with it,
                // as it would have had the lookup run on its own thread.
                Err(e) => resume_unwind(e.into_panic()),
            },
        }
    }
}
