//! tokio-console against filch (feature `console`): the stock console-subscriber layer is
//! the process's global subscriber, its gRPC server listens on an ephemeral port, and a
//! client written with `console-api` (the protocol `tokio-console` speaks) reads its updates
//! over TCP, as `tokio-console` would. A filch program with named tasks, a timer, a TCP echo,
//! a `par::run`, a blocking job and a pinned task runs on a 2-worker executor; the test then
//! reads the console's view until every fact it asserts is there (a watchdog fails it with
//! what is missing after two minutes).
//!
//! What it asserts: every task by name (or kind) and spawn location; a task's poll count
//! and wakes equal to what the test's own future counted; busy time inside the task's life
//! on the subscriber's clock; a completed task reported dropped; the timer and the sockets as
//! resources with poll ops from their tasks; the `par::run` as an async op of the task that
//! awaits it, at its call site.
//!
//! The global subscriber is the process's one: this file is a test binary of its own, and
//! its one test holds everything.
#![cfg(feature = "console")]

mod view;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use filch::par::prelude::*;
use futures::io::{AsyncReadExt, AsyncWriteExt};

use view::{Console, Expect};

/// Pending `left` times, waking itself by reference each time: `left + 1` polls and `left`
/// self-wakes, counted here.
struct SelfWaking {
    left: u32,
    polls: u32,
}

impl Future for SelfWaking {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.polls += 1;
        if self.left == 0 {
            return Poll::Ready(self.polls);
        }
        self.left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The lines of the calls whose locations the console shows.
#[derive(Default)]
struct Lines {
    yielder: u32,
    sleeper: u32,
    timer: u32,
    echo_server: u32,
    echo_client: u32,
    crunch: u32,
    par_run: u32,
    blocking: u32,
    pinned: u32,
}

/// The file this test is in, as `#[track_caller]` locations name it.
const FILE: &str = file!();

#[test]
fn tokio_console_sees_tasks_wakers_resources_and_parallel_calls() {
    let console = Console::start();
    let ex = filch::Executor::builder()
        .worker_threads(2)
        .build()
        .unwrap();
    let mut expect = Expect::default();

    let seen = ex.block_on(async {
        let mut lines = Lines::default();

        let builder = filch::task::Builder::new().name("console-test::yielder");
        lines.yielder = line!() + 1;
        let yielder = builder.spawn(SelfWaking { left: 5, polls: 0 }).unwrap();
        let polls = yielder.await.unwrap();

        let builder = filch::task::Builder::new().name("console-test::sleeper");
        lines.sleeper = line!() + 1;
        let sleeper = builder.spawn(async {
            let line = line!() + 1;
            filch::time::sleep(Duration::from_millis(20)).await;
            line
        });
        lines.timer = sleeper.unwrap().await.unwrap();

        let listener = filch::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let builder = filch::task::Builder::new().name("console-test::echo-server");
        lines.echo_server = line!() + 1;
        let server = builder.spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4];
            stream.read_exact(&mut buf).await.unwrap();
            stream.write_all(&buf).await.unwrap();
        });
        let builder = filch::task::Builder::new().name("console-test::echo-client");
        lines.echo_client = line!() + 1;
        let client = builder.spawn(async move {
            let mut stream = filch::net::TcpStream::connect(addr).await.unwrap();
            stream.write_all(b"ping").await.unwrap();
            let mut buf = [0u8; 4];
            stream.read_exact(&mut buf).await.unwrap();
            buf
        });
        assert_eq!(&client.unwrap().await.unwrap(), b"ping");
        server.unwrap().await.unwrap();

        let builder = filch::task::Builder::new().name("console-test::crunch");
        lines.crunch = line!() + 1;
        let crunch = builder.spawn(async {
            let line = line!() + 1;
            let run = filch::par::run(|| (0..200_000u64).into_par_iter().map(|x| x % 7).sum());
            let sum: u64 = run.await;
            // A parallel iterator called in the task's own poll.
            let direct: u64 = (0..1_000u64).into_par_iter().sum();
            (sum, direct, line)
        });
        let (sum, direct, run_line) = crunch.unwrap().await.unwrap();
        lines.par_run = run_line;
        assert_eq!(sum, (0..200_000u64).map(|x| x % 7).sum::<u64>());
        assert_eq!(direct, 499_500);

        let builder = filch::task::Builder::new().name("console-test::blocking");
        lines.blocking = line!() + 1;
        let blocking = builder.spawn_blocking(|| 7).unwrap();
        assert_eq!(blocking.await.unwrap(), 7);

        lines.pinned = line!() + 1;
        let pinned = filch::spawn_pinned(|| async { *std::rc::Rc::new(3) });
        assert_eq!(pinned.await.unwrap(), 3);
        (polls, lines)
    });
    let (polls, lines) = seen;
    assert_eq!(polls, 6);

    expect.task(
        "console-test::yielder",
        "task",
        FILE,
        lines.yielder,
        |task| {
            assert_eq!(task.polls(), 6, "the yielder was polled 6 times");
            assert_eq!(task.stats.wakes, 5, "woken 5 times");
            assert_eq!(
                task.stats.self_wakes, 5,
                "each wake from inside its own poll"
            );
        },
    );
    expect.task(
        "console-test::sleeper",
        "task",
        FILE,
        lines.sleeper,
        |task| {
            // The timer kept a clone of its waker, and woke it (a wake by value is a drop): no
            // waker is left, so no "lost waker" either.
            assert!(task.stats.waker_clones >= 1, "the timer cloned the waker");
            assert_eq!(task.stats.waker_clones, task.stats.waker_drops);
            assert_eq!(task.stats.wakes, 1, "the timer woke the sleeper once");
        },
    );
    expect.task(
        "console-test::echo-server",
        "task",
        FILE,
        lines.echo_server,
        |_| {},
    );
    expect.task(
        "console-test::echo-client",
        "task",
        FILE,
        lines.echo_client,
        |_| {},
    );
    expect.task("console-test::crunch", "task", FILE, lines.crunch, |_| {});
    expect.task(
        "console-test::blocking",
        "blocking",
        FILE,
        lines.blocking,
        |_| {},
    );
    expect.unnamed_task("local", FILE, lines.pinned);
    // The timer, polled by the sleeper; the sockets, polled by the echo tasks.
    expect.resource("Sleep", Some((FILE, lines.timer)), "console-test::sleeper");
    expect.resource("TcpStream", None, "console-test::echo-client");
    expect.resource("TcpStream", None, "console-test::echo-server");
    expect.resource("TcpListener", None, "console-test::echo-server");
    // The parallel calls: async ops of the crunch task.
    expect.async_op(
        "par::run",
        Some((FILE, lines.par_run)),
        "console-test::crunch",
    );
    expect.async_op("par_iter", None, "console-test::crunch");

    console.check(&expect);
    drop(ex);
}
