//! Calling a crate that insists on tokio (here reqwest's client, which needs a tokio reactor
//! in the thread's context) from filch tasks.
//!
//! The way: start a small tokio runtime for its reactor and timers only, and enter its
//! handle on every filch thread with `Builder::on_thread_start`. Every task of the executor
//! can then use tokio-bound crates; their IO is driven by tokio's thread, which wakes the
//! filch tasks. The thread that calls `block_on` is no filch thread: enter the handle there
//! too if the future passed to `block_on` itself (not only spawned tasks) uses such crates.
//!
//! Run: `cargo run --release --example tokio_bound_crates [-- --requests N --concurrency C]`.
//! It serves a tiny HTTP/1.1 response on 127.0.0.1 and prints the requests per second that
//! reqwest reaches from filch tasks and from tokio tasks (the same client, runtime and
//! server), and their ratio.

use std::time::Instant;

#[path = "../tests/common/hello_server.rs"]
mod hello_server;
use hello_server::serve_hello;

fn main() {
    let mut requests = 20_000usize;
    let mut concurrency = 32usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a positive number"))
        };
        match arg.as_str() {
            "--requests" => requests = value(),
            "--concurrency" => concurrency = value(),
            other => panic!("unknown argument {other:?} (--requests N, --concurrency C)"),
        }
    }
    let addr = serve_hello();
    let url = format!("http://{addr}/");

    // A tokio runtime for the reactor that reqwest needs; one thread is plenty.
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("cannot start tokio");
    let ex = on_filch_with_tokio(tokio_rt.handle().clone(), 2);
    let client = reqwest::Client::new();

    // Each contender runs its requests from `concurrency` tasks.
    let filch_rps = {
        let (client, url) = (client.clone(), url.clone());
        let start = Instant::now();
        ex.block_on(async move {
            let per_task = requests / concurrency;
            let tasks: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (client, url) = (client.clone(), url.clone());
                    filch::spawn(async move { fetch_many(&client, &url, per_task).await })
                })
                .collect();
            for t in tasks {
                t.await.expect("a filch task failed");
            }
        });
        requests as f64 / start.elapsed().as_secs_f64()
    };
    let tokio_rps = {
        let tokio2 = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("cannot start tokio");
        let start = Instant::now();
        tokio2.block_on(async move {
            let per_task = requests / concurrency;
            let tasks: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (client, url) = (client.clone(), url.clone());
                    tokio::spawn(async move { fetch_many(&client, &url, per_task).await })
                })
                .collect();
            for t in tasks {
                t.await.expect("a tokio task failed");
            }
        });
        requests as f64 / start.elapsed().as_secs_f64()
    };
    println!("reqwest from filch tasks (tokio reactor entered): {filch_rps:>9.0} requests/s");
    println!("reqwest from tokio tasks:                         {tokio_rps:>9.0} requests/s");
    println!("filch / tokio: {:.2}", filch_rps / tokio_rps);
}

/// A filch executor with `workers` threads, each of which enters `tokio`'s context before
/// it runs anything (the hook runs on blocking-pool threads too).
fn on_filch_with_tokio(tokio: tokio::runtime::Handle, workers: usize) -> filch::Executor {
    filch::Builder::new()
        .worker_threads(workers)
        .on_thread_start(move || {
            // The guard restores the previous context when dropped; the thread should stay
            // in tokio's context for its whole life, so it is never dropped.
            std::mem::forget(tokio.enter());
        })
        .build()
        .expect("cannot start filch")
}

/// `n` GETs of `url`, each checked.
async fn fetch_many(client: &reqwest::Client, url: &str, n: usize) {
    for _ in 0..n {
        let body = client
            .get(url)
            .send()
            .await
            .expect("request failed")
            .text()
            .await
            .expect("body failed");
        assert_eq!(body, "hello");
    }
}
