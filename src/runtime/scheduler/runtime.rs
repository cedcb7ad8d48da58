//! The runtime's front door: [`Config`], the settings of one executor and their checks;
//! [`Runtime`], which starts an executor from them ([`Runtime::start`]) and owns its
//! shutdown ([`Runtime::shutdown`]); and the re-exports and functions through which the public
//! `Builder`, `Executor`, `Handle` and free functions (`src/executor/`) reach the rest of
//! the runtime. Those are thin wrappers: what an executor is, how it starts and how it
//! stops reads here.
//!
//! Startup, in order: check the settings ([`Config::validate`]); resolve the tokio runtime
//! beside the executor (feature `tokio-context`, `runtime/tokio_context/`); make the driver
//! stack, one deque per worker and the slow-poll watch; start the epoch ticker (the
//! fork-join epoch, `runtime/time/epoch.rs`); make the shared [`State`] behind its anchor
//! (`runtime/task/task_count.rs`); register the watch with the observer
//! (`runtime/observe/`); install the paused clock's auto-advance (`test-util`); start one
//! thread per worker. Shutdown is `State::shutdown`, whose doc states the protocol
//! (`runtime/scheduler/shutdown.rs`).
//!
//! **Invariants:** [`Runtime::start`] returns either a runtime whose every worker thread
//! runs, or an error with nothing left behind: the workers started before a failing start
//! are stopped and joined (by the drop of the half-built `Runtime`, which runs
//! `State::shutdown`), and the holds of the workers that never started are given up, so
//! the state is freed. `State::shutdown` runs exactly once per runtime, and only the
//! `Runtime` runs it: the worker threads' join handles are its alone.

use std::io;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_deque::Worker;

use crate::runtime::observe::dump;
use crate::runtime::observe::poll_watch::{self, PollWatch};
use crate::runtime::scheduler::blocking::BlockingPool;
use crate::runtime::scheduler::state::Runnable;
use crate::runtime::task::task_count::{self, new_anchored};
use crate::runtime::threads::ThreadConfig;
use crate::runtime::wake_policy::WakePolicy;

// Polls a future on this thread outside any executor (white-box tests of `executor/`).
#[cfg(any(all(test, not(loom)), not(feature = "test-util")))]
pub(crate) use crate::runtime::driver::block_on::block_on as block_on_here;
pub(crate) use crate::runtime::driver::Driver;
pub(crate) use crate::runtime::scheduler::forkjoin::inject::install;
pub(crate) use crate::runtime::scheduler::pinned::spawn_pinned;
pub(crate) use crate::runtime::scheduler::spawner::{
    spawn, spawn_blocking, spawn_blocking_with, spawn_with, Options as SpawnOptions,
};
pub(crate) use crate::runtime::scheduler::state::State;
pub(crate) use crate::runtime::scheduler::worker::context::{
    current_state, enter, with_state, CurrentGuard,
};
pub(crate) use crate::runtime::threads::WorkerHook;

/// The most worker threads an executor has (rayon's limit too): far more than any machine
/// runs usefully, and few enough that the per-worker tables `start` makes before it starts
/// the threads stay small.
pub(crate) const MAX_WORKER_THREADS: usize = 0xFFFF;

/// The settings of one executor (`Builder`'s, which documents each).
#[derive(Clone, Debug)]
pub(crate) struct Config {
    /// The number of workers; `None`: one per available CPU.
    pub(crate) worker_threads: Option<usize>,
    pub(crate) threads: ThreadConfig,
    pub(crate) wake_policy: WakePolicy,
    pub(crate) max_blocking_threads: usize,
    pub(crate) thread_keep_alive: Duration,
    pub(crate) slow_polls: poll_watch::Settings,
    /// How long a poll holds its worker before the worker's stand-in takes its place
    /// (`runtime/scheduler/standin/hold.rs`).
    pub(crate) hand_over_after: Duration,
}

