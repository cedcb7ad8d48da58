//! The axum application of the example: a `Router`, which `filch::axum::serve` (cargo
//! feature `axum`) serves on a `filch::net::TcpListener` (`main.rs`).
//!
//! Shared by `integrations/examples/axum_app/main.rs`, `integrations/tests/crates/axum_app.rs`
//! and `benches/http.rs` (they include this file with `#[path]`), so the test and the
//! benchmark run the example's code.
//!
//! Routes:
//! - `GET /`: plain text;
//! - `GET /hello/{name}`: a path parameter;
//! - `POST /echo`: JSON in (`{"text": ...}`), JSON out (`{"echo": ..., "chars": ...}`); a
//!   body that is no such JSON gets axum's 4xx;
//! - `GET /hits`: shared state behind an `Arc` (a counter of the requests to `/hits`);
//! - `GET /squares/{n}`: awaits a `filch::par_map` over `0..n` (n at most [`MAX_SQUARES`])
//!   and answers the sum of the squares, as JSON;
//! - `GET /blocking`: runs a closure on filch's blocking pool (`spawn_blocking`) and answers
//!   the name of the thread it ran on;
//! - `GET /sleep/{ms}`: answers after a `filch::time` timer of `ms` milliseconds (at most
//!   [`MAX_SLEEP_MS`]): a request that stays in flight, for the graceful-shutdown test.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

/// The longest `/sleep/{ms}`.
pub const MAX_SLEEP_MS: u64 = 10_000;
/// The largest `n` of `/squares/{n}`.
pub const MAX_SQUARES: u64 = 10_000_000;
/// The body of `GET /`.
pub const HELLO: &str = "Hello from axum on filch!\n";

/// The application's shared state.
#[derive(Default)]
pub struct AppState {
    hits: AtomicU64,
}

/// The body of `POST /echo`.
#[derive(Deserialize, Serialize)]
pub struct EchoIn {
    pub text: String,
}

/// The answer of `POST /echo`.
#[derive(Deserialize, Serialize)]
pub struct EchoOut {
    pub echo: String,
    pub chars: usize,
}

/// The answer of `GET /squares/{n}`.
#[derive(Deserialize, Serialize)]
pub struct Squares {
    pub n: u64,
    pub sum: u128,
}

/// The application (module docs).
pub fn router() -> Router {
    Router::new()
        .route("/", get(|| async { HELLO }))
        .route(
            "/hello/{name}",
            get(|Path(name): Path<String>| async move { format!("Hello, {name}!\n") }),
        )
        .route(
            "/echo",
            post(|Json(body): Json<EchoIn>| async move {
                Json(EchoOut {
                    chars: body.text.chars().count(),
                    echo: body.text,
                })
            }),
        )
        .route("/hits", get(hits))
        .route("/squares/{n}", get(squares))
        .route("/blocking", get(blocking))
        .route("/sleep/{ms}", get(sleep))
        .with_state(Arc::new(AppState::default()))
}

async fn hits(State(state): State<Arc<AppState>>) -> Json<u64> {
    Json(state.hits.fetch_add(1, Ordering::Relaxed) + 1)
}

async fn squares(Path(n): Path<u64>) -> Result<Json<Squares>, (StatusCode, String)> {
    if n > MAX_SQUARES {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("n must be at most {MAX_SQUARES}\n"),
        ));
    }
    // A data-parallel loop on the workers, awaited without blocking this connection's
    // worker.
    let len = usize::try_from(n).expect("n fits: it is at most MAX_SQUARES");
    let squares = filch::par_map(0..len, |i| (i as u128) * (i as u128)).await;
    Ok(Json(Squares {
        n,
        sum: squares.into_iter().sum(),
    }))
}

async fn sleep(Path(ms): Path<u64>) -> Result<String, (StatusCode, String)> {
    if ms > MAX_SLEEP_MS {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("ms must be at most {MAX_SLEEP_MS}\n"),
        ));
    }
    filch::time::sleep(Duration::from_millis(ms)).await;
    Ok(format!("slept {ms} ms\n"))
}

async fn blocking() -> Result<String, StatusCode> {
    filch::spawn_blocking(|| {
        // A blocking call is fine here: this is no worker thread.
        std::thread::sleep(Duration::from_millis(1));
        std::thread::current().name().unwrap_or("").to_owned()
    })
    .await
    .map(|name| format!("{name}\n"))
    .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)
}
