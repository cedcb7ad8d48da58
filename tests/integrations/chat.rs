//! The chat server of `examples/chat.rs` (included below), run in-process on a loopback port
//! with clients on real sockets: lines reach every other client (never their sender), joins
//! and departures are announced, an empty name becomes `guest<N>`, an over-long line ends
//! its sender's connection; a silent client is told and disconnected, not before the idle
//! timeout after its last line, while a talking one stays; a graceful shutdown tells every
//! client, waits for each to close its side (and not a moment less), refuses new
//! connections, and leaves no task, socket or timer behind; a client that never closes is
//! cut off at the drain timeout.
//!
//! Timing assertions are only of the "not too early" kind. Every test runs under a
//! watchdog, and every client read under a socket timeout.

#[allow(dead_code)]
#[path = "../../examples/chat.rs"]
mod server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{held, named_executor, wait_until, watchdog};

/// The chat server on its own 2-worker executor, run by a std thread until `stop`.
struct Server {
    addr: SocketAddr,
    stop: async_channel::Sender<()>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Server {
    fn start(config: server::Config) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let thread = thread::spawn(move || {
            let ex = named_executor(2, "chat-test");
            ex.block_on(async move {
                let listener = filch::net::TcpListener::from_std(listener).unwrap();
                server::serve(listener, config, async move {
                    let _ = stopped.recv().await;
                })
                .await;
            });
            // Every connection's socket is closed by the time `serve` returns: each
            // connection task was joined, or aborted and waited for.
            assert_eq!(
                ex.stats().io_sources,
                0,
                "a connection's socket outlived serve"
            );
            // Nothing left behind: every connection task (and its writer task), socket and
            // timer is gone (a task is freed a moment after it was joined).
            wait_until(10, "no task, socket or timer left", || {
                held(&ex) == (0, 0, 0)
            });
        });
        Server {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    fn is_finished(&self) -> bool {
        self.thread.as_ref().unwrap().is_finished()
    }

    fn stop(&self) {
        let _ = self.stop.try_send(());
    }

    /// Stops the server and waits until it returned (passing on its panic).
    fn join_after_stop(self) {
        self.stop();
        self.join();
    }

    /// Waits until the server thread has returned (passing on its panic).
    fn join(mut self) {
        if let Err(panic) = self.thread.take().unwrap().join() {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn config(idle_ms: u64, drain_ms: u64) -> server::Config {
    server::Config {
        idle_timeout: Duration::from_millis(idle_ms),
        drain_timeout: Duration::from_millis(drain_ms),
    }
}

/// A chat client on a blocking std socket (reads time out after 20 s: a hang fails).
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    /// Connects, answers the greeting with `name`, and waits until the server confirms the
    /// name (as `expect`): from then on the client is in the room.
    fn join(addr: SocketAddr, name: &str, expect: &str) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut client = Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        };
        assert_eq!(client.line(), server::WELCOME);
        client.say(name);
        client.wait_for(&format!("* you are {expect}\n"));
        client
    }

    fn say(&mut self, text: &str) {
        self.writer
            .write_all(format!("{text}\n").as_bytes())
            .unwrap();
    }

    /// The next line, with its `\n`; panics at the end of the stream.
    fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the server closed the connection");
        line
    }

    /// Reads until `expected`; returns the lines before it.
    fn wait_for(&mut self, expected: &str) -> Vec<String> {
        let mut before = Vec::new();
        loop {
            let line = self.line();
            if line == expected {
                return before;
            }
            before.push(line);
        }
    }

    /// Asserts that the server closed its side: the stream ends, with nothing more in it.
    fn assert_closed(&mut self) {
        let mut rest = String::new();
        self.reader.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "", "more after the last line");
    }
}

#[test]
fn lines_reach_every_other_client() {
    watchdog(60, "broadcast", || {
        let server = Server::start(config(60_000, 5_000));
        let mut alice = Client::join(server.addr, "alice", "alice");
        let mut bob = Client::join(server.addr, "bob", "bob");
        alice.wait_for("* bob joined\n");
        // An empty name gets a guest name (the third connection: guest3).
        let mut guest = Client::join(server.addr, "  ", "guest3");
        alice.wait_for("* guest3 joined\n");
        bob.wait_for("* guest3 joined\n");

        alice.say("hello, room");
        bob.wait_for("alice: hello, room\n");
        guest.wait_for("alice: hello, room\n");
        bob.say("hi alice");
        let before = alice.wait_for("bob: hi alice\n");
        assert!(
            before.is_empty(),
            "alice got {before:?} before bob's answer (her own line echoed?)"
        );
        guest.wait_for("bob: hi alice\n");

        drop(guest);
        alice.wait_for("* guest3 left\n");
        bob.wait_for("* guest3 left\n");

        // A line longer than the limit ends its sender's connection.
        bob.say(&"x".repeat(server::MAX_LINE + 1));
        bob.assert_closed();
        alice.wait_for("* bob left\n");
        drop((alice, bob));
        server.join_after_stop();
    });
}

