//! `UnixStream` at `TcpStream`'s shape: accept, read, write and shut down; readiness with
//! `try_read`/`try_write`; `pair`; borrowed and owned halves with `reunite`; `peek`. tokio's
//! `tests/uds_stream.rs` and `tests/uds_split.rs`, ported (`// origin:` lines; the vectored
//! `try_*` and `ready(Interest)` parts are left out: filch has neither), on filch's executor
//! with `futures::io`'s traits.

use std::io;
use std::path::PathBuf;

use crate::common::{executor, watchdog};
use filch::net::{UnixListener, UnixStream};
use futures::{AsyncReadExt, AsyncWriteExt};
use tokio_test::{assert_pending, assert_ready_ok, task};

/// A fresh socket path in a directory of this test's own.
fn sock_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("filch-uds-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("connect.sock");
    let _ = std::fs::remove_file(&path);
    path
}

/// A connected (server, client) pair through a listener at a fresh path.
async fn accepted(name: &str) -> (UnixStream, UnixStream) {
    let path = sock_path(name);
    let listener = UnixListener::bind(&path).await.unwrap();
    let (accept, connect) = futures::join!(listener.accept(), UnixStream::connect(&path));
    (accept.unwrap().0, connect.unwrap())
}

// origin: tokio tests/uds_stream.rs `accept_read_write`
#[test]
fn accept_read_write() {
    watchdog(30, "uds accept_read_write", || {
        executor(2).block_on(async {
            let (mut server, mut client) = accepted("arw").await;
            client.write_all(b"hello").await.unwrap();
            drop(client);
            let mut buf = vec![];
            server.read_to_end(&mut buf).await.unwrap();
            assert_eq!(&buf, b"hello");
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        });
    });
}

// origin: tokio tests/uds_stream.rs `shutdown`
#[test]
fn shutdown() {
    watchdog(30, "uds shutdown", || {
        executor(2).block_on(async {
            let (mut server, mut client) = accepted("shutdown").await;
            client.close().await.unwrap();
            let mut buf = [0u8; 1];
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        });
    });
}

// origin: tokio tests/uds_stream.rs `try_read_write` (its non-vectored part)
#[test]
fn try_read_write() {
    watchdog(30, "uds try_read_write", || {
        executor(1).block_on(async {
            let msg = b"hello world";
            let (server, client) = accepted("trw").await;
            let mut written = msg.to_vec();
            // Nothing to read: `WouldBlock`.
            assert_eq!(
                server.try_read(&mut [0; 1]).unwrap_err().kind(),
                io::ErrorKind::WouldBlock
            );
            let mut readable = task::spawn(server.readable());
            assert_pending!(readable.poll());
            client.writable().await.unwrap();
            assert_eq!(msg.len(), client.try_write(msg).unwrap());
            while !readable.is_woken() {
                filch::yield_now().await;
            }
            // Fill the write buffer. Still writable after a write; `writable` spends the
            // task's cooperative budget (tokio's does not), so after the first check the loop
            // awaits it, which yields whenever the budget runs out.
            let mut writable = task::spawn(client.writable());
            assert_ready_ok!(writable.poll());
            drop(writable);
            loop {
                client.writable().await.unwrap();
                match client.try_write(msg) {
                    Ok(n) => written.extend(&msg[..n]),
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => panic!("error = {e:?}"),
                }
            }
            // Write buffer full.
            let mut writable = task::spawn(client.writable());
            assert_pending!(writable.poll());
            // Drain it from the server's end.
            let mut read = vec![0; written.len()];
            let mut i = 0;
            while i < read.len() {
                server.readable().await.unwrap();
                match server.try_read(&mut read[i..]) {
                    Ok(n) => i += n,
                    Err(ref e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("error = {e:?}"),
                }
            }
            assert_eq!(read, written);
            // Writable again once drained.
            client.writable().await.unwrap();
        });
    });
}

// origin: tokio tests/uds_stream.rs `pair_starts_writable`
#[test]
fn pair_starts_writable() {
    watchdog(30, "uds pair", || {
        executor(1).block_on(async {
            let (a, mut b) = UnixStream::pair().unwrap();
            a.writable().await.unwrap();
            assert_eq!(a.try_write(b"hi").unwrap(), 2);
            b.write_all(b"yo").await.unwrap();
            let (c, _d) = UnixStream::pair().unwrap();
            let mut readable = task::spawn(c.readable());
            assert_pending!(readable.poll());
            assert_eq!(
                c.try_read(&mut [0u8; 1]).unwrap_err().kind(),
                io::ErrorKind::WouldBlock
            );
            // The peer's bytes arrive through the driver.
            a.readable().await.unwrap();
            let mut buf = [0u8; 8];
            assert_eq!(a.try_read(&mut buf).unwrap(), 2);
            assert_eq!(&buf[..2], b"yo");
            let mut two = [0u8; 2];
            b.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"hi");
        });
    });
}

/// Both directions of a connection: write `input`, shut down, read the peer's to the end.
async fn send_recv_all(
    read: &mut (dyn futures::AsyncRead + Unpin),
    write: &mut (dyn futures::AsyncWrite + Unpin),
    input: &[u8],
) -> io::Result<Vec<u8>> {
    write.write_all(input).await?;
    write.close().await?;
    let mut output = Vec::new();
    read.read_to_end(&mut output).await?;
    Ok(output)
}

// origin: tokio tests/uds_split.rs `split`
#[test]
fn split_halves_close_their_writing_side() {
    watchdog(30, "uds split", || {
        executor(2).block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            let (mut a_read, mut a_write) = UnixStream::split(&mut a);
            let (mut b_read, mut b_write) = UnixStream::split(&mut b);
            let (a_response, b_response) = futures::future::try_join(
                send_recv_all(&mut a_read, &mut a_write, b"A"),
                send_recv_all(&mut b_read, &mut b_write, b"B"),
            )
            .await
            .unwrap();
            assert_eq!(a_response, b"B");
            assert_eq!(b_response, b"A");
        });
    });
}

/// Owned halves move to tasks and come back together; halves of two streams do not;
/// `peek` leaves the bytes for the read.
#[test]
fn owned_halves_reunite_and_peek() {
    watchdog(30, "uds into_split", || {
        executor(2).block_on(async {
            let (a, mut b) = UnixStream::pair().unwrap();
            let (c, _d) = UnixStream::pair().unwrap();
            let (mut read, write) = a.into_split();
            let (_, other_write) = c.into_split();
            let read_back = match read.reunite(other_write) {
                Ok(_) => panic!("halves of two streams reunited"),
                Err(filch::net::unix::ReuniteError(read, _)) => read,
            };
            read = read_back;
            b.write_all(b"peek").await.unwrap();
            let mut buf = [0u8; 4];
            assert_eq!(read.peek(&mut buf).await.unwrap(), 4);
            let mut again = [0u8; 4];
            read.read_exact(&mut again).await.unwrap();
            assert_eq!(&again, b"peek");
            let whole = read.reunite(write).expect("halves of one stream");
            whole.writable().await.unwrap();
            assert_eq!(whole.try_write(b"!").unwrap(), 1);
            let mut bang = [0u8; 1];
            b.read_exact(&mut bang).await.unwrap();
            assert_eq!(&bang, b"!");
        });
    });
}
