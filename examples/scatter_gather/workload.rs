//! The scatter-gather workload of Vrba, Halvorsen and Griwodz, "A simple improvement of the
//! work-stealing scheduling algorithm" (the WS-LAST paper), on filch, tokio and
//! async-executor.
//!
//! One coordinator task talks to `n` worker tasks over bounded channels of capacity 1, one
//! channel each way per worker (async-channel). For each of `m` rounds the coordinator sends
//! one message to every worker, each worker spins for `w` of CPU time (a busy loop checked
//! against [`Instant`], not a sleep) and replies, and the coordinator waits for all `n`
//! replies before it starts the next round: a barrier per round. The total work is
//! `W = n·m·w`, so on `P` worker threads the ideal wall time is `n·m·w / P` ([`Params::ideal`]).
//!
//! The same futures run on every executor; only the spawning differs:
//! - [`run_filch`] on a [`filch::Executor`] (whatever its [`filch::WakePolicy`]);
//! - [`run_tokio`] on a tokio multi-thread runtime;
//! - [`run_async_executor`] on an [`async_executor::Executor`] driven by `threads` threads.
//!
//! Each returns the wall time of one run, from the first spawn until the coordinator and
//! every worker task have finished, so a criterion bench can use them in `iter_custom`.
//! The `*_recorded` variants also count, in a [`Deliveries`], every message each worker
//! receives and every reply the coordinator receives, per worker and per round, so a test
//! can check that each message arrives exactly once.
//!
//! ```ignore
//! let ex = filch::Executor::builder().worker_threads(2).build()?;
//! let params = workload::Params::new(16, 100, std::time::Duration::from_micros(10));
//! let wall = workload::run_filch(&ex, params)?;
//! println!("{:.2}× ideal", wall.as_secs_f64() / params.ideal(2).as_secs_f64());
//! ```

// Each user of this module (the example, the test, a bench) calls a different subset.
#![allow(dead_code)]

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use async_channel::{bounded, Receiver, Sender};

/// The size of one scatter-gather run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// `n`: the number of worker tasks.
    pub tasks: usize,
    /// `m`: the number of rounds.
    pub rounds: usize,
    /// `w`: the CPU time each worker spends on each message.
    pub work: Duration,
}

impl Params {
    /// `n` worker tasks, `m` rounds, `w` of work per message.
    pub fn new(tasks: usize, rounds: usize, work: Duration) -> Params {
        Params {
            tasks,
            rounds,
            work,
        }
    }

    /// The total work `W = n·m·w`: the least possible wall time on one thread.
    pub fn total_work(&self) -> Duration {
        self.work
            .saturating_mul(u32::try_from(self.tasks).unwrap_or(u32::MAX))
            .saturating_mul(u32::try_from(self.rounds).unwrap_or(u32::MAX))
    }

    /// The ideal wall time on `threads` threads: `n·m·w / threads` (no overhead, perfect
    /// balance). When `n` is not a multiple of `threads` no schedule reaches it, since a
    /// message's work is not split: see [`Params::batch_bound`].
    pub fn ideal(&self, threads: usize) -> Duration {
        self.total_work() / u32::try_from(threads.max(1)).unwrap_or(u32::MAX)
    }

    /// The least wall time any schedule can reach on `threads` threads: each round runs
    /// `ceil(n / threads)` batches of `w` one after the other (the paper's Experiment 4).
    pub fn batch_bound(&self, threads: usize) -> Duration {
        let batches = self.tasks.div_ceil(threads.max(1));
        self.work
            .saturating_mul(u32::try_from(batches).unwrap_or(u32::MAX))
            .saturating_mul(u32::try_from(self.rounds).unwrap_or(u32::MAX))
    }

    /// The number of rounds that makes the total work about `budget` for `n` tasks of `w`
    /// each (at least one round), as the paper's Experiment 1 holds `W` constant.
    pub fn rounds_for(tasks: usize, work: Duration, budget: Duration) -> usize {
        let per_round = work.as_secs_f64() * tasks as f64;
        if per_round <= 0.0 {
            return 1;
        }
        ((budget.as_secs_f64() / per_round).round() as usize).max(1)
    }
}

/// Busy-waits for `work` of wall time on the calling thread, checking [`Instant`] as it
/// goes: the workers' "CPU work" (the paper divides integers for a calibrated count).
pub fn spin(work: Duration) {
    let start = Instant::now();
    while start.elapsed() < work {
        std::hint::spin_loop();
    }
}

