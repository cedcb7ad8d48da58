//! async-io keeps working on filch: its reactor runs on its own thread (filch's workers
//! park in filch's own driver), and an `async_io::Async<TcpStream>` echo and an
//! `async_io::Timer` complete on filch's workers and in its `block_on`.

use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use crate::common::{executor, watchdog};
use async_io::{Async, Timer};
use futures::{AsyncReadExt, AsyncWriteExt};

#[test]
fn an_async_io_tcp_echo_and_timer_run_on_filch() {
    watchdog(60, "async-io", || {
        let ex = executor(2);
        ex.block_on(async {
            let listener = Async::<TcpListener>::bind(([127, 0, 0, 1], 0)).unwrap();
            let addr = listener.get_ref().local_addr().unwrap();
            let server = filch::spawn(async move {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut buf = vec![0; 10_000];
                conn.read_exact(&mut buf).await.unwrap();
                conn.write_all(&buf).await.unwrap();
            });
            let client = filch::spawn(async move {
                let mut c = Async::<TcpStream>::connect(addr).await.unwrap();
                let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
                c.write_all(&data).await.unwrap();
                let mut back = vec![0; 10_000];
                c.read_exact(&mut back).await.unwrap();
                assert!(back == data);
            });
            let start = Instant::now();
            filch::spawn(async { Timer::after(Duration::from_millis(5)).await })
                .await
                .unwrap();
            assert!(start.elapsed() >= Duration::from_millis(5));
            server.await.unwrap();
            client.await.unwrap();
        });
    });
}
