//! filch beside crates that are heavy to build: tokio-postgres against a real server, tonic's
//! gRPC, reqwest and other tokio-bound crates, async-io, quinn's socket trait, axum (filch's
//! own `serve`, the axum example, and an axum service written for tokio), the crates
//! README's "Coming from tokio" names, and the task dump through serde_json (the `serde`
//! feature). Feature-gated modules take the features of this
//! package, which turn on filch's features of the same names.

#[path = "../../../tests/common/mod.rs"]
mod common;

mod async_io_on_filch;
#[cfg(feature = "axum")]
mod axum_app;
#[cfg(feature = "axum")]
mod axum_serve;
mod coming_from_tokio;
#[cfg(any(feature = "tokio-context", feature = "tokio-io"))]
mod postgres;
mod quinn_socket;
#[cfg(feature = "serde")]
mod serde_dump;
mod tokio_bound_crates;
#[cfg(all(feature = "tokio-context", feature = "axum", feature = "macros"))]
mod tokio_side_runtime;
#[cfg(feature = "tokio-context")]
mod tonic_grpc;
