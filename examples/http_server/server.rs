//! A minimal HTTP/1.1 keep-alive server: the request parser and handler ([`Connection`],
//! which does no IO), the per-connection loop over an `async_io::Async<TcpStream>`
//! ([`serve_connection`]), and the accept loop with a clean shutdown ([`Server`]).
//!
//! Shared by `examples/http_server/main.rs`, `tests/http_server.rs` and `benches/http.rs`
//! (they include this file with `#[path]`), so the test and the benchmark drive exactly the
//! code of the example. The benchmark's tokio server drives the same [`Connection`] from its
//! own loop, since tokio's streams implement tokio's IO traits, not `futures-io`'s.
//!
//! Routes: `GET /` (plain-text hello), `GET /json` (a small JSON object), `GET /shutdown`
//! (answers, then stops the server); `HEAD` works on all three. Anything else gets 404 or
//! 405.
//!
//! Robustness rules (each is tested):
//! - a request head (request line and headers) longer than [`MAX_HEAD`] gets 414 (request
//!   line) or 431 (headers), and the connection is closed;
//! - a malformed request line or header gets 400 at once (as soon as the bytes seen so far
//!   cannot start a valid request), and the connection is closed;
//! - `Transfer-Encoding` gets 501 (the body cannot be framed), a body over [`MAX_BODY`]
//!   gets 413; both close the connection; a `Content-Length` body is read and discarded;
//! - a client that disconnects mid-request (or resets) ends only its own connection;
//! - after an error response the server shuts its write side and reads (discarding) for a
//!   short while before closing ("lingering close"), so that the client receives the
//!   response instead of a reset caused by its unread bytes.
//!
//! Invariant: a [`Connection`]'s buffer never holds more than [`MAX_HEAD`] bytes of one
//! request head; bytes of a body are skipped as they arrive, never buffered.

use std::future::Future;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_io::{Async, Timer};
use event_listener::Event;
use futures_lite::{future, AsyncReadExt, AsyncWriteExt};

/// The most bytes a request head (request line and headers) may take.
pub const MAX_HEAD: usize = 8 * 1024;
/// The largest request body accepted (and discarded).
pub const MAX_BODY: u64 = 1024 * 1024;
/// The most header lines in one request.
pub const MAX_HEADERS: usize = 100;
/// How long a closing connection keeps reading (and discarding) after an error response.
pub const LINGER: Duration = Duration::from_secs(2);
/// How long [`Server::run`] waits for open connections to finish after a stop.
pub const GRACE: Duration = Duration::from_secs(5);

/// The body of `GET /`.
pub const HELLO_BODY: &str = "Hello, world!\n";
/// The body of `GET /json`.
pub const JSON_BODY: &str = "{\"message\":\"Hello, world!\"}";

/// What the connection loop does after [`Connection::process`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Write the output, then read more.
    Continue,
    /// Write the output, then close (the client asked for it).
    Close,
    /// Write the error response, then close after a lingering read.
    CloseAfterError,
    /// Write the output, close, and stop the server (`/shutdown`).
    Shutdown,
}

/// The parser and handler of one connection, without IO: feed it bytes with
/// [`Connection::read_buf`] and [`Connection::filled`], call [`Connection::process`], write
/// out [`Connection::output`].
pub struct Connection {
    /// Received bytes; `input[start..end]` is not yet consumed.
    input: Box<[u8]>,
    start: usize,
    end: usize,
    /// Body bytes of the last request still to be skipped.
    body_left: u64,
    output: Vec<u8>,
}

impl Default for Connection {
    fn default() -> Connection {
        Connection::new()
    }
}

impl Connection {
    /// A connection with an empty buffer.
    pub fn new() -> Connection {
        Connection {
            // Room for one full head plus a read's worth, so a head at the limit still fits
            // behind the tail of the previous request after compaction.
            input: vec![0; MAX_HEAD + 4096].into_boxed_slice(),
            start: 0,
            end: 0,
            body_left: 0,
            output: Vec::with_capacity(256),
        }
    }

