//! IO and timers while loops run: a task awaits a data-parallel loop whose items spin for a
//! fixed time, occupying every worker, while
//! - a 5 ms interval ticks (lateness: how long after its scheduled time each tick ran),
//! - a plain thread pings a TCP echo task of the runtime every 5 ms (round trip),
//! - a plain thread sends on an `async_channel` every 5 ms (how long the receiving task
//!   took to see it).
//!
//! Contenders, in the same run, with the same number of workers (`FILCH_BENCH_WORKERS`,
//! default 2): filch (`par_map_vec` on the executor's own workers, IO and timers on its
//! driver) and tokio + rayon (a tokio runtime for the services, a rayon pool of as many
//! threads for the loop, awaited through a oneshot channel; the OS time-slices the two
//! pools). Each round runs every contender once per item cost; the table shows the worst
//! value of each measure over all rounds, and the median.
//!
//! ```text
//! cargo bench -p filch-benches --bench loop_latency                  # 3 rounds, items of 50 µs, 2 ms, 20 ms
//! cargo bench -p filch-benches --bench loop_latency -- --rounds 5
//! ```
//!
//! Without `--bench` (as `cargo test --benches` runs it) it runs one short round.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The period of the interval, the pings and the channel sends.
const PERIOD: Duration = Duration::from_millis(5);

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

/// The plain threads of a measurement: pings `addr` every [`PERIOD`] (recording round
/// trips) and sends the send time on `tx` every [`PERIOD`], until `stop`.
fn start_clients(
    addr: std::net::SocketAddr,
    tx: async_channel::Sender<Instant>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    tcp: Arc<Mutex<Vec<Duration>>>,
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
                tcp.lock().unwrap().push(sent.elapsed());
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

fn run_filch(ex: &filch::Executor, cost: Duration, n: usize) -> Samples {
    use futures::{AsyncReadExt, AsyncWriteExt};
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let (timer, channel, tcp) = (
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
    );
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
                channel.lock().unwrap().push(sent.elapsed());
            }
        })
    };
    let ticker = {
        let (timer, stop) = (Arc::clone(&timer), Arc::clone(&stop));
        ex.spawn(async move {
            let mut interval = filch::time::interval(PERIOD);
            interval.tick().await;
            while !stop.load(Ordering::SeqCst) {
                let next = interval.tick().await;
                timer
                    .lock()
                    .unwrap()
                    .push(Instant::now().saturating_duration_since(next.into_std()));
            }
        })
    };
    let clients = start_clients(addr, tx, Arc::clone(&stop), Arc::clone(&tcp));
    thread::sleep(PERIOD * 4);
    clear(&timer, &tcp, &channel);
    let items: Vec<u64> = (0..n as u64).collect();
    let out = ex.block_on(
        ex.spawn(async move { filch::par_map_vec(items, move |x| x ^ spin(cost)).await }),
    );
    assert_eq!(out.unwrap().len(), n);
    let samples = take(&timer, &tcp, &channel);
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
    n: usize,
) -> Samples {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stop = Arc::new(AtomicBool::new(false));
    let (timer, channel, tcp) = (
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
    );
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
                channel.lock().unwrap().push(sent.elapsed());
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
                    .push(Instant::now().saturating_duration_since(next));
            }
        })
    };
    let clients = start_clients(addr, tx, Arc::clone(&stop), Arc::clone(&tcp));
    thread::sleep(PERIOD * 4);
    clear(&timer, &tcp, &channel);
    let items: Vec<u64> = (0..n as u64).collect();
    let pool = Arc::clone(pool);
    let out = rt.block_on(rt.spawn(async move {
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        pool.spawn(move || {
            let out: Vec<u64> = items.into_par_iter().map(|x| x ^ spin(cost)).collect();
            let _ = done_tx.send(out);
        });
        done_rx.await.unwrap()
    }));
    assert_eq!(out.unwrap().len(), n);
    let samples = take(&timer, &tcp, &channel);
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

type Shared = Arc<Mutex<Vec<Duration>>>;

fn clear(timer: &Shared, tcp: &Shared, channel: &Shared) {
    for s in [timer, tcp, channel] {
        s.lock().unwrap().clear();
    }
}

fn take(timer: &Shared, tcp: &Shared, channel: &Shared) -> Samples {
    Samples {
        timer: std::mem::take(&mut *timer.lock().unwrap()),
        tcp: std::mem::take(&mut *tcp.lock().unwrap()),
        channel: std::mem::take(&mut *channel.lock().unwrap()),
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

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if bench { 3 } else { 1 });
    let workers: usize = std::env::var("FILCH_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    // Each loop takes about this long on `workers` workers.
    let loop_time = if bench {
        Duration::from_millis(400)
    } else {
        Duration::from_millis(60)
    };
    let costs = [
        Duration::from_micros(50),
        Duration::from_millis(2),
        Duration::from_millis(20),
    ];
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
    let mut results: Vec<[Samples; 2]> = costs.iter().map(|_| Default::default()).collect();
    for round in 0..rounds {
        for (i, &cost) in costs.iter().enumerate() {
            let n = ((loop_time.as_nanos() * workers as u128) / cost.as_nanos()).max(1) as usize;
            let runs = [
                run_filch(&ex, cost, n),
                run_tokio_rayon(&rt, &pool, cost, n),
            ];
            for (acc, run) in results[i].iter_mut().zip(runs) {
                acc.timer.extend(run.timer);
                acc.tcp.extend(run.tcp);
                acc.channel.extend(run.channel);
            }
        }
        eprintln!("benches/loop_latency: round {} of {rounds} done", round + 1);
    }
    println!(
        "\nWhile every worker runs a loop ({workers} workers, loops of ~{} ms, {rounds} \
         round(s)): worst (median) over all rounds\n",
        loop_time.as_millis()
    );
    println!("| item cost | runtime | timer lateness | TCP echo round trip | channel wake |");
    println!("|---|---|---:|---:|---:|");
    for (cost, [filch, peer]) in costs.iter().zip(&results) {
        for (name, s) in [("filch", filch), ("tokio + rayon", peer)] {
            println!(
                "| {cost:?} | {name} | {} ({}) | {} ({}) | {} ({}) |",
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
