//! The address arguments of `filch::net` (`filch::net::ToSocketAddrs`).
//!
//! - A host name is looked up on the blocking pool, never on the worker: on a 1-worker
//!   executor, task A calls `connect`/`bind`/`send_to` with `"localhost"` after spawning B.
//!   The blocking-pool thread that the lookup starts is held in its start hook until B has
//!   run, so A's call can only finish after B ran, on the same worker, while A waited; a
//!   lookup on the worker itself would finish A's call first, with no pool thread started.
//! - A literal address never leaves the calling task: a bind with a literal is done at its
//!   first poll, and no blocking-pool thread is ever started for literals.
//! - Every address form compiles and works; an empty list, a string that is no address and
//!   a failing lookup give clear errors; a lookup after shutdown errors instead of hanging.
//!
//! `"localhost"` is read from /etc/hosts by the system resolver (no network); the failing
//! lookup uses `"a..b"`, a malformed name that the resolver rejects without asking DNS.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use crate::common::{self, thread_name, watchdog};
use filch::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use filch::Executor;

/// How long a blocking-pool thread's start hook waits for the gate.
const PATIENCE: Duration = Duration::from_secs(10);

/// The prefix of the test executors' threads: workers `dns-0`, pool threads
/// `dns-blocking-{n}`.
const PREFIX: &str = "dns";

/// Opened once, by a task.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cond: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cond.notify_all();
    }

    /// Whether the gate opened within [`PATIENCE`].
    fn wait(&self) -> bool {
        let open = self.open.lock().unwrap();
        let (open, _) = self
            .cond
            .wait_timeout_while(open, PATIENCE, |open| !*open)
            .unwrap();
        *open
    }
}

/// The blocking-pool threads an executor started: for each, its name and, when the
/// executor holds new pool threads at a gate, whether the gate opened.
type PoolLog = Arc<Mutex<Vec<(String, bool)>>>;

/// One worker, named with [`PREFIX`], whose start hook logs every blocking-pool thread and,
/// with `hold` set, keeps it from running anything until `hold` opens. Built here rather
/// than by `common::build_executor`, which takes no start hook.
fn pool_watching_executor(hold: Option<Arc<Gate>>) -> (Executor, PoolLog) {
    let log = PoolLog::default();
    let hook_log = Arc::clone(&log);
    let ex = Executor::builder()
        .worker_threads(1)
        .thread_name(PREFIX)
        .on_thread_start(move || {
            let name = thread_name();
            if name.starts_with(&format!("{PREFIX}-blocking-")) {
                let opened = hold.as_ref().is_none_or(|gate| gate.wait());
                hook_log.lock().unwrap().push((name, opened));
            }
        })
        .build()
        .expect("cannot start an executor");
    (ex, log)
}

/// The address that `"localhost"` resolves to first, as std's resolver says on the test
/// thread (127.0.0.1 or ::1, depending on /etc/hosts).
fn localhost_ip() -> IpAddr {
    std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 0))
        .expect("\"localhost\" does not resolve")
        .next()
        .expect("\"localhost\" resolves to nothing")
        .ip()
}

/// A call that takes a host name, each with another form of it.
#[derive(Clone, Copy, Debug)]
enum ByName {
    /// `TcpStream::connect(("localhost", port))`.
    TcpConnect,
    /// `TcpListener::bind("localhost:0")`.
    TcpBind,
    /// `UdpSocket::bind(("localhost".to_string(), 0))`.
    UdpBind,
    /// `UdpSocket::send_to(_, format!("localhost:{port}"))`.
    UdpSendTo,
}

/// Where task A's call goes: a TCP listener and a UDP socket on localhost.
struct Peers {
    tcp: std::net::TcpListener,
    udp: std::net::UdpSocket,
}

const DATAGRAM: &[u8] = b"by name";

