//! `filch::axum::serve` itself (cargo feature `axum`), over real loopback sockets: HTTP/1.1
//! and HTTP/2 clients on the same listener; a graceful shutdown that refuses new
//! connections, closes idle HTTP/1 and HTTP/2 connections and one that never sent a byte,
//! and completes only after the request in flight was answered; an accept error that no
//! retry can fix ends the server with that error; and a server out of descriptors
//! (`EMFILE`, in a child process with a low `RLIMIT_NOFILE`) goes on and serves every
//! waiting client once descriptors free up.
//!
//! The HTTP clients are hyper's own, on a tokio runtime; every test runs under a watchdog.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{Request, StatusCode, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};

use crate::common::{assert_child_passes, executor, is_child, wait_until, watchdog};

/// What the `/slow` route has done.
#[derive(Default)]
struct Slow {
    started: AtomicBool,
    done: AtomicBool,
}

/// `/` answers at once; `/slow` sleeps 800 ms on a filch timer, marking its start and end.
fn router(slow: Arc<Slow>) -> Router {
    Router::new().route("/", get(|| async { "hello\n" })).route(
        "/slow",
        get(move || async move {
            slow.started.store(true, Ordering::SeqCst);
            filch::time::sleep(Duration::from_millis(800)).await;
            slow.done.store(true, Ordering::SeqCst);
            "slow\n"
        }),
    )
}

/// A server on its own 2-worker executor, run by a std thread; `stop` (if there is one)
/// sends its graceful-shutdown signal. The thread returns `serve`'s result and whether
/// `/slow` had finished when `serve` returned.
struct Server {
    addr: SocketAddr,
    stop: Option<async_channel::Sender<()>>,
    thread: thread::JoinHandle<(std::io::Result<()>, bool)>,
}

impl Server {
    fn start(graceful: bool, slow: Arc<Slow>) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let thread = thread::spawn(move || {
            let ex = executor(2);
            ex.block_on(async move {
                let listener = filch::net::TcpListener::from_std(listener).unwrap();
                let server = filch::axum::serve(listener, router(Arc::clone(&slow)));
                let result = if graceful {
                    server
                        .with_graceful_shutdown(async move {
                            let _ = stopped.recv().await;
                        })
                        .await
                } else {
                    // Without a signal: until the signal channel says otherwise, which
                    // drops the server.
                    let (server, stopping) =
                        (std::pin::pin!(server), std::pin::pin!(stopped.recv()));
                    match futures::future::select(server, stopping).await {
                        futures::future::Either::Left((result, _)) => result,
                        futures::future::Either::Right(_) => Ok(()),
                    }
                };
                (result, slow.done.load(Ordering::SeqCst))
            })
        });
        Server {
            addr,
            stop: Some(stop),
            thread,
        }
    }

    fn stop(&mut self) {
        let _ = self.stop.take().unwrap().try_send(());
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// A `GET path` on an HTTP/1.1 or HTTP/2 sender: the status, version and body.
macro_rules! get {
    ($rt:expr, $sender:expr, $path:expr) => {{
        let request = Request::get($path)
            .header("host", "127.0.0.1")
            .body(Empty::<Bytes>::new())
            .unwrap();
        let sender = &mut $sender;
        $rt.block_on(async {
            sender.ready().await.unwrap();
            let response = sender.send_request(request).await.unwrap();
            let (status, version) = (response.status(), response.version());
            let body = response.into_body().collect().await.unwrap().to_bytes();
            (status, version, String::from_utf8(body.to_vec()).unwrap())
        })
    }};
}

type Connection = tokio::task::JoinHandle<Result<(), hyper::Error>>;

/// An HTTP/1.1 connection: its sender, and its task (which ends when the server closes it).
fn http1(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
) -> (
    hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    Connection,
) {
    rt.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        (sender, tokio::spawn(connection))
    })
}

/// An HTTP/2 connection (prior knowledge, no upgrade): its sender and its task.
fn http2(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
) -> (
    hyper::client::conn::http2::SendRequest<Empty<Bytes>>,
    Connection,
) {
    rt.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                .await
                .unwrap();
        (sender, tokio::spawn(connection))
    })
}

