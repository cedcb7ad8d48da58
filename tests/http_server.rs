//! The example HTTP server (`examples/http_server/server.rs`, included below) on a filch
//! executor, on loopback, on an ephemeral port: many concurrent keep-alive clients get
//! every response byte for byte; bad requests (garbage, a 1 MiB request line, huge headers,
//! a disconnect mid-request) get an error or a close on their own connection while the
//! others go on being served; `/shutdown` stops the server cleanly.
//!
//! The clients are std threads with blocking sockets and read/write timeouts; every test
//! runs under a watchdog, so a hang fails the test instead of the CI job. Only 127.0.0.1.

#[allow(dead_code)]
#[path = "../examples/http_server/server.rs"]
mod server;

mod common;

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use common::{named_executor, watchdog};
use server::{Server, Stopper};

const HELLO: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\n\r\nHello, world!\n";
const JSON: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"message\":\"Hello, world!\"}";
const GET_HELLO: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
const GET_JSON: &[u8] = b"GET /json HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n";

/// Socket timeouts: far above what any response takes, far below the watchdog.
const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// A server on its own filch executor, served from a std thread.
struct Running {
    addr: SocketAddr,
    stopper: Stopper,
    thread: Option<thread::JoinHandle<()>>,
}

impl Running {
    fn start(workers: usize) -> Running {
        let server = Server::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = server.local_addr().unwrap();
        assert!(addr.ip().is_loopback());
        let stopper = server.stopper();
        let thread = thread::spawn(move || {
            let ex = named_executor(workers, "http-test");
            let handle = ex.handle();
            ex.block_on(server.run(|task| drop(handle.spawn(task))));
        });
        Running {
            addr,
            stopper,
            thread: Some(thread),
        }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
    }

    /// Waits for the server thread to return from `Server::run`.
    fn join(mut self) {
        self.thread.take().unwrap().join().unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stopper.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads until the peer closes; a reset after some bytes counts as a close.
fn read_to_close(stream: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return out,
            Err(e) => panic!("reading until the server closes: {e} (got {out:?} so far)"),
        }
    }
}

fn expect_response(stream: &mut TcpStream, expected: &[u8]) {
    let mut got = vec![0u8; expected.len()];
    stream.read_exact(&mut got).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(expected)
    );
}