/// Task A's call; checks what it made.
async fn call_by_name(call: ByName, ip: IpAddr, tcp_port: u16, udp_port: u16) -> io::Result<()> {
    match call {
        ByName::TcpConnect => {
            let stream = TcpStream::connect(("localhost", tcp_port)).await?;
            assert_eq!(stream.peer_addr()?.port(), tcp_port);
        }
        ByName::TcpBind => {
            let listener = TcpListener::bind("localhost:0").await?;
            assert!(listener.local_addr()?.ip().is_loopback());
        }
        ByName::UdpBind => {
            let socket = UdpSocket::bind(("localhost".to_string(), 0)).await?;
            assert!(socket.local_addr()?.ip().is_loopback());
        }
        ByName::UdpSendTo => {
            // A literal: no lookup.
            let socket = UdpSocket::bind((ip, 0)).await?;
            let sent = socket
                .send_to(DATAGRAM, format!("localhost:{udp_port}"))
                .await?;
            assert_eq!(sent, DATAGRAM.len());
        }
    }
    Ok(())
}

fn lookup_runs_on_the_blocking_pool(call: ByName) {
    watchdog(60, &format!("{call:?}"), move || {
        let gate = Arc::new(Gate::default());
        let (ex, pool_log) = pool_watching_executor(Some(Arc::clone(&gate)));
        let ip = localhost_ip();
        let peers = Peers {
            tcp: std::net::TcpListener::bind((ip, 0)).unwrap(),
            udp: std::net::UdpSocket::bind((ip, 0)).unwrap(),
        };
        peers.udp.set_read_timeout(Some(PATIENCE)).unwrap();
        let tcp_port = peers.tcp.local_addr().unwrap().port();
        let udp_port = peers.udp.local_addr().unwrap().port();

        let (result, a_on, b_saw_a_done, b_on) = ex
            .block_on(ex.spawn(async move {
                let a_done = Arc::new(AtomicBool::new(false));
                let b = filch::spawn({
                    let a_done = Arc::clone(&a_done);
                    async move {
                        let saw_a_done = a_done.load(Ordering::SeqCst);
                        gate.open();
                        (saw_a_done, thread_name())
                    }
                });
                let result = call_by_name(call, ip, tcp_port, udp_port).await;
                a_done.store(true, Ordering::SeqCst);
                let (b_saw_a_done, b_on) = b.await.expect("task B failed");
                (result, thread_name(), b_saw_a_done, b_on)
            }))
            .expect("task A failed");

        if let Err(e) = result {
            panic!("{call:?}: the call failed: {e}");
        }
        assert_eq!(
            a_on,
            format!("{PREFIX}-0"),
            "{call:?}: A ran off the worker"
        );
        assert_eq!(b_on, a_on, "{call:?}: B ran on another thread than A");
        assert!(
            !b_saw_a_done,
            "{call:?}: B, spawned before A's call on A's only worker, ran only after the \
             call returned: the host-name lookup held the worker"
        );
        assert_eq!(
            *pool_log.lock().unwrap(),
            [(format!("{PREFIX}-blocking-0"), true)],
            "{call:?}: the lookup did not start one blocking-pool thread that was let go \
             once B had run"
        );
        match call {
            ByName::TcpConnect => drop(peers.tcp.accept().expect("no connection arrived")),
            ByName::UdpSendTo => {
                let mut buf = [0; 16];
                let (n, _) = peers.udp.recv_from(&mut buf).expect("no datagram arrived");
                assert_eq!(&buf[..n], DATAGRAM);
            }
            ByName::TcpBind | ByName::UdpBind => {}
        }
    });
}

#[test]
fn connect_looks_a_host_name_up_on_the_blocking_pool() {
    lookup_runs_on_the_blocking_pool(ByName::TcpConnect);
}

#[test]
fn tcp_bind_looks_a_host_name_up_on_the_blocking_pool() {
    lookup_runs_on_the_blocking_pool(ByName::TcpBind);
}

#[test]
fn udp_bind_looks_a_host_name_up_on_the_blocking_pool() {
    lookup_runs_on_the_blocking_pool(ByName::UdpBind);
}

#[test]
fn send_to_looks_a_host_name_up_on_the_blocking_pool() {
    lookup_runs_on_the_blocking_pool(ByName::UdpSendTo);
}

/// Binds a UDP socket to `addr`, asserting that the bind is done at its first poll.
async fn bind_at_first_poll(addr: impl ToSocketAddrs, what: &str) -> UdpSocket {
    let mut bind = pin!(UdpSocket::bind(addr));
    match futures::poll!(bind.as_mut()) {
        std::task::Poll::Ready(socket) => socket.unwrap_or_else(|e| panic!("{what}: {e}")),
        std::task::Poll::Pending => panic!("{what}: a literal address made the bind wait"),
    }
}

