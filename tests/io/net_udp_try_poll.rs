//! `UdpSocket`'s readiness, `try_*` and `poll_*` operations and its peeks. tokio's
//! `tests/udp.rs` tests of them, ported (`// origin:` lines; tokio's `ReadBuf` is a plain
//! slice here, and `try_recv_buf_from` is `try_recv_from`), each on a filch executor under a
//! watchdog.

use std::future::{poll_fn, Future};
use std::io;

use crate::common::{executor, watchdog};
use filch::net::UdpSocket;

const MSG: &[u8] = b"hello";

/// Runs `body` on a 2-worker executor under a watchdog.
fn run<F: Future<Output = io::Result<()>> + Send + 'static>(
    name: &'static str,
    body: impl FnOnce() -> F + Send + 'static,
) {
    watchdog(30, name, move || executor(2).block_on(body()).unwrap());
}

/// Two sockets on loopback: (sender, receiver).
async fn pair() -> io::Result<(UdpSocket, UdpSocket)> {
    Ok((
        UdpSocket::bind("127.0.0.1:0").await?,
        UdpSocket::bind("127.0.0.1:0").await?,
    ))
}

// origin: tokio tests/udp.rs `send_recv_poll`
#[test]
fn send_recv_poll() {
    run("send_recv_poll", || async {
        let (sender, receiver) = pair().await?;
        sender.connect(receiver.local_addr()?).await?;
        receiver.connect(sender.local_addr()?).await?;
        poll_fn(|cx| sender.poll_send(cx, MSG)).await?;
        let mut recv_buf = [0u8; 32];
        let n = poll_fn(|cx| receiver.poll_recv(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], MSG);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `send_to_recv_from_poll`
#[test]
fn send_to_recv_from_poll() {
    run("send_to_recv_from_poll", || async {
        let (sender, receiver) = pair().await?;
        let receiver_addr = receiver.local_addr()?;
        poll_fn(|cx| sender.poll_send_to(cx, MSG, receiver_addr)).await?;
        let mut recv_buf = [0u8; 32];
        let (n, addr) = poll_fn(|cx| receiver.poll_recv_from(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], MSG);
        assert_eq!(addr, sender.local_addr()?);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `send_to_try_peek_from`
#[test]
fn send_to_try_peek_from() {
    run("send_to_try_peek_from", || async {
        let (sender, receiver) = pair().await?;
        let receiver_addr = receiver.local_addr()?;
        poll_fn(|cx| sender.poll_send_to(cx, MSG, receiver_addr)).await?;
        let mut recv_buf = [0u8; 32];
        loop {
            match receiver.try_peek_from(&mut recv_buf) {
                Ok((n, addr)) => {
                    assert_eq!(&recv_buf[..n], MSG);
                    assert_eq!(addr, sender.local_addr()?);
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => receiver.readable().await?,
                Err(e) => return Err(e),
            }
        }
        let mut recv_buf = [0u8; 32];
        let (n, addr) = receiver.peek_from(&mut recv_buf).await?;
        assert_eq!((&recv_buf[..n], addr), (MSG, sender.local_addr()?));
        let mut recv_buf = [0u8; 32];
        let (n, addr) = receiver.recv_from(&mut recv_buf).await?;
        assert_eq!((&recv_buf[..n], addr), (MSG, sender.local_addr()?));
        Ok(())
    });
}

// origin: tokio tests/udp.rs `send_to_peek_from_poll`
#[test]
fn send_to_peek_from_poll() {
    run("send_to_peek_from_poll", || async {
        let (sender, receiver) = pair().await?;
        let receiver_addr = receiver.local_addr()?;
        poll_fn(|cx| sender.poll_send_to(cx, MSG, receiver_addr)).await?;
        let mut recv_buf = [0u8; 32];
        let (n, addr) = poll_fn(|cx| receiver.poll_peek_from(cx, &mut recv_buf)).await?;
        assert_eq!((&recv_buf[..n], addr), (MSG, sender.local_addr()?));
        let mut recv_buf = [0u8; 32];
        let (n, _) = poll_fn(|cx| receiver.poll_peek_from(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], MSG);
        let mut recv_buf = [0u8; 32];
        let (n, _) = poll_fn(|cx| receiver.poll_recv_from(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], MSG);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `peek_sender`
#[test]
fn peek_sender() {
    run("peek_sender", || async {
        let (sender, receiver) = pair().await?;
        let msg = b"Hello, world!";
        sender.send_to(msg, receiver.local_addr()?).await?;
        let peeked_sender = receiver.peek_sender().await?;
        assert_eq!(peeked_sender, sender.local_addr()?);
        let mut recv_buf = [0u8; 32];
        let (read, received_sender) = receiver.recv_from(&mut recv_buf).await?;
        assert_eq!(&recv_buf[..read], msg);
        assert_eq!(received_sender, peeked_sender);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `poll_peek_sender`
#[test]
fn poll_peek_sender() {
    run("poll_peek_sender", || async {
        let (sender, receiver) = pair().await?;
        let msg = b"Hello, world!";
        let receiver_addr = receiver.local_addr()?;
        poll_fn(|cx| sender.poll_send_to(cx, msg, receiver_addr)).await?;
        let peeked_sender = poll_fn(|cx| receiver.poll_peek_sender(cx)).await?;
        assert_eq!(peeked_sender, sender.local_addr()?);
        let mut recv_buf = [0u8; 32];
        let (n, received_sender) = poll_fn(|cx| receiver.poll_recv_from(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], msg);
        assert_eq!(received_sender, peeked_sender);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `try_peek_sender`
#[test]
fn try_peek_sender() {
    run("try_peek_sender", || async {
        let (sender, receiver) = pair().await?;
        let msg = b"Hello, world!";
        sender.send_to(msg, receiver.local_addr()?).await?;
        let peeked_sender = loop {
            match receiver.try_peek_sender() {
                Ok(peeked_sender) => break peeked_sender,
                Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => receiver.readable().await?,
                Err(e) => return Err(e),
            }
        };
        assert_eq!(peeked_sender, sender.local_addr()?);
        let mut recv_buf = [0u8; 32];
        // The sender was peeked: the datagram is there.
        let (read, received_sender) = receiver.try_recv_from(&mut recv_buf).unwrap();
        assert_eq!(&recv_buf[..read], msg);
        assert_eq!(received_sender, peeked_sender);
        Ok(())
    });
}

// origin: tokio tests/udp.rs `try_send_recv`
#[test]
fn try_send_recv() {
    run("try_send_recv", || async {
        let (client, server) = pair().await?;
        client.connect(server.local_addr()?).await?;
        server.connect(client.local_addr()?).await?;
        for _ in 0..5 {
            loop {
                client.writable().await?;
                match client.try_send(b"hello world") {
                    Ok(n) => {
                        assert_eq!(n, 11);
                        break;
                    }
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e:?}"),
                }
            }
            loop {
                server.readable().await?;
                let mut buf = [0; 512];
                match server.try_recv(&mut buf) {
                    Ok(n) => {
                        assert_eq!(&buf[..n], &b"hello world"[..]);
                        break;
                    }
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e:?}"),
                }
            }
        }
        Ok(())
    });
}

// origin: tokio tests/udp.rs `try_send_to_recv_from`, and `poll_ready` (readiness through
// `poll_send_ready`/`poll_recv_ready` instead of `writable`/`readable`)
#[test]
fn try_send_to_recv_from_with_readiness_awaited_or_polled() {
    run("try_send_to_recv_from", || async {
        let (client, server) = pair().await?;
        let (saddr, caddr) = (server.local_addr()?, client.local_addr()?);
        for round in 0..10 {
            let polled = round % 2 == 1;
            loop {
                if polled {
                    poll_fn(|cx| client.poll_send_ready(cx)).await?;
                } else {
                    client.writable().await?;
                }
                match client.try_send_to(b"hello world", saddr) {
                    Ok(n) => {
                        assert_eq!(n, 11);
                        break;
                    }
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e:?}"),
                }
            }
            loop {
                if polled {
                    poll_fn(|cx| server.poll_recv_ready(cx)).await?;
                } else {
                    server.readable().await?;
                }
                let mut buf = [0; 512];
                match server.try_recv_from(&mut buf) {
                    Ok((n, addr)) => {
                        assert_eq!(addr, caddr);
                        assert_eq!(&buf[..n], &b"hello world"[..]);
                        break;
                    }
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e:?}"),
                }
            }
        }
        Ok(())
    });
}

/// Nothing has come: `try_recv` and `try_peek_sender` say `WouldBlock` at once, and a
/// `poll_recv_ready` stays pending.
#[test]
fn the_try_operations_never_wait() {
    run("try never waits", || async {
        let (a, _b) = pair().await?;
        let mut buf = [0u8; 8];
        assert_eq!(
            a.try_recv_from(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        assert_eq!(
            a.try_peek_sender().unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let mut ready = tokio_test::task::spawn(poll_fn(|cx| a.poll_recv_ready(cx)));
        tokio_test::assert_pending!(ready.poll());
        Ok(())
    });
}
