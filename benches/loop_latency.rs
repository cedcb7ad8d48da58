//! IO and timers while loops run: a task runs data-parallel loops whose items spin for a
//! fixed time, occupying every worker, while
//! - a 5 ms interval ticks (lateness: how long after its scheduled time each tick ran),
//! - a plain thread pings a TCP echo task of the runtime every 5 ms (round trip),
//! - a plain thread sends on an `async_channel` every 5 ms (how long the receiving task
//!   took to see it).
//!
//! Contenders, in the same run, with the same number of workers: filch (the loops on the
//! executor's own workers, IO and timers on its driver) and tokio + rayon (a tokio runtime
//! for the services, a rayon pool of as many threads for the loops; the OS time-slices the
//! two pools). The task's loops come in three shapes, each a pair of rows:
//! - `filch` / `tokio + rayon`: the task *awaits* one loop of about 400 ms: filch's
//!   `par_map_vec(..).await`; on tokio, the loop spawned on the rayon pool and awaited
//!   through a oneshot channel (the recommended bridge);
//! - `… par_iter direct (long loop)`: the task's poll *calls* one parallel iterator of the
//!   same size directly, the rayon habit, with no `.await`:
//!   `(0..n).into_par_iter().map(|_| spin(cost)).sum::<u64>()` (`filch::par::prelude::*`;
//!   on tokio, rayon's `into_par_iter` under `pool.install`, which blocks the tokio worker
//!   for the whole call: the known anti-pattern, there for the comparison);
//! - `… par_iter direct (short loops of K)`: the same direct call on loops of K items of
//!   50 µs (K = 10, 64, 1,024), back to back in the one poll for about 400 ms, so each loop
//!   is short but the task keeps its worker (and the loops every worker) for the whole
//!   measurement.
//!
//! Item costs: 50 µs, 2 ms and 20 ms for the first two shapes, 50 µs for the short loops.
//! A sample counts when its tick, ping or send was scheduled while the task ran (the bench
//! waits 20 ms after it for the ones it held up). Each round runs every contender once per
//! shape and item cost; the table shows the worst value of each measure over all rounds,
//! and the median, one table per worker count: 1 worker, then 2, or only
//! `FILCH_BENCH_WORKERS` (a count, or a comma list such as `1,4`) where it is set.
//!
//! ```text
//! cargo bench -p filch-benches --bench loop_latency                  # 3 rounds, 1 and 2 workers
//! cargo bench -p filch-benches --bench loop_latency -- --rounds 5
//! FILCH_BENCH_WORKERS=2 cargo bench -p filch-benches --bench loop_latency   # 2 workers only
//! ```
//!
//! Without `--bench` (as `cargo test --benches` runs it) it runs one short round (loops of
//! ~20 ms) per worker count.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The period of the interval, the pings and the channel sends.
const PERIOD: Duration = Duration::from_millis(5);

/// Items per loop of the short-loop shapes (their items cost [`SHORT_COST`]).
const SHORT_ITEMS: [usize; 3] = [10, 64, 1024];

/// The item cost of the short-loop shapes.
const SHORT_COST: Duration = Duration::from_micros(50);

/// What the measured task does with its loops.
#[derive(Clone, Copy)]
enum Shape {
    /// Awaits one loop of `n` items.
    Awaited { n: usize },
    /// Calls one parallel iterator of `n` items directly in its poll.
    DirectLong { n: usize },
    /// Calls parallel iterators of `items` items directly in its poll, back to back, until
    /// `time` has passed.
    DirectShort { items: usize, time: Duration },
}

impl Shape {
    /// The row's label, after the runtime's name.
    fn label(self) -> String {
        match self {
            Shape::Awaited { .. } => String::new(),
            Shape::DirectLong { .. } => " par_iter direct (long loop)".to_string(),
            Shape::DirectShort { items, .. } => {
                format!(" par_iter direct (short loops of {items})")
            }
        }
    }
}

