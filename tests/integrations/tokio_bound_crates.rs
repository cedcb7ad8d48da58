//! Crates that insist on tokio (reqwest's client here) work from filch tasks once every
//! filch thread enters a tokio runtime's context (`Builder::on_thread_start`), as README's
//! "running your stack on filch" describes; without that they panic (no reactor), which
//! shows that the hook is what makes it work.

#[path = "../common/hello_server.rs"]
mod hello_server;

use crate::common::{self, watchdog};
use hello_server::serve_hello;

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

async fn get(client: &reqwest::Client, url: &str) -> String {
    client.get(url).send().await.unwrap().text().await.unwrap()
}

#[test]
fn reqwest_runs_from_filch_tasks_inside_tokios_context() {
    watchdog(60, "reqwest on filch", || {
        let url = format!("http://{}/", serve_hello());
        let tokio_rt = tokio_runtime();
        let handle = tokio_rt.handle().clone();
        let ex = filch::Builder::new()
            .worker_threads(2)
            .on_thread_start(move || std::mem::forget(handle.enter()))
            .build()
            .unwrap();
        let client = reqwest::Client::new();
        let tasks: Vec<_> = (0..4)
            .map(|_| {
                let (client, url) = (client.clone(), url.clone());
                ex.spawn(async move {
                    let mut bodies = Vec::new();
                    for _ in 0..10 {
                        bodies.push(get(&client, &url).await);
                    }
                    bodies
                })
            })
            .collect();
        for t in tasks {
            let bodies = ex.block_on(t).unwrap();
            assert_eq!(bodies.len(), 10);
            assert!(bodies.iter().all(|b| b == "hello"), "{bodies:?}");
        }
        // A blocking-pool thread is a filch thread too: the hook ran there.
        let (client2, url2) = (client.clone(), url.clone());
        let inside = ex.spawn_blocking(move || {
            tokio::runtime::Handle::current().block_on(async move { get(&client2, &url2).await })
        });
        assert_eq!(ex.block_on(inside).unwrap(), "hello");
    });
}

#[test]
fn without_tokios_context_reqwest_panics_in_the_task() {
    watchdog(60, "reqwest without tokio", || {
        let url = format!("http://{}/", serve_hello());
        let ex = common::executor(1);
        let client = reqwest::Client::new();
        let err = ex
            .block_on(ex.spawn(async move { get(&client, &url).await }))
            .unwrap_err();
        assert!(err.is_panic(), "{err:?}");
        // The worker survived; the executor goes on.
        assert_eq!(ex.block_on(ex.spawn(async { 1 })).unwrap(), 1);
    });
}
