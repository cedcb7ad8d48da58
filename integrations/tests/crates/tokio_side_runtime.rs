//! The tokio runtime beside filch (feature `tokio-context`): what runs there shows in
//! `Stats::tokio`; `Builder::tokio_worker_threads` gives an executor a runtime of its own,
//! sized, named after the executor and shut down with it; and filch warns once per process
//! when work piles up there.
//!
//! The warning's scenario is the trap it is for: an axum service written with tokio's habits
//! (`tokio::net::TcpListener`, `axum::serve`, `tokio::spawn`) under `#[filch::main]`, loaded
//! by four keep-alive clients. It runs in a child process (the warning comes once per
//! process), which counts the warning as it comes, through a `tracing` subscriber or on its
//! own stderr, loads the service until it came and a while longer, and checks that the load
//! shows in `Stats::tokio` and not on filch's workers; the parent counts the warning in the
//! child's stderr. The same service on `filch::axum::serve` under the same load gets no
//! warning.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{self, is_child, wait_until, watchdog};

/// The start of filch's warning.
const WARNING: &str = "filch: work piles up on the tokio runtime";

/// Set in the child's environment: count the warning through a `tracing` subscriber.
const TRACING_ENV: &str = "FILCH_TEST_WARN_TRACING";

#[test]
fn an_executor_gets_a_tokio_runtime_of_its_own_sized_named_and_shut_down_with_it() {
    watchdog(60, "tokio_worker_threads", || {
        let ex = filch::Builder::new()
            .worker_threads(1)
            .thread_name("own")
            .tokio_worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(ex.stats().tokio.workers, 2);
        let dropped = Arc::new(AtomicUsize::new(0));
        struct Probe(Arc<AtomicUsize>);
        impl Drop for Probe {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let names = ex.block_on(async {
            for _ in 0..5 {
                let probe = Probe(Arc::clone(&dropped));
                drop(tokio::spawn(async move {
                    let _probe = probe;
                    std::future::pending::<()>().await;
                }));
            }
            let mut names = Vec::new();
            for _ in 0..4 {
                names.push(
                    tokio::spawn(async { std::thread::current().name().map(str::to_owned) })
                        .await
                        .unwrap()
                        .unwrap(),
                );
            }
            names
        });
        assert!(
            names.iter().all(|n| n.starts_with("own-tokio-")),
            "{names:?}"
        );
        // The five waiting tasks are the runtime's (and filch's watch, until it warned);
        // tokio counts a finished task until it has released it, a moment after its
        // `JoinHandle` saw the output.
        wait_until(30, "the finished tasks to be released", || {
            ex.stats().tokio.alive_tasks <= 6
        });
        assert!(ex.stats().tokio.alive_tasks >= 5, "{:?}", ex.stats().tokio);
        assert_eq!(ex.stats().total().polls, 0, "nothing ran on filch's worker");
        // The executor's end shuts its runtime down: the waiting tasks are dropped.
        drop(ex);
        wait_until(30, "the runtime's tasks to be dropped", || {
            dropped.load(Ordering::SeqCst) == 5
        });
    });
}

#[test]
fn the_process_runtime_shows_in_stats() {
    watchdog(60, "process runtime stats", || {
        let ex = common::executor(1);
        let tokio = ex.stats().tokio;
        assert_eq!(tokio.workers, 1);
        // Blocks the runtime's worker for 20 ms: its busy time grows by that much.
        let before = tokio.busy;
        ex.block_on(async {
            tokio::spawn(async { std::thread::sleep(Duration::from_millis(20)) })
                .await
                .unwrap();
        });
        wait_until(30, "the busy time to count the task", || {
            ex.stats().tokio.busy >= before + Duration::from_millis(20)
        });
    });
}

#[test]
fn zero_workers_or_a_runtime_beside_them_are_refused() {
    let err = filch::Builder::new()
        .tokio_worker_threads(0)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("tokio_worker_threads(0)"), "{err}");
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let err = filch::Builder::new()
        .tokio_handle(tokio_rt.handle().clone())
        .tokio_worker_threads(2)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("keep one"), "{err}");
}

