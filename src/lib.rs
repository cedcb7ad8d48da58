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
//! **`!Send` futures** run pinned to one worker: [`spawn_pinned`] runs a `Send` closure on
//! the least loaded worker and polls the future it returns only there; inside a task on a
//! worker, [`spawn_local`] pins a `!Send` future to that same worker.
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
//! features), [`time`] has `sleep`, `timeout` and `interval`, [`signal`] has `ctrl_c` and
//! unix signals (delivered through the driver: no thread of their own), and
//! [`consume_budget`] lets a busy loop yield as filch's own IO does after its cooperative
//! budget is spent. `examples/http_server` is hyper on `filch::net`. async-io keeps working
//! on filch too, on its own thread.
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
//! tokio-bound crates work from filch tasks (README, "Coming from tokio").
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
//! - `tokio-io`: the streams of [`net`] implement tokio's `AsyncRead` and `AsyncWrite`
//!   (so tokio-postgres runs over a [`net::TcpStream`] with `Config::connect_raw`: README,
//!   "Coming from tokio").
//! - `tokio-context`: every thread on which filch polls futures is inside the context of a
//!   tokio runtime kept beside the executor (the process's, with one worker; the executor's
//!   own, `Builder::tokio_worker_threads`; or `Builder::tokio_handle`'s), so tokio-bound
//!   crates work from filch tasks. What they `tokio::spawn`, and tokio's own IO and timers,
//!   run on that runtime, not on filch's workers: `Stats::tokio` reports it, and filch warns
//!   once per process when work piles up there. With `test-util`, tokio's timers are off
//!   while the clock is paused (the first one panics, saying to use [`time`]).
//! - `macros` (default): the attributes [`main`] and [`test`] (`#[filch::main]`,
//!   `#[filch::test]`), from the filch-macros crate.
//! - `test-util`: a test clock, `time::{pause, resume, advance}` and
//!   `#[filch::test(start_paused = true)]`: a paused executor's clock jumps to its next
//!   timer whenever the executor is idle, on any number of workers, so a test that sleeps
//!   an hour ends at once.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs, unreachable_pub, clippy::undocumented_unsafe_blocks)]

// The layers, from the bottom up; no module imports one above it (ARCHITECTURE.md,
// "Layers"; `tests/executor/layers.rs` checks it).
mod util;
// The runtime: tasks, parking, the drivers, the scheduler and its workers.
mod runtime;
// The public entry points: `Builder`, `Executor`, `Handle` and the free functions.
mod executor;
// The public modules on top.
#[cfg(feature = "hyper")]
#[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]
pub mod hyper;
pub mod net;
// rayon's API on the workers, and the awaited data-parallel loops.
pub mod par;
pub mod signal;
pub mod task;
pub mod time;
// A server on top of them (axum and hyper-util stay out of loom builds: Cargo.toml).
#[cfg(all(feature = "axum", not(loom)))]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;

pub use executor::global::{block_on, spawn, spawn_blocking, spawn_pinned, WORKERS_ENV};
pub use executor::{Builder, EnterGuard, Executor, Handle, TryCurrentError};
pub use par::{par_for_each_mut, par_map, par_map_vec, par_range, par_reduce};
pub use par::{ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};
pub use runtime::coop::consume_budget;
pub use runtime::observe::dump::{TaskDump, TaskInfo, TaskState};
pub use runtime::observe::poll_watch::SlowPoll;
pub use runtime::scheduler::join_handle::JoinHandle;
pub use runtime::scheduler::pinned::spawn_local;
#[cfg(feature = "tokio-context")]
pub use runtime::stats::TokioStats;
pub use runtime::stats::{Stats, WorkerStats};
pub use runtime::wake_policy::WakePolicy;
pub use task::{yield_now, AbortHandle, JoinError, JoinSet, YieldNow};