/// What one contender saw during one loop.
#[derive(Default)]
struct Samples {
    timer: Vec<Duration>,
    tcp: Vec<Duration>,
    channel: Vec<Duration>,
}

/// Spins (without sleeping) for `cost`: an item of the loop.
fn spin(cost: Duration) -> u64 {
    let start = Instant::now();
    let mut x = 0u64;
    while start.elapsed() < cost {
        x = x.wrapping_add(1);
        std::hint::spin_loop();
    }
    x
}

/// One direct call of filch's parallel iterators: `n` items of `cost`.
fn filch_direct(n: usize, cost: Duration) -> u64 {
    use filch::par::prelude::*;
    (0..n as u64)
        .into_par_iter()
        .map(|_| spin(cost))
        .sum::<u64>()
}

/// One direct call of rayon's parallel iterators on `pool`: `n` items of `cost`. The
/// calling thread (a tokio worker) blocks until the call is done.
fn rayon_direct(pool: &rayon::ThreadPool, n: usize, cost: Duration) -> u64 {
    use rayon::prelude::*;
    pool.install(|| {
        (0..n as u64)
            .into_par_iter()
            .map(|_| spin(cost))
            .sum::<u64>()
    })
}

/// A measure's records: when the tick, ping or send was due or made, and how late or long.
type Shared = Arc<Mutex<Vec<(Instant, Duration)>>>;

/// The plain threads of a measurement: pings `addr` every [`PERIOD`] (recording round
/// trips) and sends the send time on `tx` every [`PERIOD`], until `stop`.
fn start_clients(
    addr: std::net::SocketAddr,
    tx: async_channel::Sender<Instant>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    tcp: Shared,
) -> Vec<thread::JoinHandle<()>> {
    use std::io::{Read, Write};
    use std::sync::atomic::Ordering;
    let pinger = {
        let stop = Arc::clone(&stop);
        thread::spawn(move || {
            let mut conn = std::net::TcpStream::connect(addr).unwrap();
            conn.set_nodelay(true).unwrap();
            let mut byte = [0u8; 1];
            while !stop.load(Ordering::SeqCst) {
                let sent = Instant::now();
                conn.write_all(b"p").unwrap();
                conn.read_exact(&mut byte).unwrap();
                tcp.lock().unwrap().push((sent, sent.elapsed()));
                thread::sleep(PERIOD);
            }
        })
    };
    let sender = thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            if tx.send_blocking(Instant::now()).is_err() {
                return;
            }
            thread::sleep(PERIOD);
        }
    });
    vec![pinger, sender]
}

fn run_filch(ex: &filch::Executor, cost: Duration, shape: Shape) -> Samples {
    use futures::{AsyncReadExt, AsyncWriteExt};
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let (timer, channel, tcp): (Shared, Shared, Shared) = Default::default();
    let listener = ex
        .block_on(filch::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let echo = ex.spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        conn.set_nodelay(true).unwrap();
        let mut byte = [0u8; 1];
        while conn.read_exact(&mut byte).await.is_ok() {
            if conn.write_all(&byte).await.is_err() {
                return;
            }
        }
    });
    let (tx, rx) = async_channel::unbounded::<Instant>();
    let receiver = {
        let channel = Arc::clone(&channel);
        ex.spawn(async move {
            while let Ok(sent) = rx.recv().await {
                channel.lock().unwrap().push((sent, sent.elapsed()));
            }
        })
    };
    let ticker = {
        let (timer, stop) = (Arc::clone(&timer), Arc::clone(&stop));
        ex.spawn(async move {
            let mut interval = filch::time::interval(PERIOD);
            interval.tick().await;
            while !stop.load(Ordering::SeqCst) {
                let next = interval.tick().await.into_std();
                timer
                    .lock()
                    .unwrap()
                    .push((next, Instant::now().saturating_duration_since(next)));
            }
        })
    };
    let clients = start_clients(addr, tx, Arc::clone(&stop), Arc::clone(&tcp));
    thread::sleep(PERIOD * 4);
    let start = Instant::now();
    let out = ex.block_on(ex.spawn(async move {
        match shape {
            Shape::Awaited { n } => {
                let items: Vec<u64> = (0..n as u64).collect();
                let out = filch::par_map_vec(items, move |x| x ^ spin(cost)).await;
                assert_eq!(out.len(), n);
            }
            Shape::DirectLong { n } => {
                std::hint::black_box(filch_direct(n, cost));
            }
            Shape::DirectShort { items, time } => {
                let begun = Instant::now();
                while begun.elapsed() < time {
                    std::hint::black_box(filch_direct(items, cost));
                }
            }
        }
    }));
    out.unwrap();
    let samples = take(&timer, &tcp, &channel, start, Instant::now());
    stop.store(true, Ordering::SeqCst);
    for c in clients {
        c.join().unwrap();
    }
    ex.block_on(async {
        let _ = ticker.await;
        let _ = receiver.await;
        let _ = echo.await;
    });
    samples
}

