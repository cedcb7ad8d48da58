//! [`ThreadConfig`]: how an executor starts its threads (workers and blocking-pool threads
//! alike): their names, their stack size, the user's start and stop hooks
//! (`Builder::on_thread_start` / `on_thread_stop`, as tokio's), and the tokio runtime whose
//! context they are inside (`tokio-context`, `runtime/tokio_context/`).
//!
//! **Invariants:** on every thread started through [`ThreadConfig::spawn`], the start hook
//! runs before the thread's body and the stop hook after it, also when the body unwinds; a
//! panicking hook is caught (the panic hook has already printed its message), so that it
//! cannot take a worker down with it.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::thread;

use crate::runtime::tokio_context::TokioContext;
use crate::util::fault::{self, Fault};
use crate::util::wake_all::call_quietly;

/// A user hook run on an executor's threads.
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync + 'static>;

/// A user hook run on an executor's workers, given the worker's index (rayon's
/// `start_handler` and `exit_handler`).
pub(crate) type WorkerHook = Arc<dyn Fn(usize) + Send + Sync + 'static>;

/// How one executor starts its threads (module docs).
#[derive(Clone)]
pub(crate) struct ThreadConfig {
    /// The prefix of the threads' names: workers `{prefix}-{index}`, blocking-pool threads
    /// `{prefix}-blocking-{n}`.
    pub(crate) prefix: String,
    pub(crate) stack_size: Option<usize>,
    pub(crate) on_start: Option<Hook>,
    pub(crate) on_stop: Option<Hook>,
    /// The tokio runtime the threads are inside (`tokio-context`; empty without it).
    pub(crate) tokio: TokioContext,
    /// The workers' names by index, if given one by one (rayon's `thread_name`); else
    /// `{prefix}-{index}`.
    pub(crate) worker_names: Option<Arc<[String]>>,
    /// Run on each worker, with its index, after the start hook and before the stop hook.
    pub(crate) worker_start: Option<WorkerHook>,
    pub(crate) worker_stop: Option<WorkerHook>,
}

impl ThreadConfig {
    pub(crate) fn new() -> ThreadConfig {
        ThreadConfig {
            prefix: "filch".to_string(),
            stack_size: None,
            on_start: None,
            on_stop: None,
            tokio: TokioContext::default(),
            worker_names: None,
            worker_start: None,
            worker_stop: None,
        }
    }

    /// The name of worker `index`.
    pub(crate) fn worker_name(&self, index: usize) -> String {
        match self
            .worker_names
            .as_deref()
            .and_then(|names| names.get(index))
        {
            Some(name) => name.clone(),
            None => format!("{}-{index}", self.prefix),
        }
    }

    /// Starts worker `index` (named by [`worker_name`](ThreadConfig::worker_name)) running
    /// `body`, with the worker hooks around it.
    pub(crate) fn spawn_worker(
        &self,
        index: usize,
        body: impl FnOnce() + Send + 'static,
    ) -> io::Result<thread::JoinHandle<()>> {
        let (start, stop) = (self.worker_start.clone(), self.worker_stop.clone());
        self.spawn(self.worker_name(index), move || {
            if let Some(start) = &start {
                call_quietly(|| start(index));
            }
            struct Stop(Option<WorkerHook>, usize);
            impl Drop for Stop {
                fn drop(&mut self) {
                    if let Some(stop) = &self.0 {
                        let index = self.1;
                        call_quietly(|| stop(index));
                    }
                }
            }
            let _stop = Stop(stop, index);
            body();
        })
    }

    /// Starts a thread named `name` that runs the start hook, `body`, then the stop hook.
    pub(crate) fn spawn(
        &self,
        name: String,
        body: impl FnOnce() + Send + 'static,
    ) -> io::Result<thread::JoinHandle<()>> {
        if fault::fires(Fault::ThreadStart, Some(&name)) {
            return Err(io::Error::other(
                "filch test: an injected thread start failure",
            ));
        }
        let mut builder = thread::Builder::new().name(name);
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        let (on_start, on_stop) = (self.on_start.clone(), self.on_stop.clone());
        let tokio = self.tokio.clone();
        builder.spawn(move || {
            // Inside tokio's context for the thread's whole life, its hooks included.
            let _tokio = tokio.enter();
            run_hook(on_start.as_ref());
            // Runs the stop hook when dropped, so also when `body` unwinds.
            struct Stop(Option<Hook>);
            impl Drop for Stop {
                fn drop(&mut self) {
                    run_hook(self.0.as_ref());
                }
            }
            let _stop = Stop(on_stop);
            body();
        })
    }
}

/// Runs `hook`, catching its panic (module invariants).
fn run_hook(hook: Option<&Hook>) {
    if let Some(hook) = hook {
        call_quietly(|| hook());
    }
}

impl fmt::Debug for ThreadConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadConfig")
            .field("prefix", &self.prefix)
            .field("stack_size", &self.stack_size)
            .field("on_start", &self.on_start.is_some())
            .field("on_stop", &self.on_stop.is_some())
            .field("worker_names", &self.worker_names)
            .field("worker_start", &self.worker_start.is_some())
            .field("worker_stop", &self.worker_stop.is_some())
            .finish()
    }
}
