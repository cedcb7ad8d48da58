//! An axum application served on filch (issue 11): a `Router` with plain text, JSON in and
//! out, a path parameter, shared state, a route that awaits a data-parallel loop and one
//! that uses the blocking pool, served by `filch::axum::serve` (cargo feature `axum`: HTTP/1.1
//! and HTTP/2 on `filch::net`). Ctrl-C shuts it down gracefully: no new connection is
//! accepted, and open ones get up to [`GRACE`] to finish. See `app.rs` for the routes.
//!
//! Run: `cargo run --release -p filch-integrations --features axum --example axum_app --
//! --addr 127.0.0.1:3000`, then `curl localhost:3000/hello/you` (or `curl --http2-prior-knowledge ...`), or
//! `wrk -t2 -c64 -d5s http://127.0.0.1:3000/`.

mod app;

use std::net::SocketAddr;
use std::pin::pin;
use std::time::Duration;

use futures::future::{self, Either};

/// How long open connections get to finish after Ctrl-C; `filch::axum`'s graceful shutdown
/// itself waits as long as they take (as `axum::serve` does), so the bound is set here.
const GRACE: Duration = Duration::from_secs(5);

fn main() {
    let mut addr: SocketAddr = "127.0.0.1:3000".parse().expect("a valid default");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => {
                let value = args.next().unwrap_or_default();
                addr = value.parse().unwrap_or_else(|e| {
                    eprintln!("--addr {value:?}: {e} (expected e.g. 127.0.0.1:3000)");
                    std::process::exit(2);
                });
            }
            other => {
                eprintln!("unknown argument {other:?} (usage: axum_app [--addr HOST:PORT])");
                std::process::exit(2);
            }
        }
    }

    let ex = filch::Executor::new();
    // Ctrl-C ends the server gracefully: a signal handler may not do much, so it only
    // closes a channel, which every receiver (the server's signal, the grace timer) sees.
    let (stop_tx, stop_rx) = async_channel::bounded::<()>(1);
    ctrlc::set_handler(move || {
        stop_tx.close();
    })
    .expect("cannot install the Ctrl-C handler");

    let result = ex.block_on(async move {
        let listener = filch::net::TcpListener::bind(addr).await?;
        println!(
            "axum on filch listening on http://{} ({} workers); Ctrl-C stops it",
            listener.local_addr()?,
            filch::Handle::try_current().map_or(0, |h| h.stats().workers.len()),
        );
        let grace_start = stop_rx.clone();
        let server =
            filch::axum::serve(listener, app::router()).with_graceful_shutdown(async move {
                let _ = stop_rx.recv().await;
            });
        // The grace period starts at the same Ctrl-C; whichever ends first ends the program
        // (connections still open then are dropped with the executor).
        let grace = pin!(async move {
            let _ = grace_start.recv().await;
            filch::time::sleep(GRACE).await;
        });
        match future::select(server, grace).await {
            Either::Left((result, _)) => result,
            Either::Right(((), _)) => {
                println!("connections still open after {GRACE:?}: closing them");
                Ok(())
            }
        }
    });
    match result {
        Ok(()) => println!("stopped"),
        Err(e) => {
            eprintln!("axum_app: {e}");
            std::process::exit(1);
        }
    }
}
