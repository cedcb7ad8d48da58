//! filch beside hyper, tokio's IO traits and the examples: the hyper server and chat
//! examples, and `filch::net` under tokio's `AsyncRead`/`AsyncWrite`. The tests that need
//! crates heavy to build (tokio-postgres, tonic, reqwest, async-io, quinn, axum) are the
//! `filch-integrations` package's (`integrations/`).

#[path = "../common/mod.rs"]
mod common;

mod chat;
#[cfg(feature = "hyper")]
mod http_server;
#[cfg(feature = "hyper")]
mod lost_driver;
#[cfg(feature = "tokio-io")]
mod tokio_io;
