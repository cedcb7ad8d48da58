//! `TcpStream`'s halves: the borrowed ones of `split` (no lock), the owned ones of
//! `into_split` put back together by `reunite` (and refused for halves of two streams),
//! `peek` on the stream and its read halves, and a dropped owned write half that ends the
//! stream for the peer. tokio's `tests/tcp_split.rs` and `tests/tcp_into_split.rs`,
//! ported (`// origin:` lines), on filch's executor with `futures::io`'s traits.

use std::io::{Read, Write};
use std::{net, thread};

use crate::common::{executor, watchdog};
use filch::net::{TcpListener, TcpStream};
use futures::{AsyncReadExt, AsyncWriteExt};

// origin: tokio tests/tcp_split.rs `split`
#[test]
fn split_borrows_two_halves_that_peek_read_and_write() {
    watchdog(30, "split", || {
        const MSG: &[u8] = b"split";
        let listener = net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.write_all(MSG).unwrap();
            let mut read_buf = [0u8; 32];
            let read_len = stream.read(&mut read_buf).unwrap();
            assert_eq!(&read_buf[..read_len], MSG);
        });
        executor(2).block_on(async {
            let mut stream = TcpStream::connect(&addr).await.unwrap();
            let (mut read_half, mut write_half) = TcpStream::split(&mut stream);
            let mut read_buf = [0u8; 32];
            let peek_len1 = read_half.peek(&mut read_buf[..]).await.unwrap();
            let peek_len2 = read_half.peek(&mut read_buf[..]).await.unwrap();
            assert_eq!(peek_len1, peek_len2);
            let read_len = read_half.read(&mut read_buf[..]).await.unwrap();
            assert_eq!(peek_len1, read_len);
            assert_eq!(&read_buf[..read_len], MSG);
            assert_eq!(write_half.write(MSG).await.unwrap(), MSG.len());
        });
        handle.join().unwrap();
    });
}

// origin: tokio tests/tcp_into_split.rs `split`
#[test]
fn into_split_halves_peek_read_and_write_at_once() {
    watchdog(30, "into_split", || {
        const MSG: &[u8] = b"split";
        executor(2).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (stream1, accepted) = futures::join!(TcpStream::connect(&addr), listener.accept());
            let (mut stream2, _) = accepted.unwrap();
            let (mut read_half, mut write_half) = stream1.unwrap().into_split();
            let other_end = async {
                assert_eq!(stream2.write(MSG).await.unwrap(), MSG.len());
                let mut read_buf = vec![0u8; 32];
                let read_len = stream2.read(&mut read_buf).await.unwrap();
                assert_eq!(&read_buf[..read_len], MSG);
            };
            let write = async {
                assert_eq!(write_half.write(MSG).await.unwrap(), MSG.len());
            };
            let read = async {
                let mut read_buf = [0u8; 32];
                let peek_len1 = read_half.peek(&mut read_buf[..]).await.unwrap();
                let peek_len2 = read_half.peek(&mut read_buf[..]).await.unwrap();
                assert_eq!(peek_len1, peek_len2);
                let read_len = read_half.read(&mut read_buf[..]).await.unwrap();
                assert_eq!(peek_len1, read_len);
                assert_eq!(&read_buf[..read_len], MSG);
            };
            futures::join!(other_end, write, read);
        });
    });
}

// origin: tokio tests/tcp_into_split.rs `reunite`
#[test]
fn reunite_takes_halves_of_one_stream_only() {
    watchdog(30, "reunite", || {
        let listener = net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = thread::spawn(move || {
            drop(listener.accept().unwrap());
            drop(listener.accept().unwrap());
        });
        executor(1).block_on(async {
            let stream1 = TcpStream::connect(&addr).await.unwrap();
            let (read1, write1) = stream1.into_split();
            let stream2 = TcpStream::connect(&addr).await.unwrap();
            let (_, write2) = stream2.into_split();
            let read1 = match read1.reunite(write2) {
                Ok(_) => panic!("Reunite should not succeed"),
                Err(err) => {
                    assert!(err.to_string().contains("not from the same socket"));
                    err.0
                }
            };
            let stream = read1.reunite(write1).expect("Reunite should succeed");
            // The reunited stream is whole: its writing side was not shut down.
            stream.writable().await.unwrap();
            assert!(stream.try_write(b"still open").is_ok());
        });
        handle.join().unwrap();
    });
}

// origin: tokio tests/tcp_into_split.rs `drop_write`
#[test]
fn dropping_the_owned_write_half_ends_the_stream() {
    watchdog(30, "drop_write", || {
        const MSG: &[u8] = b"split";
        let listener = net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.write_all(MSG).unwrap();
            let mut read_buf = [0u8; 32];
            match stream.read(&mut read_buf) {
                Ok(0) => Ok(()),
                Ok(len) => Err(format!("Unexpected read: {len} bytes.")),
                Err(err) => Err(err.to_string()),
            }
        });
        executor(2).block_on(async {
            let stream = TcpStream::connect(&addr).await.unwrap();
            let (mut read_half, write_half) = stream.into_split();
            let mut read_buf = [0u8; 32];
            let read_len = read_half.read(&mut read_buf[..]).await.unwrap();
            assert_eq!(&read_buf[..read_len], MSG);
            // Dropped while the read below is in progress.
            thread::spawn(move || {
                thread::sleep(std::time::Duration::from_millis(10));
                drop(write_half);
            });
            match read_half.read(&mut read_buf[..]).await {
                Ok(0) => {}
                Ok(len) => panic!("Unexpected read: {len} bytes."),
                Err(err) => panic!("Unexpected error: {err}."),
            }
        });
        handle.join().unwrap().unwrap();
    });
}

/// Closing a borrowed write half shuts down the stream's writing side (the peer reads end
/// of file); dropping it does not.
#[test]
fn closing_a_borrowed_write_half_shuts_the_stream_down() {
    watchdog(30, "split close", || {
        executor(1).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (client, accepted) = futures::join!(TcpStream::connect(&addr), listener.accept());
            let (mut client, (mut server, _)) = (client.unwrap(), accepted.unwrap());
            {
                // A write half that goes out of scope.
                let (_, _write) = TcpStream::split(&mut client);
            }
            client.write_all(b"after the drop").await.unwrap();
            let (_, mut write) = TcpStream::split(&mut client);
            write.close().await.unwrap();
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"after the drop");
        });
    });
}
