//! mio against smol's `polling` (3.x, edge mode: `Poller::add_with_mode(.., PollMode::Edge)`,
//! registered once, never re-armed) at the OS layer, on the operations filch's IO driver
//! (`src/runtime/io/poller.rs`) does, both in one run (issue 10):
//!
//! - `os_poll_register`: register one connected TCP stream for reading and writing,
//!   edge-triggered, and deregister it: the driver's cost per connection;
//! - `os_poll_ping_pong_n1`, `os_poll_ping_pong_n64`: N nonblocking TCP socket pairs on
//!   127.0.0.1, both ends registered once for reading and writing; one thread runs the event
//!   loop of a keep-alive server: per round every client writes a 16-byte request, the loop
//!   waits, reads each readable server side until `WouldBlock` and writes the reply back,
//!   waits, reads each readable client side until `WouldBlock`, until every reply is in. One
//!   criterion iteration is one round; the table divides by N (time per message, a message
//!   being one request and its reply on one connection);
//! - `os_poll_waker`: two threads, each blocked in its own poller, wake each other in turn
//!   (`mio::Waker::wake`, `Poller::notify`); one iteration is the round trip, the table
//!   halves it (one wake-up of a blocked wait).
//!
//! ```text
//! cargo bench -p filch-benches --bench os_poll              # criterion, then the interleaved rounds and the table
//! bash benches/os_poll_syscalls.sh         # syscalls per message of the ping-pong (strace -c)
//! ```
//!
//! criterion runs the two contenders one after the other; on a shared machine the table's
//! last column is the figure to quote: 41 rounds, each timing a ~5 ms batch of mio and one of
//! polling back to back (which goes first alternates), and the median of the per-round
//! ratios with its interquartile range.
//!
//! With `OS_POLL_STRACE=mio|polling` set, the binary runs only the ping-pong
//! (`OS_POLL_N` pairs, default 64, for `OS_POLL_ROUNDS` rounds, default 2000) and exits;
//! with `OS_POLL_STRACE=mio-waker|polling-waker`, only `OS_POLL_ROUNDS` wake round trips.
//! `benches/os_poll_syscalls.sh` runs these under `strace -c -f`.
//!
//! Without `--bench` (as `cargo test --benches` runs it) criterion runs each benchmark once
//! and the interleaved rounds are skipped.

mod common;

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::num::NonZeroUsize;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};

use common::report;

/// The request and the reply of the ping-pong.
const MSG: [u8; 16] = *b"ping-pong 16 B\r\n";

/// Events taken from the OS per wait (the driver's capacity).
const EVENTS_CAPACITY: usize = 1024;

/// The OS poller under test, as the driver uses it: sources registered once, edge-triggered,
/// for reading and writing; blocking waits.
trait Backend: Sized {
    const NAME: &'static str;
    fn new() -> io::Result<Self>;
    fn register(&mut self, stream: &TcpStream, key: usize) -> io::Result<()>;
    fn deregister(&mut self, stream: &TcpStream) -> io::Result<()>;
    /// Blocks until events arrive; calls `each(key, readable)` for every one.
    fn wait(&mut self, each: impl FnMut(usize, bool)) -> io::Result<()>;
}

struct Mio {
    poll: mio::Poll,
    events: mio::Events,
}

impl Backend for Mio {
    const NAME: &'static str = "mio";

    fn new() -> io::Result<Self> {
        Ok(Mio {
            poll: mio::Poll::new()?,
            events: mio::Events::with_capacity(EVENTS_CAPACITY),
        })
    }

    fn register(&mut self, stream: &TcpStream, key: usize) -> io::Result<()> {
        self.poll.registry().register(
            &mut mio::unix::SourceFd(&stream.as_raw_fd()),
            mio::Token(key),
            mio::Interest::READABLE | mio::Interest::WRITABLE,
        )
    }

    fn deregister(&mut self, stream: &TcpStream) -> io::Result<()> {
        self.poll
            .registry()
            .deregister(&mut mio::unix::SourceFd(&stream.as_raw_fd()))
    }