fn run_tokio_rayon(
    rt: &tokio::runtime::Runtime,
    pool: &Arc<rayon::ThreadPool>,
    cost: Duration,
    shape: Shape,
) -> Samples {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stop = Arc::new(AtomicBool::new(false));
    let (timer, channel, tcp): (Shared, Shared, Shared) = Default::default();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let echo = rt.spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        conn.set_nodelay(true).unwrap();
        let mut byte = [0u8; 1];
        while conn.read_exact(&mut byte).await.is_ok() {
            if conn.write_all(&byte).await.is_err() {
                return;
            }
        }
    });
    let (tx, rx) = async_channel::unbounded::<Instant>();
    let receiver = {
        let channel = Arc::clone(&channel);
        rt.spawn(async move {
            while let Ok(sent) = rx.recv().await {
                channel.lock().unwrap().push((sent, sent.elapsed()));
            }
        })
    };
    let ticker = {
        let (timer, stop) = (Arc::clone(&timer), Arc::clone(&stop));
        rt.spawn(async move {
            let mut interval = tokio::time::interval(PERIOD);
            interval.tick().await;
            while !stop.load(Ordering::SeqCst) {
                let next = interval.tick().await.into_std();
                timer
                    .lock()
                    .unwrap()
                    .push((next, Instant::now().saturating_duration_since(next)));
            }
        })
    };
    let clients = start_clients(addr, tx, Arc::clone(&stop), Arc::clone(&tcp));
    thread::sleep(PERIOD * 4);
    let start = Instant::now();
    let pool = Arc::clone(pool);
    let out = rt.block_on(rt.spawn(async move {
        match shape {
            Shape::Awaited { n } => {
                let items: Vec<u64> = (0..n as u64).collect();
                let (done_tx, done_rx) = tokio::sync::oneshot::channel();
                pool.spawn(move || {
                    let out: Vec<u64> = items.into_par_iter().map(|x| x ^ spin(cost)).collect();
                    let _ = done_tx.send(out);
                });
                assert_eq!(done_rx.await.unwrap().len(), n);
            }
            Shape::DirectLong { n } => {
                std::hint::black_box(rayon_direct(&pool, n, cost));
            }
            Shape::DirectShort { items, time } => {
                let begun = Instant::now();
                while begun.elapsed() < time {
                    std::hint::black_box(rayon_direct(&pool, items, cost));
                }
            }
        }
    }));
    out.unwrap();
    let samples = take(&timer, &tcp, &channel, start, Instant::now());
    stop.store(true, Ordering::SeqCst);
    for c in clients {
        c.join().unwrap();
    }
    rt.block_on(async {
        let _ = ticker.await;
        let _ = receiver.await;
        let _ = echo.await;
    });
    samples
}

