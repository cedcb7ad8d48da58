//! A database client's pool without HTTP: 64 tasks run 500 queries each through a pool of
//! 4 tokio-postgres connections (`common/pg_app.rs`: one row of a 1,000-row table per query,
//! the connections taken in turn) against a real PostgreSQL that the benchmark starts
//! (`integrations/tests/common/postgres_server.rs`; Debian's `postgresql` package). Each
//! round runs, in turn: filch with README's recipe (the connections over `filch::net`, driven by filch
//! tasks) under each `WakePolicy`, and tokio (`tokio_postgres::connect`, `tokio::spawn`),
//! each on 2 workers; it prints queries/s and the process's CPU time per query (user +
//! system, which counts the workers' spinning and parking), and at the end the median round
//! of each with its range, and the median of each round's ratio to tokio.
//!
//! ```text
//! cargo bench -p filch-benches --features axum --bench pg_pool -- --rounds 8
//! ```
//!
//! Without `--bench` (as `cargo test --benches` runs it) it does nothing: it needs a
//! PostgreSQL server.

#[allow(dead_code)]
#[path = "common/pg_app.rs"]
mod pg_app;

#[allow(dead_code)]
#[path = "../integrations/tests/common/postgres_server.rs"]
mod postgres_server;

use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tasks querying at once.
const TASKS: usize = 64;
/// Queries per task.
const PER_TASK: usize = 500;
/// Workers of each runtime.
const WORKERS: usize = 2;

/// The process's CPU time so far (user + system).
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` writes the struct it is given; all zeros is a valid `rusage`.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// What one run measured: wall time and CPU time of its queries.
struct Run {
    wall: Duration,
    cpu: Duration,
}

impl Run {
    fn queries_per_sec(&self) -> f64 {
        (TASKS * PER_TASK) as f64 / self.wall.as_secs_f64()
    }
    fn cpu_us_per_query(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / (TASKS * PER_TASK) as f64
    }
}

/// The queries, timed from the moment the pool is connected.
async fn timed(pool: Arc<pg_app::Pool>, spawn: impl Fn(Arc<pg_app::Pool>) -> Task) -> Run {
    let (start, cpu) = (Instant::now(), cpu_time());
    let tasks: Vec<Task> = (0..TASKS).map(|_| spawn(Arc::clone(&pool))).collect();
    for task in tasks {
        match task {
            Task::Filch(t) => t.await.expect("a query task"),
            Task::Tokio(t) => t.await.expect("a query task"),
        }
    }
    Run {
        wall: start.elapsed(),
        cpu: cpu_time() - cpu,
    }
}

/// A query task of either runtime.
enum Task {
    Filch(filch::JoinHandle<()>),
    Tokio(tokio::task::JoinHandle<()>),
}

async fn queries(pool: Arc<pg_app::Pool>) {
    for _ in 0..PER_TASK {
        pool.query().await;
    }
}

fn filch_run(port: u16, policy: filch::WakePolicy) -> Run {
    let ex = filch::Executor::builder()
        .worker_threads(WORKERS)
        .wake_policy(policy)
        .build()
        .expect("start filch");
    ex.block_on(async move {
        let mut clients = Vec::new();
        for _ in 0..pg_app::CONNECTIONS {
            clients.push(pg_app::connect_on_filch(port).await);
        }
        let pool = Arc::new(pg_app::Pool::new(clients).await);
        timed(pool, |p| Task::Filch(filch::spawn(queries(p)))).await
    })
}

fn tokio_run(port: u16) -> Run {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .expect("start tokio");
    rt.block_on(async move {
        let mut clients = Vec::new();
        for _ in 0..pg_app::CONNECTIONS {
            clients.push(pg_app::connect_on_tokio(port, |c| drop(tokio::spawn(c))).await);
        }
        let pool = Arc::new(pg_app::Pool::new(clients).await);
        timed(pool, |p| Task::Tokio(tokio::spawn(queries(p)))).await
    })
}

fn median(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("benches/pg_pool: needs a PostgreSQL server; `cargo bench` runs it");
        return;
    }
    let rounds: usize = std::env::args()
        .skip_while(|a| a != "--rounds")
        .nth(1)
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    let server = postgres_server::Server::start();
    let port = server.port;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("start tokio")
        .block_on(async {
            let client = pg_app::connect_on_tokio(port, |c| drop(tokio::spawn(c))).await;
            pg_app::create_table(&client).await;
        });
    println!(
        "{TASKS} tasks x {PER_TASK} queries through {} connections, {WORKERS} workers, \
         {rounds} rounds",
        pg_app::CONNECTIONS
    );
    let names = ["filch (LastWorker)", "filch (CurrentWorker)", "tokio"];
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(), Vec::new(), Vec::new()];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(), Vec::new()];
    for round in 1..=rounds {
        let last = filch_run(port, filch::WakePolicy::LastWorker);
        let tokio = tokio_run(port);
        let current = filch_run(port, filch::WakePolicy::CurrentWorker);
        println!(
            "  round {round}: {:>8.0} q/s ({:.1} µs CPU/q) | {:>8.0} q/s ({:.1}) | {:>8.0} q/s \
             ({:.1})",
            last.queries_per_sec(),
            last.cpu_us_per_query(),
            current.queries_per_sec(),
            current.cpu_us_per_query(),
            tokio.queries_per_sec(),
            tokio.cpu_us_per_query()
        );
        ratios[0].push(last.queries_per_sec() / tokio.queries_per_sec());
        ratios[1].push(current.queries_per_sec() / tokio.queries_per_sec());
        runs[0].push(last);
        runs[1].push(current);
        runs[2].push(tokio);
    }
    println!("\n| runtime | queries/s (median, range) | CPU µs/query (median, range) | vs tokio (median of the rounds' ratios, range) |");
    println!("|---|---:|---:|---:|");
    for (i, name) in names.iter().enumerate() {
        let (q, q_lo, q_hi) = median(runs[i].iter().map(Run::queries_per_sec).collect());
        let (c, c_lo, c_hi) = median(runs[i].iter().map(Run::cpu_us_per_query).collect());
        let ratio = ratios.get(i).map_or("1.00x".to_owned(), |r| {
            let (m, lo, hi) = median(r.clone());
            format!("{m:.2}x ({lo:.2}-{hi:.2})")
        });
        println!(
            "| {name} | {q:.0} ({q_lo:.0}-{q_hi:.0}) | {c:.1} ({c_lo:.1}-{c_hi:.1}) | {ratio} |"
        );
    }
    drop(server);
}