    fn wait(&mut self, mut each: impl FnMut(usize, bool)) -> io::Result<()> {
        match self.poll.poll(&mut self.events, None) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(()),
            result => result?,
        }
        for event in self.events.iter() {
            each(
                event.token().0,
                event.is_readable() || event.is_read_closed(),
            );
        }
        Ok(())
    }
}

struct Polling {
    poller: polling::Poller,
    events: polling::Events,
}

impl Backend for Polling {
    const NAME: &'static str = "polling-edge";

    fn new() -> io::Result<Self> {
        Ok(Polling {
            poller: polling::Poller::new()?,
            events: polling::Events::with_capacity(NonZeroUsize::new(EVENTS_CAPACITY).unwrap()),
        })
    }

    fn register(&mut self, stream: &TcpStream, key: usize) -> io::Result<()> {
        // SAFETY: `add_with_mode` requires the source to be deleted from this poller before
        // it is dropped. Every stream registered here is deregistered first: `RegisterLoop`
        // deletes it in the same iteration, `PingPong::drop` deletes all of its streams
        // before its fields (the streams) are dropped.
        unsafe {
            self.poller
                .add_with_mode(stream, polling::Event::all(key), polling::PollMode::Edge)
        }
    }

    fn deregister(&mut self, stream: &TcpStream) -> io::Result<()> {
        self.poller.delete(stream)
    }

    fn wait(&mut self, mut each: impl FnMut(usize, bool)) -> io::Result<()> {
        // `wait` appends: clear the last turn's events first.
        self.events.clear();
        self.poller.wait(&mut self.events, None)?;
        for event in self.events.iter() {
            each(event.key, event.readable);
        }
        Ok(())
    }
}

/// `n` connected pairs (client, server) on 127.0.0.1, nonblocking, `TCP_NODELAY`.
fn socket_pairs(n: usize) -> io::Result<Vec<(TcpStream, TcpStream)>> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let mut pairs = Vec::with_capacity(n);
    for _ in 0..n {
        let client = TcpStream::connect(addr)?;
        let (server, _) = listener.accept()?;
        for s in [&client, &server] {
            s.set_nonblocking(true)?;
            s.set_nodelay(true)?;
        }
        pairs.push((client, server));
    }
    Ok(pairs)
}

/// Register and deregister one stream, again and again.
struct RegisterLoop<B: Backend> {
    backend: B,
    stream: TcpStream,
    _peer: TcpStream,
}

impl<B: Backend> RegisterLoop<B> {
    fn new() -> io::Result<Self> {
        let (stream, peer) = socket_pairs(1)?.pop().unwrap();
        Ok(RegisterLoop {
            backend: B::new()?,
            stream,
            _peer: peer,
        })
    }

    fn once(&mut self) {
        self.backend.register(&self.stream, 0).expect("register");
        self.backend.deregister(&self.stream).expect("deregister");
    }
}

/// The keep-alive event loop over `n` pairs: server `i` has key `2i`, client `i` key `2i + 1`.
struct PingPong<B: Backend> {
    backend: B,
    clients: Vec<TcpStream>,
    servers: Vec<TcpStream>,
    /// Bytes read and not yet answered (servers) or counted (clients), per pair.
    server_bytes: Vec<usize>,
    client_bytes: Vec<usize>,
    buf: Vec<u8>,
}

impl<B: Backend> PingPong<B> {
    fn new(n: usize) -> io::Result<Self> {
        let mut backend = B::new()?;
        let (clients, servers): (Vec<_>, Vec<_>) = socket_pairs(n)?.into_iter().unzip();
        for i in 0..n {
            backend.register(&servers[i], 2 * i)?;
            backend.register(&clients[i], 2 * i + 1)?;
        }
        Ok(PingPong {
            backend,
            clients,
            servers,
            server_bytes: vec![0; n],
            client_bytes: vec![0; n],
            buf: vec![0; 4096],
        })
    }