#[test]
fn a_silent_client_is_told_and_disconnected_and_a_talking_one_stays() {
    watchdog(60, "idle timeout", || {
        let idle = Duration::from_millis(1500);
        let server = Server::start(config(idle.as_millis() as u64, 5_000));
        let mut erin = Client::join(server.addr, "erin", "erin");
        // Erin keeps talking: a line every 100 ms, far inside the idle timeout.
        let talking = Arc::new(AtomicBool::new(true));
        let talker = {
            let mut writer = erin.writer.try_clone().unwrap();
            let talking = Arc::clone(&talking);
            thread::spawn(move || {
                while talking.load(Ordering::SeqCst) {
                    let _ = writer.write_all(b"tick\n");
                    thread::sleep(Duration::from_millis(100));
                }
            })
        };
        let mut dave = Client::join(server.addr, "dave", "dave");
        // A line after half the timeout pushes dave's deadline back; then he goes silent.
        thread::sleep(idle / 2);
        let last_line = Instant::now();
        dave.say("brb");
        // Receiving erin's ticks does not count as activity.
        let before = dave.wait_for(&format!("* you were silent for {idle:?}: disconnecting\n"));
        assert!(before.iter().all(|l| l == "erin: tick\n"), "{before:?}");
        let silent_for = last_line.elapsed();
        assert!(
            silent_for >= idle,
            "dave was disconnected {silent_for:?} after his last line, before the {idle:?} timeout"
        );
        dave.assert_closed();
        // Erin, still talking, is still there to hear it.
        erin.wait_for("* dave left (idle)\n");
        talking.store(false, Ordering::SeqCst);
        talker.join().unwrap();
        drop((erin, dave));
        server.join_after_stop();
    });
}

#[test]
fn a_graceful_shutdown_waits_for_every_client_to_close() {
    watchdog(60, "graceful shutdown", || {
        let server = Server::start(config(60_000, 30_000));
        let mut clients = vec![
            Client::join(server.addr, "ann", "ann"),
            Client::join(server.addr, "ben", "ben"),
            Client::join(server.addr, "cal", "cal"),
        ];
        // A connection that has not given its name yet.
        let mut anonymous = TcpStream::connect(server.addr).unwrap();
        anonymous
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        thread::sleep(Duration::from_millis(100));
        assert!(
            !server.is_finished(),
            "the server returned before its shutdown signal"
        );

        server.stop();
        for client in &mut clients {
            client.wait_for("* server shutting down\n");
            client.assert_closed();
        }
        let mut told = String::new();
        anonymous.read_to_string(&mut told).unwrap();
        assert_eq!(told, format!("{}* server shutting down\n", server::WELCOME));
        // Every connection is closed on the server's side: no new connection is accepted.
        assert!(TcpStream::connect(server.addr).is_err());

        // The server waits for each client to close its side too.
        let last = clients.pop().unwrap();
        drop(clients);
        drop(anonymous);
        thread::sleep(Duration::from_millis(300));
        assert!(
            !server.is_finished(),
            "the server returned while a client still had its side open"
        );
        drop(last);
        server.join();
    });
}

#[test]
fn a_client_that_never_closes_is_cut_off_at_the_drain_timeout() {
    watchdog(60, "drain timeout", || {
        let drain = Duration::from_millis(500);
        let server = Server::start(config(60_000, drain.as_millis() as u64));
        let mut stays = Client::join(server.addr, "stays", "stays");
        let stopped_at = Instant::now();
        server.stop();
        stays.wait_for("* server shutting down\n");
        stays.assert_closed();
        // The client keeps its side open; the server returns anyway, not before the drain
        // timeout.
        wait_until(30, "the server to return", || server.is_finished());
        assert!(
            stopped_at.elapsed() >= drain,
            "returned {:?} after the signal, before the {drain:?} drain timeout",
            stopped_at.elapsed()
        );
        server.join();
        drop(stays);
    });
}
