//! The HTTP server of the example: hyper 1.x's HTTP/1.1 connection on `filch::net`, one
//! filch task per connection ([`Server`]), and the request handler ([`handle`]), which the
//! benchmark (`benches/http.rs`) also serves on tokio and on async-executor + async-io.
//!
//! Shared by `examples/http_server/main.rs`, `tests/integrations/http_server.rs` and `benches/http.rs`
//! (they include this file with `#[path]`), so the test and the benchmark drive exactly the
//! code of the example. There is no HTTP parsing here: hyper does it.
//!
//! Routes: `GET /` (plain-text hello), `GET /json` (a small JSON object), `GET /shutdown`
//! (answers, then stops the server); `HEAD` works on all three. Another method gets 405
//! (its body is read and dropped, up to [`MAX_BODY`], so that the connection stays
//! usable), another path 404.
//!
//! Limits: a request head over [`MAX_HEAD`] bytes gets hyper's 431 and a close; a request
//! that hyper cannot parse gets its 400 and a close; a client that disconnects or resets
//! ends only its own connection.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use event_listener::Event;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW, CONNECTION, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};

/// hyper's read buffer, and so the largest request head (request line and headers).
pub const MAX_HEAD: usize = 16 * 1024;
/// The largest request body read (and dropped) before a 405.
pub const MAX_BODY: usize = 1024 * 1024;
/// How long [`Server::run`] waits for open connections to finish after a stop.
pub const GRACE: Duration = Duration::from_secs(5);

/// The body of `GET /`.
pub const HELLO_BODY: &str = "Hello, world!\n";
/// The body of `GET /json`.
pub const JSON_BODY: &str = "{\"message\":\"Hello, world!\"}";
/// The body of `GET /shutdown`.
pub const SHUTDOWN_BODY: &str = "shutting down\n";

fn text(
    status: StatusCode,
    content_type: &'static str,
    body: &'static str,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// The handler: routes a request (module docs). `on_shutdown` runs when `/shutdown` is
/// asked for, before the answer (which closes its connection) is sent.
pub async fn handle(
    req: Request<Incoming>,
    on_shutdown: impl FnOnce(),
) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = req.method().clone();
    if method != Method::GET && method != Method::HEAD {
        // Read the body, so that the connection can take the next request.
        let too_big = Limited::new(req.into_body(), MAX_BODY)
            .collect()
            .await
            .is_err();
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "Method Not Allowed\n",
        );
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        if too_big {
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
        }
        return Ok(response);
    }
    Ok(match req.uri().path() {
        "/" => text(StatusCode::OK, "text/plain", HELLO_BODY),
        "/json" => text(StatusCode::OK, "application/json", JSON_BODY),
        "/shutdown" => {
            on_shutdown();
            let mut response = text(StatusCode::OK, "text/plain", SHUTDOWN_BODY);
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            response
        }
        _ => text(StatusCode::NOT_FOUND, "text/plain", "Not Found\n"),
    })
}

/// hyper's HTTP/1.1 server settings, the same on every runtime of the benchmark.
pub fn http1_builder(
    timer: impl hyper::rt::Timer + Send + Sync + 'static,
) -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(timer).max_buf_size(MAX_HEAD);
    builder
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
/// the request it is handling (idle ones close at once), and returns from [`Server::run`].
/// Cheap to clone.
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
    listener: std::net::TcpListener,
    control: Arc<Control>,
}

impl Server {
    /// Listens on `addr` (port 0 picks a free port; see [`Server::local_addr`]). The socket
    /// joins filch's driver when [`Server::run`] starts, on the executor that runs it.
    pub fn bind(addr: SocketAddr) -> io::Result<Server> {
        Ok(Server {
            listener: std::net::TcpListener::bind(addr)?,
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
        self.listener.local_addr()
    }

    /// A handle that stops the server from anywhere (a signal handler, another thread).
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.control))
    }

    /// Accepts connections until stopped (by a [`Stopper`] or a request to `/shutdown`),
    /// handing each to `spawn` as its own task; then waits up to [`GRACE`] for the open
    /// connections to finish, and returns. Runs on (and registers with) the current filch
    /// executor.
    pub async fn run(self, spawn: impl Fn(ConnectionTask)) {
        let control = &self.control;
        let listener = match filch::net::TcpListener::from_std(self.listener) {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("http_server: cannot register the listener: {err}");
                return;
            }
        };
        loop {
            let accepted =
                futures_lite::future::or(async { Some(listener.accept().await) }, async {
                    control.stopped().await;
                    None
                })
                .await;
            match accepted {
                None => break,
                Some(Ok((stream, _peer))) => {
                    // Small responses: send them at once.
                    let _ = stream.set_nodelay(true);
                    control.open.fetch_add(1, Ordering::SeqCst);
                    spawn(Box::pin(connection_task(
                        stream,
                        OpenGuard(Arc::clone(control)),
                    )));
                }
                // Out of descriptors and the like: `accept` itself backs off before it
                // tries again.
                Some(Err(err)) => eprintln!("http_server: accept failed: {err}"),
            }
        }
        drop(listener);
        let waited = async {
            loop {
                let listener = control.closed.listen();
                if control.open.load(Ordering::SeqCst) == 0 {
                    return;
                }
                listener.await;
            }
        };
        futures_lite::future::or(waited, async {
            filch::time::sleep(GRACE).await;
        })
        .await;
    }
}

/// One connection's task: hyper serves it until the client closes, a response closes it,
/// or the server stops (then hyper finishes the request in hand and closes).
async fn connection_task(stream: filch::net::TcpStream, open: OpenGuard) {
    let control = Arc::clone(&open.0);
    let service = {
        let control = Arc::clone(&control);
        hyper::service::service_fn(move |req| {
            let control = Arc::clone(&control);
            handle(req, move || Stopper(control).stop())
        })
    };
    let conn = http1_builder(filch::hyper::HyperTimer).serve_connection(stream, service);
    let mut conn = std::pin::pin!(conn);
    let stopped = futures_lite::future::or(
        async {
            // Errors (a reset, a parse error hyper already answered) end this one only.
            let _ = conn.as_mut().await;
            false
        },
        async {
            control.stopped().await;
            true
        },
    )
    .await;
    if stopped {
        conn.as_mut().graceful_shutdown();
        let _ = conn.await;
    }
    drop(open);
}