    /// The free part of the input buffer, to read into (never empty).
    pub fn read_buf(&mut self) -> &mut [u8] {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.input.len() {
            self.input.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut self.input[self.end..]
    }

    /// Records that `n` bytes were read into [`Connection::read_buf`].
    pub fn filled(&mut self, n: usize) {
        self.end += n;
        debug_assert!(self.end <= self.input.len());
    }

    /// The responses produced so far, to be written out in order.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Forgets the output once it is written.
    pub fn clear_output(&mut self) {
        self.output.clear();
    }

    /// Whether every byte received so far has been handled (no partial request waits).
    pub fn is_idle(&self) -> bool {
        self.start == self.end && self.body_left == 0
    }

    /// Handles every complete request in the buffer, appending the responses to the output.
    pub fn process(&mut self) -> Next {
        loop {
            if self.body_left > 0 {
                let skip = self.body_left.min((self.end - self.start) as u64);
                self.start += skip as usize;
                self.body_left -= skip;
                if self.body_left > 0 {
                    return Next::Continue;
                }
            }
            let pending = &self.input[self.start..self.end];
            if pending.is_empty() {
                return Next::Continue;
            }
            match parse_head(pending) {
                Ok(None) if pending.len() >= MAX_HEAD => {
                    let status = if memchr(b'\n', pending).is_none() {
                        Status::UriTooLong
                    } else {
                        Status::HeadersTooLarge
                    };
                    return self.error(status);
                }
                Ok(None) => return Next::Continue,
                Err(status) => return self.error(status),
                Ok(Some(head)) => {
                    self.start += head.len;
                    if head.content_length > MAX_BODY {
                        return self.error(Status::PayloadTooLarge);
                    }
                    self.body_left = head.content_length;
                    let next = respond(&head, &mut self.output);
                    if next != Next::Continue {
                        return next;
                    }
                }
            }
        }
    }

    fn error(&mut self, status: Status) -> Next {
        write_response(
            &mut self.output,
            status,
            "text/plain",
            status.reason_body(),
            Persist::Close,
            "",
            false,
        );
        Next::CloseAfterError
    }
}

/// The response statuses this server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 200
    Ok,
    /// 400
    BadRequest,
    /// 404
    NotFound,
    /// 405
    MethodNotAllowed,
    /// 413
    PayloadTooLarge,
    /// 414
    UriTooLong,
    /// 431
    HeadersTooLarge,
    /// 501
    NotImplemented,
    /// 505
    VersionNotSupported,
}

impl Status {
    fn line(self) -> &'static str {
        match self {
            Status::Ok => "200 OK",
            Status::BadRequest => "400 Bad Request",
            Status::NotFound => "404 Not Found",
            Status::MethodNotAllowed => "405 Method Not Allowed",
            Status::PayloadTooLarge => "413 Content Too Large",
            Status::UriTooLong => "414 URI Too Long",
            Status::HeadersTooLarge => "431 Request Header Fields Too Large",
            Status::NotImplemented => "501 Not Implemented",
            Status::VersionNotSupported => "505 HTTP Version Not Supported",
        }
    }

    fn reason_body(self) -> &'static str {
        match self {
            Status::Ok => "OK\n",
            Status::BadRequest => "Bad Request\n",
            Status::NotFound => "Not Found\n",
            Status::MethodNotAllowed => "Method Not Allowed\n",
            Status::PayloadTooLarge => "Content Too Large\n",
            Status::UriTooLong => "URI Too Long\n",
            Status::HeadersTooLarge => "Request Header Fields Too Large\n",
            Status::NotImplemented => "Not Implemented\n",
            Status::VersionNotSupported => "HTTP Version Not Supported\n",
        }
    }
}

/// The parts of a request head the handler needs.
struct Head<'a> {
    /// Bytes the head takes, up to and including the empty line.
    len: usize,
    method: &'a [u8],
    /// The path, without the query.
    path: &'a [u8],
    keep_alive: bool,
    http10: bool,
    content_length: u64,
}

/// Whether the connection stays open after a response.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Persist {
    /// HTTP/1.1 default: no `Connection` header.
    Default,
    /// HTTP/1.0 keep-alive: `Connection: keep-alive`.
    KeepAlive,
    /// `Connection: close`.
    Close,
}

