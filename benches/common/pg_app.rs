//! A PostgreSQL-backed axum route for `benches/http.rs`'s `pg-*` rows: every path answers
//! one row of a 1,000-row table (`SELECT value FROM items WHERE id = $1`, a prepared
//! statement), read through a pool of [`CONNECTIONS`] tokio-postgres connections taken in
//! turn (concurrent queries on one connection are pipelined by tokio-postgres). The same
//! handler, table and pool on every row; what differs is how the pool connects and who
//! drives its connections:
//!
//! - `pg-filch` (README's recipe): `Config::connect_raw` over a `filch::net::TcpStream`
//!   (filch's `tokio-io` feature), each connection a `filch::spawn`ed task: the database
//!   path stays on filch's workers;
//! - `pg-filch-side`: `tokio_postgres::connect` as `tokio-context` runs it, its sockets on a
//!   one-worker tokio runtime beside filch whose context filch's threads are in (the
//!   connection is still a filch task, as in `integrations/tests/crates/postgres.rs`);
//! - `pg-tokio`: `tokio_postgres::connect` and `tokio::spawn` on a tokio runtime.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::Router;
use tokio_postgres::{Client, Statement};

/// Connections in each server's pool.
pub const CONNECTIONS: usize = 4;
/// Rows of the table.
pub const ROWS: usize = 1000;

/// The connections, each with the query prepared on it, taken in turn.
pub struct Pool {
    clients: Vec<(Client, Statement)>,
    next: AtomicUsize,
}

impl Pool {
    /// A pool of `clients`, preparing the query on each.
    pub async fn new(clients: Vec<Client>) -> Pool {
        let mut prepared = Vec::new();
        for client in clients {
            let statement = client
                .prepare("SELECT value FROM items WHERE id = $1")
                .await
                .expect("prepare the query");
            prepared.push((client, statement));
        }
        Pool {
            clients: prepared,
            next: AtomicUsize::new(0),
        }
    }
}

/// Creates and fills the table through `client` (once per benchmark run).
pub async fn create_table(client: &Client) {
    client
        .batch_execute(
            "DROP TABLE IF EXISTS items; \
             CREATE TABLE items (id INT PRIMARY KEY, value TEXT NOT NULL); \
             INSERT INTO items SELECT n, 'item ' || n FROM generate_series(0, 999) AS n;",
        )
        .await
        .expect("create the table");
}

impl Pool {
    /// One row, by a counter: the next connection, the next id.
    pub async fn query(&self) -> String {
        // Relaxed: a counter that spreads the requests; it orders nothing.
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let (client, statement) = &self.clients[n % self.clients.len()];
        let id = (n % ROWS) as i32;
        let row = client
            .query_one(statement, &[&id])
            .await
            .expect("the query");
        row.get::<_, String>(0)
    }
}

/// The handler: [`Pool::query`].
async fn row(State(pool): State<Arc<Pool>>) -> String {
    pool.query().await
}

/// The application: every path answers [`row`].
pub fn router(pool: Arc<Pool>) -> Router {
    Router::new().fallback(row).with_state(pool)
}

/// The connection string of the benchmark's server on `port`.
pub fn config(port: u16) -> tokio_postgres::Config {
    format!("host=127.0.0.1 port={port} user=filch dbname=postgres")
        .parse()
        .expect("a valid connection string")
}

/// README's recipe: a connection over a `filch::net::TcpStream`, driven by a filch task.
pub async fn connect_on_filch(port: u16) -> Client {
    let stream = filch::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect to postgres");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (client, connection) = config(port)
        .connect_raw(stream, tokio_postgres::NoTls)
        .await
        .expect("postgres handshake");
    drop(filch::spawn(connection));
    client
}

/// `tokio_postgres::connect`: its socket on the tokio runtime of the thread's context; the
/// connection driven by `spawn`.
pub async fn connect_on_tokio<S>(port: u16, spawn: S) -> Client
where
    S: FnOnce(tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>),
{
    let (client, connection) = config(port)
        .connect(tokio_postgres::NoTls)
        .await
        .expect("connect to postgres");
    spawn(connection);
    client
}