impl Config {
    /// The defaults: one worker per available CPU, threads named `filch-{index}`,
    /// [`WakePolicy::LastWorker`], tokio's blocking-pool limits, no slow-poll threshold.
    pub(crate) fn new() -> Config {
        Config {
            worker_threads: None,
            threads: ThreadConfig::new(),
            wake_policy: WakePolicy::default(),
            max_blocking_threads: crate::runtime::scheduler::blocking::MAX_BLOCKING_THREADS,
            thread_keep_alive: crate::runtime::scheduler::blocking::IDLE_TIMEOUT,
            slow_polls: poll_watch::Settings::default(),
            hand_over_after: crate::runtime::scheduler::standin::hold::HOLD_BEFORE_HAND_OVER,
        }
    }

    /// The number of workers, if the settings are valid; else `InvalidInput` with a message
    /// that names the setting (`Builder::build`'s errors).
    pub(crate) fn validate(&self) -> io::Result<usize> {
        let invalid = |message: String| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        let n = match self.worker_threads {
            Some(n) => n,
            None => thread::available_parallelism().map_or(1, |n| n.get()),
        };
        if n == 0 {
            return invalid(
                "filch: an executor needs at least one worker thread (worker_threads(0) was \
                 given)"
                    .to_owned(),
            );
        }
        if n > MAX_WORKER_THREADS {
            return invalid(format!(
                "filch: an executor has at most {MAX_WORKER_THREADS} worker threads \
                 (worker_threads({n}) was given)"
            ));
        }
        if self.max_blocking_threads == 0 {
            return invalid(
                "filch: the blocking pool needs at least one thread (max_blocking_threads(0) \
                 was given)"
                    .to_owned(),
            );
        }
        if self.slow_polls.threshold == Some(Duration::ZERO) {
            return invalid("filch: a slow-poll threshold must be longer than zero".to_owned());
        }
        let names = self
            .threads
            .worker_names
            .iter()
            .flat_map(|names| names.iter());
        if let Some(name) = std::iter::once(&self.threads.prefix)
            .chain(names)
            .find(|name| name.contains('\0'))
        {
            // std's thread builder would panic on it, for the workers and the blocking pool.
            return invalid(format!(
                "filch: a thread name cannot hold a NUL byte ({name:?} was given)"
            ));
        }
        Ok(n)
    }
}

/// A running executor: its shared state and its worker threads (module docs).
pub(crate) struct Runtime {
    state: Arc<State>,
    workers: Vec<thread::JoinHandle<()>>,
    /// Set once `State::shutdown` ran, so that the drop does not run it again.
    shut_down: bool,
}

impl Runtime {
    /// Checks `config` and starts the executor it describes (module docs, "Startup").
    ///
    /// # Errors
    /// `InvalidInput` from [`Config::validate`] (and, with `tokio-context`, for the tokio
    /// runtime's settings); the operating system's error if a thread cannot be started (the
    /// threads already started are stopped and joined).
    pub(crate) fn start(config: Config) -> io::Result<Runtime> {
        let n = config.validate()?;
        // With `tokio-context`: the runtime given, else one of the executor's own, else the
        // process's (`runtime/tokio_context/`).
        let threads = ThreadConfig {
            tokio: config
                .threads
                .tokio
                .clone()
                .resolved(&config.threads.prefix)?,
            ..config.threads
        };
        let driver = Driver::new()?;
        let deques: Vec<Worker<Runnable>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let watch = config
            .slow_polls
            .threshold
            .map(|threshold| Arc::new(PollWatch::new(n, threshold, config.slow_polls.callback)));
        // The epoch ticker: the fork-join epoch; its thread also runs the observer's tick.
        crate::runtime::time::epoch::try_start()?;
        let state = new_anchored(
            State::new(
                deques.iter().map(Worker::stealer).collect(),
                config.wake_policy,
                threads.clone(),
                driver,
                BlockingPool::new(config.max_blocking_threads, config.thread_keep_alive),
            )
            .with_poll_watch(watch.clone())
            .with_hand_over_after(config.hand_over_after),
        );
        if let Some(watch) = &watch {
            let weak = Arc::downgrade(&state);
            watch.set_name_of(Box::new(move |id| {
                weak.upgrade()
                    .and_then(|state| dump::name_of::<State>(&state.live_tasks, id))
            }));
            poll_watch::register(watch);
        }
        // The ticker's hand-over of held polls (`runtime/scheduler/standin/hand_over.rs`).
        {
            let weak: std::sync::Weak<State> = Arc::downgrade(&state);
            crate::runtime::time::epoch::register_hook(weak);
        }
        // The paused clock's auto-advance (`runtime/scheduler/auto_advance.rs`).
        #[cfg(feature = "test-util")]
        crate::runtime::scheduler::auto_advance::install(&state);
        let mut runtime = Runtime {
            state: Arc::clone(&state),
            workers: Vec::with_capacity(n),
            shut_down: false,
        };
        for (index, deque) in deques.into_iter().enumerate() {
            let worker_state = Arc::clone(&state);
            let body = move || crate::runtime::scheduler::worker::run(worker_state, index, deque);
            match threads.spawn_worker(index, body) {
                Ok(thread) => runtime.workers.push(thread),
                Err(e) => {
                    // The workers that will never run give up their holds (they counted
                    // nothing); dropping `runtime` stops and joins the started ones.
                    for never in index..n {
                        task_count::holder_left(&state, Some(never));
                    }
                    return Err(e);
                }
            }
        }
        Ok(runtime)
    }

