//! An axum application served on filch (issue 11): a `Router` with plain text, JSON in and
//! out, a path parameter, shared state, a route that awaits a data-parallel loop and one
//! that uses the blocking pool, served by hyper on `filch::net` with graceful shutdown on
//! Ctrl-C. See `app.rs` for the routes.
//!
//! Run: `cargo run --release --example axum_app -- --addr 127.0.0.1:3000`, then
//! `curl localhost:3000/hello/you` or `wrk -t2 -c64 -d5s http://127.0.0.1:3000/`.

mod app;

use std::net::SocketAddr;

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
    // sends on a channel that the server awaits.
    let (stop_tx, stop_rx) = async_channel::bounded::<()>(1);
    ctrlc::set_handler(move || {
        let _ = stop_tx.try_send(());
    })
    .expect("cannot install the Ctrl-C handler");

    let result = ex.block_on(async move {
        let listener = filch::net::TcpListener::bind(addr).await?;
        println!(
            "axum on filch listening on http://{} ({} workers); Ctrl-C stops it",
            listener.local_addr()?,
            filch::Handle::current().map_or(0, |h| h.stats().workers.len()),
        );
        app::serve(listener, app::router(), async move {
            let _ = stop_rx.recv().await;
        })
        .await
    });
    match result {
        Ok(()) => println!("stopped"),
        Err(e) => {
            eprintln!("axum_app: {e}");
            std::process::exit(1);
        }
    }
}
