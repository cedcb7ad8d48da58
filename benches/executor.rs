//! Executor micro-benchmarks: filch (both wake policies) against tokio's multi-thread
//! runtime and async-executor, in the same run, with the same number of worker threads
//! (`FILCH_BENCH_WORKERS`, default 2).
//!
//! `cargo bench -p filch-benches --bench executor` prints criterion's timings and, at the end, a table of
//! medians with filch's ratio to the faster peer.
//!
//! With the feature `console` and `FILCH_BENCH_CONSOLE=1`, every runtime runs under
//! console-subscriber (tokio only when built with `--cfg tokio_unstable`: docs/benchmarks.md,
//! "tokio-console's cost").
//!
//! Workloads (after tokio's `benches/rt_multi_threaded.rs`):
//! - spawn_many_local: one task spawns 100,000 tiny tasks and waits for all;
//! - spawn_many_remote: a thread that is no worker spawns 100,000 tiny tasks;
//! - yield_many: 200 tasks each yield 5,000 times;
//! - ping_pong: 1,000 pairs of tasks exchanging oneshot messages;
//! - chained_spawn: a chain of 1,000 tasks, each spawning the next;
//! - spawn_tree: fork-join by spawning, a binary tree of depth 16 (131,071 tasks): each node
//!   spawns its two children and awaits them; spawn_tree_yield: the same tree, each node
//!   yielding once (its runtime's `yield_now`) before it forks, so that its forks come in a
//!   later poll; after the timings, a second table gives each runtime's peak of tasks
//!   spawned and not yet finished in both trees (depth-first execution keeps it near
//!   2 x depth x workers, breadth-first near a whole level of the tree);
//! - scatter_gather_n{N}_w{W}us: the WS-LAST paper's workload (one coordinator, N worker
//!   tasks, capacity-1 channels both ways, W µs of spinning per message), from
//!   `examples/scatter_gather/workload.rs`, at n = 16, w = 10 and 100 µs, and n = 64, w = 10 µs.

mod common;
#[path = "../examples/scatter_gather/workload.rs"]
mod workload;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion};
use futures::channel::oneshot;

use common::report;
use common::runtimes::{bench_workers, AsyncExecutor, Filch, Runtime, Tokio};

const NUM_SPAWN: usize = 100_000;
const YIELD_TASKS: usize = 200;
const NUM_YIELD: usize = 5_000;
const NUM_PINGS: usize = 1_000;
const CHAIN: usize = 1_000;
const TREE_DEPTH: u32 = 16;

/// Sends on `done` when the last of `remaining` tasks finishes.
fn finish_one(remaining: &AtomicUsize, done: &std::sync::Mutex<Option<oneshot::Sender<()>>>) {
    if remaining.fetch_sub(1, Ordering::AcqRel) == 1
        && let Some(tx) = done.lock().unwrap().take()
    {
        let _ = tx.send(());
    }
}

type Done = Arc<std::sync::Mutex<Option<oneshot::Sender<()>>>>;

fn done_pair() -> (Done, oneshot::Receiver<()>) {
    let (tx, rx) = oneshot::channel();
    (Arc::new(std::sync::Mutex::new(Some(tx))), rx)
}

fn spawn_many_local<R: Runtime>(rt: &Arc<R>) {
    let (done, rx) = done_pair();
    let remaining = Arc::new(AtomicUsize::new(NUM_SPAWN));
    let inner = Arc::clone(rt);
    rt.block_on(async move {
        let spawner = Arc::clone(&inner);
        inner.spawn_remote(async move {
            for _ in 0..NUM_SPAWN {
                let remaining = Arc::clone(&remaining);
                let done = Arc::clone(&done);
                spawner.spawn_here(async move { finish_one(&remaining, &done) });
            }
        });
        rx.await.unwrap();
    });
}

fn spawn_many_remote<R: Runtime>(rt: &Arc<R>) {
    let (done, rx) = done_pair();
    let remaining = Arc::new(AtomicUsize::new(NUM_SPAWN));
    for _ in 0..NUM_SPAWN {
        let remaining = Arc::clone(&remaining);
        let done = Arc::clone(&done);
        rt.spawn_remote(async move { finish_one(&remaining, &done) });
    }
    rt.block_on(async move { rx.await.unwrap() });
}