    /// The executor's shared state.
    pub(crate) fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// Runs `State::shutdown` unless it ran already: `wait_for_blocking` is how long to
    /// wait for the blocking-pool jobs still running (`None`: not at all).
    pub(crate) fn shutdown(&mut self, wait_for_blocking: Option<Duration>) {
        if self.shut_down {
            return;
        }
        self.shut_down = true;
        let workers = std::mem::take(&mut self.workers);
        self.state.shutdown(workers, wait_for_blocking);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

/// Polls `future` to completion on the calling thread, inside `state`'s context (the
/// body of `Handle::block_on`, after its check that this is no worker).
#[track_caller]
pub(crate) fn block_on<F: std::future::Future>(state: &Arc<State>, future: F) -> F::Output {
    // With `console`, the future is a task of kind `block_on` for tokio-console.
    #[cfg(feature = "console")]
    let future = crate::runtime::observe::console::task_span::BlockOn::new(
        future,
        std::panic::Location::caller(),
    );
    let _enter = enter(Arc::clone(state));
    // With `tokio-context`, inside tokio's context while it blocks (`runtime/tokio_context/`).
    let _tokio = state.threads.tokio.enter();
    // With `tokio-context`, tokio's timers are off while the clock is paused, and their
    // panic says so in filch's words (`runtime/tokio_context/paused.rs`).
    #[cfg(all(feature = "test-util", feature = "tokio-context"))]
    let future = {
        let clock = state.driver.clock();
        crate::runtime::tokio_context::timers_off::TimersOffFuture::new(future, || {
            clock.is_paused()
        })
    };
    // With `test-util` the thread counts as busy while it polls, for the paused clock
    // (`runtime/driver/block_on.rs`).
    #[cfg(feature = "test-util")]
    return crate::runtime::driver::block_on::block_on_counted(
        crate::runtime::coop::budgeted(future),
        state.driver.clock().activity(),
    );
    #[cfg(not(feature = "test-util"))]
    block_on_here(crate::runtime::coop::budgeted(future))
}

/// Whether this thread is a worker that may not block (not inside `block_in_place`).
pub(crate) fn on_worker() -> bool {
    crate::runtime::scheduler::worker::context::with_worker(|worker| {
        worker.is_some_and(|w| !w.is_blocking())
    })
}

/// The dump of `state`'s live tasks (`runtime/observe/dump.rs`).
pub(crate) fn dump(state: &State) -> dump::TaskDump {
    dump::collect::<State>(dump::Sources {
        live_tasks: &state.live_tasks,
        poll_watch: state.poll_watch.as_deref(),
        alive: state.tasks.alive(),
        #[cfg(feature = "tokio-context")]
        tokio: state.threads.tokio.stats(),
    })
}
