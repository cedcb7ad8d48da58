//! One pool under the direct habit: an axum service whose CPU route calls the parallel
//! iterators directly inside its handler (the rayon habit), beside a `/health` route, and how
//! `/health` fares while the CPU route is loaded.
//!
//! ```text
//! cargo bench -p filch-benches --features axum --bench one_pool                # 2 workers, 3 rounds of 10 s
//! cargo bench -p filch-benches --features axum --bench one_pool -- --rounds 5 --duration 5
//! ```
//!
//! The services (the same routes, `workers` threads each):
//! - filch-direct: axum on filch (`filch::axum::serve`); `GET /cpu` runs [`CALLS`]
//!   `filch::par` parallel iterators of [`ITEMS`] items back to back in the handler's poll;
//! - filch-run: the same work in `filch::par::run(..).await` (the handler's worker goes on
//!   with other tasks meanwhile);
//! - tokio-rayon: axum on tokio's multi-thread runtime; `GET /cpu` calls rayon's parallel
//!   iterators directly in the handler (rayon's global pool of `workers` threads): the known
//!   anti-pattern on tokio, which blocks the tokio worker for the whole call.
//!
//! Each round loads `/cpu` with `wrk -c{cpu}` and, at the same time, `/health` with
//! `wrk -c{health} --latency`, for `duration` seconds, the services taking turns; the table
//! shows each one's median round (by `/health` requests per second): `/health`'s requests
//! per second, p50 and p99, and `/cpu`'s requests per second. Knobs: `--workers N` (2),
//! `--duration SECS` (10), `--rounds R` (3), `--cpu-connections C` (4),
//! `--health-connections C` (16), `--only NAME[,NAME]`. Without `--bench` (as
//! `cargo test --benches` runs it) it only checks that each service answers both routes.
//! Without `wrk` on the `PATH` it says how to install it and exits successfully.

#[path = "common/wrk.rs"]
mod wrk;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use wrk::{fmt_us, wrk_available, WrkResult};

/// Parallel-iterator calls per `/cpu` request.
const CALLS: u64 = 6;
/// Items per call: about a millisecond of work per call on two workers.
const ITEMS: u64 = 20_000;

const SERVICES: [&str; 3] = ["filch-direct", "filch-run", "tokio-rayon"];

/// About 100 ns of arithmetic (a dependent chain the compiler cannot fold).
fn work(i: u64) -> u64 {
    let mut x = std::hint::black_box(i);
    for k in 0..40u64 {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(k));
    }
    x >> 60
}

/// `/cpu`'s work on filch's workers.
fn cpu_filch() -> u64 {
    use filch::par::prelude::*;
    (0..CALLS)
        .map(|_| (0..ITEMS).into_par_iter().map(work).sum::<u64>())
        .sum()
}

/// `/cpu`'s work on rayon's pool.
fn cpu_rayon() -> u64 {
    use rayon::prelude::*;
    (0..CALLS)
        .map(|_| (0..ITEMS).into_par_iter().map(work).sum::<u64>())
        .sum()
}

fn router(cpu: Router) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(cpu)
}