fn yield_many<R: Runtime>(rt: &Arc<R>) {
    let (done, rx) = done_pair();
    let remaining = Arc::new(AtomicUsize::new(YIELD_TASKS));
    for _ in 0..YIELD_TASKS {
        let remaining = Arc::clone(&remaining);
        let done = Arc::clone(&done);
        let me = Arc::clone(rt);
        rt.spawn_remote(async move {
            for _ in 0..NUM_YIELD {
                me.yield_now().await;
            }
            finish_one(&remaining, &done);
        });
    }
    rt.block_on(async move { rx.await.unwrap() });
}

fn ping_pong<R: Runtime>(rt: &Arc<R>) {
    let (done, rx) = done_pair();
    let remaining = Arc::new(AtomicUsize::new(NUM_PINGS));
    let inner = Arc::clone(rt);
    rt.block_on(async move {
        let spawner = Arc::clone(&inner);
        inner.spawn_remote(async move {
            for _ in 0..NUM_PINGS {
                let remaining = Arc::clone(&remaining);
                let done = Arc::clone(&done);
                let rt = Arc::clone(&spawner);
                spawner.spawn_here(async move {
                    let (tx1, rx1) = oneshot::channel::<()>();
                    let (tx2, rx2) = oneshot::channel::<()>();
                    rt.spawn_here(async move {
                        rx1.await.unwrap();
                        tx2.send(()).unwrap();
                    });
                    tx1.send(()).unwrap();
                    rx2.await.unwrap();
                    finish_one(&remaining, &done);
                });
            }
        });
        rx.await.unwrap();
    });
}

fn chained_spawn<R: Runtime>(rt: &Arc<R>) {
    fn link<R: Runtime>(rt: Arc<R>, done: oneshot::Sender<()>, n: usize) {
        if n == 0 {
            let _ = done.send(());
        } else {
            let next = Arc::clone(&rt);
            rt.spawn_here(async move { link(next, done, n - 1) });
        }
    }
    let (tx, rx) = oneshot::channel();
    let inner = Arc::clone(rt);
    rt.block_on(async move {
        let chain = Arc::clone(&inner);
        inner.spawn_remote(async move { link(chain, tx, CHAIN) });
        rx.await.unwrap();
    });
}

/// Tasks of a spawn tree spawned and not yet finished, and the most there were at once.
#[derive(Default)]
struct Outstanding {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// A node of the spawn tree: yields first if `yield_first`, then spawns its two children
/// (when `depth > 0`) and awaits both.
fn tree_node<R: Runtime>(
    rt: Arc<R>,
    depth: u32,
    count: Option<Arc<Outstanding>>,
    yield_first: bool,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        if yield_first {
            rt.yield_now().await;
        }
        if depth == 0 {
            return;
        }
        let mut children = Vec::with_capacity(2);
        for _ in 0..2 {
            let (tx, rx) = oneshot::channel::<()>();
            children.push(rx);
            if let Some(count) = &count {
                let now = count.now.fetch_add(1, Ordering::SeqCst) + 1;
                count.peak.fetch_max(now, Ordering::SeqCst);
            }
            let child = tree_node(Arc::clone(&rt), depth - 1, count.clone(), yield_first);
            let count = count.clone();
            rt.spawn_here(async move {
                child.await;
                if let Some(count) = count {
                    count.now.fetch_sub(1, Ordering::SeqCst);
                }
                let _ = tx.send(());
            });
        }
        for rx in children {
            rx.await.unwrap();
        }
    })
}

/// The spawn tree (see the module docs), its nodes yielding before they fork if
/// `yield_first`; with `count`, counts the outstanding tasks.
fn spawn_tree<R: Runtime>(rt: &Arc<R>, count: Option<Arc<Outstanding>>, yield_first: bool) {
    let (tx, rx) = oneshot::channel();
    let root = tree_node(Arc::clone(rt), TREE_DEPTH, count, yield_first);
    rt.spawn_remote(async move {
        root.await;
        let _ = tx.send(());
    });
    rt.block_on(async move { rx.await.unwrap() });
}

