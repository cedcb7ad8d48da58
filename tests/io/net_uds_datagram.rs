//! `UnixDatagram`'s readiness, `try_*` and `poll_*` operations. tokio's
//! `tests/uds_datagram.rs` tests of them, ported (`// origin:` lines; tokio's `ReadBuf` is a
//! plain slice here, and `try_recv_buf_from` is `try_recv_from`), each on a filch executor
//! under a watchdog.

use std::future::{poll_fn, Future};
use std::io;
use std::path::PathBuf;

use crate::common::{executor, watchdog};
use filch::net::UnixDatagram;

/// Runs `body` on a 2-worker executor under a watchdog.
fn run<F: Future<Output = io::Result<()>> + Send + 'static>(
    name: &'static str,
    body: impl FnOnce() -> F + Send + 'static,
) {
    watchdog(30, name, move || executor(2).block_on(body()).unwrap());
}

/// Two fresh socket paths in a directory of this test's own.
fn paths(test: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("filch-dgram-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.sock"), dir.join("b.sock"));
    let _ = (std::fs::remove_file(&a), std::fs::remove_file(&b));
    (a, b)
}

// origin: tokio tests/uds_datagram.rs `try_send_recv_never_block`
#[test]
fn try_send_recv_never_block() {
    run("try_send_recv_never_block", || async {
        let mut recv_buf = [0u8; 16];
        let payload = b"PAYLOAD";
        let mut count = 0;
        let (dgram1, dgram2) = UnixDatagram::pair()?;
        // Send until the OS's queue (`net.unix.max_dgram_qlen`) is full.
        loop {
            dgram1.writable().await.unwrap();
            match dgram1.try_send(payload) {
                Err(err) => match (err.kind(), err.raw_os_error()) {
                    (io::ErrorKind::WouldBlock, _) | (_, Some(libc::ENOBUFS)) => break,
                    _ => panic!("unexpected error {err:?}"),
                },
                Ok(len) => assert_eq!(len, payload.len()),
            }
            count += 1;
        }
        // Read every datagram sent.
        while count > 0 {
            dgram2.readable().await.unwrap();
            let len = dgram2.try_recv(&mut recv_buf[..])?;
            assert_eq!(&recv_buf[..len], payload);
            count -= 1;
        }
        let err = dgram2.try_recv(&mut recv_buf[..]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        Ok(())
    });
}

// origin: tokio tests/uds_datagram.rs `send_to_recv_from_poll`
#[test]
fn send_to_recv_from_poll() {
    run("send_to_recv_from_poll", || async {
        let (sender_path, receiver_path) = paths("stpoll");
        let sender = UnixDatagram::bind(&sender_path)?;
        let receiver = UnixDatagram::bind(&receiver_path)?;
        let msg = b"hello";
        poll_fn(|cx| sender.poll_send_to(cx, msg, &receiver_path)).await?;
        let mut recv_buf = [0u8; 32];
        let (n, addr) = poll_fn(|cx| receiver.poll_recv_from(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], msg);
        assert_eq!(addr.as_pathname(), Some(sender_path.as_ref()));
        Ok(())
    });
}

// origin: tokio tests/uds_datagram.rs `send_recv_poll`
#[test]
fn send_recv_poll() {
    run("send_recv_poll", || async {
        let (sender_path, receiver_path) = paths("srpoll");
        let sender = UnixDatagram::bind(&sender_path)?;
        let receiver = UnixDatagram::bind(&receiver_path)?;
        sender.connect(&receiver_path)?;
        receiver.connect(&sender_path)?;
        let msg = b"hello";
        poll_fn(|cx| sender.poll_send(cx, msg)).await?;
        let mut recv_buf = [0u8; 32];
        let n = poll_fn(|cx| receiver.poll_recv(cx, &mut recv_buf)).await?;
        assert_eq!(&recv_buf[..n], msg);
        Ok(())
    });
}

// origin: tokio tests/uds_datagram.rs `try_send_to_recv_from`, and `poll_ready` (readiness
// through `poll_send_ready`/`poll_recv_ready` instead of `writable`/`readable`)
#[test]
fn try_send_to_recv_from_with_readiness_awaited_or_polled() {
    run("try_send_to_recv_from", || async {
        let (server_path, client_path) = paths("tstrf");
        let server = UnixDatagram::bind(&server_path)?;
        let client = UnixDatagram::bind(&client_path)?;
        for round in 0..10 {
            let polled = round % 2 == 1;
            loop {
                if polled {
                    poll_fn(|cx| client.poll_send_ready(cx)).await?;
                } else {
                    client.writable().await?;
                }
                match client.try_send_to(b"hello world", &server_path) {
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
                        assert_eq!(addr.as_pathname(), Some(client_path.as_ref()));
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
