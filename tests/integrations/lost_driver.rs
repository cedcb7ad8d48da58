//! The lost IO driver's stress: a hyper service on `filch::net` under load from new
//! connections, whose handlers call the parallel iterators directly (short and long loops),
//! `par::run(..).await` and timers, stopped by a real SIGINT (`filch::signal::ctrl_c`), over
//! and over on 1 to 4 workers. Each run must serve every request it accepted before the
//! signal and return from `block_on`; a run that stalls fails with each thread's state (its
//! name, its system call, its wait channel), so a stall where no thread waits in
//! `epoll_wait` reads as what it is: every thread parked with nobody turning the driver.
//!
//! `FILCH_STRESS_RUNS` sets the number of runs (default 60; the stress is 500).
//!
//! The signal goes to the whole process: the first run installs filch's SIGINT handler
//! (its `ctrl_c` is polled before any signal is sent), and it stays installed, so a signal
//! never takes the default action; no other test in this binary listens for SIGINT.

use std::convert::Infallible;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::thread;
use std::time::Duration;

use bytes::Bytes;
use filch::par::prelude::*;
use http_body_util::Full;
use hyper::{Request, Response};

use crate::common::{named_executor, watchdog};

/// A little CPU work per item, so that loops take a moment.
fn work(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..64 {
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(7);
    }
    std::hint::black_box(h)
}

/// The expected body of `/direct/N` and `/run/N`, for the sizes the clients ask for.
fn expected(n: u64) -> u64 {
    static SUMS: OnceLock<Vec<(u64, u64)>> = OnceLock::new();
    let sums = SUMS.get_or_init(|| {
        [10, 100, 1024, 20_000]
            .into_iter()
            .map(|n| (n, (0..n).map(work).fold(0, u64::wrapping_add)))
            .collect()
    });
    sums.iter().find(|&&(m, _)| m == n).expect("a known size").1
}

/// Routes one request: `/health`, `/sleep` (a 1 ms timer), `/direct/N` (a parallel
/// iterator over N items, called in the handler), `/run/N` (the same through `par::run`).
async fn handle(req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_owned();
    let body = if path == "/health" {
        "ok".to_owned()
    } else if path == "/sleep" {
        filch::time::sleep(Duration::from_millis(1)).await;
        "slept".to_owned()
    } else if let Some(n) = path.strip_prefix("/direct/") {
        let n: u64 = n.parse().unwrap();
        let sum = (0..n)
            .into_par_iter()
            .map(work)
            .reduce(|| 0, u64::wrapping_add);
        sum.to_string()
    } else if let Some(n) = path.strip_prefix("/run/") {
        let n: u64 = n.parse().unwrap();
        let sum = filch::par::run(move || {
            (0..n)
                .into_par_iter()
                .map(work)
                .reduce(|| 0, u64::wrapping_add)
        })
        .await;
        sum.to_string()
    } else {
        "?".to_owned()
    };
    Ok(Response::new(Full::new(Bytes::from(body))))
}

/// The server: accepts until SIGINT, one task per connection; then stops accepting, lets
/// the open connections finish (graceful shutdown), and returns how many it accepted.
async fn serve(listener: std::net::TcpListener, ready: Arc<AtomicBool>) -> usize {
    let listener = filch::net::TcpListener::from_std(listener).unwrap();
    let mut ctrl_c = pin!(filch::signal::ctrl_c());
    // One poll installs the handler before any client may send the signal.
    std::future::poll_fn(|cx| {
        assert!(
            ctrl_c.as_mut().poll(cx).is_pending(),
            "a SIGINT before the start"
        );
        Poll::Ready(())
    })
    .await;
    ready.store(true, Ordering::SeqCst);
    let open = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(event_listener::Event::new());
    let stopping = Arc::new(event_listener::Event::new());
    let stop_flag = Arc::new(AtomicBool::new(false));
    let mut accepted = 0;
    loop {
        let next = futures_lite::future::or(async { Some(listener.accept().await) }, async {
            ctrl_c.as_mut().await.unwrap();
            None
        })
        .await;
        let Some(next) = next else { break };
        let (stream, _) = next.unwrap();
        accepted += 1;
        open.fetch_add(1, Ordering::SeqCst);
        let (open, closed, stopping, stop_flag) = (
            Arc::clone(&open),
            Arc::clone(&closed),
            Arc::clone(&stopping),
            Arc::clone(&stop_flag),
        );
        drop(filch::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(filch::hyper::HyperTimer)
                .serve_connection(stream, hyper::service::service_fn(handle));
            let mut conn = pin!(conn);
            let stopped = futures_lite::future::or(
                async {
                    let _ = conn.as_mut().await;
                    false
                },
                async {
                    loop {
                        let listener = stopping.listen();
                        if stop_flag.load(Ordering::SeqCst) {
                            return true;
                        }
                        listener.await;
                    }
                },
            )
            .await;
            if stopped {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
            if open.fetch_sub(1, Ordering::SeqCst) == 1 {
                closed.notify(usize::MAX);
            }
        }));
    }
    drop(listener);
    stop_flag.store(true, Ordering::SeqCst);
    stopping.notify(usize::MAX);
    loop {
        let listener = closed.listen();
        if open.load(Ordering::SeqCst) == 0 {
            break;
        }
        listener.await;
    }
    accepted
}