/// The peak of outstanding tasks of one spawn tree on each runtime, its nodes forking in
/// their first poll and after a yield (three trees each; the largest and the smallest peak).
fn print_spawn_tree_peaks(workers: usize) {
    println!(
        "\nspawn_tree, depth {TREE_DEPTH} ({} tasks), {workers} workers: peak of tasks \
         spawned and not yet finished (largest and smallest of 3 trees; 2 x depth x workers \
         = {})\n",
        (1usize << (TREE_DEPTH + 1)) - 1,
        2 * TREE_DEPTH as usize * workers
    );
    println!("| runtime | forks in the first poll | forks after a yield |");
    println!("|---|---:|---:|");
    for rt in runtimes(workers) {
        let peaks = |yield_first: bool| {
            let peaks: Vec<usize> = (0..3).map(|_| rt.tree_peak(yield_first)).collect();
            let (min, max) = (peaks.iter().min(), peaks.iter().max());
            format!("{} - {}", min.unwrap_or(&0), max.unwrap_or(&0))
        };
        println!("| {} | {} | {} |", rt.label(), peaks(false), peaks(true));
    }
}

/// Runs workload `name` on every runtime as one criterion group.
fn compare(c: &mut Criterion, name: &'static str) {
    let workers = bench_workers();
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for rt in runtimes(workers) {
        group.bench_with_input(BenchmarkId::from_parameter(rt.label()), &rt, |b, rt| {
            b.iter(|| rt.run(name))
        });
    }
    group.finish();
}

/// A runtime behind a trait object, so one group can iterate over all of them.
trait ErasedRuntime {
    fn label(&self) -> &'static str;
    fn run(&self, workload: &str);
    /// The peak of outstanding tasks of one spawn tree (its nodes yielding before they fork
    /// if `yield_first`).
    fn tree_peak(&self, yield_first: bool) -> usize;
}

impl<R: Runtime> ErasedRuntime for Arc<R> {
    fn label(&self) -> &'static str {
        self.name()
    }
    fn run(&self, workload: &str) {
        match workload {
            "spawn_many_local" => spawn_many_local(self),
            "spawn_many_remote" => spawn_many_remote(self),
            "yield_many" => yield_many(self),
            "ping_pong" => ping_pong(self),
            "chained_spawn" => chained_spawn(self),
            "spawn_tree" => spawn_tree(self, None, false),
            "spawn_tree_yield" => spawn_tree(self, None, true),
            other => unreachable!("unknown workload {other}"),
        }
    }
    fn tree_peak(&self, yield_first: bool) -> usize {
        let count = Arc::new(Outstanding::default());
        spawn_tree(self, Some(Arc::clone(&count)), yield_first);
        count.peak.load(Ordering::SeqCst)
    }
}

fn runtimes(workers: usize) -> Vec<Box<dyn ErasedRuntime>> {
    vec![
        Box::new(Filch::new(
            workers,
            filch::WakePolicy::LastWorker,
            "filch-last",
        )),
        Box::new(Filch::new(
            workers,
            filch::WakePolicy::CurrentWorker,
            "filch-current",
        )),
        Box::new(Tokio::new(workers)),
        Box::new(AsyncExecutor::new(workers)),
    ]
}

const WORKLOADS: [&str; 7] = [
    "spawn_many_local",
    "spawn_many_remote",
    "yield_many",
    "ping_pong",
    "chained_spawn",
    "spawn_tree",
    "spawn_tree_yield",
];

/// The scatter-gather points: (group name, n, w, rounds per iteration).
const SCATTER_GATHER: [(&str, usize, u64, usize); 3] = [
    ("scatter_gather_n16_w10us", 16, 10, 50),
    ("scatter_gather_n16_w100us", 16, 100, 10),
    ("scatter_gather_n64_w10us", 64, 10, 20),
];