/// Per-worker, per-round delivery counts of one recorded run.
///
/// A worker adds one to `received(worker, round)` for each message it receives, tagged with
/// the round the coordinator sent it in; the coordinator adds one to `replied(worker, round)`
/// for each reply. A message that arrives at the wrong worker or in the wrong round also
/// counts as [`Deliveries::misordered`]. A correct run leaves every count at exactly 1.
pub struct Deliveries {
    params: Params,
    received: Box<[AtomicU32]>,
    replied: Box<[AtomicU32]>,
    misordered: AtomicU64,
}

impl Deliveries {
    /// Zeroed counters for a run of `params`.
    pub fn new(params: Params) -> Deliveries {
        let cells = params.tasks * params.rounds;
        let zeros = || (0..cells).map(|_| AtomicU32::new(0)).collect();
        Deliveries {
            params,
            received: zeros(),
            replied: zeros(),
            misordered: AtomicU64::new(0),
        }
    }

    /// The parameters these counters are sized for.
    pub fn params(&self) -> Params {
        self.params
    }

    fn cell(&self, worker: usize, round: usize) -> Option<usize> {
        (worker < self.params.tasks && round < self.params.rounds)
            .then_some(round * self.params.tasks + worker)
    }

    fn count(&self, cells: &[AtomicU32], worker: usize, round: usize) {
        match self.cell(worker, round) {
            // Relaxed: plain event counts, read after the run has been joined.
            Some(i) => drop(cells[i].fetch_add(1, Ordering::Relaxed)),
            None => drop(self.misordered.fetch_add(1, Ordering::Relaxed)),
        }
    }

    /// How many times `worker` received the message of `round` (0 if out of range).
    pub fn received(&self, worker: usize, round: usize) -> u32 {
        self.cell(worker, round)
            .map_or(0, |i| self.received[i].load(Ordering::Relaxed))
    }

    /// How many replies of `worker` for `round` the coordinator received (0 if out of range).
    pub fn replied(&self, worker: usize, round: usize) -> u32 {
        self.cell(worker, round)
            .map_or(0, |i| self.replied[i].load(Ordering::Relaxed))
    }

    /// Messages or replies that carried another worker's or round's tag than expected.
    pub fn misordered(&self) -> u64 {
        self.misordered.load(Ordering::Relaxed)
    }