/// Routes one request and writes its response.
fn respond(head: &Head<'_>, out: &mut Vec<u8>) -> Next {
    let persist = match (head.keep_alive, head.http10) {
        (false, _) => Persist::Close,
        (true, false) => Persist::Default,
        (true, true) => Persist::KeepAlive,
    };
    let head_only = head.method == b"HEAD";
    let (status, content_type, body, persist, next) = match head.path {
        b"/" | b"/json" | b"/shutdown" if !(head.method == b"GET" || head_only) => (
            Status::MethodNotAllowed,
            "text/plain",
            Status::MethodNotAllowed.reason_body(),
            persist,
            None,
        ),
        b"/" => (Status::Ok, "text/plain", HELLO_BODY, persist, None),
        b"/json" => (Status::Ok, "application/json", JSON_BODY, persist, None),
        b"/shutdown" => (
            Status::Ok,
            "text/plain",
            "shutting down\n",
            Persist::Close,
            Some(Next::Shutdown),
        ),
        _ => (
            Status::NotFound,
            "text/plain",
            Status::NotFound.reason_body(),
            persist,
            None,
        ),
    };
    let extra = if status == Status::MethodNotAllowed {
        "Allow: GET, HEAD\r\n"
    } else {
        ""
    };
    write_response(out, status, content_type, body, persist, extra, head_only);
    match (next, persist) {
        (Some(next), _) => next,
        (None, Persist::Close) => Next::Close,
        (None, _) => Next::Continue,
    }
}

fn write_response(
    out: &mut Vec<u8>,
    status: Status,
    content_type: &str,
    body: &str,
    persist: Persist,
    extra_headers: &str,
    head_only: bool,
) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.line().as_bytes());
    out.extend_from_slice(b"\r\nContent-Type: ");
    out.extend_from_slice(content_type.as_bytes());
    out.extend_from_slice(b"\r\nContent-Length: ");
    push_decimal(out, body.len());
    out.extend_from_slice(b"\r\n");
    match persist {
        Persist::Default => {}
        Persist::KeepAlive => out.extend_from_slice(b"Connection: keep-alive\r\n"),
        Persist::Close => out.extend_from_slice(b"Connection: close\r\n"),
    }
    out.extend_from_slice(extra_headers.as_bytes());
    out.extend_from_slice(b"\r\n");
    if !head_only {
        out.extend_from_slice(body.as_bytes());
    }
}

/// Appends `n` in decimal, without allocating.
fn push_decimal(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

fn memchr(byte: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == byte)
}

/// `tchar` of RFC 9110: the characters of a method or header name.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Parses a request head at the start of `buf`: `Ok(None)` if more bytes are needed (and
/// the bytes so far could still start a valid request), `Err` with the status to answer.
fn parse_head(buf: &[u8]) -> Result<Option<Head<'_>>, Status> {
    let Some(line_end) = memchr(b'\n', buf) else {
        // Reject early a prefix that cannot start a request line: the method must be
        // a token followed by a space.
        let method_len = buf.iter().position(|&b| b == b' ').unwrap_or(buf.len());
        if buf[..method_len].iter().any(|&b| !is_tchar(b)) || (method_len == 0 && !buf.is_empty()) {
            return Err(Status::BadRequest);
        }
        return Ok(None);
    };
    let request_line = strip_cr(&buf[..line_end]);
    let mut parts = request_line.split(|&b| b == b' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Status::BadRequest);
    };
    if method.is_empty() || !method.iter().all(|&b| is_tchar(b)) {
        return Err(Status::BadRequest);
    }
    if target.first() != Some(&b'/') || !target.iter().all(|&b| (0x21..0x7f).contains(&b)) {
        return Err(Status::BadRequest);
    }
    let http10 = match version {
        b"HTTP/1.1" => false,
        b"HTTP/1.0" => true,
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
            if major.is_ascii_digit() && minor.is_ascii_digit() =>
        {
            return Err(Status::VersionNotSupported)
        }
        _ => return Err(Status::BadRequest),
    };
    let path = match memchr(b'?', target) {
        Some(q) => &target[..q],
        None => target,
    };

    let mut keep_alive = !http10;
    let mut content_length: Option<u64> = None;
    let mut pos = line_end + 1;
    let mut headers = 0;
    loop {
        let Some(rel_end) = memchr(b'\n', &buf[pos..]) else {
            // Validate the partial header line as far as it goes.
            check_partial_header(&buf[pos..])?;
            return Ok(None);
        };
        let line = strip_cr(&buf[pos..pos + rel_end]);
        pos += rel_end + 1;
        if line.is_empty() {
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(Status::HeadersTooLarge);
        }
        let colon = memchr(b':', line).ok_or(Status::BadRequest)?;
        let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
        if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
            return Err(Status::BadRequest);
        }
        if value.iter().any(|&b| b < 0x20 && b != b'\t' || b == 0x7f) {
            return Err(Status::BadRequest);
        }
        if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&b| b == b',').map(trim) {
                if token.eq_ignore_ascii_case(b"close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case(b"keep-alive") && http10 {
                    keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case(b"content-length") {
            let n = parse_length(value).ok_or(Status::BadRequest)?;
            if content_length.is_some_and(|m| m != n) {
                return Err(Status::BadRequest);
            }
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            return Err(Status::NotImplemented);
        }
    }
    Ok(Some(Head {
        len: pos,
        method,
        path,
        keep_alive,
        http10,
        content_length: content_length.unwrap_or(0),
    }))
}