    /// Reads `stream` until `WouldBlock`; returns the bytes read.
    fn drain(mut stream: &TcpStream, buf: &mut [u8]) -> usize {
        let mut total = 0;
        loop {
            match stream.read(buf) {
                Ok(0) => panic!("ping-pong: peer closed"),
                Ok(n) => total += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return total,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => panic!("ping-pong: read: {e}"),
            }
        }
    }

    /// One round: a request and its reply on every pair.
    fn round(&mut self) {
        for mut client in &self.clients {
            assert_eq!(client.write(&MSG).expect("write request"), MSG.len());
        }
        let n = self.clients.len();
        let mut replies = 0;
        let PingPong {
            backend,
            clients,
            servers,
            server_bytes,
            client_bytes,
            buf,
        } = self;
        while replies < n {
            backend
                .wait(|key, readable| {
                    if !readable {
                        return;
                    }
                    let i = key / 2;
                    if key % 2 == 0 {
                        server_bytes[i] += Self::drain(&servers[i], buf);
                        while server_bytes[i] >= MSG.len() {
                            server_bytes[i] -= MSG.len();
                            let written = (&servers[i]).write(&MSG).expect("write reply");
                            assert_eq!(written, MSG.len());
                        }
                    } else {
                        client_bytes[i] += Self::drain(&clients[i], buf);
                        while client_bytes[i] >= MSG.len() {
                            client_bytes[i] -= MSG.len();
                            replies += 1;
                        }
                    }
                })
                .expect("wait");
        }
        assert_eq!(replies, n, "a reply too many");
    }
}

impl<B: Backend> Drop for PingPong<B> {
    fn drop(&mut self) {
        for s in self.clients.iter().chain(&self.servers) {
            let _ = self.backend.deregister(s);
        }
    }
}

/// Two threads, each blocked in its own poller, waking each other in turn.
trait WakePair: Sized {
    fn new() -> io::Result<Self>;
    /// Wakes the other thread's poller and blocks in ours until the other wakes it back.
    fn round_trip(&mut self);
}

const MIO_WAKE: mio::Token = mio::Token(0);

struct MioWakePair {
    poll: mio::Poll,
    events: mio::Events,
    /// Wakes the other thread's poll.
    other: Arc<mio::Waker>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl WakePair for MioWakePair {
    fn new() -> io::Result<Self> {
        let poll = mio::Poll::new()?;
        let mine = Arc::new(mio::Waker::new(poll.registry(), MIO_WAKE)?);
        let mut other_poll = mio::Poll::new()?;
        let other = Arc::new(mio::Waker::new(other_poll.registry(), MIO_WAKE)?);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                let mut events = mio::Events::with_capacity(EVENTS_CAPACITY);
                loop {
                    match other_poll.poll(&mut events, None) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        result => result.expect("poll"),
                    }
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    if events.iter().any(|e| e.token() == MIO_WAKE) {
                        mine.wake().expect("wake");
                    }
                }
            })
        };
        Ok(MioWakePair {
            poll,
            events: mio::Events::with_capacity(EVENTS_CAPACITY),
            other,
            stop,
            thread: Some(thread),
        })
    }

    fn round_trip(&mut self) {
        self.other.wake().expect("wake");
        loop {
            match self.poll.poll(&mut self.events, None) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                result => result.expect("poll"),
            }
            if self.events.iter().any(|e| e.token() == MIO_WAKE) {
                return;
            }
        }
    }
}

