//! `filch::net::UdpSocket`, `UnixListener` and `UnixStream` on filch's driver: datagrams and
//! a Unix-domain echo arrive intact.

use crate::common::{self, executor, watchdog};
use filch::net::UdpSocket;
use futures::{AsyncReadExt, AsyncWriteExt};

#[test]
fn udp_datagrams_arrive_with_their_sender() {
    watchdog(60, "udp", || {
        let ex = executor(2);
        ex.block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b_addr = b.local_addr().unwrap();
            let receiver = filch::spawn(async move {
                let mut buf = [0; 64];
                let mut seen = Vec::new();
                for _ in 0..100 {
                    let (n, from) = b.recv_from(&mut buf).await.unwrap();
                    assert_eq!(n, 4);
                    seen.push((u32::from_le_bytes(buf[..4].try_into().unwrap()), from));
                }
                seen
            });
            for i in 0..100u32 {
                a.send_to(&i.to_le_bytes(), b_addr).await.unwrap();
                // Loopback keeps order, but its buffer is finite: let the receiver keep up.
                if i % 10 == 9 {
                    filch::time::sleep(std::time::Duration::from_millis(1)).await;
                }
            }
            let seen = receiver.await.unwrap();
            let a_addr = a.local_addr().unwrap();
            assert!(seen.iter().all(|&(_, from)| from == a_addr));
            let mut values: Vec<u32> = seen.iter().map(|&(v, _)| v).collect();
            values.sort_unstable();
            assert_eq!(values, (0..100).collect::<Vec<_>>());
        });
    });
}