#[test]
fn http1_and_http2_clients_are_served_on_one_listener() {
    watchdog(60, "http1 and http2", || {
        let mut server = Server::start(false, Arc::default());
        let rt = runtime();
        let (mut h1, _c1) = http1(&rt, server.addr);
        let (mut h2, _c2) = http2(&rt, server.addr);
        for _ in 0..3 {
            assert_eq!(
                get!(rt, h1, "/"),
                (StatusCode::OK, Version::HTTP_11, "hello\n".to_owned())
            );
            assert_eq!(
                get!(rt, h2, "/"),
                (StatusCode::OK, Version::HTTP_2, "hello\n".to_owned())
            );
        }
        assert_eq!(get!(rt, h2, "/nowhere").0, StatusCode::NOT_FOUND);
        // HTTP/2 streams at once on the one connection.
        let answers = rt.block_on(async {
            let requests = (0..8).map(|_| {
                let mut h2 = h2.clone();
                async move {
                    let request = Request::get("/").body(Empty::<Bytes>::new()).unwrap();
                    h2.send_request(request).await.unwrap().status()
                }
            });
            futures::future::join_all(requests).await
        });
        assert!(answers.iter().all(|s| *s == StatusCode::OK), "{answers:?}");
        server.stop();
        let (result, _) = server.thread.join().unwrap();
        result.unwrap();
    });
}

/// Multiplexed HTTP/2: 4 connections, each keeping 100 streams in flight until 2,000
/// requests were answered (8,000 in all, on the server's 2 workers, each stream a task of
/// hyper's). Every request gets its answer; a stream that waited for good behind the
/// others would trip the watchdog.
#[test]
fn many_concurrent_http2_streams_are_all_answered() {
    watchdog(120, "many http2 streams", || {
        use futures::StreamExt;
        let mut server = Server::start(false, Arc::default());
        let rt = runtime();
        let connections: Vec<_> = (0..4).map(|_| http2(&rt, server.addr)).collect();
        let answered = rt.block_on(async {
            let per_connection = connections.iter().map(|(h2, _)| {
                let h2 = h2.clone();
                futures::stream::iter(0..2_000)
                    .map(move |_| {
                        let mut h2 = h2.clone();
                        async move {
                            let request = Request::get("/").body(Empty::<Bytes>::new()).unwrap();
                            let response = h2.send_request(request).await.unwrap();
                            assert_eq!(response.status(), StatusCode::OK);
                            let body = response.into_body().collect().await.unwrap().to_bytes();
                            assert_eq!(&body[..], b"hello\n");
                        }
                    })
                    .buffer_unordered(100)
                    .count()
            });
            futures::future::join_all(per_connection).await
        });
        assert_eq!(answered, [2_000; 4]);
        server.stop();
        let (result, _) = server.thread.join().unwrap();
        result.unwrap();
    });
}

#[test]
fn a_graceful_shutdown_closes_idle_connections_and_waits_for_the_request_in_flight() {
    watchdog(60, "graceful shutdown", || {
        let slow = Arc::new(Slow::default());
        let mut server = Server::start(true, Arc::clone(&slow));
        let addr = server.addr;
        let rt = runtime();
        // Idle keep-alive connections, one of each protocol, after a request each.
        let (mut h1, idle_h1) = http1(&rt, addr);
        let (mut h2, idle_h2) = http2(&rt, addr);
        assert_eq!(get!(rt, h1, "/").0, StatusCode::OK);
        assert_eq!(get!(rt, h2, "/").0, StatusCode::OK);
        // A connection that never sends a byte (the server is still reading for the
        // protocol's preface).
        let mut silent = std::net::TcpStream::connect(addr).unwrap();
        // A request in flight.
        let (mut busy, _busy_connection) = http1(&rt, addr);
        let in_flight = rt.spawn(async move {
            let request = Request::get("/slow")
                .header("host", "127.0.0.1")
                .body(Empty::<Bytes>::new())
                .unwrap();
            let response = busy.send_request(request).await.unwrap();
            let status = response.status();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            (status, body)
        });
        wait_until(10, "/slow to start", || slow.started.load(Ordering::SeqCst));
        assert!(
            !server.thread.is_finished(),
            "the server completed before its shutdown signal"
        );

        server.stop();
        let (result, slow_done_before_return) = server.thread.join().unwrap();
        result.unwrap();
        assert!(
            slow_done_before_return,
            "the server completed while a request was still in flight"
        );
        let (status, body) = rt.block_on(in_flight).unwrap();
        assert_eq!((status, &body[..]), (StatusCode::OK, &b"slow\n"[..]));
        // The idle connections were closed by the server (their client tasks end).
        for idle in [idle_h1, idle_h2] {
            rt.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), idle)
                    .await
                    .expect("an idle connection was left open")
                    .unwrap()
                    .unwrap();
            });
        }
        silent
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert_eq!(
            silent.read(&mut [0; 16]).unwrap(),
            0,
            "closed, nothing sent"
        );
        // No connection is accepted any more.
        assert!(std::net::TcpStream::connect(addr).is_err());
    });
}