#[test]
fn a_literal_address_never_leaves_the_calling_task() {
    watchdog(60, "literals", || {
        let (ex, pool_log) = pool_watching_executor(None);
        ex.block_on(ex.spawn(async {
            let local = Ipv4Addr::LOCALHOST;
            let any: SocketAddr = (local, 0).into();
            // Binds, each at its first poll.
            let target = bind_at_first_poll("127.0.0.1:0", "&str").await;
            let to = target.local_addr().unwrap();
            bind_at_first_poll(any, "SocketAddr").await;
            bind_at_first_poll(SocketAddrV4::new(local, 0), "SocketAddrV4").await;
            bind_at_first_poll((IpAddr::V4(local), 0), "(IpAddr, u16)").await;
            bind_at_first_poll((local, 0), "(Ipv4Addr, u16)").await;
            bind_at_first_poll(&[any][..], "&[SocketAddr]").await;
            bind_at_first_poll(vec![any], "Vec<SocketAddr>").await;
            bind_at_first_poll(String::from("127.0.0.1:0"), "String").await;
            bind_at_first_poll(("127.0.0.1", 0), "(&str, u16) with an IP").await;
            bind_at_first_poll((String::from("127.0.0.1"), 0), "(String, u16) with an IP").await;
            let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let tcp_addr = tcp.local_addr().unwrap();
            // Connects and sends, with each literal form.
            let tcp_port = tcp_addr.port();
            let tcp_text = tcp_addr.to_string();
            drop(TcpStream::connect(tcp_addr).await.unwrap());
            drop(TcpStream::connect((tcp_addr.ip(), tcp_port)).await.unwrap());
            drop(TcpStream::connect(&[tcp_addr][..]).await.unwrap());
            drop(TcpStream::connect(vec![tcp_addr]).await.unwrap());
            drop(TcpStream::connect(tcp_text.as_str()).await.unwrap());
            drop(TcpStream::connect(&tcp_text).await.unwrap());
            drop(TcpStream::connect(("127.0.0.1", tcp_port)).await.unwrap());
            let sender = bind_at_first_poll(any, "sender").await;
            sender.send_to(b"1", to).await.unwrap();
            sender.send_to(b"2", &[to][..]).await.unwrap();
            sender.send_to(b"3", to.to_string()).await.unwrap();
            sender
                .send_to(b"4", ("127.0.0.1", to.port()))
                .await
                .unwrap();
            let mut buf = [0; 4];
            for want in [b"1", b"2", b"3", b"4"] {
                let (n, from) = target.recv_from(&mut buf).await.unwrap();
                assert_eq!((&buf[..n], from), (&want[..], sender.local_addr().unwrap()));
            }
        }))
        .expect("the literal-address task failed");
        assert_eq!(
            *pool_log.lock().unwrap(),
            [],
            "a literal address started a blocking-pool thread"
        );
        assert_eq!(ex.stats().blocking_threads, 0);
    });
}

/// Whether `addr` is accepted as an address argument (the check is at compile time).
fn takes<A: ToSocketAddrs>(addr: A) -> A {
    addr
}

/// Every form of the trait: tokio's, `[SocketAddr]`, `Vec<SocketAddr>`, and references.
#[test]
fn every_address_form_binds() {
    watchdog(60, "forms", || {
        let (ex, pool_log) = pool_watching_executor(None);
        let v4 = Ipv4Addr::LOCALHOST;
        let v6 = Ipv6Addr::LOCALHOST;
        let a4: SocketAddr = (v4, 0).into();
        let vec4 = vec![a4];
        let string = String::from("127.0.0.1:0");
        let name = String::from("localhost");
        let ipv6_works = std::net::UdpSocket::bind((v6, 0)).is_ok();
        ex.block_on(ex.spawn(async move {
            macro_rules! binds {
                ($($form:expr),* $(,)?) => {$(
                    let socket = UdpSocket::bind(takes($form))
                        .await
                        .unwrap_or_else(|e| panic!("{}: {e}", stringify!($form)));
                    let ip = socket.local_addr().unwrap().ip();
                    assert!(ip.is_loopback(), "{}: bound to {ip}", stringify!($form));
                )*};
            }
            binds!(
                a4,
                &a4,
                SocketAddrV4::new(v4, 0),
                (IpAddr::V4(v4), 0),
                (v4, 0),
                &(v4, 0),
                "127.0.0.1:0",
                &"127.0.0.1:0",
                string.clone(),
                &string,
                ("127.0.0.1", 0),
                (String::from("127.0.0.1"), 0),
                &vec4[..],
                vec4.clone(),
                &vec4,
                // Host names.
                "localhost:0",
                format!("{name}:0"),
                (name.as_str(), 0),
                (name.clone(), 0),
                &(name.clone(), 0),
            );
            if ipv6_works {
                binds!(
                    SocketAddrV6::new(v6, 0, 0, 0),
                    (IpAddr::V6(v6), 0),
                    (v6, 0),
                    "[::1]:0",
                    ("::1", 0),
                );
            }
        }))
        .expect("a form failed");
        let started = pool_log.lock().unwrap().len();
        assert!(
            started >= 1,
            "the host names started no blocking-pool thread"
        );
    });
}