/// One client: new connections (some keep-alive for a few requests) until the server stops
/// answering; checks every answer it gets. Returns how many it got.
fn client(addr: SocketAddr, seed: u64, stop: &AtomicBool) -> usize {
    let mut answered = 0;
    let mut rng = seed;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    'connections: while !stop.load(Ordering::SeqCst) {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            return answered;
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        for _ in 0..1 + next() % 4 {
            let (path, want) = match next() % 6 {
                0 | 1 => ("/health".to_owned(), "ok".to_owned()),
                2 => ("/sleep".to_owned(), "slept".to_owned()),
                3 => {
                    let n = [10, 100, 1024][(next() % 3) as usize];
                    (format!("/direct/{n}"), expected(n).to_string())
                }
                4 => {
                    let n = 20_000;
                    (format!("/direct/{n}"), expected(n).to_string())
                }
                _ => {
                    let n = [100, 20_000][(next() % 2) as usize];
                    (format!("/run/{n}"), expected(n).to_string())
                }
            };
            let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
            if stream.write_all(request.as_bytes()).is_err() {
                continue 'connections;
            }
            match read_body(&mut stream) {
                Some(body) => {
                    assert_eq!(body, want, "wrong answer to {path}");
                    answered += 1;
                }
                // The server stopped: a close instead of an answer.
                None => continue 'connections,
            }
        }
    }
    answered
}

/// Reads one response's body (`Content-Length` framed), or `None` on a close.
fn read_body(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            Ok(_) => return None,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                panic!("no answer within the read timeout: the server stalled")
            }
            Err(err) if err.kind() == std::io::ErrorKind::TimedOut => {
                panic!("no answer within the read timeout: the server stalled")
            }
            Err(_) => return None,
        }
    }
    let head = String::from_utf8(buf).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let len: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("a Content-Length");
    let mut body = vec![0; len];
    stream.read_exact(&mut body).ok()?;
    Some(String::from_utf8(body).unwrap())
}

/// Each thread of this process: its name, its system call (`/proc/.../syscall`'s first
/// field: 232 is `epoll_wait`, 281 `epoll_pwait` on x86_64) and wait channel.
fn threads() -> String {
    let mut out = String::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return "(no /proc)".to_owned();
    };
    for task in dir.flatten() {
        let read = |file: &str| {
            std::fs::read_to_string(task.path().join(file))
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let syscall = read("syscall");
        let syscall = syscall.split(' ').next().unwrap_or("");
        out += &format!(
            "  {:<24} syscall {:<6} wchan {}\n",
            read("comm"),
            syscall,
            read("wchan")
        );
    }
    out
}

/// One run: a server on `workers` workers, `clients` client threads, SIGINT after `load`.
fn one_run(workers: usize, clients: usize, load: Duration, run: usize) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let ready = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let server = {
        let (ready, done) = (Arc::clone(&ready), Arc::clone(&done));
        thread::spawn(move || {
            let ex = named_executor(workers, "lost-driver");
            let accepted = ex.block_on(serve(listener, ready));
            drop(ex);
            done.store(true, Ordering::SeqCst);
            accepted
        })
    };
    while !ready.load(Ordering::SeqCst) {
        thread::yield_now();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..clients)
        .map(|i| {
            let stop = Arc::clone(&stop);
            thread::spawn(move || client(addr, (run * 64 + i + 1) as u64 * 0x2545_F491, &stop))
        })
        .collect();
    thread::sleep(load);
    // SAFETY: `kill` with this process's id and a signal number has no memory effects.
    assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGINT) }, 0);
    // A stalled run: report every thread while they are stuck, then fail.
    let mut waited = Duration::ZERO;
    while !done.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(10));
        waited += Duration::from_millis(10);
        assert!(
            waited < Duration::from_secs(60),
            "run {run} ({workers} workers) did not stop within 60 s of SIGINT:\n{}",
            threads()
        );
    }
    stop.store(true, Ordering::SeqCst);
    let answered: usize = clients.into_iter().map(|c| c.join().unwrap()).sum();
    let accepted = server.join().unwrap();
    assert!(accepted > 0 && answered > 0, "run {run}: nothing served");
}

#[test]
fn sigint_under_load_never_loses_the_driver() {
    let runs: usize = std::env::var("FILCH_STRESS_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(60);
    watchdog(60 + runs as u64 * 10, "lost driver stress", move || {
        for run in 0..runs {
            let workers = 1 + run % 4;
            let load = Duration::from_millis(10 + (run as u64 * 37) % 40);
            one_run(workers, 6, load, run);
        }
    });
}
