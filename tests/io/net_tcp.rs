//! `filch::net` TCP on filch's own driver: many concurrent echo connections get their bytes
//! back, a `&TcpStream` is read by one task while another writes through it, a half-closed
//! connection still delivers the reply, and connecting to a closed port reports an error.
//! Loopback only; every test runs under the watchdog.

use std::sync::Arc;

use crate::common::{self, executor, watchdog, POLICIES};
use filch::net::{TcpListener, TcpStream};
use futures::{AsyncReadExt, AsyncWriteExt};
use std::io::Write as _;

/// Serves echo on `listener` until the test ends: one task per connection.
fn spawn_echo(listener: TcpListener) {
    drop(filch::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            drop(filch::spawn(async move {
                let mut buf = vec![0; 4096];
                loop {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if conn.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }));
        }
    }));
}

#[test]
fn many_concurrent_echo_connections_get_every_byte_back() {
    for policy in POLICIES {
        watchdog(60, "echo", move || {
            let ex = common::executor_with(2, policy);
            ex.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                spawn_echo(listener);
                let clients: Vec<_> = (0..32u64)
                    .map(|c| {
                        filch::spawn(async move {
                            let stream = TcpStream::connect(addr).await.unwrap();
                            stream.set_nodelay(true).unwrap();
                            let data: Vec<u8> = (0..64 * 1024)
                                .map(|i| (common::mix(c * 1_000_003 + i) & 0xff) as u8)
                                .collect();
                            let (mut reader, mut writer) = (&stream, &stream);
                            let sent = data.clone();
                            let write = async move {
                                writer.write_all(&sent).await.unwrap();
                            };
                            let read = async move {
                                let mut got = vec![0; sent_len()];
                                reader.read_exact(&mut got).await.unwrap();
                                got
                            };
                            let ((), got) = futures::join!(write, read);
                            assert!(got == data, "client {c} got other bytes back");
                        })
                    })
                    .collect();
                for c in clients {
                    c.await.unwrap();
                }
            });
        });
    }
}

fn sent_len() -> usize {
    64 * 1024
}

#[test]
fn a_shared_stream_is_read_by_one_task_while_another_writes() {
    watchdog(60, "shared", || {
        let ex = executor(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            spawn_echo(listener);
            let stream = Arc::new(TcpStream::connect(addr).await.unwrap());
            let writer = {
                let stream = Arc::clone(&stream);
                filch::spawn(async move {
                    for i in 0..1000u32 {
                        (&*stream).write_all(&i.to_le_bytes()).await.unwrap();
                    }
                })
            };
            let reader = {
                let stream = Arc::clone(&stream);
                filch::spawn(async move {
                    let mut buf = [0; 4];
                    for i in 0..1000u32 {
                        (&*stream).read_exact(&mut buf).await.unwrap();
                        assert_eq!(u32::from_le_bytes(buf), i);
                    }
                })
            };
            writer.await.unwrap();
            reader.await.unwrap();
        });
    });
}

#[test]
fn a_half_closed_connection_still_gets_its_reply() {
    watchdog(60, "half-close", || {
        let ex = executor(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = filch::spawn(async move {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut request = Vec::new();
                // Reads to end-of-file: the client shut down its writing half.
                conn.read_to_end(&mut request).await.unwrap();
                conn.write_all(format!("got {} bytes", request.len()).as_bytes())
                    .await
                    .unwrap();
                conn.close().await.unwrap();
            });
            let mut client = TcpStream::connect(addr).await.unwrap();
            client.write_all(&[7; 100_000]).await.unwrap();
            client.shutdown(std::net::Shutdown::Write).unwrap();
            let mut reply = String::new();
            client.read_to_string(&mut reply).await.unwrap();
            assert_eq!(reply, "got 100000 bytes");
            // Writing after our own shutdown fails, on this connection only.
            assert!(client.write_all(b"late").await.is_err());
            server.await.unwrap();
        });
    });
}

