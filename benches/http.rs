//! HTTP load benchmark: the example server's handler (`examples/http_server/server.rs`,
//! included below: hyper 1.x, HTTP/1.1) served by filch, by tokio and by async-executor +
//! async-io, each with the same number of worker threads and the same hyper settings,
//! loaded in turn by `wrk` over 127.0.0.1.
//!
//! ```text
//! cargo bench -p filch-benches --bench http                                  # 2 workers, 3 rounds of 10 s
//! cargo bench -p filch-benches --bench http -- --workers 4 --duration 5 --rounds 1 --connections 128
//! ```
//!
//! Knobs: `--workers N` (or `FILCH_BENCH_WORKERS`, default 2), `--duration SECS` (10),
//! `--rounds R` (3; the runtimes take turns each round, and the table shows each one's
//! median round), `--connections C` (64), `--wrk-threads T` (2), `--path P` (`/`), `--only
//! NAME[,NAME]` (filch, tokio, async-executor by default; also filch+async-io, axum-filch,
//! axum-tokio). Unknown flags (cargo's `--bench`) are ignored.
//! Without `wrk` on the `PATH` it says how to install it and exits successfully. Without
//! `--bench` (as `cargo test --benches` runs it) it only checks, in a second or two, that
//! each server answers a request.
//!
//! The servers (one task per connection, `server::handle` behind hyper's `http1` with
//! `server::http1_builder`, each runtime's own timer for hyper):
//! - filch: [`Server::run`] of the example, on `filch::net` (hyper's `rt` traits
//!   implemented by filch's streams) and `filch::hyper::HyperTimer`;
//! - tokio: `tokio::net`, multi-thread runtime, hyper-util's `TokioIo` and `TokioTimer`;
//! - async-executor: `async_io::Async<TcpStream>` through smol-hyper's `FuturesIo`, with
//!   `SmolTimer`; each worker thread runs `async_io::block_on(ex.run(..))`, smol's set-up, so
//!   idle workers drive async-io's reactor;
//! - axum-filch, axum-tokio (only with `--only`): the axum application of
//!   `integrations/examples/axum_app` (its `/` route, or `--path`), served by
//!   `filch::axum::serve` on `filch::net` (axum-filch needs `--features axum`), and by
//!   `axum::serve` on tokio;
//! - filch+async-io (only with `--only`): the async-executor server's connections on a filch
//!   executor; async-io's reactor runs on its own thread;
//! - pg-filch, pg-filch-side, pg-tokio (only with `--only`, and `--features axum`): a
//!   PostgreSQL-backed axum route (`common/pg_app.rs`: one row of a 1,000-row table per
//!   request, through a pool of 4 tokio-postgres connections) against a real PostgreSQL that
//!   the benchmark starts (`integrations/tests/common/postgres_server.rs`; Debian's
//!   `postgresql` package).
//!   pg-filch is README's recipe (the connections over `filch::net`, driven by filch tasks),
//!   pg-filch-side what `tokio-context` gives a plain `tokio_postgres::connect` (its sockets
//!   on a one-worker tokio runtime beside filch), pg-tokio the same route on tokio; the
//!   ratios are against pg-tokio:
//!
//! ```text
//! cargo bench -p filch-benches --features axum --bench http -- --only pg-filch,pg-tokio,pg-filch-side --rounds 5
//! ```
//!
//! Every server is started on 127.0.0.1:0, warmed up for 1 s with wrk, then measured.
//!
//! **HTTP/2** (`--h2 1,10,100`): `h2load` (installed with apt-get when missing) instead of
//! wrk, h2c with prior knowledge, `--connections` clients with each listed number of
//! concurrent streams per connection (`-m`), against `axum-filch` and `axum-tokio` unless
//! `--only` says otherwise (needs `--features axum`). Requests/s from h2load's summary;
//! p50, p99 and max from its per-request log (`--log-file`, a fresh file per run).
//!
//! ```text
//! cargo bench -p filch-benches --features axum --bench http -- --h2 1,10,100 --duration 10 --rounds 3
//! ```

#[allow(dead_code)]
#[path = "../examples/http_server/server.rs"]
mod server;

