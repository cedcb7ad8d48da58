//! filch: a multi-threaded async executor on work-stealing deques, with async
//! data-parallel loops.
//!
//! Spawned futures run on a fixed pool of worker threads. Each worker owns a work-stealing
//! deque; idle workers steal from the others and then sleep without using the CPU. On top
//! of the executor, [`par_range`], [`par_map`] and [`par_reduce`] split an index range
//! across the workers, and [`par_map_vec`] and [`par_for_each_mut`] do the same over a `Vec`
//! the caller owns; the task that awaits them simply waits: a data-parallel loop that async
//! code can `.await` without blocking a worker.
//!
//! # A tour
//!
//! **Run a future to completion** with [`block_on`] (on the global executor, started on
//! first use with one worker per CPU, or `FILCH_WORKERS` of them), or build your own
//! [`Executor`]:
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! assert_eq!(ex.block_on(async { 1 + 1 }), 2);
//! ```
//!
//! **Spawn tasks** with [`spawn`] (the current executor, else the global one),
//! [`Executor::spawn`] or [`Handle::spawn`]. A [`JoinHandle`] is a future of the task's
//! output; a panic inside the task comes back as a [`JoinError`], and
//! [`JoinHandle::abort`] cancels the task:
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! let sum = ex.block_on(async {
//!     let tasks: Vec<_> = (0..10u64).map(|i| filch::spawn(async move { i * i })).collect();
//!     let mut sum = 0;
//!     for t in tasks {
//!         sum += t.await.unwrap();
//!     }
//!     let failed = filch::spawn(async { panic!("oops") }).await;
//!     assert!(failed.unwrap_err().is_panic());
//!     sum
//! });
//! assert_eq!(sum, 285);
//! ```
//!
//! **Data-parallel loops** are futures: awaiting one never blocks a worker.
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! ex.block_on(async {
//!     let squares = filch::par_map(0..1000, |i| i * i).await;
//!     let total = filch::par_reduce(0..1000, || 0usize, |acc, i| acc + i, |a, b| a + b).await;
//!     assert_eq!(squares[999], 998_001);
//!     assert_eq!(total, 499_500);
//!     // Over owned data: each item moved into the closure once, results in order.
//!     let lengths = filch::par_map_vec(vec!["a".to_string(), "bc".to_string()], |s| s.len()).await;
//!     assert_eq!(lengths, vec![1, 2]);
//! });
//! ```
//!
//! **Groups of tasks** go in a [`JoinSet`] (outputs in completion order; dropping it aborts
//! them all), and an [`AbortHandle`] cancels a task from anywhere:
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! ex.block_on(async {
//!     let mut set = filch::JoinSet::new();
//!     for i in 0..4u32 {
//!         set.spawn(async move { i * 10 });
//!     }
//!     let mut sum = 0;
//!     while let Some(out) = set.join_next().await {
//!         sum += out.unwrap();
//!     }
//!     assert_eq!(sum, 60);
//! });
//! ```
//!
//! **IO and timers** are filch's own: each executor has an IO driver (mio, edge-triggered)
//! and a timing wheel, which its parked workers wait in. [`net`] has TCP, UDP and Unix
//! sockets (`futures::io` traits; hyper's and tokio's with the `hyper` and `tokio-io`
//! features), [`time`] has `sleep`, `timeout` and `interval`, and [`consume_budget`] lets a
//! busy loop yield as filch's own IO does after its cooperative budget is spent.
//! `examples/http_server` is hyper on `filch::net`. async-io keeps working on filch too,
//! on its own thread.
//!
//! ```
//! use std::time::Duration;
//! use futures::{AsyncReadExt, AsyncWriteExt};
//! let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
//! ex.block_on(async {
//!     let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let mut client = filch::net::TcpStream::connect(listener.local_addr()?).await?;
//!     let (mut conn, _) = listener.accept().await?;
//!     client.write_all(b"ping").await?;
//!     let mut buf = [0; 4];
//!     filch::time::timeout(Duration::from_secs(5), conn.read_exact(&mut buf)).await??;
//!     assert_eq!(&buf, b"ping");
//!     Ok::<_, std::io::Error>(())
//! })
//! .unwrap();
//! ```
//!
//! **Blocking calls** (files, blocking libraries) go to [`spawn_blocking`], which runs them
//! on a separate, elastic pool of threads, never on a worker:
//!
//! ```
//! let len = filch::block_on(filch::spawn_blocking(|| std::fs::read_dir(".").map(|d| d.count())));
//! assert!(len.unwrap().unwrap() > 0);
//! ```
//!
//! **Where a woken task runs** is a [`WakePolicy`]: `LastWorker` (the default) sends it
//! back to the worker it last ran on (WS-LAST, Vrba, Halvorsen and Griwodz), while
//! `CurrentWorker` keeps it on the worker that woke it (classic work stealing).
//!
//! **What the workers did** is in [`Executor::stats`]: per worker, polls, steal attempts,
//! steals, parks and busy time; and the live tasks, injector depth and blocking threads.
//! **Thread hooks** ([`Builder::on_thread_start`], [`Builder::on_thread_stop`]) run on every
//! worker and blocking-pool thread, e.g. to enter a tokio runtime's context there so that
//! tokio-bound crates work from filch tasks (README, "Running your stack on filch").
//!
//! ```
//! let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
//! ex.block_on(ex.spawn(async {})).unwrap();
//! let stats: filch::Stats = ex.stats();
//! assert_eq!(stats.workers.len(), 2);
//! ```
//!
//! # Features
//!
//! - `hyper` (default): the streams of [`net`] implement hyper 1.x's `rt::Read` and
//!   `rt::Write`; `filch::hyper` has `HyperExecutor` and `HyperTimer`.
//! - `axum` (with `hyper`): `filch::axum::serve` runs an axum `Router` on a
//!   [`net::TcpListener`] over HTTP/1.1 and HTTP/2, with graceful shutdown, as `axum::serve`
//!   does on tokio; it brings axum and hyper-util with the parts it needs.
//! - `tokio-io`: the streams of [`net`] implement tokio's `AsyncRead` and `AsyncWrite`.
//!
//! (The former `async-io` feature, which ran each worker inside async-io's reactor, is
//! gone: the workers park in filch's own driver, so there is one worker loop and one
//! poller per executor. async-io still works on filch, driven by its own thread.)
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs, unreachable_pub, clippy::undocumented_unsafe_blocks)]

// The modules, from the bottom layer up; each imports only from the layers below it
// (ARCHITECTURE.md, "Layers").
// Leaves.
mod abort;
mod block_on;
mod blocking;
mod io;
mod park;
mod registry;
mod rng;
mod stats;
mod sync;
mod task_count;
mod threads;
mod wake_policy;
// Tasks, the executor's state, and who the current thread is.
mod context;
mod coop;
mod join;
mod state;
mod task;
mod yield_now;
// The worker loop and placement, making tasks, the data-parallel loops.
mod par;
mod spawn;
mod worker;
// The public entry points.
mod executor;
mod global;
#[cfg(feature = "hyper")]
#[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]
pub mod hyper;
mod join_set;
pub mod net;
pub mod time;
// A server on top of them (axum and hyper-util stay out of loom builds: Cargo.toml).
#[cfg(all(feature = "axum", not(loom)))]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;

pub use abort::AbortHandle;
pub use coop::consume_budget;
pub use executor::{Builder, Executor, Handle};
pub use global::{
    block_on, par_for_each_mut, par_map, par_map_vec, par_range, par_reduce, spawn, spawn_blocking,
    WORKERS_ENV,
};
pub use join::JoinHandle;
pub use join_set::JoinSet;
pub use par::{ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
pub use stats::{Stats, WorkerStats};
pub use task::JoinError;
pub use wake_policy::WakePolicy;
pub use yield_now::{yield_now, YieldNow};

/// Compile-time checks of the thread-safety promises of the public types.
#[allow(dead_code)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    fn unpin<T: Unpin>() {}
    send_sync::<Handle>();
    send_sync::<Executor>();
    send_sync::<JoinError>();
    send::<JoinHandle<()>>();
    unpin::<JoinHandle<()>>();
    send_sync::<Stats>();
    send_sync::<AbortHandle>();
    send::<JoinSet<()>>();
    send_sync::<time::Sleep>();
    unpin::<time::Sleep>();
    send_sync::<time::Interval>();
    send_sync::<time::Elapsed>();
    send_sync::<net::TcpListener>();
    send_sync::<net::TcpStream>();
    send_sync::<net::UdpSocket>();
    #[cfg(unix)]
    send_sync::<net::UnixStream>();
    #[cfg(unix)]
    send_sync::<net::UnixListener>();
    #[cfg(unix)]
    send_sync::<net::UnixDatagram>();
    send_sync::<net::OwnedReadHalf>();
    send_sync::<net::OwnedWriteHalf>();
    unpin::<net::OwnedReadHalf>();
    unpin::<net::OwnedWriteHalf>();
    #[cfg(all(feature = "axum", not(loom)))]
    {
        send::<crate::axum::Serve>();
        send::<crate::axum::WithGracefulShutdown<std::future::Pending<()>>>();
        unpin::<crate::axum::WithGracefulShutdown<std::future::Pending<()>>>();
    }
}