/// Runs an `async fn main` on a new filch [`Executor`]: the function becomes a plain `fn` of
/// the same name and return type that builds the executor, blocks on the body with
/// [`Executor::block_on`] and returns its value. Inside the body, [`spawn`], [`Handle::current`]
/// and the `par_*` loops use that executor; it shuts down when `main` returns.
///
/// The return type is kept, so `main` may return a `Result` (anything that implements
/// [`std::process::Termination`]), and `?` works in the body:
///
/// ```
/// #[filch::main]
/// async fn main() -> Result<(), filch::JoinError> {
///     let task = filch::spawn(async { 6 * 7 });
///     assert_eq!(task.await?, 42);
///     Ok(())
/// }
/// ```
///
/// # Arguments
///
/// - `worker_threads = N`: the number of worker threads, a positive integer literal; by
///   default one per available CPU, as [`Builder::new`] has.
/// - `flavor = "multi_thread"` (one worker per CPU unless `worker_threads` says otherwise)
///   or `flavor = "current_thread"` (one worker), as tokio's attribute takes them, so that
///   code written for `#[tokio::main]` compiles unchanged.
/// - `crate = "path"`: the path filch is reached by, for a crate that re-exports it or
///   renames it in its `Cargo.toml` (default `::filch`).
/// - `start_paused = true`: the body starts with the executor's clock paused (feature
///   `test-util`; see [`test`]).
///
/// ```
/// #[filch::main(worker_threads = 2)]
/// async fn main() {
///     let workers = filch::Handle::current().stats().workers.len();
///     assert_eq!(workers, 2);
/// }
/// ```
///
/// ```
/// #[filch::main(flavor = "current_thread")]
/// async fn main() {
///     assert_eq!(filch::Handle::current().stats().workers.len(), 1);
/// }
/// ```
///
/// The attribute goes on an `async fn` without arguments; anything else (a missing `async`,
/// arguments, an unknown argument of the attribute, `worker_threads = 0`, `worker_threads`
/// with `flavor = "current_thread"`) is a compile error that says how to fix it. The
/// expansion leaves no warning in the caller's code. The attribute works on any such
/// function, not only `main`: the function then blocks on its body when called, which must
/// not be on a worker thread (see [`Executor::block_on`]).
#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
pub use filch_macros::main;

/// Runs an `async fn` test on a new filch [`Executor`] of one worker: the function becomes
/// a `#[test]` that builds the executor, blocks on the body and returns its value. Each test
/// has its own executor, shut down when the test returns; inside the body, [`spawn`] and
/// [`Handle::current`] use it.
///
/// ```
/// #[filch::test]
/// async fn spawned_tasks_run() {
///     let task = filch::spawn(async { 2 + 2 });
///     assert_eq!(task.await.unwrap(), 4);
/// }
///
/// // As with `#[test]`, the return type is kept: a test may return a `Result`, and fails
/// // on an `Err`.
/// #[filch::test]
/// async fn joins() -> Result<(), filch::JoinError> {
///     assert_eq!(filch::spawn(async { 1 }).await?, 1);
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// # Arguments
///
/// - `worker_threads = N`: the number of worker threads, a positive integer literal
///   (default 1).
/// - `flavor = "multi_thread"` (one worker per CPU unless `worker_threads` says otherwise)
///   or `flavor = "current_thread"` (one worker), as tokio's; `crate = "path"`, as for
///   [`main`].
/// - `start_paused = true`: the body starts with the executor's clock paused
///   ([`time::pause`](crate::time) and its auto-advance: timers fire at once, in order,
///   whenever the executor is idle). It needs the `test-util` feature; without it the
///   argument is a compile error that says so.
///
/// ```
/// #[filch::test(worker_threads = 4)]
/// async fn on_four_workers() {
///     assert_eq!(filch::Handle::current().stats().workers.len(), 4);
/// }
/// # fn main() {}
/// ```
///
/// With filch's `test-util` feature in `[dev-dependencies]`:
///
#[cfg_attr(feature = "test-util", doc = "```")]
#[cfg_attr(not(feature = "test-util"), doc = "```ignore")]
/// #[filch::test(start_paused = true)]
/// async fn an_hour_at_once() {
///     let start = filch::time::now();
///     filch::time::sleep(std::time::Duration::from_secs(3600)).await;
///     assert_eq!(filch::time::now() - start, std::time::Duration::from_secs(3600));
/// }
/// # fn main() {}
/// ```
///
/// The attribute goes on an `async fn` without arguments and replaces `#[test]`; anything
/// else (a missing `async`, arguments, a second `#[test]`, an unknown argument of the
/// attribute, `worker_threads = 0`) is a compile error that says how to fix it.
#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
pub use filch_macros::test;

/// The examples of README.md, compiled and run as doctests, so that the README stays true
/// (with the default features, which the README's examples use).
#[cfg(all(doctest, feature = "macros"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