/// A bound TCP socket that does not listen (what `accept` refuses with `EINVAL`).
fn not_listening() -> std::net::TcpListener {
    use std::os::fd::FromRawFd;
    let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = std.local_addr().unwrap();
    drop(std);
    // SAFETY: plain socket calls on a descriptor this function owns; `sockaddr_in` is
    // zeroed and then filled in as bind(2) expects, its size passed along.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let mut sin: libc::sockaddr_in = std::mem::zeroed();
        sin.sin_family = libc::AF_INET as libc::sa_family_t;
        sin.sin_port = addr.port().to_be();
        sin.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(
            libc::bind(
                fd,
                &sin as *const libc::sockaddr_in as *const libc::sockaddr,
                len
            ),
            0
        );
        std::net::TcpListener::from_raw_fd(fd)
    }
}

#[test]
fn an_accept_error_no_retry_can_fix_ends_the_server_with_that_error() {
    watchdog(60, "fatal accept error", || {
        let ex = executor(1);
        for graceful in [false, true] {
            let err = ex
                .block_on(async {
                    let listener = filch::net::TcpListener::from_std(not_listening())?;
                    let server = filch::axum::serve(listener, router(Arc::default()));
                    if graceful {
                        server
                            .with_graceful_shutdown(futures::future::pending())
                            .await
                    } else {
                        server.await
                    }
                })
                .unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EINVAL), "{err}");
        }
    });
}

/// Open descriptors of this process.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[test]
fn out_of_descriptors_the_server_goes_on_and_serves_everyone() {
    watchdog(150, "EMFILE", || {
        assert_child_passes(
            module_path!(),
            "emfile_child",
            &[],
            "emfile scenario passed",
        );
    });
}

#[test]
#[ignore = "run by out_of_descriptors_the_server_goes_on_and_serves_everyone in a child process"]
fn emfile_child() {
    if !is_child() {
        return;
    }
    const CLIENTS: usize = 20;
    let ex = executor(1);
    let listener = ex
        .block_on(filch::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    // The clients connect first: the kernel completes their handshakes into the backlog.
    let mut clients: Vec<std::net::TcpStream> = (0..CLIENTS)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    // Room for three accepted sockets only.
    let limit = (open_fds() + 3) as libc::rlim_t;
    let rl = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit.max(4096),
    };
    // SAFETY: a valid pointer to an `rlimit`.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) }, 0);
    let server = ex.spawn(filch::axum::serve(listener, router(Arc::default())));
    // The server takes what it can, then its accepts fail: once this process cannot open a
    // file either, every descriptor is taken.
    wait_until(30, "the process to run out of descriptors", || {
        server.is_finished() || std::fs::File::open("/dev/null").is_err()
    });
    thread::sleep(Duration::from_millis(200));
    assert!(!server.is_finished(), "the server ended out of descriptors");
    // Each request is answered and its connection closed, which frees a descriptor for the
    // next accept, until every client has been served.
    for client in &mut clients {
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
            .unwrap();
    }
    for client in &mut clients {
        client
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut response = String::new();
        client.read_to_string(&mut response).unwrap();
        assert!(
            response.starts_with("HTTP/1.1 200 OK") && response.ends_with("hello\n"),
            "{response:?}"
        );
    }
    assert!(!server.is_finished());
    println!("emfile scenario passed");
}
