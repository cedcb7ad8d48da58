//! A TCP echo server on filch whose connections time out when idle: `filch::net` sockets
//! and `filch::time::timeout`.
//!
//! ```text
//! cargo run --example echo_timeout -- --demo                 # server + client, then exit
//! cargo run --example echo_timeout -- --addr 127.0.0.1:7070 --idle-ms 5000
//! ```
//!
//! Each connection is a filch task that echoes what it reads; a connection that sends
//! nothing for `--idle-ms` gets `idle timeout, bye` and is closed. `--demo` starts the
//! server on a free loopback port and runs a client against it that also uses timeouts:
//! it expects its echo within a deadline, then stays silent and waits (with a deadline of
//! its own) for the server to hang up.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use filch::net::{TcpListener, TcpStream};
use futures_lite::{AsyncReadExt, AsyncWriteExt};

/// Runs `fut`, or fails with [`io::ErrorKind::TimedOut`] once `after` has passed.
async fn timeout<T>(after: Duration, fut: impl Future<Output = io::Result<T>>) -> io::Result<T> {
    filch::time::timeout(after, fut).await?
}

/// Echoes on one connection until the client closes or stays idle for `idle`.
async fn echo(mut stream: TcpStream, idle: Duration) -> io::Result<()> {
    let mut buf = vec![0u8; 4096];
    loop {
        match timeout(idle, stream.read(&mut buf)).await {
            Ok(0) => return Ok(()),
            Ok(n) => stream.write_all(&buf[..n]).await?,
            Err(err) if err.kind() == io::ErrorKind::TimedOut => {
                stream.write_all(b"idle timeout, bye\n").await?;
                return Ok(());
            }
            Err(err) => return Err(err),
        }
    }
}

/// Accepts connections forever, one filch task each.
async fn serve(listener: TcpListener, idle: Duration) -> io::Result<()> {
    loop {
        let (stream, peer) = listener.accept().await?;
        // Detached: the task runs on its own; nobody awaits it.
        drop(filch::spawn(async move {
            if let Err(err) = echo(stream, idle).await {
                eprintln!("{peer}: {err}");
            }
        }));
    }
}

/// The `--demo` client: an echo within a deadline, then the server's idle hang-up.
async fn demo_client(addr: SocketAddr, idle: Duration) -> io::Result<()> {
    let deadline = Duration::from_secs(5);
    let mut stream = timeout(deadline, TcpStream::connect(addr)).await?;
    stream.write_all(b"hello, filch\n").await?;
    let mut echoed = [0u8; 13];
    timeout(deadline, stream.read_exact(&mut echoed)).await?;
    println!("client: echoed {:?}", String::from_utf8_lossy(&echoed));

    let silent_since = Instant::now();
    let mut rest = Vec::new();
    timeout(idle + deadline, stream.read_to_end(&mut rest)).await?;
    println!(
        "client: after {:?} of silence the server said {:?} and closed",
        silent_since.elapsed(),
        String::from_utf8_lossy(&rest)
    );
    Ok(())
}

fn main() -> io::Result<()> {
    let mut addr: SocketAddr = "127.0.0.1:7070".parse().expect("a valid default address");
    let mut idle = Duration::from_secs(10);
    let mut demo = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--addr" => {
                let text = args.next().unwrap_or_default();
                addr = text.parse().map_err(|e| {
                    io::Error::new(io::ErrorKind::InvalidInput, format!("--addr {text:?}: {e}"))
                })?;
            }
            "--idle-ms" => {
                let text = args.next().unwrap_or_default();
                let ms: u64 = text.parse().map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("--idle-ms {text:?}: {e}"),
                    )
                })?;
                idle = Duration::from_millis(ms);
            }
            "--demo" => demo = true,
            other => {
                eprintln!("usage: echo_timeout [--demo] [--addr IP:PORT] [--idle-ms MS]");
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("unknown argument {other:?}"),
                ));
            }
        }
    }

    let ex = filch::Executor::builder().worker_threads(2).build()?;
    if demo {
        let listener = ex.block_on(TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let idle = idle.min(Duration::from_millis(300));
        println!("demo: echo server on {addr}, idle timeout {idle:?}");
        let server = ex.spawn(serve(listener, idle));
        ex.block_on(demo_client(addr, idle))?;
        server.abort();
        return Ok(());
    }
    let listener = ex.block_on(TcpListener::bind(addr))?;
    println!(
        "echo server on {}, idle timeout {idle:?}",
        listener.local_addr()?
    );
    ex.block_on(serve(listener, idle))
}