/// The durations of the records scheduled between `start` and `end` (the task's run), after
/// giving the ones the task held up time to come in.
fn take(timer: &Shared, tcp: &Shared, channel: &Shared, start: Instant, end: Instant) -> Samples {
    thread::sleep(PERIOD * 4);
    let within = |s: &Shared| -> Vec<Duration> {
        s.lock()
            .unwrap()
            .iter()
            .filter(|&&(at, _)| at >= start && at <= end)
            .map(|&(_, d)| d)
            .collect()
    };
    Samples {
        timer: within(timer),
        tcp: within(tcp),
        channel: within(channel),
    }
}

fn max(v: &[Duration]) -> Duration {
    v.iter().copied().max().unwrap_or_default()
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The worker counts to run: `FILCH_BENCH_WORKERS` (a count or a comma list), else 1 and 2.
fn worker_counts() -> Vec<usize> {
    let counts: Vec<usize> = std::env::var("FILCH_BENCH_WORKERS")
        .ok()
        .map(|v| {
            v.split(',')
                .filter_map(|s| s.trim().parse().ok())
                .filter(|&n| n > 0)
                .collect()
        })
        .unwrap_or_default();
    if counts.is_empty() {
        vec![1, 2]
    } else {
        counts
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if bench { 3 } else { 1 });
    // Each task's loops take about this long on `workers` workers.
    let loop_time = if bench {
        Duration::from_millis(400)
    } else {
        Duration::from_millis(20)
    };
    let costs = [
        Duration::from_micros(50),
        Duration::from_millis(2),
        Duration::from_millis(20),
    ];
    for workers in worker_counts() {
        // The rows: (item cost, shape), each run by both contenders.
        let mut rows: Vec<(Duration, Shape)> = Vec::new();
        for &cost in &costs {
            let n = ((loop_time.as_nanos() * workers as u128) / cost.as_nanos()).max(1) as usize;
            rows.push((cost, Shape::Awaited { n }));
            rows.push((cost, Shape::DirectLong { n }));
        }
        for items in SHORT_ITEMS {
            let time = loop_time;
            rows.push((SHORT_COST, Shape::DirectShort { items, time }));
        }
        let ex = filch::Executor::builder()
            .worker_threads(workers)
            .build()
            .unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap();
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap(),
        );
        let mut results: Vec<[Samples; 2]> = rows.iter().map(|_| Default::default()).collect();
        for round in 0..rounds {
            for (i, &(cost, shape)) in rows.iter().enumerate() {
                let runs = [
                    run_filch(&ex, cost, shape),
                    run_tokio_rayon(&rt, &pool, cost, shape),
                ];
                for (acc, run) in results[i].iter_mut().zip(runs) {
                    acc.timer.extend(run.timer);
                    acc.tcp.extend(run.tcp);
                    acc.channel.extend(run.channel);
                }
            }
            eprintln!(
                "benches/loop_latency: {workers} worker(s), round {} of {rounds} done",
                round + 1
            );
        }
        println!(
            "\nWhile every worker runs a loop ({workers} {}, loops of ~{} ms, {rounds} \
             round(s)): worst (median) over all rounds\n",
            if workers == 1 { "worker" } else { "workers" },
            loop_time.as_millis()
        );
        println!("| item cost | runtime | timer lateness | TCP echo round trip | channel wake |");
        println!("|---|---|---:|---:|---:|");
        for ((cost, shape), [filch, peer]) in rows.iter().zip(&results) {
            for (name, s) in [("filch", filch), ("tokio + rayon", peer)] {
                println!(
                    "| {cost:?} | {name}{} | {} ({}) | {} ({}) | {} ({}) |",
                    shape.label(),
                    ms(max(&s.timer)),
                    ms(median(&s.timer)),
                    ms(max(&s.tcp)),
                    ms(median(&s.tcp)),
                    ms(max(&s.channel)),
                    ms(median(&s.channel)),
                );
            }
        }
    }
}