/// The scatter-gather workload on every runtime; each iteration is one timed run.
fn scatter_gather(c: &mut Criterion) {
    let workers = bench_workers();
    let last = Filch::new(workers, filch::WakePolicy::LastWorker, "filch-last");
    let current = Filch::new(workers, filch::WakePolicy::CurrentWorker, "filch-current");
    let tokio = Tokio::new(workers);
    let smol = AsyncExecutor::new(workers);
    for (name, n, w, rounds) in SCATTER_GATHER {
        let params = workload::Params::new(n, rounds, Duration::from_micros(w));
        let mut group = c.benchmark_group(name);
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        let timed = |b: &mut criterion::Bencher, run: &dyn Fn() -> Duration| {
            b.iter_custom(|iters| (0..iters).map(|_| run()).sum())
        };
        group.bench_function("filch-last", |b| {
            timed(b, &|| {
                workload::run_filch(&last.ex, params).expect("scatter-gather on filch")
            })
        });
        group.bench_function("filch-current", |b| {
            timed(b, &|| {
                workload::run_filch(&current.ex, params).expect("scatter-gather on filch")
            })
        });
        group.bench_function("tokio", |b| {
            timed(b, &|| {
                workload::run_tokio(&tokio.rt, params).expect("scatter-gather on tokio")
            })
        });
        group.bench_function("async-executor", |b| {
            timed(b, &|| {
                workload::run_async_executor(smol.ex, 0, params)
                    .expect("scatter-gather on async-executor")
            })
        });
        group.finish();
    }
}

fn benches(c: &mut Criterion) {
    for name in WORKLOADS {
        compare(c, name);
    }
    scatter_gather(c);
}

criterion_group!(executor, benches);

fn main() {
    if let Ok(spec) = std::env::var("FILCH_BENCH_COUNT") {
        return count_run(&spec);
    }
    // Under tokio-console's subscriber (feature `console`, docs/benchmarks.md).
    #[cfg(feature = "console")]
    if std::env::var_os("FILCH_BENCH_CONSOLE").is_some() {
        console_subscriber::init();
    }
    executor();
    Criterion::default().configure_from_args().final_summary();
    let groups: Vec<&str> = WORKLOADS
        .iter()
        .copied()
        .chain(SCATTER_GATHER.iter().map(|(name, ..)| *name))
        .collect();
    report::print_table(
        &groups,
        &["filch-last", "filch-current"],
        &["tokio", "async-executor"],
    );
    print_spawn_tree_peaks(bench_workers());
}

/// `FILCH_BENCH_COUNT=WORKLOAD:N` (or `WORKLOAD:N:RUNTIME`, default `filch-last`): runs
/// `WORKLOAD` `N` times on one runtime, after one run to warm up, and nothing else. A fixed
/// amount of work, for `valgrind --tool=cachegrind`, whose instruction counts compare two
/// builds without the VM's timing noise:
///
/// ```text
/// FILCH_BENCH_COUNT=yield_many:2 valgrind --tool=cachegrind --cache-sim=no BINARY
/// ```
fn count_run(spec: &str) {
    let mut parts = spec.split(':');
    let workload = parts.next().unwrap_or_default();
    assert!(
        WORKLOADS.contains(&workload),
        "FILCH_BENCH_COUNT: unknown workload {workload:?} (one of {WORKLOADS:?})"
    );
    let count: usize = parts
        .next()
        .and_then(|n| n.parse().ok())
        .expect("FILCH_BENCH_COUNT: WORKLOAD:N, N a number");
    let label = parts.next().unwrap_or("filch-last");
    let runtime = runtimes(bench_workers())
        .into_iter()
        .find(|rt| rt.label() == label)
        .unwrap_or_else(|| panic!("FILCH_BENCH_COUNT: unknown runtime {label:?}"));
    let started = std::time::Instant::now();
    for _ in 0..=count {
        runtime.run(workload);
    }
    println!(
        "{label} {workload}: {} runs in {:?}",
        count + 1,
        started.elapsed()
    );
}
