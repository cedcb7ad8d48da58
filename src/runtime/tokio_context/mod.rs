//! [`TokioContext`]: tokio's runtime context on filch's threads (cargo feature
//! `tokio-context`), so that crates that need tokio's reactor or timers (reqwest, sqlx,
//! tonic's client, redis) work unchanged from filch tasks.
//!
//! Every thread on which filch polls futures is inside the context: its workers and
//! blocking-pool threads for their whole life (entered by `ThreadConfig::spawn`, before the
//! user's start hook), and a thread inside `block_on` while it blocks (`Handle::block_on`).
//!
//! **Which runtime.** The one given to `Builder::tokio_handle` (the user's: a multi-thread
//! one), else one of the executor's own when `Builder::tokio_worker_threads(n)` asks for it
//! (tokio's multi-thread runtime with `n` workers and its IO and time drivers, threads named
//! `{prefix}-tokio-{i}`, shut down in the background once the last clone of this context is
//! gone: the executor's state and its threads), else the process's, started by the first
//! executor built with the feature and never stopped (one worker, threads `filch-tokio-{n}`).
//! The side runtime is the runtime of the last two kinds: filch started it.
//!
//! **What runs there, not on filch's workers:** what tokio-bound crates (or the user)
//! `tokio::spawn`, and the IO and timers of tokio's own types (`tokio::net`, `tokio::time`,
//! `axum::serve` on a `tokio::net` listener). `Stats::tokio` reports the runtime
//! ([`TokioContext::stats`], from tokio's stable `RuntimeMetrics`), and a watch on each side
//! runtime warns once per process when work piles up there (`watch.rs`, where the rule is).
//!
//! **The paused clock** (`test-util`, `timers_off.rs`): tokio's timers cannot follow filch's
//! paused clock, so while an executor's clock is paused its polls are inside the context of
//! a runtime without timers, and the first tokio timer panics with a message that says what
//! to use instead.
//!
//! Without the feature [`TokioContext`] is empty and entering it does nothing.

#[cfg(all(feature = "tokio-context", feature = "test-util"))]
pub(crate) mod timers_off;
#[cfg(feature = "tokio-context")]
mod watch;

use std::io;

/// The tokio runtime whose context an executor's threads enter (module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct TokioContext {
    /// The runtime: the user's (`Builder::tokio_handle`) before and after
    /// [`TokioContext::resolved`], or the one that resolved it chose.
    #[cfg(feature = "tokio-context")]
    handle: Option<tokio::runtime::Handle>,
    /// `Builder::tokio_worker_threads`, until resolved.
    #[cfg(feature = "tokio-context")]
    workers: Option<usize>,
    /// The executor's own runtime (`Builder::tokio_worker_threads`), shut down when the last
    /// clone of this context is dropped: held for that drop only.
    #[cfg(feature = "tokio-context")]
    #[allow(dead_code)]
    owned: Option<std::sync::Arc<Owned>>,
}

/// Held while a thread is inside the tokio context (nothing without the feature).
#[cfg(feature = "tokio-context")]
pub(crate) type Entered<'a> = Option<tokio::runtime::EnterGuard<'a>>;
/// Held while a thread is inside the tokio context (nothing without the feature).
#[cfg(not(feature = "tokio-context"))]
pub(crate) type Entered<'a> = std::marker::PhantomData<&'a ()>;

impl TokioContext {
    /// The user's runtime (`Builder::tokio_handle`).
    #[cfg(feature = "tokio-context")]
    pub(crate) fn given(self, handle: tokio::runtime::Handle) -> TokioContext {
        TokioContext {
            handle: Some(handle),
            ..self
        }
    }

    /// A runtime of the executor's own with `n` workers (`Builder::tokio_worker_threads`).
    #[cfg(feature = "tokio-context")]
    pub(crate) fn with_workers(self, n: usize) -> TokioContext {
        TokioContext {
            workers: Some(n),
            ..self
        }
    }