    /// `Ok` if every message and every reply arrived exactly once, in its round; otherwise
    /// a description of the first few problems.
    pub fn check_exactly_once(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        if self.misordered() != 0 {
            problems.push(format!("{} misordered messages", self.misordered()));
        }
        for round in 0..self.params.rounds {
            for worker in 0..self.params.tasks {
                let (got, back) = (self.received(worker, round), self.replied(worker, round));
                if got != 1 || back != 1 {
                    problems.push(format!(
                        "worker {worker}, round {round}: received {got}×, replied {back}×"
                    ));
                }
                if problems.len() >= 8 {
                    break;
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

/// Why a run did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkloadError {
    /// A worker's channel closed before the last round: the worker task ended early
    /// (it panicked or was cancelled).
    WorkerGone {
        /// The worker's index.
        worker: usize,
        /// The round in which the coordinator noticed.
        round: usize,
    },
    /// The executor reported that a task of the run panicked or was cancelled.
    Task(String),
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::WorkerGone { worker, round } => {
                write!(f, "worker task {worker} ended early (round {round})")
            }
            WorkloadError::Task(why) => write!(f, "a scatter-gather task failed: {why}"),
        }
    }
}

impl Error for WorkloadError {}

/// One worker task: receive a round's message, spin, reply; until the coordinator hangs up.
async fn worker(
    index: usize,
    work: Duration,
    inbox: Receiver<usize>,
    outbox: Sender<(usize, usize)>,
    record: Option<Arc<Deliveries>>,
) {
    let mut expected = 0;
    while let Ok(round) = inbox.recv().await {
        if let Some(record) = &record {
            record.count(&record.received, index, round);
            if round != expected {
                record.misordered.fetch_add(1, Ordering::Relaxed);
            }
        }
        expected = round + 1;
        spin(work);
        if outbox.send((index, round)).await.is_err() {
            return;
        }
    }
}

/// The coordinator: `m` rounds of scatter (one message to every worker) and gather (one
/// reply from every worker). Dropping its senders at the end lets the workers finish.
async fn coordinator(
    rounds: usize,
    to_workers: Vec<Sender<usize>>,
    from_workers: Vec<Receiver<(usize, usize)>>,
    record: Option<Arc<Deliveries>>,
) -> Result<(), WorkloadError> {
    for round in 0..rounds {
        for (worker, tx) in to_workers.iter().enumerate() {
            tx.send(round)
                .await
                .map_err(|_| WorkloadError::WorkerGone { worker, round })?;
        }
        for (worker, rx) in from_workers.iter().enumerate() {
            let (from, tag) = rx
                .recv()
                .await
                .map_err(|_| WorkloadError::WorkerGone { worker, round })?;
            if let Some(record) = &record {
                record.count(&record.replied, from, tag);
                if from != worker || tag != round {
                    record.misordered.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
    Ok(())
}

/// The futures of one run: the coordinator and the `n` workers, wired together.
type Coordinator = std::pin::Pin<Box<dyn Future<Output = Result<(), WorkloadError>> + Send>>;
type WorkerTask = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

fn build(params: Params, record: Option<&Arc<Deliveries>>) -> (Coordinator, Vec<WorkerTask>) {
    let mut to_workers = Vec::with_capacity(params.tasks);
    let mut from_workers = Vec::with_capacity(params.tasks);
    let mut workers: Vec<WorkerTask> = Vec::with_capacity(params.tasks);
    for index in 0..params.tasks {
        let (to_tx, to_rx) = bounded(1);
        let (from_tx, from_rx) = bounded(1);
        to_workers.push(to_tx);
        from_workers.push(from_rx);
        workers.push(Box::pin(worker(
            index,
            params.work,
            to_rx,
            from_tx,
            record.cloned(),
        )));
    }
    let coordinator = Box::pin(coordinator(
        params.rounds,
        to_workers,
        from_workers,
        record.cloned(),
    ));
    (coordinator, workers)
}

/// Runs the workload once on `ex` and returns its wall time. The tasks are spawned from the
/// calling thread (so they start in filch's global injector) and awaited with
/// [`filch::Executor::block_on`]. The executor's wake policy and worker count are whatever
/// `ex` was built with.
pub fn run_filch(ex: &filch::Executor, params: Params) -> Result<Duration, WorkloadError> {
    run_filch_recorded(ex, params, None)
}

/// [`run_filch`], counting deliveries into `record` if given.
pub fn run_filch_recorded(
    ex: &filch::Executor,
    params: Params,
    record: Option<&Arc<Deliveries>>,
) -> Result<Duration, WorkloadError> {
    let (coordinator, workers) = build(params, record);
    let start = Instant::now();
    ex.block_on(async {
        let workers: Vec<_> = workers.into_iter().map(|w| ex.spawn(w)).collect();
        let outcome = ex.spawn(coordinator).await;
        let outcome = outcome.map_err(|e| WorkloadError::Task(e.to_string()))?;
        for w in workers {
            w.await.map_err(|e| WorkloadError::Task(e.to_string()))?;
        }
        outcome
    })?;
    Ok(start.elapsed())
}

/// Runs the workload once on the tokio runtime `rt` (build it multi-threaded with the
/// worker count to compare) and returns its wall time.
pub fn run_tokio(rt: &tokio::runtime::Runtime, params: Params) -> Result<Duration, WorkloadError> {
    run_tokio_recorded(rt, params, None)
}

/// [`run_tokio`], counting deliveries into `record` if given.
pub fn run_tokio_recorded(
    rt: &tokio::runtime::Runtime,
    params: Params,
    record: Option<&Arc<Deliveries>>,
) -> Result<Duration, WorkloadError> {
    let (coordinator, workers) = build(params, record);
    let start = Instant::now();
    rt.block_on(async {
        let workers: Vec<_> = workers.into_iter().map(|w| rt.spawn(w)).collect();
        let outcome = rt.spawn(coordinator).await;
        let outcome = outcome.map_err(|e| WorkloadError::Task(e.to_string()))?;
        for w in workers {
            w.await.map_err(|e| WorkloadError::Task(e.to_string()))?;
        }
        outcome
    })?;
    Ok(start.elapsed())
}

/// Runs the workload once on `ex` and returns its wall time.
///
/// `threads` scoped threads run `ex` for the duration of the call (started before and
/// stopped after the timed part); pass 0 if threads of your own already run it (as the
/// benches' `&'static` async-executor does). The calling thread only waits.
pub fn run_async_executor(
    ex: &async_executor::Executor<'_>,
    threads: usize,
    params: Params,
) -> Result<Duration, WorkloadError> {
    let (coordinator, workers) = build(params, None);
    let (stop, stopped) = bounded::<()>(1);
    thread::scope(|scope| {
        for _ in 0..threads {
            let stopped = stopped.clone();
            scope.spawn(move || futures_lite::future::block_on(ex.run(stopped.recv())));
        }
        let start = Instant::now();
        let outcome = futures_lite::future::block_on(async {
            let workers: Vec<_> = workers.into_iter().map(|w| ex.spawn(w)).collect();
            let outcome = ex.spawn(coordinator).await;
            for w in workers {
                w.await;
            }
            outcome
        });
        let wall = start.elapsed();
        // Closing the channel ends every `ex.run` above; the scope joins the threads.
        drop(stop);
        outcome.map(|()| wall)
    })
}
