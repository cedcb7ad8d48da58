//! `filch::net` TCP on filch's own driver: many concurrent echo connections get their bytes
//! back, a `&TcpStream` is read by one task while another writes through it, a half-closed
//! connection still delivers the reply, and connecting to a closed port reports an error.
//! Loopback only; every test runs under the watchdog.

mod common;

use std::sync::Arc;

use common::{executor, watchdog, POLICIES};
use filch::net::{TcpListener, TcpStream};
use futures::{AsyncReadExt, AsyncWriteExt};

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
