//! The example HTTP server (`examples/http_server/server.rs`, hyper on `filch::net`,
//! included below) on a filch executor, on loopback, on an ephemeral port: many concurrent
//! keep-alive clients get every response; bad requests (garbage, a 1 MiB request line, a
//! huge header, a disconnect mid-request) get an error or a close on their own connection
//! while the others go on being served; `/shutdown` stops the server cleanly.
//!
//! The clients are std threads with blocking sockets and read/write timeouts, and read the
//! responses with a small reader below (status, headers, a `Content-Length` body); every
//! test runs under a watchdog, so a hang fails the test instead of the CI job. Only
//! 127.0.0.1.

#[allow(dead_code)]
#[path = "../../examples/http_server/server.rs"]
mod server;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{named_executor, watchdog};
use server::{Server, Stopper, HELLO_BODY, JSON_BODY, SHUTDOWN_BODY};

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

    fn connect(&self) -> Client {
        Client::connect(self.addr)
    }

    /// Waits for the server thread to return from `Server::run`.
    fn join(mut self) {
        self.thread.take().unwrap().join().unwrap();
    }

    fn join_after_stop(self) {
        self.stopper.stop();
        self.join();
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

/// One response, as the client read it.
#[derive(Debug)]
struct Response {
    status: u16,
    /// Header names in lower case, with their values.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A blocking keep-alive client.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    /// Reads one response (`head_only`: the answer to a HEAD, which has no body); `None`
    /// if the server closed (or reset) the connection before a status line.
    fn response(&mut self, head_only: bool) -> Option<Response> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => return None,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return None,
            Err(e) => panic!("reading a status line: {e}"),
            Ok(_) => {}
        }
        let mut parts = line.split_whitespace();
        // hyper answers an HTTP/1.0 request in HTTP/1.0.
        assert!(
            matches!(parts.next(), Some("HTTP/1.1" | "HTTP/1.0")),
            "status line {line:?}"
        );
        let status: u16 = parts.next().unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header line");
            headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        if !head_only {
            let len: usize = response
                .header("content-length")
                .map_or(0, |v| v.parse().unwrap());
            response.body = vec![0; len];
            self.reader.read_exact(&mut response.body).unwrap();
        }
        Some(response)
    }

    fn expect(&mut self, status: u16, body: &str) -> Response {
        let response = self
            .response(false)
            .expect("the server closed instead of answering");
        assert_eq!(response.status, status, "{response:?}");
        assert_eq!(String::from_utf8_lossy(&response.body), body);
        response
    }

    /// Reads until the peer closes; a reset after some bytes counts as a close.
    fn rest(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        match self.reader.read_to_end(&mut out) {
            Ok(_) => out,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => out,
            Err(e) => panic!("reading until the server closes: {e} (got {out:?} so far)"),
        }
    }
}

/// One keep-alive client: `requests` requests, alternating routes, every third pair
/// pipelined in one write.
fn keep_alive_client(addr: SocketAddr, id: usize, requests: usize) {
    let mut c = Client::connect(addr);
    let mut i = 0;
    while i < requests {
        if (i + id) % 6 == 0 && i + 1 < requests {
            let mut both = GET_HELLO.to_vec();
            both.extend_from_slice(GET_JSON);
            c.send(&both);
            c.expect(200, HELLO_BODY);
            let json = c.expect(200, JSON_BODY);
            assert_eq!(json.header("content-type"), Some("application/json"));
            i += 2;
        } else if (i + id) % 2 == 0 {
            c.send(GET_HELLO);
            let hello = c.expect(200, HELLO_BODY);
            assert_eq!(hello.header("content-type"), Some("text/plain"));
            i += 1;
        } else {
            c.send(GET_JSON);
            c.expect(200, JSON_BODY);
            i += 1;
        }
    }
    // Nothing more comes: the server keeps the connection open until we close.
    c.writer.shutdown(Shutdown::Write).unwrap();
    assert_eq!(c.rest(), b"");
}