#[test]
fn connecting_to_a_closed_port_reports_an_error() {
    watchdog(60, "refused", || {
        let ex = executor(1);
        // A port that was free a moment ago: nobody listens there.
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let err = ex.block_on(TcpStream::connect(addr)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused, "{err}");
    });
}

#[test]
fn from_std_sockets_work_and_io_on_the_global_executor_works() {
    watchdog(60, "from_std", || {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_listener.local_addr().unwrap();
        let std_client = std::net::TcpStream::connect(addr).unwrap();
        // No executor is current here: both belong to the global one.
        let listener = TcpListener::from_std(std_listener).unwrap();
        let mut client = TcpStream::from_std(std_client).unwrap();
        filch::block_on(async move {
            let (mut conn, peer) = listener.accept().await.unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            assert_eq!(conn.peer_addr().unwrap(), client.local_addr().unwrap());
            client.write_all(b"ping").await.unwrap();
            let mut buf = [0; 4];
            conn.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"ping");
        });
    });
}

/// tokio's `tcp_accept::accept_many`: several tasks accept on one shared listener; every
/// connection is accepted by one of them and every task completes (none is silently
/// replaced as the listener's one waiter and left waiting).
#[test]
fn several_tasks_accepting_on_one_listener_all_get_a_connection() {
    for policy in POLICIES {
        watchdog(30, "accept many", move || {
            const N: usize = 50;
            let ex = common::leak_checked_with(2, policy);
            ex.block_on(async {
                let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
                let addr = listener.local_addr().unwrap();
                let (ready_tx, ready_rx) = async_channel::unbounded::<()>();
                let acceptors: Vec<_> = (0..N)
                    .map(|_| {
                        let listener = Arc::clone(&listener);
                        let ready_tx = ready_tx.clone();
                        filch::spawn(async move {
                            let accept = listener.accept();
                            ready_tx.send(()).await.unwrap();
                            accept.await.unwrap().0
                        })
                    })
                    .collect();
                for _ in 0..N {
                    ready_rx.recv().await.unwrap();
                }
                // Let every acceptor reach its wait before the connections come.
                for _ in 0..10 {
                    filch::yield_now().await;
                }
                let clients: Vec<_> = (0..N)
                    .map(|_| std::net::TcpStream::connect(addr).unwrap())
                    .collect();
                for task in acceptors {
                    drop(task.await.unwrap());
                }
                drop(clients);
            });
        });
    }
}

/// Two tasks read one stream through `&TcpStream`, each waiting for its own bytes at the
/// same time: both complete (neither waker replaces the other).
#[test]
fn two_tasks_reading_one_stream_both_get_their_bytes() {
    watchdog(30, "two readers", || {
        let ex = common::leak_checked(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = std::net::TcpStream::connect(addr).unwrap();
            let (conn, _) = listener.accept().await.unwrap();
            let conn = Arc::new(conn);
            let (waiting_tx, waiting_rx) = async_channel::unbounded::<()>();
            let readers: Vec<_> = (0..2)
                .map(|_| {
                    let conn = Arc::clone(&conn);
                    let waiting_tx = waiting_tx.clone();
                    filch::spawn(async move {
                        let mut byte = [0; 1];
                        let mut shared = &*conn;
                        let mut read = shared.read(&mut byte);
                        // Poll the read once (it waits: nothing was sent yet) before the
                        // test sends anything.
                        let first = futures::poll!(&mut read);
                        assert!(
                            first.is_pending(),
                            "a read completed before any byte was sent"
                        );
                        waiting_tx.send(()).await.unwrap();
                        read.await.unwrap()
                    })
                })
                .collect();
            waiting_rx.recv().await.unwrap();
            waiting_rx.recv().await.unwrap();
            // One byte at a time, so each reader gets one.
            (&client).write_all(b"a").unwrap();
            filch::time::sleep(std::time::Duration::from_millis(20)).await;
            (&client).write_all(b"b").unwrap();
            let mut total = 0;
            for reader in readers {
                total += reader.await.unwrap();
            }
            assert_eq!(total, 2);
            drop(client);
        });
    });
}