    /// This context with its runtime: the user's, a new one of the executor's own (threads
    /// named `{prefix}-tokio-{i}`), or the process's (started on first need).
    ///
    /// # Errors
    /// `InvalidInput` for a current-thread runtime (its IO and timers are driven only inside
    /// its own `block_on`, so a filch task waiting on them would wait for ever), for zero
    /// workers, and for both a runtime and a number of workers; the OS's error if the
    /// runtime's threads cannot start.
    #[cfg_attr(not(feature = "tokio-context"), allow(unused_variables))]
    pub(crate) fn resolved(self, prefix: &str) -> io::Result<TokioContext> {
        #[cfg(feature = "tokio-context")]
        match (&self.handle, self.workers) {
            (Some(_), Some(_)) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "filch: Builder::tokio_handle and Builder::tokio_worker_threads were both \
                     given: the first gives the tokio runtime, the second sizes one that filch \
                     starts; keep one",
                ));
            }
            (None, Some(0)) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "filch: the tokio runtime needs at least one worker thread \
                     (tokio_worker_threads(0) was given)",
                ));
            }
            (None, Some(n)) => {
                let runtime = start_runtime(n, prefix.to_owned())?;
                let handle = runtime.handle().clone();
                watch::start(
                    &handle,
                    n,
                    format!("this executor's runtime, {n} worker threads `{prefix}-tokio-*`"),
                );
                return Ok(TokioContext {
                    handle: Some(handle),
                    workers: None,
                    owned: Some(std::sync::Arc::new(Owned(Some(runtime)))),
                });
            }
            (None, None) => {
                return Ok(TokioContext {
                    handle: Some(process_runtime()?),
                    workers: None,
                    owned: None,
                });
            }
            (Some(handle), None)
                if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread =>
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "filch: Builder::tokio_handle needs a multi-thread tokio runtime: a \
                     current-thread runtime drives its IO and timers only inside its own \
                     block_on, so a filch task waiting on them would wait for ever",
                ));
            }
            (Some(_), None) => {}
        }
        Ok(self)
    }

    /// Enters the context on this thread until the guard is dropped.
    pub(crate) fn enter(&self) -> Entered<'_> {
        #[cfg(feature = "tokio-context")]
        return self.handle.as_ref().map(tokio::runtime::Handle::enter);
        #[cfg(not(feature = "tokio-context"))]
        std::marker::PhantomData
    }

    /// A snapshot of the runtime's stable metrics (all zero before [`resolved`](Self::resolved)).
    #[cfg(feature = "tokio-context")]
    pub(crate) fn stats(&self) -> crate::runtime::stats::TokioStats {
        let Some(handle) = &self.handle else {
            return crate::runtime::stats::TokioStats::default();
        };
        let metrics = handle.metrics();
        crate::runtime::stats::TokioStats::new(
            metrics.num_workers(),
            metrics.num_alive_tasks(),
            metrics.global_queue_depth(),
            busy(&metrics),
        )
    }
}

/// The time the runtime's workers spent running tasks, summed over its workers (zero where
/// tokio does not count it: targets without 64-bit atomics).
#[cfg(feature = "tokio-context")]
fn busy(metrics: &tokio::runtime::RuntimeMetrics) -> std::time::Duration {
    #[cfg(target_has_atomic = "64")]
    return (0..metrics.num_workers())
        .map(|w| metrics.worker_total_busy_duration(w))
        .sum();
    #[cfg(not(target_has_atomic = "64"))]
    {
        let _ = metrics;
        std::time::Duration::ZERO
    }
}

/// An executor's own runtime: shut down in the background when dropped, which may be on one
/// of its own threads (a tokio task that held the executor's last handle), where a blocking
/// shutdown is not allowed.
#[cfg(feature = "tokio-context")]
#[derive(Debug)]
struct Owned(Option<tokio::runtime::Runtime>);

#[cfg(feature = "tokio-context")]
impl Drop for Owned {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// A multi-thread runtime of `workers` workers with its IO and time drivers, its threads
/// named `{prefix}-tokio-{n}`.
#[cfg(feature = "tokio-context")]
fn start_runtime(workers: usize, prefix: String) -> io::Result<tokio::runtime::Runtime> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // std's atomic: a counter for names, owned by the runtime's name function.
    let next = AtomicUsize::new(0);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name_fn(move || {
            // Relaxed: a counter for names, ordered with nothing.
            format!("{prefix}-tokio-{}", next.fetch_add(1, Ordering::Relaxed))
        })
        .enable_all()
        .build()
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "filch: cannot start the tokio runtime of the `tokio-context` feature: {e}"
                ),
            )
        })
}

/// The process's tokio runtime (module docs), started, with its watch, by the first call.
#[cfg(feature = "tokio-context")]
fn process_runtime() -> io::Result<tokio::runtime::Handle> {
    use std::sync::{Mutex, PoisonError};
    // std's lock: a static (module docs of `util/sync.rs`).
    static RUNTIME: Mutex<Option<tokio::runtime::Runtime>> = Mutex::new(None);
    let mut runtime = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(runtime) = runtime.as_ref() {
        return Ok(runtime.handle().clone());
    }
    let started = start_runtime(1, "filch".to_owned())?;
    let handle = started.handle().clone();
    watch::start(
        &handle,
        1,
        "the process's runtime, 1 worker thread `filch-tokio-*`".to_owned(),
    );
    *runtime = Some(started);
    Ok(handle)
}
