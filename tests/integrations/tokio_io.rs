//! With the cargo feature `tokio-io`: filch's streams work through tokio's `AsyncRead` and
//! `AsyncWrite` (an echo through `tokio::io::copy` and `read_exact`).

use crate::common::{executor, watchdog};
use filch::net::{TcpListener, TcpStream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn tokio_io_traits_move_every_byte() {
    watchdog(60, "tokio-io", || {
        let ex = executor(2);
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = filch::spawn(async move {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut buf = vec![0; 100_000];
                AsyncReadExt::read_exact(&mut conn, &mut buf).await.unwrap();
                AsyncWriteExt::write_all(&mut conn, &buf).await.unwrap();
                AsyncWriteExt::shutdown(&mut conn).await.unwrap();
            });
            let mut client = TcpStream::connect(addr).await.unwrap();
            let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
            AsyncWriteExt::write_all(&mut client, &data).await.unwrap();
            let mut back = Vec::new();
            AsyncReadExt::read_to_end(&mut client, &mut back)
                .await
                .unwrap();
            assert!(back == data);
            server.await.unwrap();
        });
    });
}

/// tokio's traits on every half and on `&TcpStream`: an echo server whose connections run
/// `tokio::io::copy` from the read half to the write half (borrowed halves of `split`, owned
/// halves of `into_split`, and two `&TcpStream`s), each echoing 100 kB and shutting down.
#[test]
fn tokio_io_copy_runs_on_halves_and_references() {
    watchdog(60, "tokio-io halves", || {
        let ex = executor(2);
        ex.block_on(async {
            for shape in ["split", "into_split", "&TcpStream"] {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let server = filch::spawn(async move {
                    let (mut conn, _) = listener.accept().await.unwrap();
                    match shape {
                        "split" => {
                            let (mut r, mut w) = TcpStream::split(&mut conn);
                            let n = tokio::io::copy(&mut r, &mut w).await.unwrap();
                            AsyncWriteExt::shutdown(&mut w).await.unwrap();
                            n
                        }
                        "into_split" => {
                            let (mut r, mut w) = conn.into_split();
                            let n = tokio::io::copy(&mut r, &mut w).await.unwrap();
                            AsyncWriteExt::shutdown(&mut w).await.unwrap();
                            n
                        }
                        _ => {
                            let (mut r, mut w) = (&conn, &conn);
                            let n = tokio::io::copy(&mut r, &mut w).await.unwrap();
                            AsyncWriteExt::shutdown(&mut w).await.unwrap();
                            n
                        }
                    }
                });
                let mut client = TcpStream::connect(addr).await.unwrap();
                let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
                let (mut r, mut w) = TcpStream::split(&mut client);
                let send = async {
                    AsyncWriteExt::write_all(&mut w, &data).await.unwrap();
                    AsyncWriteExt::shutdown(&mut w).await.unwrap();
                };
                let mut back = Vec::new();
                let receive = AsyncReadExt::read_to_end(&mut r, &mut back);
                let ((), got) = futures::join!(send, receive);
                got.unwrap();
                assert!(back == data, "{shape}: the echo differs");
                assert_eq!(server.await.unwrap(), 100_000, "{shape}");
            }
        });
    });
}