impl Drop for MioWakePair {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.other.wake();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct PollingWakePair {
    mine: Arc<polling::Poller>,
    events: polling::Events,
    other: Arc<polling::Poller>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl WakePair for PollingWakePair {
    fn new() -> io::Result<Self> {
        let mine = Arc::new(polling::Poller::new()?);
        let other = Arc::new(polling::Poller::new()?);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (mine, other, stop) = (Arc::clone(&mine), Arc::clone(&other), Arc::clone(&stop));
            thread::spawn(move || {
                let mut events = polling::Events::new();
                loop {
                    // Only a notification ends this wait (no source is registered), and
                    // `wait` retries on EINTR itself.
                    events.clear();
                    other.wait(&mut events, None).expect("wait");
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    mine.notify().expect("notify");
                }
            })
        };
        Ok(PollingWakePair {
            mine,
            events: polling::Events::new(),
            other,
            stop,
            thread: Some(thread),
        })
    }

    fn round_trip(&mut self) {
        self.other.notify().expect("notify");
        self.events.clear();
        self.mine.wait(&mut self.events, None).expect("wait");
    }
}

impl Drop for PollingWakePair {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.other.notify();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The benchmarks: (criterion group, what the table's row reports, iterations per unit).
/// An iteration is one register+deregister, one ping-pong round (N messages), one wake
/// round trip (2 wakes).
const GROUPS: [(&str, &str, f64); 4] = [
    ("os_poll_register", "register + deregister", 1.0),
    ("os_poll_ping_pong_n1", "ping-pong N=1, per message", 1.0),
    ("os_poll_ping_pong_n64", "ping-pong N=64, per message", 64.0),
    ("os_poll_waker", "waker, per wake", 2.0),
];

const CONTENDERS: [&str; 2] = [Mio::NAME, Polling::NAME];

/// Times `iters` calls of `f`.
fn timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed()
}

fn bench_pair<A, B>(
    c: &mut Criterion,
    group: &str,
    elements: u64,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B,
    run_a: impl Fn(&mut A),
    run_b: impl Fn(&mut B),
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .throughput(Throughput::Elements(elements));
    // criterion calls the closure once per sample: the state is built once, outside it.
    let mut state = a();
    g.bench_function(Mio::NAME, |bench| {
        bench.iter_custom(|iters| timed(iters, || run_a(&mut state)))
    });
    drop(state);
    let mut state = b();
    g.bench_function(Polling::NAME, |bench| {
        bench.iter_custom(|iters| timed(iters, || run_b(&mut state)))
    });
    drop(state);
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_pair(
        c,
        GROUPS[0].0,
        1,
        || RegisterLoop::<Mio>::new().unwrap(),
        || RegisterLoop::<Polling>::new().unwrap(),
        RegisterLoop::once,
        RegisterLoop::once,
    );
    for (group, n) in [(GROUPS[1].0, 1), (GROUPS[2].0, 64)] {
        bench_pair(
            c,
            group,
            n as u64,
            || PingPong::<Mio>::new(n).unwrap(),
            || PingPong::<Polling>::new(n).unwrap(),
            PingPong::round,
            PingPong::round,
        );
    }
    bench_pair(
        c,
        GROUPS[3].0,
        2,
        || MioWakePair::new().unwrap(),
        || PollingWakePair::new().unwrap(),
        MioWakePair::round_trip,
        PollingWakePair::round_trip,
    );
}

criterion_group!(os_poll, benches);

/// Rounds of the interleaved comparison.
const ROUNDS: usize = 41;

/// The interleaved comparison of one benchmark: the median of the per-round ratios b/a
/// with its quartiles.
struct Interleaved {
    ratio: f64,
    q1: f64,
    q3: f64,
}

/// How many calls of `f` take about 5 ms (this also warms `f` up).
fn calibrate(mut f: impl FnMut()) -> u64 {
    let start = Instant::now();
    let mut n = 0;
    while start.elapsed() < Duration::from_millis(5) {
        f();
        n += 1;
    }
    n
}

fn interleave(mut a: impl FnMut(), mut b: impl FnMut()) -> Interleaved {
    let batch = calibrate(&mut a);
    calibrate(&mut b);
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|round| {
            let (ta, tb) = if round % 2 == 0 {
                let ta = timed(batch, &mut a);
                (ta, timed(batch, &mut b))
            } else {
                let tb = timed(batch, &mut b);
                (timed(batch, &mut a), tb)
            };
            tb.as_secs_f64() / ta.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    Interleaved {
        ratio: ratios[ROUNDS / 2],
        q1: ratios[ROUNDS / 4],
        q3: ratios[3 * ROUNDS / 4],
    }
}

fn interleaved_all() -> Vec<Interleaved> {
    let mut out = Vec::new();
    {
        let (mut a, mut b) = (
            RegisterLoop::<Mio>::new().unwrap(),
            RegisterLoop::<Polling>::new().unwrap(),
        );
        out.push(interleave(|| a.once(), || b.once()));
    }
    for n in [1, 64] {
        let (mut a, mut b) = (
            PingPong::<Mio>::new(n).unwrap(),
            PingPong::<Polling>::new(n).unwrap(),
        );
        out.push(interleave(|| a.round(), || b.round()));
    }
    {
        let (mut a, mut b) = (MioWakePair::new().unwrap(), PollingWakePair::new().unwrap());
        out.push(interleave(|| a.round_trip(), || b.round_trip()));
    }
    out
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn print_table(interleaved: &[Interleaved]) {
    println!(
        "\npolling (edge) against mio; criterion medians, and the median ratio of {ROUNDS} \
         interleaved rounds (interquartile range):"
    );
    println!(
        "| operation | mio | polling-edge | polling/mio (criterion) | polling/mio (interleaved) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for ((group, label, per), inter) in GROUPS.iter().zip(interleaved) {
        let [m, p] = CONTENDERS.map(|id| report::median_ns(group, id).map(|ns| ns / per));
        let show = |x: Option<f64>| x.map_or("-".to_string(), fmt_ns);
        let ratio = match (m, p) {
            (Some(m), Some(p)) => format!("{:.2}", p / m),
            _ => "-".to_string(),
        };
        println!(
            "| {label} | {} | {} | {ratio} | {:.2} ({:.2}-{:.2}) |",
            show(m),
            show(p),
            inter.ratio,
            inter.q1,
            inter.q3
        );
    }
}

/// `OS_POLL_STRACE` mode, for `strace -c -f`: `mio` or `polling` runs only the ping-pong
/// (`OS_POLL_N` pairs, `OS_POLL_ROUNDS` rounds), `mio-waker` or `polling-waker` only
/// `OS_POLL_ROUNDS` wake round trips.
fn strace_mode(backend: &str) {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .map_or(default, |v| v.parse().expect(name))
    };
    let (n, rounds) = (env("OS_POLL_N", 64), env("OS_POLL_ROUNDS", 2000));
    fn ping_pong<B: Backend>(n: usize, rounds: usize) {
        let mut pp = PingPong::<B>::new(n).unwrap();
        for _ in 0..rounds {
            pp.round();
        }
        println!(
            "{}: {n} pairs, {rounds} rounds, {} messages",
            B::NAME,
            n * rounds
        );
    }
    fn waker<W: WakePair>(rounds: usize) {
        let mut pair = W::new().unwrap();
        for _ in 0..rounds {
            pair.round_trip();
        }
        println!("{rounds} wake round trips, {} wakes", 2 * rounds);
    }
    match backend {
        "mio" => ping_pong::<Mio>(n, rounds),
        "polling" => ping_pong::<Polling>(n, rounds),
        "mio-waker" => waker::<MioWakePair>(rounds),
        "polling-waker" => waker::<PollingWakePair>(rounds),
        other => {
            panic!("OS_POLL_STRACE={other}: expected mio, polling, mio-waker or polling-waker")
        }
    }
}

fn main() {
    if let Ok(backend) = std::env::var("OS_POLL_STRACE") {
        strace_mode(&backend);
        return;
    }
    os_poll();
    Criterion::default().configure_from_args().final_summary();
    if std::env::args().any(|a| a == "--bench") {
        let interleaved = interleaved_all();
        print_table(&interleaved);
    }
}
