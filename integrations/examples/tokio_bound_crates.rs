//! Calling a crate that insists on tokio (here reqwest's client, which needs a tokio reactor
//! in the thread's context) from filch tasks, with the cargo feature `tokio-context`: every
//! thread on which filch polls futures is inside the context of a tokio runtime (one per
//! process, with one worker), so reqwest works unchanged; its IO is driven by that
//! runtime's thread, which wakes the filch tasks. Nothing to set up.
//!
//! Run: `cargo run --release -p filch-integrations --features tokio-context --example
//! tokio_bound_crates [-- --requests N --concurrency C]`.
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

    // The process's tokio runtime (feature `tokio-context`) gives reqwest its reactor.
    let ex = filch::Builder::new()
        .worker_threads(2)
        .build()
        .expect("cannot start filch");
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
    println!("reqwest from filch tasks (tokio-context):         {filch_rps:>9.0} requests/s");
    println!("reqwest from tokio tasks:                         {tokio_rps:>9.0} requests/s");
    println!("filch / tokio: {:.2}", filch_rps / tokio_rps);
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
