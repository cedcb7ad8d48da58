//! The three executors the benchmarks compare, behind one small trait, each built with
//! the same number of worker threads and driven the way its own users drive it:
//! `filch::spawn` and `tokio::spawn` from the runtime context, async-executor through a
//! `&'static Executor` (the idiomatic smol set-up: a leaked, global-like executor).

#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;
use std::thread;

/// An executor under test.
pub trait Runtime: Send + Sync + 'static {
    /// Short name used in benchmark ids.
    fn name(&self) -> &'static str;
    /// Polls `future` to completion on the calling thread (which is no worker).
    fn block_on<F: Future + Send + 'static>(&self, future: F) -> F::Output
    where
        F::Output: Send + 'static;
    /// Spawns a detached task from inside one of this runtime's tasks.
    fn spawn_here<F: Future<Output = ()> + Send + 'static>(&self, future: F);
    /// Spawns a detached task from a thread that is no worker.
    fn spawn_remote<F: Future<Output = ()> + Send + 'static>(&self, future: F);
    /// This runtime's own `yield_now`.
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static;
}

/// filch with the given wake policy.
pub struct Filch {
    pub ex: filch::Executor,
    pub label: &'static str,
}

impl Filch {
    pub fn new(workers: usize, policy: filch::WakePolicy, label: &'static str) -> Arc<Filch> {
        let ex = filch::Executor::builder()
            .worker_threads(workers)
            .wake_policy(policy)
            .build()
            .expect("start filch");
        Arc::new(Filch { ex, label })
    }
}

impl Runtime for Filch {
    fn name(&self) -> &'static str {
        self.label
    }
    fn block_on<F: Future + Send + 'static>(&self, future: F) -> F::Output
    where
        F::Output: Send + 'static,
    {
        self.ex.block_on(future)
    }
    fn spawn_here<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        drop(filch::spawn(future));
    }
    fn spawn_remote<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        drop(self.ex.spawn(future));
    }
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        filch::yield_now()
    }
}

/// tokio's multi-thread runtime.
pub struct Tokio {
    pub rt: tokio::runtime::Runtime,
}

impl Tokio {
    pub fn new(workers: usize) -> Arc<Tokio> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .build()
            .expect("start tokio");
        Arc::new(Tokio { rt })
    }
}

impl Runtime for Tokio {
    fn name(&self) -> &'static str {
        "tokio"
    }
    fn block_on<F: Future + Send + 'static>(&self, future: F) -> F::Output
    where
        F::Output: Send + 'static,
    {
        self.rt.block_on(future)
    }
    fn spawn_here<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        drop(tokio::spawn(future));
    }
    fn spawn_remote<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        drop(self.rt.spawn(future));
    }
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        tokio::task::yield_now()
    }
}

/// smol's async-executor, run by `workers` threads.
pub struct AsyncExecutor {
    pub ex: &'static async_executor::Executor<'static>,
    stop: Option<async_channel::Sender<()>>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl AsyncExecutor {
    pub fn new(workers: usize) -> Arc<AsyncExecutor> {
        let ex: &'static async_executor::Executor<'static> =
            Box::leak(Box::new(async_executor::Executor::new()));
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let threads = (0..workers)
            .map(|i| {
                let stopped = stopped.clone();
                thread::Builder::new()
                    .name(format!("async-executor-{i}"))
                    .spawn(move || {
                        let _ = futures_lite::future::block_on(ex.run(stopped.recv()));
                    })
                    .expect("start async-executor thread")
            })
            .collect();
        Arc::new(AsyncExecutor {
            ex,
            stop: Some(stop),
            threads,
        })
    }
}

impl Drop for AsyncExecutor {
    fn drop(&mut self) {
        drop(self.stop.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Runtime for AsyncExecutor {
    fn name(&self) -> &'static str {
        "async-executor"
    }
    fn block_on<F: Future + Send + 'static>(&self, future: F) -> F::Output
    where
        F::Output: Send + 'static,
    {
        futures_lite::future::block_on(future)
    }
    fn spawn_here<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        self.ex.spawn(future).detach();
    }
    fn spawn_remote<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        self.ex.spawn(future).detach();
    }
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        futures_lite::future::yield_now()
    }
}

/// The number of worker threads for the comparison: `FILCH_BENCH_WORKERS`, default 2.
pub fn bench_workers() -> usize {
    std::env::var("FILCH_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(2)
}
