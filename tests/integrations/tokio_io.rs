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