/// Asserts that `result` is an `InvalidInput` error whose message names filch and
/// contains `says`.
fn assert_invalid_input<T>(result: io::Result<T>, says: &str, what: &str) {
    let Err(e) = result else {
        panic!("{what}: no error");
    };
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{what}: {e}");
    let message = e.to_string();
    assert!(
        message.starts_with("filch: ") && message.contains(says),
        "{what}: unclear message {message:?}"
    );
}

#[test]
fn an_address_that_gives_nothing_or_is_no_address_errors_clearly() {
    watchdog(60, "errors", || {
        let (ex, pool_log) = pool_watching_executor(None);
        ex.block_on(ex.spawn(async {
            let none: &[SocketAddr] = &[];
            assert_invalid_input(UdpSocket::bind(none).await, "empty list", "bind(&[])");
            assert_invalid_input(
                TcpStream::connect(Vec::<SocketAddr>::new()).await,
                "empty list",
                "connect(vec![])",
            );
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            assert_invalid_input(
                socket.send_to(b"x", none).await,
                "empty list",
                "send_to(&[])",
            );
            assert_invalid_input(
                TcpListener::bind("127.0.0.1").await,
                "\"127.0.0.1\" is no socket address",
                "no port",
            );
            assert_invalid_input(
                TcpStream::connect("localhost:http").await,
                "port \"http\" is not a number",
                "a port that is no number",
            );
            assert_invalid_input(
                socket.send_to(b"x", "localhost:65536").await,
                "port \"65536\"",
                "a port out of range",
            );
        }))
        .expect("the error task failed");
        assert_eq!(
            *pool_log.lock().unwrap(),
            [],
            "an address that is no address started a blocking-pool thread"
        );
    });
}

#[test]
fn a_failing_lookup_gives_the_resolvers_error() {
    watchdog(60, "failing lookup", || {
        const NAME: &str = "a..b";
        let want = std::net::ToSocketAddrs::to_socket_addrs(&(NAME, 80))
            .expect_err("the malformed name resolved");
        let (ex, pool_log) = pool_watching_executor(None);
        let got = ex
            .block_on(ex.spawn(async { TcpStream::connect((NAME, 80)).await }))
            .expect("the lookup task failed")
            .expect_err("connected to a malformed name");
        assert_eq!(
            (got.kind(), got.to_string()),
            (want.kind(), want.to_string()),
            "not the resolver's error"
        );
        assert_eq!(
            pool_log.lock().unwrap().len(),
            1,
            "the lookup did not start a blocking-pool thread"
        );
    });
}

#[test]
fn a_lookup_after_shutdown_errors_instead_of_hanging() {
    watchdog(60, "lookup after shutdown", || {
        let ex = common::executor(1);
        let (started_tx, started_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (result_tx, result_rx) = mpsc::channel();
        // A blocking-pool job outlives its executor's drop: from it, after the drop, a
        // lookup goes to that executor's pool, which takes no more jobs.
        drop(ex.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            let result = filch::block_on(UdpSocket::bind("localhost:0")).map(drop);
            result_tx.send(result).unwrap();
        }));
        started_rx.recv().unwrap();
        drop(ex);
        go_tx.send(()).unwrap();
        let err = result_rx
            .recv()
            .unwrap()
            .expect_err("a lookup ran on a shut-down executor's pool");
        let message = err.to_string();
        assert!(
            message.starts_with("filch: ") && message.contains("shut down"),
            "unclear message {message:?}"
        );
    });
}
