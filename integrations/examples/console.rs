//! A service to point `tokio-console` at (cargo features `console` and `axum`): an axum
//! router on filch with named tasks, timers and a `par::run` route, and the stock
//! console-subscriber as the program's subscriber.
//!
//! Run it (the repository's `.cargo/config.toml` sets the cfg console-subscriber asks of a
//! runtime other than tokio):
//!
//! ```text
//! cargo run --release -p filch-integrations --features console,axum --example console
//! tokio-console                       # in another terminal: http://127.0.0.1:6669
//! curl localhost:3000/sum/1000000     # a par::run, shown as the handler task's async op
//! ```
//!
//! In the console: the `block_on` task, the named `ticker` and `reporter` tasks with their
//! `Interval` and `Sleep` timers, a task per connection with its `TcpStream`, and, while
//! `/sum` runs, a `ParallelCall` resource whose async op is `par::run` with its call site and
//! `pieces_taken`. `--for SECONDS` stops the service after that long (the CI's screen check).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::routing::get;
use axum::Router;
use filch::par::prelude::*;

fn main() {
    let mut addr = "127.0.0.1:3000".to_string();
    let mut run_for = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--addr", Some(value)) => addr = value,
            ("--for", Some(value)) => {
                let seconds = value.parse().unwrap_or_else(|e| {
                    eprintln!("--for {value:?}: {e} (expected a number of seconds)");
                    std::process::exit(2);
                });
                run_for = Some(Duration::from_secs(seconds));
            }
            _ => {
                eprintln!("usage: console [--addr HOST:PORT] [--for SECONDS]");
                std::process::exit(2);
            }
        }
    }
    // The console's gRPC server on 127.0.0.1:6669 (`TOKIO_CONSOLE_BIND` moves it).
    console_subscriber::init();

    let ex = filch::Executor::new();
    let ticks = Arc::new(AtomicU64::new(0));
    let result = ex.block_on(async move {
        let counted = Arc::clone(&ticks);
        filch::task::Builder::new()
            .name("ticker")
            .spawn(async move {
                let mut every = filch::time::interval(Duration::from_millis(100));
                loop {
                    every.tick().await;
                    counted.fetch_add(1, Ordering::Relaxed);
                }
            })?;
        let seen = Arc::clone(&ticks);
        filch::task::Builder::new()
            .name("reporter")
            .spawn(async move {
                loop {
                    filch::time::sleep(Duration::from_secs(1)).await;
                    println!("ticks so far: {}", seen.load(Ordering::Relaxed));
                }
            })?;
        let listener = filch::net::TcpListener::bind(&addr).await?;
        // Where console-subscriber serves the console: `TOKIO_CONSOLE_BIND`, else its default.
        let console =
            std::env::var("TOKIO_CONSOLE_BIND").unwrap_or_else(|_| "127.0.0.1:6669".to_string());
        println!(
            "listening on http://{} (try /sum/1000000); tokio-console shows it on {console}",
            listener.local_addr()?
        );
        let app = Router::new()
            .route("/", get(|| async { "hello from filch\n" }))
            .route("/sum/{n}", get(sum))
            .with_state(ticks);
        let server = filch::axum::serve(listener, app);
        match run_for {
            None => server.await,
            Some(limit) => {
                let stop = filch::time::timeout(limit, server);
                stop.await.unwrap_or(Ok(()))
            }
        }
    });
    if let Err(e) = result {
        eprintln!("console example: {e}");
        std::process::exit(1);
    }
}

/// The sum of `0..n`'s squares modulo 7, on the workers: a `par::run`, which the console
/// shows as this request's task's async op.
async fn sum(Path(n): Path<u64>, State(ticks): State<Arc<AtomicU64>>) -> String {
    let total: u64 = filch::par::run(move || (0..n).into_par_iter().map(|x| x * x % 7).sum()).await;
    format!("{total} (after {} ticks)\n", ticks.load(Ordering::Relaxed))
}
