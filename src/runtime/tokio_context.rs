//! [`TokioContext`]: tokio's runtime context on filch's threads (cargo feature
//! `tokio-context`), so that crates that need tokio's reactor or timers (reqwest, sqlx,
//! tonic's client, redis) work unchanged from filch tasks.
//!
//! Every thread on which filch polls futures is inside the context: its workers and
//! blocking-pool threads for their whole life (entered by `ThreadConfig::spawn`, before the
//! user's start hook), and a thread inside `block_on` while it blocks (`Handle::block_on`).
//! The runtime is the one given to `Builder::tokio_handle`, else one per process, started
//! by the first executor built with the feature: tokio's multi-thread runtime with one
//! worker and its IO and time drivers, its threads named `filch-tokio-{n}`. What those
//! crates `tokio::spawn` runs on that runtime, not on filch's workers.
//!
//! Without the feature [`TokioContext`] is empty and entering it does nothing.

use std::io;

/// The tokio runtime whose context an executor's threads enter (module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct TokioContext {
    #[cfg(feature = "tokio-context")]
    handle: Option<tokio::runtime::Handle>,
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
    pub(crate) fn of(handle: tokio::runtime::Handle) -> TokioContext {
        TokioContext {
            handle: Some(handle),
        }
    }

    /// This context, or, if no runtime was given, the process's (started on first need).
    ///
    /// # Errors
    /// `InvalidInput` for a current-thread runtime: its IO and timers are driven only inside
    /// its own `block_on`, so a filch task waiting on them would wait for ever.
    pub(crate) fn resolved(self) -> io::Result<TokioContext> {
        #[cfg(feature = "tokio-context")]
        match &self.handle {
            None => return Ok(TokioContext::of(process_runtime()?)),
            Some(handle)
                if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread =>
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "filch: Builder::tokio_handle needs a multi-thread tokio runtime: a \
                     current-thread runtime drives its IO and timers only inside its own \
                     block_on, so a filch task waiting on them would wait for ever",
                ));
            }
            Some(_) => {}
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
}

/// The process's tokio runtime (module docs), started by the first call.
#[cfg(feature = "tokio-context")]
fn process_runtime() -> io::Result<tokio::runtime::Handle> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};
    // std's lock and atomic: a static (module docs of `util/sync.rs`).
    static RUNTIME: Mutex<Option<tokio::runtime::Runtime>> = Mutex::new(None);
    let mut runtime = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(runtime) = runtime.as_ref() {
        return Ok(runtime.handle().clone());
    }
    let started = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name_fn(|| {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            // Relaxed: a counter for names, ordered with nothing.
            format!("filch-tokio-{}", NEXT.fetch_add(1, Ordering::Relaxed))
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
        })?;
    let handle = started.handle().clone();
    *runtime = Some(started);
    Ok(handle)
}