/// Rejects a header line that is still arriving if its name is already invalid.
fn check_partial_header(partial: &[u8]) -> Result<(), Status> {
    let name_end = memchr(b':', partial).unwrap_or(partial.len());
    let name = strip_cr(&partial[..name_end]);
    if name.iter().all(|&b| is_tchar(b)) {
        Ok(())
    } else {
        Err(Status::BadRequest)
    }
}

fn parse_length(value: &[u8]) -> Option<u64> {
    if value.is_empty() || value.len() > 19 || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_ws = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !is_ws(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_ws(b))
        .map_or(start, |e| e + 1);
    &bytes[start..end]
}

/// Why [`serve_connection`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client closed, the server closed after a response, or the server is stopping.
    Closed,
    /// A client asked for `/shutdown`.
    ShutdownRequested,
}

/// Serves requests on `stream` until the client closes, a response closes it, or `stop`
/// completes while the connection waits for the next request (a request already received
/// is answered first). IO errors end the connection.
pub async fn serve_connection<F>(mut stream: Async<TcpStream>, stop: F) -> io::Result<Ended>
where
    F: Future<Output = ()>,
{
    let mut stop = std::pin::pin!(stop);
    let mut conn = Connection::new();
    // Whether we just answered everything we had: then the client is waiting for our
    // response and a read now would almost surely find nothing.
    let mut answered = false;
    loop {
        let read = future::or(
            async {
                if answered {
                    // Wait for readiness first instead of trying a read that fails with
                    // `WouldBlock`: async-io's `read` tries the syscall before it
                    // registers, so this saves one syscall per keep-alive request.
                    stream.readable().await?;
                }
                stream.read(conn.read_buf()).await.map(Some)
            },
            async {
                stop.as_mut().await;
                Ok(None)
            },
        )
        .await?;
        let n = match read {
            // Stopping: the connection waits between requests, or in the middle of one
            // that it will never finish.
            None => return Ok(Ended::Closed),
            // The client closed, maybe mid-request: nothing to answer.
            Some(0) => return Ok(Ended::Closed),
            Some(n) => n,
        };
        conn.filled(n);
        let next = conn.process();
        answered = false;
        if !conn.output().is_empty() {
            stream.write_all(conn.output()).await?;
            conn.clear_output();
            answered = conn.is_idle();
        }
        match next {
            Next::Continue => {}
            Next::Close => {
                stream.get_ref().shutdown(Shutdown::Write)?;
                return Ok(Ended::Closed);
            }
            Next::Shutdown => {
                stream.get_ref().shutdown(Shutdown::Write)?;
                return Ok(Ended::ShutdownRequested);
            }
            Next::CloseAfterError => {
                linger(&mut stream).await;
                return Ok(Ended::Closed);
            }
        }
    }
}