#[allow(dead_code)]
#[path = "../integrations/examples/axum_app/app.rs"]
mod axum_app;

#[path = "common/h2load.rs"]
mod h2load;

#[path = "common/wrk.rs"]
mod wrk;
use wrk::{fmt_us, parse_wrk, wrk_available, WrkResult};

#[cfg(feature = "axum")]
#[path = "common/pg_app.rs"]
mod pg_app;

#[cfg(feature = "axum")]
#[allow(dead_code)]
#[path = "../integrations/tests/common/postgres_server.rs"]
mod postgres_server;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use server::{handle, http1_builder, Server, Stopper};

/// The benchmark's settings.
#[derive(Clone, Debug)]
struct Config {
    workers: usize,
    duration: u64,
    rounds: usize,
    connections: usize,
    wrk_threads: usize,
    path: String,
    only: Vec<String>,
    /// `--h2`: the streams per connection of each HTTP/2 run (empty: HTTP/1.1 with wrk).
    h2_streams: Vec<usize>,
}

const RUNTIMES: [&str; 10] = [
    "filch",
    "tokio",
    "async-executor",
    "filch+async-io",
    "axum-filch",
    "axum-tokio",
    "pg-filch",
    "pg-filch-cur",
    "pg-filch-side",
    "pg-tokio",
];

fn parse_args() -> Result<Config, String> {
    let mut cfg = Config {
        workers: std::env::var("FILCH_BENCH_WORKERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n| n > 0)
            .unwrap_or(2),
        duration: 10,
        rounds: 3,
        connections: 64,
        wrk_threads: 2,
        path: "/".to_string(),
        // The async-io-on-filch row only on request (`--only`).
        only: RUNTIMES[..3].iter().map(|s| s.to_string()).collect(),
        h2_streams: Vec::new(),
    };
    let mut only_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            let text = args.next().ok_or(format!("{name} needs a value"))?;
            text.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or(format!("{name} {text:?}: expected a positive number"))
        };
        match flag.as_str() {
            "--workers" => cfg.workers = number("--workers")? as usize,
            "--duration" => cfg.duration = number("--duration")?,
            "--rounds" => cfg.rounds = number("--rounds")? as usize,
            "--connections" => cfg.connections = number("--connections")? as usize,
            "--wrk-threads" => cfg.wrk_threads = number("--wrk-threads")? as usize,
            "--path" => cfg.path = args.next().ok_or("--path needs a value")?,
            "--h2" => {
                let list = args.next().ok_or("--h2 needs a value (e.g. 1,10,100)")?;
                cfg.h2_streams = list
                    .split(',')
                    .map(|n| n.parse().ok().filter(|&n: &usize| n > 0))
                    .collect::<Option<_>>()
                    .ok_or(format!("--h2 {list:?}: expected positive numbers"))?;
            }
            "--only" => {
                only_given = true;
                let list = args.next().ok_or("--only needs a value")?;
                cfg.only = list.split(',').map(str::to_string).collect();
                if let Some(bad) = cfg.only.iter().find(|n| !RUNTIMES.contains(&n.as_str())) {
                    return Err(format!(
                        "--only: unknown runtime {bad:?} (have {RUNTIMES:?})"
                    ));
                }
                if cfg!(not(feature = "axum"))
                    && cfg
                        .only
                        .iter()
                        .any(|n| n == "axum-filch" || n.starts_with("pg-"))
                {
                    return Err(
                        "--only axum-filch and the pg-* rows need filch's `axum` feature \
                                (cargo bench -p filch-benches --features axum --bench http -- ...)"
                            .to_owned(),
                    );
                }
            }
            // cargo bench passes `--bench`; filters and the like do not apply here.
            _ => {}
        }
    }
    if !cfg.h2_streams.is_empty() && !only_given {
        if cfg!(not(feature = "axum")) {
            return Err(
                "--h2 serves the axum application: it needs filch's `axum` feature \
                        (cargo bench -p filch-benches --features axum --bench http -- --h2 ...)"
                    .to_owned(),
            );
        }
        cfg.only = vec!["axum-filch".to_owned(), "axum-tokio".to_owned()];
    }
    Ok(cfg)
}

/// A server under load; dropping it stops the server and its runtime.
trait Running {
    fn addr(&self) -> SocketAddr;
}

