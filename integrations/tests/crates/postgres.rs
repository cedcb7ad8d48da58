//! A real PostgreSQL server, started by the test in a temporary directory
//! (`integrations/tests/common/postgres_server.rs`), and tokio-postgres, a client that needs
//! tokio's IO traits, used from filch tasks in two ways:
//!
//! - with the `tokio-context` feature, `tokio_postgres::connect` as is: its socket is
//!   registered with the tokio runtime beside filch, whose thread drives its IO;
//! - with the `tokio-io` feature, README's recipe: `Config::connect_raw` over a
//!   `filch::net::TcpStream` and the connection spawned with `filch::spawn`, so the database
//!   path never crosses to tokio's runtime (with `tokio-context` too, the test checks that
//!   the executor's tokio runtime holds none of it).
//!
//! Each way: eight tasks insert concurrently through one connection, a `par_map` checks the
//! rows, and the connection ends cleanly.

#[path = "../common/postgres_server.rs"]
mod postgres_server;

use crate::common::{executor, watchdog};
use postgres_server::Server;

/// Eight tasks insert 100 rows each through `client`, then a `par_map` checks the rows.
async fn insert_and_check(client: tokio_postgres::Client) {
    client
        .batch_execute("CREATE TABLE squares (n INT PRIMARY KEY, square BIGINT)")
        .await
        .unwrap();
    let client = std::sync::Arc::new(client);
    let inserts: Vec<_> = (0..8i32)
        .map(|task| {
            let client = std::sync::Arc::clone(&client);
            filch::spawn(async move {
                for n in (task * 100)..(task * 100 + 100) {
                    client
                        .execute(
                            "INSERT INTO squares VALUES ($1, $2)",
                            &[&n, &(i64::from(n) * i64::from(n))],
                        )
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for insert in inserts {
        insert.await.unwrap();
    }
    let rows = client
        .query("SELECT n, square FROM squares ORDER BY n", &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 800);
    let pairs: Vec<(i32, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let wrong = filch::par_map(0..pairs.len(), move |i| {
        let (n, square) = pairs[i];
        usize::from(n != i as i32 || square != i64::from(n) * i64::from(n))
    })
    .await
    .into_iter()
    .sum::<usize>();
    assert_eq!(wrong, 0);
}

#[cfg(feature = "tokio-context")]
#[test]
fn tokio_postgres_runs_from_filch_tasks() {
    watchdog(120, "postgres", || {
        let server = Server::start();
        let config = format!(
            "host=127.0.0.1 port={} user=filch dbname=postgres",
            server.port
        );
        let ex = executor(2);
        ex.block_on(async move {
            let (client, connection) = tokio_postgres::connect(&config, tokio_postgres::NoTls)
                .await
                .expect("cannot connect to postgres");
            // The connection is a future like any other: a filch task drives it.
            let connection = filch::spawn(connection);
            insert_and_check(client).await;
            connection
                .await
                .unwrap()
                .expect("the connection ended with an error");
        });
        drop(server);
    });
}

/// README's recipe ("Coming from tokio", databases).
#[cfg(feature = "tokio-io")]
async fn connect(
    port: u16,
) -> Result<
    (
        tokio_postgres::Client,
        filch::JoinHandle<Result<(), tokio_postgres::Error>>,
    ),
    Box<dyn std::error::Error + Send + Sync>,
> {
    let config: tokio_postgres::Config =
        format!("host=127.0.0.1 port={port} user=filch dbname=postgres").parse()?;
    let stream = filch::net::TcpStream::connect(("127.0.0.1", port)).await?;
    stream.set_nodelay(true)?;
    let (client, connection) = config.connect_raw(stream, tokio_postgres::NoTls).await?;
    Ok((client, filch::spawn(connection)))
}

#[cfg(feature = "tokio-io")]
#[test]
fn tokio_postgres_over_filch_sockets_never_crosses_to_tokio() {
    watchdog(120, "postgres over filch::net", || {
        let server = Server::start();
        let port = server.port;
        // With `tokio-context`: a tokio runtime of the executor's own, to look at after.
        #[cfg(feature = "tokio-context")]
        let ex = filch::Builder::new()
            .worker_threads(2)
            .tokio_worker_threads(1)
            .build()
            .unwrap();
        #[cfg(not(feature = "tokio-context"))]
        let ex = executor(2);
        ex.block_on(async move {
            let (client, connection) = connect(port).await.expect("cannot connect to postgres");
            insert_and_check(client).await;
            connection
                .await
                .unwrap()
                .expect("the connection ended with an error");
        });
        // Nothing of it ran on the tokio runtime: it holds filch's watch, at most.
        #[cfg(feature = "tokio-context")]
        assert!(ex.stats().tokio.alive_tasks <= 1, "{:?}", ex.stats().tokio);
        drop(server);
    });
}