fn error_response(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One keep-alive client: `requests` requests, alternating routes, every third pair
/// pipelined in one write.
fn keep_alive_client(running_addr: SocketAddr, id: usize, requests: usize) {
    let mut stream = TcpStream::connect(running_addr).unwrap();
    stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut i = 0;
    while i < requests {
        if (i + id) % 6 == 0 && i + 1 < requests {
            let mut both = GET_HELLO.to_vec();
            both.extend_from_slice(GET_JSON);
            stream.write_all(&both).unwrap();
            expect_response(&mut stream, HELLO);
            expect_response(&mut stream, JSON);
            i += 2;
        } else if (i + id) % 2 == 0 {
            stream.write_all(GET_HELLO).unwrap();
            expect_response(&mut stream, HELLO);
            i += 1;
        } else {
            stream.write_all(GET_JSON).unwrap();
            expect_response(&mut stream, JSON);
            i += 1;
        }
    }
    // Nothing more comes: the server keeps the connection open until we close.
    stream.shutdown(Shutdown::Write).unwrap();
    assert_eq!(read_to_close(&mut stream), b"");
}

#[test]
fn many_concurrent_keep_alive_clients_get_every_byte() {
    watchdog(180, "http: many keep-alive clients", || {
        const CONNECTIONS: usize = 64;
        const REQUESTS: usize = 200;
        let running = Running::start(2);
        let addr = running.addr;
        let started = Instant::now();
        let clients: Vec<_> = (0..CONNECTIONS)
            .map(|id| thread::spawn(move || keep_alive_client(addr, id, REQUESTS)))
            .collect();
        for client in clients {
            client.join().unwrap();
        }
        eprintln!(
            "{} requests on {CONNECTIONS} connections in {:?}",
            CONNECTIONS * REQUESTS,
            started.elapsed()
        );
        running.join_after_stop();
    });
}

impl Running {
    fn join_after_stop(self) {
        self.stopper.stop();
        self.join();
    }
}

#[test]
fn bad_requests_get_an_error_and_a_close_while_others_are_served() {
    watchdog(180, "http: bad requests", || {
        let running = Running::start(2);
        let addr = running.addr;
        // Good clients run the whole time the bad ones misbehave.
        let good: Vec<_> = (0..8)
            .map(|id| thread::spawn(move || keep_alive_client(addr, id, 300)))
            .collect();

        // Garbage: answered 400 at once, before any newline arrives.
        let mut s = running.connect();
        s.write_all(b"\x00\x01\x02\xffgarbage").unwrap();
        assert_eq!(
            read_to_close(&mut s),
            error_response("400 Bad Request", "Bad Request\n")
        );
        drop(s);

        // Garbage after a good request on the same connection: the good one is answered.
        let mut s = running.connect();
        s.write_all(GET_HELLO).unwrap();
        s.write_all(b"NOT HTTP AT ALL\r\n\r\n").unwrap();
        let mut expected = HELLO.to_vec();
        expected.extend(error_response("400 Bad Request", "Bad Request\n"));
        assert_eq!(read_to_close(&mut s), expected);
        drop(s);

        // A malformed header, a bad version, an unsupported framing.
        for (request, status, body) in [
            (
                &b"GET / HTTP/1.1\r\nBad Header\r\n\r\n"[..],
                "400 Bad Request",
                "Bad Request\n",
            ),
            (
                b"GET / HTTP/2.0\r\n\r\n",
                "505 HTTP Version Not Supported",
                "HTTP Version Not Supported\n",
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                "501 Not Implemented",
                "Not Implemented\n",
            ),
            (
                b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                "400 Bad Request",
                "Bad Request\n",
            ),
            (
                b"GET relative HTTP/1.1\r\n\r\n",
                "400 Bad Request",
                "Bad Request\n",
            ),
        ] {
            let mut s = running.connect();
            s.write_all(request).unwrap();
            assert_eq!(read_to_close(&mut s), error_response(status, body));
            drop(s);
        }

        // A 1 MiB request line: 414 once the head limit is passed, then a close.
        let mut s = running.connect();
        let mut writer = s.try_clone().unwrap();
        let sender = thread::spawn(move || {
            let mut line = b"GET /".to_vec();
            line.resize(1 << 20, b'a');
            // The server may close before taking it all; that is fine.
            let _ = writer.write_all(&line);
            let _ = writer.write_all(b" HTTP/1.1\r\n\r\n");
            let _ = writer.shutdown(Shutdown::Write);
        });
        assert_eq!(
            read_to_close(&mut s),
            error_response("414 URI Too Long", "URI Too Long\n")
        );
        drop(s);
        sender.join().unwrap();

        // A 1 MiB header: 431.
        let mut s = running.connect();
        let mut writer = s.try_clone().unwrap();
        let sender = thread::spawn(move || {
            let mut head = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
            head.resize(1 << 20, b'b');
            let _ = writer.write_all(&head);
            let _ = writer.shutdown(Shutdown::Write);
        });
        assert_eq!(
            read_to_close(&mut s),
            error_response(
                "431 Request Header Fields Too Large",
                "Request Header Fields Too Large\n"
            )
        );
        drop(s);
        sender.join().unwrap();

        // Disconnects mid-request, at several points: nothing to answer, nothing breaks.
        for partial in [
            &b"G"[..],
            b"GET / HT",
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly part of the body",
        ] {
            let mut s = running.connect();
            s.write_all(partial).unwrap();
            drop(s);
        }
        // ... including after a shutdown of our write side, waiting for the close.
        let mut s = running.connect();
        s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        s.shutdown(Shutdown::Write).unwrap();
        assert_eq!(read_to_close(&mut s), b"");
        drop(s);

        for client in good {
            client.join().unwrap();
        }
        // And the server still answers a fresh connection.
        let mut s = running.connect();
        s.write_all(GET_JSON).unwrap();
        expect_response(&mut s, JSON);
        running.join_after_stop();
    });
}

#[test]
fn requests_split_pipelined_with_bodies_and_http10() {
    watchdog(60, "http: split and pipelined", || {
        let running = Running::start(1);

        // One byte per write: the parser resumes across reads.
        let mut s = running.connect();
        for &b in GET_JSON {
            s.write_all(&[b]).unwrap();
        }
        expect_response(&mut s, JSON);

        // Ten requests in one write, answered in order.
        let mut many = Vec::new();
        for i in 0..10 {
            many.extend_from_slice(if i % 2 == 0 { GET_HELLO } else { GET_JSON });
        }
        s.write_all(&many).unwrap();
        for i in 0..10 {
            expect_response(&mut s, if i % 2 == 0 { HELLO } else { JSON });
        }

        // A body is skipped (framed by Content-Length), even when split.
        s.write_all(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello")
            .unwrap();
        expect_response(
            &mut s,
            b"HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\nContent-Length: 19\r\nAllow: GET, HEAD\r\n\r\nMethod Not Allowed\n",
        );
        s.write_all(b" world").unwrap();
        s.write_all(GET_HELLO).unwrap();
        expect_response(&mut s, HELLO);

        // HEAD: the headers of GET, no body. Unknown path: 404, kept alive.
        s.write_all(b"HEAD /json HTTP/1.1\r\n\r\nGET /missing?x=1 HTTP/1.1\r\n\r\n")
            .unwrap();
        expect_response(
            &mut s,
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n",
        );
        expect_response(
            &mut s,
            b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nNot Found\n",
        );

        // `Connection: close`: answered, then closed.
        s.write_all(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        assert_eq!(
            read_to_close(&mut s),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nConnection: close\r\n\r\nHello, world!\n"
        );

        // HTTP/1.0: closes by default, stays open on request.
        let mut s = running.connect();
        s.write_all(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            .unwrap();
        expect_response(
            &mut s,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nConnection: keep-alive\r\n\r\nHello, world!\n",
        );
        s.write_all(b"GET /json HTTP/1.0\r\n\r\n").unwrap();
        assert_eq!(
            read_to_close(&mut s),
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\nConnection: close\r\n\r\n{\"message\":\"Hello, world!\"}"
        );
        running.join_after_stop();
    });
}

#[test]
fn shutdown_route_stops_the_server_and_closes_idle_connections() {
    watchdog(60, "http: /shutdown", || {
        let running = Running::start(2);
        // An idle keep-alive connection, open across the shutdown.
        let mut idle = running.connect();
        idle.write_all(GET_HELLO).unwrap();
        expect_response(&mut idle, HELLO);

        let mut s = running.connect();
        s.write_all(b"GET /shutdown HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(
            read_to_close(&mut s),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nConnection: close\r\n\r\nshutting down\n"
        );
        // The idle connection is closed promptly (not after the grace period), and
        // `Server::run` returns.
        let closed_at = Instant::now();
        assert_eq!(read_to_close(&mut idle), b"");
        assert!(closed_at.elapsed() < server::GRACE);
        running.join();
    });
}
