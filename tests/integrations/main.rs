//! filch beside other crates and in the examples: hyper and axum servers, the chat example,
//! the crates README's "Coming from tokio" names, tokio-bound crates, async-io, and tokio's IO
//! traits.

#[path = "../common/mod.rs"]
mod common;

mod async_io_on_filch;
#[cfg(feature = "axum")]
mod axum_app;
#[cfg(feature = "axum")]
mod axum_serve;
mod chat;
mod coming_from_tokio;
#[cfg(feature = "hyper")]
mod http_server;
#[cfg(any(feature = "tokio-context", feature = "tokio-io"))]
mod postgres;
mod tokio_bound_crates;
#[cfg(feature = "tokio-io")]
mod tokio_io;
#[cfg(all(feature = "tokio-context", feature = "axum", feature = "macros"))]
mod tokio_side_runtime;
#[cfg(feature = "tokio-context")]
mod tonic_grpc;
