//! filch's `UdpSocket` is enough to implement quinn's `AsyncUdpSocket` (the socket of a QUIC
//! endpoint): `try_send_to` for `try_send`, `poll_recv_from` for `poll_recv`, and
//! `poll_send_ready` for the `UdpPoller`. The impl compiles against quinn itself, and moves
//! a datagram each way between two such sockets (one datagram per call: no GSO or GRO).

use std::fmt;
use std::future::poll_fn;
use std::io::{self, IoSliceMut};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use quinn::udp::{RecvMeta, Transmit};
use quinn::{AsyncUdpSocket, UdpPoller};

use crate::common::{executor, watchdog};

/// A filch `UdpSocket` as quinn's socket.
#[derive(Debug)]
struct FilchUdp(filch::net::UdpSocket);

/// Waits until the socket can send.
struct Writable(Arc<FilchUdp>);

impl fmt::Debug for Writable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Writable")
    }
}

impl UdpPoller for Writable {
    fn poll_writable(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0 .0.poll_send_ready(cx)
    }
}

impl AsyncUdpSocket for FilchUdp {
    fn create_io_poller(self: Arc<Self>) -> Pin<Box<dyn UdpPoller>> {
        Box::pin(Writable(self))
    }

    fn try_send(&self, transmit: &Transmit<'_>) -> io::Result<()> {
        self.0
            .try_send_to(transmit.contents, transmit.destination)
            .map(drop)
    }

    fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        let (len, addr) = ready!(self.0.poll_recv_from(cx, &mut bufs[0]))?;
        meta[0] = RecvMeta {
            addr,
            len,
            stride: len,
            ecn: None,
            dst_ip: None,
        };
        Poll::Ready(Ok(1))
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

#[test]
fn a_filch_udp_socket_serves_as_quinns_async_udp_socket() {
    watchdog(30, "quinn's socket", || {
        executor(2).block_on(async {
            let bind = || async {
                Arc::new(FilchUdp(
                    filch::net::UdpSocket::bind("127.0.0.1:0").await.unwrap(),
                ))
            };
            let (a, b): (Arc<dyn AsyncUdpSocket>, Arc<dyn AsyncUdpSocket>) =
                (bind().await, bind().await);
            for (from, to, what) in [(&a, &b, &b"initial"[..]), (&b, &a, &b"handshake"[..])] {
                let mut poller = Arc::clone(from).create_io_poller();
                poll_fn(|cx| poller.as_mut().poll_writable(cx))
                    .await
                    .unwrap();
                let transmit = Transmit {
                    destination: to.local_addr().unwrap(),
                    ecn: None,
                    contents: what,
                    segment_size: None,
                    src_ip: None,
                };
                from.try_send(&transmit).unwrap();
                let mut buf = [0u8; 64];
                let mut meta = [RecvMeta::default()];
                let n = poll_fn(|cx| {
                    let mut bufs = [IoSliceMut::new(&mut buf)];
                    to.poll_recv(cx, &mut bufs, &mut meta)
                })
                .await
                .unwrap();
                assert_eq!(n, 1);
                assert_eq!(&buf[..meta[0].len], what);
                assert_eq!(meta[0].addr, from.local_addr().unwrap());
            }
        });
    });
}
