//! Crates that insist on tokio (reqwest's client here) from filch. With the cargo feature
//! `tokio-context` they work unchanged: in tasks, in `Executor::block_on`, in the free
//! `filch::block_on` (the global executor) and on blocking-pool threads, on the process's
//! tokio runtime or on one given to `Builder::tokio_handle` (a current-thread one is
//! refused, rather than hanging). Without the feature a thread start hook that enters a
//! tokio runtime does the same, and without either reqwest panics (no reactor), which shows
//! that the context is what makes it work.

#[path = "../common/hello_server.rs"]
mod hello_server;

use crate::common::{self, watchdog};
use hello_server::serve_hello;

async fn get(client: &reqwest::Client, url: &str) -> String {
    client.get(url).send().await.unwrap().text().await.unwrap()
}

/// Four tasks of `ex`, ten GETs each: every body is "hello".
fn gets_from_tasks(ex: &filch::Executor, url: &str) {
    let client = reqwest::Client::new();
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (client, url) = (client.clone(), url.to_owned());
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
}

#[cfg(feature = "tokio-context")]
mod with_the_feature {
    use super::*;

    /// The process's runtime: no set-up at all.
    #[test]
    fn reqwest_runs_unchanged_in_tasks_block_on_and_blocking_jobs() {
        watchdog(60, "reqwest with tokio-context", || {
            let url = format!("http://{}/", serve_hello());
            let ex = common::executor(2);
            gets_from_tasks(&ex, &url);
            // `Executor::block_on`'s own future.
            let client = reqwest::Client::new();
            assert_eq!(ex.block_on(get(&client, &url)), "hello");
            // The free `block_on` (the global executor).
            assert_eq!(filch::block_on(get(&client, &url)), "hello");
            // A blocking-pool job: tokio's context is there to block on.
            let (client2, url2) = (client.clone(), url.clone());
            let inside = ex.spawn_blocking(move || {
                tokio::runtime::Handle::current()
                    .block_on(async move { get(&client2, &url2).await })
            });
            assert_eq!(ex.block_on(inside).unwrap(), "hello");
            // What such crates `tokio::spawn` runs on the process's runtime.
            let name = ex
                .block_on(ex.spawn(async {
                    tokio::spawn(async { std::thread::current().name().map(str::to_owned) })
                        .await
                        .unwrap()
                }))
                .unwrap();
            assert!(
                name.as_deref()
                    .is_some_and(|n| n.starts_with("filch-tokio-")),
                "{name:?}"
            );
        });
    }

    /// `Builder::tokio_handle`: the user's runtime instead.
    #[test]
    fn a_runtime_of_the_users_own() {
        watchdog(60, "tokio_handle", || {
            let url = format!("http://{}/", serve_hello());
            let tokio_rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("users-tokio")
                .enable_all()
                .build()
                .unwrap();
            let ex = filch::Builder::new()
                .worker_threads(2)
                .tokio_handle(tokio_rt.handle().clone())
                .build()
                .unwrap();
            gets_from_tasks(&ex, &url);
            let name = ex
                .block_on(ex.spawn(async {
                    tokio::spawn(async { std::thread::current().name().map(str::to_owned) })
                        .await
                        .unwrap()
                }))
                .unwrap();
            assert_eq!(name.as_deref(), Some("users-tokio"));
        });
    }

    /// A current-thread runtime would leave reqwest waiting for ever: refused, saying why.
    #[test]
    fn a_current_thread_runtime_is_refused() {
        let tokio_rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let err = filch::Builder::new()
            .worker_threads(1)
            .tokio_handle(tokio_rt.handle().clone())
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("multi-thread"), "{err}");
    }
}

#[cfg(not(feature = "tokio-context"))]
mod without_the_feature {
    use super::*;

    /// A thread start hook that enters a tokio runtime on every filch thread.
    #[test]
    fn reqwest_runs_from_filch_tasks_inside_tokios_context() {
        watchdog(60, "reqwest on filch", || {
            let url = format!("http://{}/", serve_hello());
            let tokio_rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let handle = tokio_rt.handle().clone();
            let ex = filch::Builder::new()
                .worker_threads(2)
                .on_thread_start(move || std::mem::forget(handle.enter()))
                .build()
                .unwrap();
            gets_from_tasks(&ex, &url);
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
}

/// A program written with tokio's habits, with only the crate path changed (`tokio::` to
/// `filch::` in the attribute, `net` and `time`): `#[tokio::main(flavor = "multi_thread")]`,
/// `time::Instant`, `stream.split()` with `tokio::io::copy` on the halves, and reqwest. It
/// compiles and runs with the features `tokio-context` and `tokio-io`.
#[cfg(all(feature = "tokio-context", feature = "tokio-io", feature = "macros"))]
mod written_for_tokio {
    use super::hello_server::serve_hello;
    use crate::common::watchdog;

    use filch::net::{TcpListener, TcpStream};
    use filch::time::{sleep, Instant};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// An echo server whose connections copy their read half into their write half.
    async fn echo_server() -> std::io::Result<std::net::SocketAddr> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        filch::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                filch::spawn(async move {
                    let (mut reader, mut writer) = stream.split();
                    let _ = tokio::io::copy(&mut reader, &mut writer).await;
                });
            }
        });
        Ok(addr)
    }

    /// Where the hello server listens (a `main` takes no arguments).
    static HELLO: std::sync::OnceLock<String> = std::sync::OnceLock::new();

    #[filch::main(flavor = "multi_thread", worker_threads = 2)]
    async fn program() -> Result<(), Box<dyn std::error::Error>> {
        let started = Instant::now();
        let addr = echo_server().await?;
        let mut stream = TcpStream::connect(addr).await?;
        stream.write_all(b"ping").await?;
        let mut buf = [0u8; 4];
        stream.read_exact(&mut buf).await?;
        assert_eq!(&buf, b"ping");
        let body = reqwest::get(HELLO.get().unwrap()).await?.text().await?;
        assert_eq!(body, "hello");
        sleep(std::time::Duration::from_millis(5)).await;
        assert!(started.elapsed() >= std::time::Duration::from_millis(5));
        Ok(())
    }

    #[test]
    fn a_program_written_for_tokio_runs_on_filch() {
        HELLO.get_or_init(|| format!("http://{}/", serve_hello()));
        watchdog(60, "tokio habits", || program().unwrap());
    }
}