struct FilchServer {
    addr: SocketAddr,
    stopper: Stopper,
    thread: Option<thread::JoinHandle<()>>,
}

impl FilchServer {
    fn start(workers: usize, port: u16) -> FilchServer {
        let server = Server::bind(([127, 0, 0, 1], port).into()).expect("bind 127.0.0.1");
        let addr = server.local_addr().unwrap();
        let stopper = server.stopper();
        let ex = filch::Executor::builder()
            .worker_threads(workers)
            .thread_name("filch-http")
            .build()
            .expect("start filch");
        let thread = thread::spawn(move || {
            let handle = ex.handle();
            // The accept loop is a task like the connections (as in the other two servers).
            let accept = ex.spawn(server.run(move |task| drop(handle.spawn(task))));
            let _ = ex.block_on(accept);
        });
        FilchServer {
            addr,
            stopper,
            thread: Some(thread),
        }
    }
}

impl Running for FilchServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for FilchServer {
    fn drop(&mut self) {
        self.stopper.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct AsyncExecutorServer {
    addr: SocketAddr,
    stop_accept: Option<async_channel::Sender<()>>,
    stop_workers: Option<async_channel::Sender<()>>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl AsyncExecutorServer {
    fn start(workers: usize, port: u16) -> AsyncExecutorServer {
        // Leaked, as smol users do with a global executor: the tasks borrow it for 'static.
        let ex: &'static async_executor::Executor<'static> =
            Box::leak(Box::new(async_executor::Executor::new()));
        let (stop_workers, stopped) = async_channel::bounded::<()>(1);
        let threads = (0..workers)
            .map(|i| {
                let stopped = stopped.clone();
                thread::Builder::new()
                    .name(format!("async-executor-http-{i}"))
                    .spawn(move || {
                        let _ = async_io::block_on(ex.run(stopped.recv()));
                    })
                    .expect("start async-executor thread")
            })
            .collect();
        let listener = async_io::Async::<std::net::TcpListener>::bind(([127, 0, 0, 1], port))
            .expect("bind 127.0.0.1");
        let addr = listener.get_ref().local_addr().unwrap();
        let (stop_accept, accept_stopped) = async_channel::bounded::<()>(1);
        ex.spawn(async move {
            loop {
                let accepted =
                    futures_lite::future::or(async { Some(listener.accept().await) }, async {
                        let _ = accept_stopped.recv().await;
                        None
                    })
                    .await;
                match accepted {
                    None => return,
                    Some(Ok((stream, _))) => {
                        let _ = stream.get_ref().set_nodelay(true);
                        ex.spawn(async move {
                            let io = smol_hyper::rt::FuturesIo::new(stream);
                            let service = hyper::service::service_fn(|req| handle(req, || {}));
                            let _ = http1_builder(smol_hyper::rt::SmolTimer::new())
                                .serve_connection(io, service)
                                .await;
                        })
                        .detach();
                    }
                    Some(Err(_)) => {
                        async_io::Timer::after(Duration::from_millis(50)).await;
                    }
                }
            }
        })
        .detach();
        AsyncExecutorServer {
            addr,
            stop_accept: Some(stop_accept),
            stop_workers: Some(stop_workers),
            threads,
        }
    }
}

impl Running for AsyncExecutorServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for AsyncExecutorServer {
    fn drop(&mut self) {
        drop(self.stop_accept.take());
        // Let the accept loop see the stop before the workers go.
        thread::sleep(Duration::from_millis(100));
        drop(self.stop_workers.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// hyper over async-io (`Async<TcpStream>`, smol-hyper) with filch as the executor: what
/// async-io users get on filch, whose workers no longer drive async-io's reactor (its own
/// thread does).
struct FilchAsyncIoServer {
    addr: SocketAddr,
    ex: Option<filch::Executor>,
}

impl FilchAsyncIoServer {
    fn start(workers: usize, port: u16) -> FilchAsyncIoServer {
        let ex = filch::Executor::builder()
            .worker_threads(workers)
            .thread_name("filch-async-io-http")
            .build()
            .expect("start filch");
        let listener = async_io::Async::<std::net::TcpListener>::bind(([127, 0, 0, 1], port))
            .expect("bind 127.0.0.1");
        let addr = listener.get_ref().local_addr().unwrap();
        drop(ex.spawn(async move {
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        let _ = stream.get_ref().set_nodelay(true);
                        drop(filch::spawn(async move {
                            let io = smol_hyper::rt::FuturesIo::new(stream);
                            let service = hyper::service::service_fn(|req| handle(req, || {}));
                            let _ = http1_builder(smol_hyper::rt::SmolTimer::new())
                                .serve_connection(io, service)
                                .await;
                        }));
                    }
                    Err(_) => {
                        async_io::Timer::after(Duration::from_millis(50)).await;
                    }
                }
            }
        }));
        FilchAsyncIoServer { addr, ex: Some(ex) }
    }
}

impl Running for FilchAsyncIoServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for FilchAsyncIoServer {
    fn drop(&mut self) {
        drop(self.ex.take());
    }
}

struct TokioServer {
    addr: SocketAddr,
    rt: Option<tokio::runtime::Runtime>,
}

impl TokioServer {
    /// A tokio runtime of `workers` threads named `name`, serving `serve(listener)` on
    /// 127.0.0.1:`port`.
    fn serve<F, Fut>(workers: usize, port: u16, name: &str, serve: F) -> TokioServer
    where
        F: FnOnce(tokio::net::TcpListener) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name(name)
            .enable_all()
            .build()
            .expect("start tokio");
        let listener = rt
            .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        rt.spawn(serve(listener));
        TokioServer { addr, rt: Some(rt) }
    }

    /// The PostgreSQL-backed route on tokio (`benches/common/pg_app.rs`):
    /// `tokio_postgres::connect`, `tokio::spawn` and `axum::serve`; returns once its pool is
    /// connected.
    #[cfg(feature = "axum")]
    fn pg(workers: usize, port: u16) -> TokioServer {
        let pg_port = pg_port();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("tokio-pg")
            .enable_all()
            .build()
            .expect("start tokio");
        let (listener, pool) = rt.block_on(async {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                .await
                .expect("bind 127.0.0.1");
            let mut clients = Vec::new();
            for _ in 0..pg_app::CONNECTIONS {
                clients.push(pg_app::connect_on_tokio(pg_port, |c| drop(tokio::spawn(c))).await);
            }
            (
                listener,
                std::sync::Arc::new(pg_app::Pool::new(clients).await),
            )
        });
        let addr = listener.local_addr().unwrap();
        rt.spawn(async move {
            let _ = axum::serve(listener, pg_app::router(pool)).await;
        });
        TokioServer { addr, rt: Some(rt) }
    }

    fn start(workers: usize, port: u16) -> TokioServer {
        TokioServer::serve(workers, port, "tokio-http", |listener| async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let service = hyper::service::service_fn(|req| handle(req, || {}));
                    let _ = http1_builder(hyper_util::rt::TokioTimer::new())
                        .serve_connection(io, service)
                        .await;
                });
            }
        })
    }
}