/// The route's work: 200 µs of CPU, so that the runtime serving it is busy while
/// requests are in flight.
fn work() -> &'static str {
    let start = Instant::now();
    while start.elapsed() < Duration::from_micros(200) {
        std::hint::spin_loop();
    }
    "hello"
}

/// Four keep-alive clients asking `GET /` of `addr` in a loop until `stop`; returns the
/// number of responses once they stopped.
fn load(addr: SocketAddr, stop: Arc<AtomicBool>) -> thread::JoinHandle<usize> {
    thread::spawn(move || {
        let clients: Vec<_> = (0..4)
            .map(|_| {
                let stop = Arc::clone(&stop);
                thread::spawn(move || {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    stream.set_nodelay(true).unwrap();
                    let mut answered = 0;
                    let mut buf = [0u8; 1024];
                    while !stop.load(Ordering::Relaxed) {
                        stream
                            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                            .unwrap();
                        // The response ends with its body.
                        let mut got = Vec::new();
                        while !got.ends_with(b"hello") {
                            let n = stream.read(&mut buf).unwrap();
                            assert!(n > 0, "the server closed the connection");
                            got.extend_from_slice(&buf[..n]);
                        }
                        assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"));
                        answered += 1;
                    }
                    answered
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).sum()
    })
}

/// Counts, from now on, the lines of this process's stderr that hold [`WARNING`]; every
/// line still reaches the real stderr.
fn count_warnings_on_stderr() -> Arc<AtomicUsize> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: descriptor 2 is open (the harness's stderr); `dup` has no other precondition.
    let real_stderr = unsafe { libc::dup(2) };
    assert!(real_stderr >= 0);
    // SAFETY: both descriptors are open; stderr becomes the pipe's write end.
    assert_eq!(unsafe { libc::dup2(fds[1], 2) }, 2);
    // SAFETY: the write end is open, and descriptor 2 now holds it too.
    unsafe { libc::close(fds[1]) };
    let count = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    thread::spawn(move || {
        // SAFETY: the read end and the copy of the real stderr are open and owned here only.
        let (pipe, mut out) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(real_stderr),
            )
        };
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { return };
            if line.contains(WARNING) {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            let _ = writeln!(out, "{line}");
        }
    });
    count
}

/// A `tracing` subscriber that counts filch's WARN events and keeps their messages.
struct Warnings {
    count: Arc<AtomicUsize>,
    messages: Arc<Mutex<Vec<String>>>,
}

impl tracing::Subscriber for Warnings {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        let meta = event.metadata();
        if meta.target() == "filch" && *meta.level() == tracing::Level::WARN {
            let mut message = Message(String::new());
            event.record(&mut message);
            self.messages.lock().unwrap().push(message.0);
            self.count.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Where the child counts the warnings (set before its `main` runs).
static COUNT: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();

/// Waits (on filch's timer) until the warning came, then loads the service for two and a
/// half windows more.
async fn until_warned_and_beyond() {
    let count = COUNT.get().unwrap();
    while count.load(Ordering::SeqCst) == 0 {
        filch::time::sleep(Duration::from_millis(50)).await;
    }
    filch::time::sleep(Duration::from_millis(2500)).await;
}

/// The service written with tokio's habits: a `tokio::net` listener, `axum::serve` and
/// `tokio::spawn`, under `#[filch::main]` with `tokio-context`.
#[filch::main(worker_threads = 2)]
async fn tokio_habits_program() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(|| async { tokio::spawn(async { work() }).await.unwrap() }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let stop = Arc::new(AtomicBool::new(false));
    let clients = load(addr, Arc::clone(&stop));
    until_warned_and_beyond().await;
    // The load is the side runtime's: more than half a second of its one worker's time
    // (the warning's rule), its tasks (the server and a connection per client), and none
    // of it on filch's workers.
    let stats = filch::Handle::current().stats();
    stop.store(true, Ordering::SeqCst);
    let answered = clients.join().unwrap();
    assert!(answered > 0);
    assert_eq!(stats.tokio.workers, 1);
    assert!(stats.tokio.busy > Duration::from_millis(500), "{stats:?}");
    assert!(stats.tokio.alive_tasks >= 5, "{stats:?}");
    assert_eq!(stats.total().polls, 0, "{stats:?}");
    format!(
        "warnings: {}\nanswered: {answered}\n{stats:?}",
        COUNT.get().unwrap().load(Ordering::SeqCst)
    )
}

#[test]
#[ignore = "run by a_service_with_tokio_habits_is_warned_about_once (a child process)"]
fn tokio_habits_child() {
    if !is_child() {
        return;
    }
    let messages = Arc::new(Mutex::new(Vec::new()));
    let count = if std::env::var_os(TRACING_ENV).is_some() {
        let count = Arc::new(AtomicUsize::new(0));
        tracing::subscriber::set_global_default(Warnings {
            count: Arc::clone(&count),
            messages: Arc::clone(&messages),
        })
        .unwrap();
        count
    } else {
        count_warnings_on_stderr()
    };
    COUNT.set(count).unwrap();
    let report = watchdog(100, "tokio habits", tokio_habits_program);
    println!("{report}");
    for message in messages.lock().unwrap().iter() {
        println!("traced: {message}");
    }
    println!("tokio habits: done");
}

/// Runs the child test `name` with `envs`; its stdout and stderr once it got through.
fn child(name: &str, envs: &[(&str, &str)], marker: &str) -> (String, String) {
    let out = common::run_child_test(module_path!(), name, envs);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains(marker),
        "child {name} ({envs:?}) did not get through: {}\n--- stdout ---\n{stdout}\n\
         --- stderr ---\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

#[test]
fn a_service_with_tokio_habits_is_warned_about_once() {
    for tracing in [false, true] {
        let envs: &[(&str, &str)] = if tracing { &[(TRACING_ENV, "1")] } else { &[] };
        let (stdout, stderr) = child("tokio_habits_child", envs, "tokio habits: done");
        assert!(stdout.contains("warnings: 1\n"), "{stdout}");
        let warnings: Vec<&str> = if tracing {
            stdout
                .lines()
                .filter_map(|l| l.strip_prefix("traced: "))
                .collect()
        } else {
            stderr.lines().filter(|l| l.contains(WARNING)).collect()
        };
        assert_eq!(warnings.len(), 1, "tracing {tracing}: {stdout}\n{stderr}");
        for what in [
            "filch::net",
            "filch::axum::serve",
            "filch::spawn",
            "tokio_worker_threads(n)",
        ] {
            assert!(
                warnings[0].contains(what),
                "{what} missing: {}",
                warnings[0]
            );
        }
        if tracing {
            // Through the subscriber, not on stderr.
            assert!(!stderr.contains(WARNING), "{stderr}");
        }
    }
}

/// The same service on `filch::axum::serve`, `filch::net` and `filch::spawn`.
#[filch::main(worker_threads = 2)]
async fn filch_serve_program() -> String {
    let listener = filch::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(|| async { filch::spawn(async { work() }).await.unwrap() }),
    );
    filch::spawn(async move { filch::axum::serve(listener, app).await.unwrap() });
    let stop = Arc::new(AtomicBool::new(false));
    let clients = load(addr, Arc::clone(&stop));
    // Three windows and more of the watch under load.
    filch::time::sleep(Duration::from_millis(3500)).await;
    let stats = filch::Handle::current().stats();
    stop.store(true, Ordering::SeqCst);
    assert!(clients.join().unwrap() > 0);
    // The load ran on filch's workers; the side runtime holds its watch only.
    assert!(stats.total().polls > 0, "{stats:?}");
    assert!(stats.tokio.alive_tasks <= 1, "{stats:?}");
    format!(
        "warnings: {}\n{stats:?}",
        COUNT.get().unwrap().load(Ordering::SeqCst)
    )
}

#[test]
#[ignore = "run by the_same_service_on_filch_is_not_warned_about (a child process)"]
fn filch_serve_child() {
    if !is_child() {
        return;
    }
    COUNT.set(count_warnings_on_stderr()).unwrap();
    let report = watchdog(100, "filch serve", filch_serve_program);
    println!("{report}");
    println!("filch serve: done");
}

#[test]
fn the_same_service_on_filch_is_not_warned_about() {
    let (stdout, stderr) = child("filch_serve_child", &[], "filch serve: done");
    assert!(stdout.contains("warnings: 0\n"), "{stdout}");
    assert!(!stderr.contains(WARNING), "{stderr}");
}