/// A read that stops short at TCP's urgent mark (data queued behind it) must not lose the
/// readiness: the next read gets the rest without a new edge from the kernel.
#[test]
fn a_read_cut_short_by_the_urgent_mark_does_not_lose_the_rest() {
    use std::os::fd::AsRawFd;
    watchdog(30, "urgent mark", || {
        let ex = common::leak_checked(1);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = std::net::TcpStream::connect(addr).unwrap();
            let (mut conn, _) = listener.accept().await.unwrap();
            (&client).write_all(b"abc").unwrap();
            // SAFETY: a valid socket and a one-byte buffer of the length passed.
            let sent =
                unsafe { libc::send(client.as_raw_fd(), b"!".as_ptr().cast(), 1, libc::MSG_OOB) };
            assert_eq!(sent, 1, "send(MSG_OOB)");
            (&client).write_all(b"def").unwrap();
            // Everything is queued on loopback by now; nothing more is ever sent.
            let mut got = Vec::new();
            let mut buf = [0; 1024];
            while got.len() < 6 {
                let n =
                    filch::time::timeout(std::time::Duration::from_secs(5), conn.read(&mut buf))
                        .await
                        .unwrap_or_else(|_| {
                            panic!(
                                "read {:?} so far; the bytes behind the urgent mark never came",
                                String::from_utf8_lossy(&got)
                            )
                        })
                        .unwrap();
                assert!(n > 0, "end of file before all bytes");
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, b"abcdef");
            drop(client);
        });
    });
}

/// tokio's `tcp_split`/`tcp_into_split` shape: the owned halves move to different tasks;
/// dropping the write half shuts down the writing side (the peer reads end of file).
#[test]
fn into_split_halves_work_from_different_tasks() {
    watchdog(30, "into_split", || {
        let ex = common::leak_checked(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let (mut read, mut write) = server.into_split();
            assert_eq!(
                read.as_ref().peer_addr().unwrap(),
                client.local_addr().unwrap()
            );
            let reader = filch::spawn(async move {
                let mut got = Vec::new();
                read.read_to_end(&mut got).await.unwrap();
                got
            });
            let writer = filch::spawn(async move {
                write.write_all(b"from the write half").await.unwrap();
                // Dropped here: the client sees end of file.
            });
            client.write_all(b"to the read half").await.unwrap();
            client.shutdown(std::net::Shutdown::Write).unwrap();
            let mut back = Vec::new();
            client.read_to_end(&mut back).await.unwrap();
            assert_eq!(back, b"from the write half");
            writer.await.unwrap();
            assert_eq!(reader.await.unwrap(), b"to the read half");
        });
    });
}

/// `readable`/`try_read` and `writable`/`try_write`: `try_read` gives `WouldBlock` when
/// nothing is there and clears the readiness, so `readable` then waits for new data; any
/// number of tasks may wait in `readable`.
#[test]
fn readable_and_try_read_wait_for_new_data() {
    watchdog(30, "readable", || {
        let ex = common::leak_checked(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let server = Arc::new(server);
            let mut buf = [0; 16];
            let err = server.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
            let waiters: Vec<_> = (0..3)
                .map(|_| {
                    let server = Arc::clone(&server);
                    filch::spawn(async move { server.readable().await.unwrap() })
                })
                .collect();
            filch::time::sleep(std::time::Duration::from_millis(20)).await;
            assert!(
                waiters.iter().all(|w| !w.is_finished()),
                "readable returned with nothing to read"
            );
            (&client).write_all(b"data").unwrap();
            for w in waiters {
                w.await.unwrap();
            }
            let n = server.try_read(&mut buf).unwrap();
            assert_eq!(&buf[..n], b"data");
            server.writable().await.unwrap();
            assert_eq!(server.try_write(b"back").unwrap(), 4);
            let mut back = [0; 4];
            std::io::Read::read_exact(&mut &client, &mut back).unwrap();
            assert_eq!(&back, b"back");
        });
    });
}
