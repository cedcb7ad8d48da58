//! `filch::net::UdpSocket`, `UnixListener` and `UnixStream` on filch's driver: datagrams and
//! a Unix-domain echo arrive intact.

mod common;

use common::{executor, watchdog};
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