/// A service running on its own thread until dropped.
struct Service {
    addr: SocketAddr,
    stop: async_channel::Sender<()>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Service {
    fn start(name: &str, workers: usize) -> Service {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let shutdown = async move {
            let _ = stopped.recv().await;
        };
        let thread = match name {
            "filch-direct" | "filch-run" => {
                let ex = filch::Executor::builder()
                    .worker_threads(workers)
                    .thread_name(name)
                    .build()
                    .expect("start filch");
                let cpu = if name == "filch-direct" {
                    Router::new().route("/cpu", get(|| async { cpu_filch().to_string() }))
                } else {
                    Router::new().route(
                        "/cpu",
                        get(|| async { filch::par::run(cpu_filch).await.to_string() }),
                    )
                };
                thread::spawn(move || {
                    let serve = ex.spawn(async move {
                        let listener =
                            filch::net::TcpListener::from_std(listener).expect("register");
                        let _ = filch::axum::serve(listener, router(cpu))
                            .with_graceful_shutdown(shutdown)
                            .await;
                    });
                    let _ = ex.block_on(serve);
                })
            }
            "tokio-rayon" => {
                // rayon's global pool, once per process, of the same size.
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build_global();
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(workers)
                    .enable_all()
                    .build()
                    .expect("start tokio");
                listener.set_nonblocking(true).unwrap();
                let cpu = Router::new().route("/cpu", get(|| async { cpu_rayon().to_string() }));
                thread::spawn(move || {
                    rt.block_on(async move {
                        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                        let _ = axum::serve(listener, router(cpu))
                            .with_graceful_shutdown(shutdown)
                            .await;
                    });
                })
            }
            other => panic!("unknown service {other} (have {SERVICES:?})"),
        };
        Service {
            addr,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.stop.try_send(());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One GET over a fresh connection: the response's body.
fn get_once(addr: SocketAddr, path: &str) -> String {
    let mut conn = TcpStream::connect(addr).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    conn.read_to_string(&mut response)
        .expect("read the response");
    assert!(response.starts_with("HTTP/1.1 200"), "{path}: {response}");
    response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned()
}

struct Config {
    workers: usize,
    duration: u64,
    rounds: usize,
    cpu_connections: usize,
    health_connections: usize,
    only: Vec<String>,
    bench: bool,
}

fn parse_args() -> Config {
    let mut cfg = Config {
        workers: 2,
        duration: 10,
        rounds: 3,
        cpu_connections: 4,
        health_connections: 16,
        only: SERVICES.iter().map(|s| (*s).to_owned()).collect(),
        bench: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--bench" => cfg.bench = true,
            "--workers" => cfg.workers = value().parse().expect("--workers N"),
            "--duration" => cfg.duration = value().parse().expect("--duration SECS"),
            "--rounds" => cfg.rounds = value().parse().expect("--rounds R"),
            "--cpu-connections" => cfg.cpu_connections = value().parse().expect("a number"),
            "--health-connections" => {
                cfg.health_connections = value().parse().expect("a number");
            }
            "--only" => cfg.only = value().split(',').map(str::to_owned).collect(),
            // cargo's own flags.
            _ => {}
        }
    }
    cfg
}

/// One round of a service: `/cpu` and `/health` loaded at once; `/health`'s result and
/// `/cpu`'s requests per second.
fn round(cfg: &Config, name: &str) -> (WrkResult, f64) {
    let service = Service::start(name, cfg.workers);
    let addr = service.addr;
    let cpu_url = format!("http://{addr}/cpu");
    let health_url = format!("http://{addr}/health");
    let (cpu_connections, duration) = (cfg.cpu_connections, cfg.duration);
    let cpu = thread::spawn(move || wrk::run(&cpu_url, 1, cpu_connections, duration + 1));
    // The CPU load first, so that /health is measured under it.
    thread::sleep(Duration::from_millis(500));
    let health = wrk::run(&health_url, 1, cfg.health_connections, duration).expect("wrk /health");
    let cpu = cpu.join().unwrap().expect("wrk /cpu");
    drop(service);
    (health, cpu.requests_per_sec)
}

fn main() -> ExitCode {
    let cfg = parse_args();
    let expected = cpu_filch().to_string();
    assert_eq!(expected, cpu_rayon().to_string());
    for name in &cfg.only {
        let service = Service::start(name, cfg.workers);
        assert_eq!(get_once(service.addr, "/health"), "ok", "{name}");
        assert_eq!(get_once(service.addr, "/cpu"), expected, "{name}");
    }
    if !cfg.bench {
        println!("one_pool: every service answers /health and /cpu");
        return ExitCode::SUCCESS;
    }
    if !wrk_available() {
        println!("one_pool: wrk is not installed (apt-get install wrk); nothing measured");
        return ExitCode::SUCCESS;
    }
    let mut results: Vec<(String, Vec<(WrkResult, f64)>)> =
        cfg.only.iter().map(|n| (n.clone(), Vec::new())).collect();
    for r in 0..cfg.rounds {
        for (name, runs) in &mut results {
            let (health, cpu) = round(&cfg, name);
            eprintln!(
                "round {}: {name}: /health {:.0} req/s p50 {} p99 {}; /cpu {cpu:.1} req/s",
                r + 1,
                health.requests_per_sec,
                fmt_us(health.p50),
                fmt_us(health.p99)
            );
            runs.push((health, cpu));
        }
    }
    println!(
        "\n{} workers, /cpu: {CALLS} calls of {ITEMS} items under wrk -c{}, /health under \
         wrk -c{}, {} s, median of {} rounds\n",
        cfg.workers, cfg.cpu_connections, cfg.health_connections, cfg.duration, cfg.rounds
    );
    println!("| service | /health req/s | /health p50 | /health p99 | /cpu req/s |");
    println!("|---|---:|---:|---:|---:|");
    for (name, mut runs) in results {
        runs.sort_by(|a, b| a.0.requests_per_sec.total_cmp(&b.0.requests_per_sec));
        let (health, cpu) = runs.swap_remove(runs.len() / 2);
        println!(
            "| {name} | {:.0} | {} | {} | {cpu:.1} |",
            health.requests_per_sec,
            fmt_us(health.p50),
            fmt_us(health.p99)
        );
    }
    ExitCode::SUCCESS
}