impl Running for TokioServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for TokioServer {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

/// The axum application of `integrations/examples/axum_app` on filch, served by
/// `filch::axum::serve`.
#[cfg(feature = "axum")]
struct AxumFilchServer {
    addr: SocketAddr,
    stop: async_channel::Sender<()>,
    thread: Option<thread::JoinHandle<()>>,
}

#[cfg(feature = "axum")]
impl AxumFilchServer {
    fn start(workers: usize, port: u16) -> AxumFilchServer {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let ex = filch::Executor::builder()
            .worker_threads(workers)
            .thread_name("filch-axum")
            .build()
            .expect("start filch");
        let thread = thread::spawn(move || {
            let serve = ex.spawn(async move {
                let listener = filch::net::TcpListener::from_std(listener).expect("register");
                let _ = filch::axum::serve(listener, axum_app::router())
                    .with_graceful_shutdown(async move {
                        let _ = stopped.recv().await;
                    })
                    .await;
            });
            let _ = ex.block_on(serve);
        });
        AxumFilchServer {
            addr,
            stop,
            thread: Some(thread),
        }
    }
}

#[cfg(feature = "axum")]
impl Running for AxumFilchServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

#[cfg(feature = "axum")]
impl Drop for AxumFilchServer {
    fn drop(&mut self) {
        let _ = self.stop.try_send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The PostgreSQL-backed route on filch (`benches/common/pg_app.rs`): `side` false is
/// README's recipe (the pool over `filch::net`, its connections filch tasks), `side` true
/// what `tokio-context` runs (`tokio_postgres::connect`, its sockets on a one-worker tokio
/// runtime whose context filch's threads are in), served by `filch::axum::serve`.
#[cfg(feature = "axum")]
struct PgFilchServer {
    addr: SocketAddr,
    stop: async_channel::Sender<()>,
    thread: Option<thread::JoinHandle<()>>,
    side: Option<tokio::runtime::Runtime>,
}

#[cfg(feature = "axum")]
impl PgFilchServer {
    fn start(
        workers: usize,
        port: u16,
        side: bool,
        policy: Option<filch::WakePolicy>,
    ) -> PgFilchServer {
        let pg_port = pg_port();
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        // What the `tokio-context` feature sets up: one tokio worker, whose context every
        // filch thread is in.
        let side = side.then(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("filch-pg-tokio")
                .enable_all()
                .build()
                .expect("start tokio")
        });
        let mut builder = filch::Executor::builder()
            .worker_threads(workers)
            .thread_name("filch-pg");
        if let Some(policy) = policy {
            builder = builder.wake_policy(policy);
        }
        if let Some(runtime) = &side {
            let handle = runtime.handle().clone();
            builder = builder.on_thread_start(move || std::mem::forget(handle.enter()));
        }
        let ex = builder.build().expect("start filch");
        let on_side = side.is_some();
        let (ready, is_ready) = std::sync::mpsc::channel();
        let thread = thread::spawn(move || {
            let serve = ex.spawn(async move {
                let mut clients = Vec::new();
                for _ in 0..pg_app::CONNECTIONS {
                    clients.push(if on_side {
                        pg_app::connect_on_tokio(pg_port, |c| drop(filch::spawn(c))).await
                    } else {
                        pg_app::connect_on_filch(pg_port).await
                    });
                }
                let pool = std::sync::Arc::new(pg_app::Pool::new(clients).await);
                let _ = ready.send(());
                let listener = filch::net::TcpListener::from_std(listener).expect("register");
                let _ = filch::axum::serve(listener, pg_app::router(pool))
                    .with_graceful_shutdown(async move {
                        let _ = stopped.recv().await;
                    })
                    .await;
            });
            let _ = ex.block_on(serve);
        });
        // Served once its pool is connected.
        is_ready.recv().expect("the server's pool connects");
        PgFilchServer {
            addr,
            stop,
            thread: Some(thread),
            side,
        }
    }
}

#[cfg(feature = "axum")]
impl Running for PgFilchServer {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

#[cfg(feature = "axum")]
impl Drop for PgFilchServer {
    fn drop(&mut self) {
        let _ = self.stop.try_send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(runtime) = self.side.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

/// The port of the PostgreSQL server of the `pg-*` rows ([`start_pg`]).
#[cfg(feature = "axum")]
static PG_PORT: std::sync::OnceLock<u16> = std::sync::OnceLock::new();

#[cfg(feature = "axum")]
fn pg_port() -> u16 {
    *PG_PORT
        .get()
        .expect("the PostgreSQL server is started first (start_pg)")
}

/// Starts the PostgreSQL server of the `pg-*` rows if `names` has one (a fresh cluster in a
/// temporary directory, `integrations/tests/common/postgres_server.rs`) and creates the rows'
/// table; the caller owns it, and its drop stops it.
#[cfg(feature = "axum")]
fn start_pg(names: &[String]) -> Option<postgres_server::Server> {
    if !names.iter().any(|n| n.starts_with("pg-")) {
        return None;
    }
    let server = postgres_server::Server::start();
    let port = server.port;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("start tokio");
    rt.block_on(async {
        let client = pg_app::connect_on_tokio(port, |c| drop(tokio::spawn(c))).await;
        pg_app::create_table(&client).await;
    });
    let _ = PG_PORT.set(port);
    Some(server)
}

#[cfg(not(feature = "axum"))]
fn start_pg(_: &[String]) -> Option<()> {
    None
}

fn start(name: &str, workers: usize) -> Box<dyn Running> {
    start_on(name, workers, 0)
}

/// Starts runtime `name`'s server on 127.0.0.1:`port` (0: a free port).
fn start_on(name: &str, workers: usize, port: u16) -> Box<dyn Running> {
    match name {
        "filch" => Box::new(FilchServer::start(workers, port)),
        "tokio" => Box::new(TokioServer::start(workers, port)),
        "async-executor" => Box::new(AsyncExecutorServer::start(workers, port)),
        "filch+async-io" => Box::new(FilchAsyncIoServer::start(workers, port)),
        #[cfg(feature = "axum")]
        "axum-filch" => Box::new(AxumFilchServer::start(workers, port)),
        // The same axum application on tokio, served by `axum::serve` (axum's own set-up).
        "axum-tokio" => Box::new(TokioServer::serve(workers, port, "tokio-axum", |l| async {
            let _ = axum::serve(l, axum_app::router()).await;
        })),
        #[cfg(feature = "axum")]
        "pg-filch" => Box::new(PgFilchServer::start(workers, port, false, None)),
        #[cfg(feature = "axum")]
        "pg-filch-cur" => Box::new(PgFilchServer::start(
            workers,
            port,
            false,
            Some(filch::WakePolicy::CurrentWorker),
        )),
        #[cfg(feature = "axum")]
        "pg-filch-side" => Box::new(PgFilchServer::start(workers, port, true, None)),
        // The same route on tokio: `tokio_postgres::connect`, `tokio::spawn`, `axum::serve`.
        #[cfg(feature = "axum")]
        "pg-tokio" => Box::new(TokioServer::pg(workers, port)),
        other => panic!("unknown runtime {other} (have {RUNTIMES:?})"),
    }
}

/// The runtime named by `--serve NAME`, if given.
fn serve_only() -> Option<String> {
    std::env::args().skip_while(|a| a != "--serve").nth(1)
}

fn run_wrk(cfg: &Config, addr: SocketAddr, seconds: u64) -> Result<WrkResult, String> {
    let url = format!("http://{addr}{}", cfg.path);
    wrk::run(&url, cfg.wrk_threads, cfg.connections, seconds)
}

fn median_by_rps(mut runs: Vec<WrkResult>) -> WrkResult {
    runs.sort_by(|a, b| a.requests_per_sec.total_cmp(&b.requests_per_sec));
    runs.swap_remove(runs.len() / 2)
}

fn main() -> ExitCode {
    let cfg = match parse_args() {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("benches/http: {msg}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(name) = serve_only() {
        // `--serve NAME`: one server on 127.0.0.1:PORT (`--port`, default 8080) until stdin
        // closes, for `strace`/`perf` from outside (benches/http_syscalls.sh).
        let port: u16 = std::env::args()
            .skip_while(|a| a != "--port")
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(8080);
        let _pg = start_pg(std::slice::from_ref(&name));
        let server = start_on(&name, cfg.workers, port);
        println!(
            "{name} serving on http://{} (pid {})",
            server.addr(),
            std::process::id()
        );
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
        drop(server);
        return ExitCode::SUCCESS;
    }
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --benches` (or `--all-targets`) runs this binary without `--bench`:
        // check that every server answers, quickly, instead of loading them for minutes.
        return smoke_test(&cfg);
    }
    if !cfg.h2_streams.is_empty() {
        return h2_bench(&cfg);
    }
    if !wrk_available() {
        println!(
            "benches/http: skipped: `wrk` is not installed. Install it with \
             `sudo apt-get install wrk` (Debian/Ubuntu; `brew install wrk` on macOS), then \
             run `cargo bench -p filch-benches --bench http` again."
        );
        return ExitCode::SUCCESS;
    }
    // Stopped when `main` returns.
    let _pg = start_pg(&cfg.only);
    let command = format!(
        "wrk -t{} -c{} -d{}s --latency http://127.0.0.1:PORT{}",
        cfg.wrk_threads, cfg.connections, cfg.duration, cfg.path
    );
    println!(
        "HTTP benchmark: {} worker threads per server, {} round(s) of `{command}` per runtime",
        cfg.workers, cfg.rounds
    );
    let mut results: Vec<(String, Vec<WrkResult>)> =
        cfg.only.iter().map(|n| (n.clone(), Vec::new())).collect();
    for round in 1..=cfg.rounds {
        for (name, runs) in &mut results {
            let server = start(name, cfg.workers);
            // Warm-up: connections, allocator, page cache, CPU frequency.
            if let Err(msg) = run_wrk(&cfg, server.addr(), 1) {
                eprintln!("benches/http: {name}: warm-up: {msg}");
                return ExitCode::FAILURE;
            }
            match run_wrk(&cfg, server.addr(), cfg.duration) {
                Ok(r) => {
                    println!(
                        "  round {round} {name:>15}: {:>10.0} req/s  p50 {:>9}  p99 {:>9}{}",
                        r.requests_per_sec,
                        fmt_us(r.p50),
                        fmt_us(r.p99),
                        if r.errors.is_empty() {
                            String::new()
                        } else {
                            format!("  ({})", r.errors)
                        }
                    );
                    runs.push(r);
                }
                Err(msg) => {
                    eprintln!("benches/http: {name}: {msg}");
                    return ExitCode::FAILURE;
                }
            }
            drop(server);
        }
    }
    let medians: Vec<(String, WrkResult)> = results
        .into_iter()
        .map(|(name, runs)| (name, median_by_rps(runs)))
        .collect();
    // Each row against tokio serving the same thing: the axum rows against axum on tokio.
    let baseline_rps = |name: &str| {
        let baseline = if name.starts_with("axum-") {
            "axum-tokio"
        } else if name.starts_with("pg-") {
            "pg-tokio"
        } else {
            "tokio"
        };
        medians
            .iter()
            .find(|(n, _)| n == baseline)
            .map(|(_, r)| r.requests_per_sec)
    };
    println!("\nMedian round, {} workers, `{command}`:\n", cfg.workers);
    println!("| runtime | requests/s | vs tokio | p50 | p75 | p90 | p99 | max |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, r) in &medians {
        let ratio = baseline_rps(name).map_or("-".to_string(), |t| {
            format!("{:.2}x", r.requests_per_sec / t)
        });
        println!(
            "| {name} | {:.0} | {ratio} | {} | {} | {} | {} | {} |",
            r.requests_per_sec,
            fmt_us(r.p50),
            fmt_us(r.p75),
            fmt_us(r.p90),
            fmt_us(r.p99),
            fmt_us(r.max)
        );
    }
    ExitCode::SUCCESS
}

/// The `--h2` mode: for each round, each streams-per-connection value and each runtime in
/// turn, a fresh server loaded by h2load; then a table of each one's median round.
fn h2_bench(cfg: &Config) -> ExitCode {
    if !h2load::ensure_h2load() {
        println!(
            "benches/http: skipped: `h2load` is not installed and could not be installed \
             (`sudo apt-get install nghttp2-client` on Debian/Ubuntu)."
        );
        return ExitCode::SUCCESS;
    }
    let log = std::env::temp_dir().join(format!("filch-h2load-{}.log", std::process::id()));
    println!(
        "HTTP/2 benchmark: {} worker threads per server, {} round(s) of `h2load -c{} -m{{{}}} \
         -t{} -D{} --warm-up-time=1 http://127.0.0.1:PORT{}` per runtime",
        cfg.workers,
        cfg.rounds,
        cfg.connections,
        cfg.h2_streams
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(","),
        cfg.wrk_threads,
        cfg.duration,
        cfg.path
    );
    let mut results: Vec<(usize, String, Vec<h2load::H2Result>)> = Vec::new();
    for &m in &cfg.h2_streams {
        for name in &cfg.only {
            results.push((m, name.clone(), Vec::new()));
        }
    }
    for round in 1..=cfg.rounds {
        for (m, name, runs) in &mut results {
            let server = start(name, cfg.workers);
            let run = h2load::run(
                server.addr(),
                &cfg.path,
                cfg.connections,
                *m,
                cfg.wrk_threads,
                cfg.duration,
                &log,
            );
            drop(server);
            match run {
                Ok(r) => {
                    println!(
                        "  round {round} -m{m:<4} {name:>12}: {:>9.0} req/s  p50 {:>9}  p99 {:>9}  \
                         max {:>9}{}",
                        r.requests_per_sec,
                        fmt_us(r.p50),
                        fmt_us(r.p99),
                        fmt_us(r.max),
                        if r.failed == 0 {
                            String::new()
                        } else {
                            format!("  ({} failed)", r.failed)
                        }
                    );
                    runs.push(r);
                }
                Err(msg) => {
                    eprintln!("benches/http: {name}: {msg}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let _ = std::fs::remove_file(&log);
    println!(
        "
Median round (by requests/s), {} workers, {} connections:
",
        cfg.workers, cfg.connections
    );
    println!("| streams (-m) | runtime | requests/s | vs axum-tokio | p50 | p99 | max | failed |");
    println!("|---:|---|---:|---:|---:|---:|---:|---:|");
    let medians: Vec<(usize, String, h2load::H2Result)> = results
        .into_iter()
        .map(|(m, name, mut runs)| {
            runs.sort_by(|a, b| a.requests_per_sec.total_cmp(&b.requests_per_sec));
            (m, name, runs.swap_remove(runs.len() / 2))
        })
        .collect();
    for (m, name, r) in &medians {
        let tokio = medians
            .iter()
            .find(|(m2, n, _)| m2 == m && n == "axum-tokio")
            .map(|(_, _, t)| t.requests_per_sec);
        let ratio = tokio.map_or("-".to_string(), |t| {
            format!("{:.2}x", r.requests_per_sec / t)
        });
        println!(
            "| {m} | {name} | {:.0} | {ratio} | {} | {} | {} | {} |",
            r.requests_per_sec,
            fmt_us(r.p50),
            fmt_us(r.p99),
            fmt_us(r.max),
            r.failed
        );
    }
    ExitCode::SUCCESS
}

/// Test mode: each server answers one keep-alive request byte for byte, and the wrk
/// output parser reads a sample.
fn smoke_test(cfg: &Config) -> ExitCode {
    use std::io::{Read, Write};
    const SAMPLE: &str = "Running 1s test @ http://127.0.0.1:1/\n  2 threads and 64 connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency   812.00us  1.20ms  25.03ms   90.00%\n  Latency Distribution\n     50%  600.00us\n     75%    1.01ms\n     90%    1.50ms\n     99%    5.00ms\n  80000 requests in 1.00s, 7.00MB read\nRequests/sec:  79999.50\n";
    let sample = parse_wrk(SAMPLE).expect("parse the sample wrk output");
    assert_eq!(sample.requests_per_sec, 79999.5);
    assert_eq!(
        (sample.p50, sample.p99, sample.max),
        (600.0, 5000.0, 25030.0)
    );
    // And h2load's per-request log (start, status, µs; -1: failed).
    let h2 = h2load::parse_log("1\t200\t100\n2\t200\t300\n3\t-1\t5\n4\t200\t200\n", 1.0);
    assert_eq!((h2.requests_per_sec, h2.failed), (3.0, 1));
    assert_eq!((h2.p50, h2.p99, h2.max), (200.0, 300.0, 300.0));

    for name in &cfg.only {
        if name.starts_with("pg-") {
            // They need a PostgreSQL server; `--bench` runs them.
            println!("benches/http: {name} skipped in test mode");
            continue;
        }
        let server = start(name, cfg.workers);
        let mut stream = std::net::TcpStream::connect(server.addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        for _ in 0..3 {
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            // The response ends with its 14-byte body; hyper's head varies (a date).
            let mut got = Vec::new();
            let mut byte = [0u8; 1];
            while !got.ends_with(server::HELLO_BODY.as_bytes()) {
                stream.read_exact(&mut byte).expect("read the response");
                got.push(byte[0]);
                assert!(got.len() < 4096, "{name} answered something else: {got:?}");
            }
            assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"), "{name}: {got:?}");
        }
        drop(stream);
        drop(server);
        println!("benches/http: {name} serves (test mode; `cargo bench -p filch-benches --bench http` measures)");
    }
    ExitCode::SUCCESS
}