#[test]
fn many_concurrent_keep_alive_clients_get_every_response() {
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

/// Sends `bytes` and expects an error status `status` (if the server answers at all
/// before closing) and then a close.
fn expect_error_and_close(running: &Running, bytes: &[u8], status: u16) {
    let mut c = running.connect();
    c.send(bytes);
    if let Some(response) = c.response(false) {
        assert_eq!(
            response.status,
            status,
            "for {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    let _ = c.rest();
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

        // Garbage, a malformed header, a bad version, conflicting lengths.
        expect_error_and_close(&running, b"\x00\x01\x02\xffgarbage\r\n\r\n", 400);
        expect_error_and_close(&running, b"GET / HTTP/1.1\r\nBad Header\r\n\r\n", 400);
        expect_error_and_close(
            &running,
            b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            400,
        );

        // Garbage after a good request on the same connection: the good one is answered.
        let mut c = running.connect();
        c.send(GET_HELLO);
        c.send(b"NOT HTTP AT ALL\r\n\r\n");
        c.expect(200, HELLO_BODY);
        if let Some(response) = c.response(false) {
            assert_eq!(response.status, 400);
        }
        let _ = c.rest();

        // A 1 MiB request line and a 1 MiB header: the head limit answers 431, then closes.
        for head in [
            {
                let mut line = b"GET /".to_vec();
                line.resize(1 << 20, b'a');
                line
            },
            {
                let mut head = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
                head.resize(1 << 20, b'b');
                head
            },
        ] {
            let mut c = running.connect();
            let mut writer = c.writer.try_clone().unwrap();
            let sender = thread::spawn(move || {
                // The server may close before taking it all; that is fine.
                let _ = writer.write_all(&head);
                let _ = writer.shutdown(Shutdown::Write);
            });
            if let Some(response) = c.response(false) {
                assert_eq!(response.status, 431, "{response:?}");
            }
            let _ = c.rest();
            sender.join().unwrap();
        }

        // Disconnects mid-request, at several points: nothing to answer, nothing breaks.
        for partial in [
            &b"G"[..],
            b"GET / HT",
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly part of the body",
        ] {
            let mut c = running.connect();
            c.send(partial);
            drop(c);
        }
        // ... including after a shutdown of our write side, waiting for the close.
        let mut c = running.connect();
        c.send(b"GET / HTTP/1.1\r\n");
        c.writer.shutdown(Shutdown::Write).unwrap();
        if let Some(response) = c.response(false) {
            assert!(response.status >= 400, "{response:?}");
        }
        let _ = c.rest();

        for client in good {
            client.join().unwrap();
        }
        // And the server still answers a fresh connection.
        let mut c = running.connect();
        c.send(GET_JSON);
        c.expect(200, JSON_BODY);
        running.join_after_stop();
    });
}

#[test]
fn requests_split_pipelined_with_bodies_and_http10() {
    watchdog(60, "http: split and pipelined", || {
        let running = Running::start(1);

        // One byte per write: the parser resumes across reads.
        let mut c = running.connect();
        for &b in GET_JSON {
            c.send(&[b]);
        }
        c.expect(200, JSON_BODY);

        // Ten requests in one write, answered in order.
        let mut many = Vec::new();
        for i in 0..10 {
            many.extend_from_slice(if i % 2 == 0 { GET_HELLO } else { GET_JSON });
        }
        c.send(&many);
        for i in 0..10 {
            c.expect(200, if i % 2 == 0 { HELLO_BODY } else { JSON_BODY });
        }

        // A body (split across writes) is read; the method is refused; the connection goes on.
        c.send(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello");
        c.send(b" world");
        let refused = c.expect(405, "Method Not Allowed\n");
        assert_eq!(refused.header("allow"), Some("GET, HEAD"));
        c.send(GET_HELLO);
        c.expect(200, HELLO_BODY);

        // HEAD: the headers of GET, no body. Unknown path: 404, kept alive.
        c.send(b"HEAD /json HTTP/1.1\r\n\r\nGET /missing?x=1 HTTP/1.1\r\n\r\n");
        let head = c.response(true).unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-length"), Some("27"));
        c.expect(404, "Not Found\n");

        // `Connection: close`: answered, then closed.
        c.send(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
        c.expect(200, HELLO_BODY);
        assert_eq!(c.rest(), b"");

        // HTTP/1.0: closes by default, stays open on request.
        let mut c = running.connect();
        c.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        c.expect(200, HELLO_BODY);
        c.send(b"GET /json HTTP/1.0\r\n\r\n");
        c.expect(200, JSON_BODY);
        assert_eq!(c.rest(), b"");
        running.join_after_stop();
    });
}

#[test]
fn shutdown_route_stops_the_server_and_closes_idle_connections() {
    watchdog(60, "http: /shutdown", || {
        let running = Running::start(2);
        // An idle keep-alive connection, open across the shutdown.
        let mut idle = running.connect();
        idle.send(GET_HELLO);
        idle.expect(200, HELLO_BODY);

        let mut c = running.connect();
        c.send(b"GET /shutdown HTTP/1.1\r\n\r\n");
        let answer = c.expect(200, SHUTDOWN_BODY);
        assert_eq!(answer.header("connection"), Some("close"));
        assert_eq!(c.rest(), b"");
        // The idle connection is closed promptly (not after the grace period), and
        // `Server::run` returns.
        let closed_at = Instant::now();
        assert_eq!(idle.rest(), b"");
        assert!(closed_at.elapsed() < server::GRACE);
        running.join();
    });
}