/// Shuts the write side, then reads and discards until the client closes, for at most
/// [`LINGER`] and 4 MiB.
async fn linger(stream: &mut Async<TcpStream>) {
    // (`AsyncWrite::close` of `Async<TcpStream>` only flushes; shut down by hand.)
    if stream.get_ref().shutdown(Shutdown::Write).is_err() {
        return;
    }
    let drain = async {
        let mut sink = [0u8; 8192];
        let mut total = 0;
        while total < 4 << 20 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    };
    future::or(drain, async {
        Timer::after(LINGER).await;
    })
    .await;
}

/// The stop signal of a [`Server`] and the count of its open connections.
struct Control {
    /// Set once by [`Stopper::stop`] (SeqCst, before `stop` is notified).
    stopping: AtomicBool,
    stop: Event,
    /// Open connections; [`Server::run`] waits for zero after a stop.
    open: AtomicUsize,
    closed: Event,
}

impl Control {
    /// Completes once the server is stopping. Registers before it checks the flag, so a
    /// stop between the two is not missed.
    async fn stopped(&self) {
        loop {
            let listener = self.stop.listen();
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            listener.await;
        }
    }
}

/// Stops a running [`Server`]: it accepts no more connections, lets each open one finish
/// the request it is handling, and returns from [`Server::run`]. Cheap to clone.
#[derive(Clone)]
pub struct Stopper(Arc<Control>);

impl Stopper {
    /// Asks the server to stop (idempotent).
    pub fn stop(&self) {
        // SeqCst: pairs with the load in `Control::stopped` after its listener registers.
        self.0.stopping.store(true, Ordering::SeqCst);
        self.0.stop.notify(usize::MAX);
    }
}

/// Counts an open connection; the count drops (and a waiting stop hears it) when the
/// connection's task ends or is dropped.
struct OpenGuard(Arc<Control>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        // SeqCst: pairs with the load in `Server::run` after its listener registers.
        if self.0.open.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.closed.notify(usize::MAX);
        }
    }
}

/// A boxed connection task, for the `spawn` function given to [`Server::run`].
pub type ConnectionTask = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A listening HTTP server.
pub struct Server {
    listener: Async<TcpListener>,
    control: Arc<Control>,
}

impl Server {
    /// Listens on `addr` (port 0 picks a free port; see [`Server::local_addr`]).
    pub fn bind(addr: SocketAddr) -> io::Result<Server> {
        Ok(Server {
            listener: Async::<TcpListener>::bind(addr)?,
            control: Arc::new(Control {
                stopping: AtomicBool::new(false),
                stop: Event::new(),
                open: AtomicUsize::new(0),
                closed: Event::new(),
            }),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.get_ref().local_addr()
    }

    /// A handle that stops the server from anywhere (a signal handler, another thread).
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.control))
    }

    /// Accepts connections until stopped (by a [`Stopper`] or a request to `/shutdown`),
    /// handing each to `spawn` as its own task; then waits up to [`GRACE`] for the open
    /// connections to finish, and returns.
    pub async fn run(self, spawn: impl Fn(ConnectionTask)) {
        let control = &self.control;
        loop {
            let accepted = future::or(async { Some(self.listener.accept().await) }, async {
                control.stopped().await;
                None
            })
            .await;
            match accepted {
                None => break,
                Some(Ok((stream, _peer))) => {
                    // Small responses: send them at once.
                    let _ = stream.get_ref().set_nodelay(true);
                    control.open.fetch_add(1, Ordering::SeqCst);
                    spawn(Box::pin(connection_task(
                        stream,
                        OpenGuard(Arc::clone(control)),
                    )));
                }
                Some(Err(err)) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    eprintln!("http_server: accept failed: {err}");
                    Timer::after(Duration::from_millis(50)).await;
                }
            }
        }
        let waited = async {
            loop {
                let listener = control.closed.listen();
                if control.open.load(Ordering::SeqCst) == 0 {
                    return;
                }
                listener.await;
            }
        };
        future::or(waited, async {
            Timer::after(GRACE).await;
        })
        .await;
    }
}

/// One connection's task.
async fn connection_task(stream: Async<TcpStream>, open: OpenGuard) {
    let control = Arc::clone(&open.0);
    // Errors (a reset, a broken pipe) end this connection only.
    if let Ok(Ended::ShutdownRequested) = serve_connection(stream, control.stopped()).await {
        Stopper(Arc::clone(&control)).stop();
    }
    drop(open);
}