#[cfg(unix)]
#[test]
fn a_unix_stream_echoes_through_a_listener() {
    use filch::net::{UnixListener, UnixStream};
    watchdog(60, "unix", || {
        let dir = std::env::temp_dir().join(format!("filch-unix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("echo.sock");
        let _ = std::fs::remove_file(&path);
        let ex = executor(2);
        ex.block_on(async {
            let listener = UnixListener::bind(&path).await.unwrap();
            let server = filch::spawn(async move {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut all = Vec::new();
                conn.read_to_end(&mut all).await.unwrap();
                conn.write_all(&all).await.unwrap();
            });
            let mut client = UnixStream::connect(&path).await.unwrap();
            let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
            client.write_all(&data).await.unwrap();
            client.shutdown(std::net::Shutdown::Write).unwrap();
            let mut back = Vec::new();
            client.read_to_end(&mut back).await.unwrap();
            assert!(back == data);
            server.await.unwrap();
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// Two tasks wait in `recv_from` on one shared socket at the same time: both get a datagram
/// (neither waker replaces the other).
#[test]
fn two_tasks_receiving_on_one_udp_socket_both_get_a_datagram() {
    watchdog(30, "two receivers", || {
        let ex = common::leak_checked(2);
        ex.block_on(async {
            let socket = std::sync::Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
            let addr = socket.local_addr().unwrap();
            let (waiting_tx, waiting_rx) = async_channel::unbounded::<()>();
            let receivers: Vec<_> = (0..2)
                .map(|_| {
                    let socket = std::sync::Arc::clone(&socket);
                    let waiting_tx = waiting_tx.clone();
                    filch::spawn(async move {
                        let mut buf = [0; 16];
                        let mut recv = Box::pin(socket.recv_from(&mut buf));
                        assert!(futures::poll!(&mut recv).is_pending());
                        waiting_tx.send(()).await.unwrap();
                        recv.await.unwrap().0
                    })
                })
                .collect();
            waiting_rx.recv().await.unwrap();
            waiting_rx.recv().await.unwrap();
            let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            sender.send_to(b"one", addr).unwrap();
            filch::time::sleep(std::time::Duration::from_millis(20)).await;
            sender.send_to(b"two", addr).unwrap();
            let mut total = 0;
            for receiver in receivers {
                total += receiver.await.unwrap();
            }
            assert_eq!(total, 6);
        });
    });
}

/// A Unix stream read stops after a segment that carried file descriptors (`SCM_RIGHTS`),
/// though more bytes are queued: the next read must still get them.
#[test]
fn a_unix_read_cut_short_by_passed_descriptors_does_not_lose_the_rest() {
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream as StdUnixStream;
    watchdog(30, "scm_rights", || {
        let ex = common::leak_checked(1);
        ex.block_on(async {
            let (ours, peer) = StdUnixStream::pair().unwrap();
            let mut ours = filch::net::UnixStream::from_std(ours).unwrap();
            send_with_fd(&peer, b"abc", peer.as_raw_fd());
            std::io::Write::write_all(&mut &peer, b"def").unwrap();
            let mut got = Vec::new();
            let mut buf = [0; 1024];
            while got.len() < 6 {
                let n =
                    filch::time::timeout(std::time::Duration::from_secs(5), ours.read(&mut buf))
                        .await
                        .unwrap_or_else(|_| {
                            panic!(
                                "read {:?} so far; the bytes after the descriptor never came",
                                String::from_utf8_lossy(&got)
                            )
                        })
                        .unwrap();
                assert!(n > 0, "end of file before all bytes");
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, b"abcdef");
        });
    });
}

/// Sends `bytes` on `stream` with `fd` attached (`SCM_RIGHTS`).
fn send_with_fd(stream: &std::os::unix::net::UnixStream, bytes: &[u8], fd: i32) {
    use std::os::fd::AsRawFd;
    // SAFETY: `msg` points at an iovec over `bytes` and a control buffer large enough for
    // one descriptor (CMSG_SPACE), both alive for the call; the cmsg header is written
    // inside that buffer through CMSG_FIRSTHDR.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: bytes.as_ptr() as *mut libc::c_void,
            iov_len: bytes.len(),
        };
        let space = libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) as usize;
        let mut control = vec![0u8; space];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<i32>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>(), fd);
        let sent = libc::sendmsg(stream.as_raw_fd(), &msg, 0);
        assert_eq!(sent, bytes.len() as isize, "sendmsg(SCM_RIGHTS)");
    }
}

/// `connect`, `send`, `recv` and `peek_from` on UDP: a peeked datagram is received again.
#[test]
fn udp_connect_send_recv_and_peek() {
    watchdog(30, "udp connect", || {
        let ex = common::leak_checked(1);
        ex.block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            a.connect(b.local_addr().unwrap()).await.unwrap();
            b.connect(a.local_addr().unwrap()).await.unwrap();
            a.send(b"one").await.unwrap();
            let mut buf = [0; 8];
            let (n, from) = b.peek_from(&mut buf).await.unwrap();
            assert_eq!((&buf[..n], from), (&b"one"[..], a.local_addr().unwrap()));
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(
                &buf[..n],
                b"one",
                "the peeked datagram was not received again"
            );
        });
    });
}

/// `UnixDatagram`: a pair, and a bound socket receiving from an unbound one by path.
#[test]
fn unix_datagrams_arrive_by_pair_and_by_path() {
    watchdog(30, "unix datagram", || {
        let ex = common::leak_checked(1);
        ex.block_on(async {
            let (a, b) = filch::net::UnixDatagram::pair().unwrap();
            a.send(b"paired").await.unwrap();
            let mut buf = [0; 16];
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"paired");
            let dir = std::env::temp_dir().join(format!("filch-dgram-{}", std::process::id()));
            let _ = std::fs::remove_file(&dir);
            let bound = filch::net::UnixDatagram::bind(&dir).unwrap();
            let unbound = filch::net::UnixDatagram::unbound().unwrap();
            unbound.send_to(b"by path", &dir).await.unwrap();
            let (n, _) = bound.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"by path");
            unbound.connect(&dir).unwrap();
            unbound.send(b"connected").await.unwrap();
            let n = bound.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"connected");
            drop(bound);
            let _ = std::fs::remove_file(&dir);
        });
    });
}
