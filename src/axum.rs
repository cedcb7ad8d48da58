//! axum on filch (cargo feature `axum`): [`serve`] runs an axum [`Router`] on a
//! [`TcpListener`] of [`crate::net`], as `axum::serve` runs one on tokio's, and
//! [`Serve::with_graceful_shutdown`] stops it when a future completes.
//!
//! Each accepted connection is a filch task (spawned on the current executor, else the
//! global one) that hyper-util's `auto` connection serves: HTTP/1.1 or HTTP/2, whichever the
//! client speaks, with protocol upgrades (HTTP/1 `Upgrade`, HTTP/2 extended `CONNECT`, as
//! websockets use). hyper gets filch's streams (which implement its IO traits), filch's
//! executor for its HTTP/2 stream tasks ([`HyperExecutor`]) and filch's timer
//! ([`HyperTimer`]), so no tokio runtime is involved. The `axum` feature brings axum (its
//! `Router`, without its tokio server) and hyper-util with the parts this needs, so a
//! user's `Cargo.toml` needs only `filch` with `features = ["axum"]` and `axum`.
//!
//! # Accept errors
//!
//! filch logs nothing, so an accept error is either retried or returned:
//!
//! - an error of one connection (reset or aborted before it was accepted, or one of the
//!   network errors that Linux's `accept` passes on from the new socket: `EPROTO`,
//!   `ENETDOWN`, `EHOSTUNREACH`, …, and `EPERM` from a firewall) is retried at once;
//! - out of descriptors (`EMFILE`, `ENFILE`) is retried, and the listener itself waits 50 ms
//!   before its next try (the [`net`](crate::net#accept-back-off) module docs), so the server
//!   serves again as soon as descriptors free up;
//! - an error that says there is no listening socket to accept on (`EBADF`, `EINVAL`,
//!   `ENOTSOCK`), or filch's own error once the listener's executor has shut down, ends the
//!   server: the future completes with that error, since no retry can succeed;
//! - any other error (`ENOBUFS`, `ENOMEM`, …) is retried after a pause of one second
//!   (`ACCEPT_ERROR_PAUSE`), as `axum::serve` does.
//!
//! # Beside `axum::serve`
//!
//! The same: HTTP/1 and HTTP/2 with upgrades, a future that never completes without a
//! shutdown signal or a fatal error, and a graceful shutdown that waits for every open
//! connection, with no time limit. Different: each accepted socket gets `TCP_NODELAY`;
//! hyper's HTTP/1 header-read timeout (30 s) is on, since hyper has a timer here (axum on
//! tokio gives it none); an accept error that no retry can fix is returned (above); and
//! `serve` takes a `Router` only, so axum's `ConnectInfo` (tied to axum's tokio listener) is
//! not available.

use std::fmt;
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use ::axum::Router;
use futures::future::{self, Either};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;

use crate::hyper::{HyperExecutor, HyperTimer};
use crate::net::{TcpListener, TcpStream};

/// How long the accept loop pauses after an accept error it has no rule for (module docs,
/// "Accept errors"), before it tries again: one second, as `axum::serve` pauses.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` over HTTP/1.1 and HTTP/2 (see the [module docs](self)).
///
/// The returned [`Serve`] is a future: await it (or spawn it) to run the server. It
/// completes only with an accept error that no retry can fix (module docs, "Accept
/// errors"); [`Serve::with_graceful_shutdown`] gives a server that stops when a signal
/// completes.
///
/// ```no_run
/// use axum::{routing::get, Router};
///
/// filch::block_on(async {
///     let app = Router::new().route("/", get(|| async { "Hello from filch!\n" }));
///     let listener = filch::net::TcpListener::bind("127.0.0.1:3000").await?;
///     filch::axum::serve(listener, app).await
/// })?;
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn serve(listener: TcpListener, app: Router) -> Serve {
    Serve {
        stage: ServeStage::Parts((listener, app)),
        _pinned: PhantomPinned,
    }
}

pin_project_lite::pin_project! {
    /// The future of [`serve`]: a server that runs while it is polled (its accept loop runs
    /// in this future, each connection in a task of its own). It completes only with an
    /// accept error that no retry can fix (module docs, "Accept errors"); dropping it stops
    /// accepting, and the open connections go on in their tasks.
    ///
    /// A `Serve` is not `Unpin`: a started server stays where it was pinned, so
    /// [`Serve::with_graceful_shutdown`] (which takes it by value) can only be called on
    /// one that has not started.
    #[must_use = "a server does nothing unless it is awaited or spawned"]
    pub struct Serve {
        stage: ServeStage<(TcpListener, Router)>,
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl Serve {
    /// A server that stops when `signal` completes: it stops accepting (the listener is
    /// closed, so new connections are refused), asks every open connection to finish
    /// gracefully (an idle HTTP/1 keep-alive connection closes at once, a request in flight
    /// is answered first, an HTTP/2 connection gets a `GOAWAY` and finishes its streams),
    /// and completes with `Ok(())` once all of them are closed. There is no time limit, as
    /// in `axum::serve`: to bound the wait, race this future against a timer started by
    /// the same signal (`integrations/examples/axum_app` does).
    ///
    /// It completes with an error only if accepting fails in a way no retry can fix (module
    /// docs, "Accept errors"); dropping it, or such an error, asks the open connections to
    /// finish gracefully without waiting for them.
    ///
    /// ```
    /// use axum::{routing::get, Router};
    /// use futures::{AsyncReadExt, AsyncWriteExt};
    ///
    /// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
    /// ex.block_on(async {
    ///     let app = Router::new().route("/", get(|| async { "Hello from filch!\n" }));
    ///     let listener = filch::net::TcpListener::bind("127.0.0.1:0").await?;
    ///     let addr = listener.local_addr()?;
    ///     let (stop, stopped) = futures::channel::oneshot::channel::<()>();
    ///     let server = filch::spawn(filch::axum::serve(listener, app).with_graceful_shutdown(
    ///         async move {
    ///             let _ = stopped.await;
    ///         },
    ///     ));
    ///
    ///     let mut client = filch::net::TcpStream::connect(addr).await?;
    ///     client.write_all(b"GET / HTTP/1.1\r\nhost: filch\r\nconnection: close\r\n\r\n").await?;
    ///     let mut response = String::new();
    ///     client.read_to_string(&mut response).await?;
    ///     assert!(response.starts_with("HTTP/1.1 200 OK"));
    ///     assert!(response.ends_with("Hello from filch!\n"));
    ///
    ///     let _ = stop.send(());
    ///     server.await.unwrap()
    /// })?;
    /// # Ok::<_, std::io::Error>(())
    /// ```
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let ServeStage::Parts((listener, app)) = self.stage else {
            // Only reachable through an unchecked pin: a polled `Serve` cannot be moved.
            panic!("filch::axum: with_graceful_shutdown on a server that has started");
        };
        WithGracefulShutdown {
            stage: ServeStage::Parts((listener, app, signal)),
        }
    }
}

impl Future for Serve {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project()
            .stage
            .poll(cx, |(listener, app)| Box::pin(serve_forever(listener, app)))
    }
}

impl fmt::Debug for Serve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serve").field("stage", &self.stage).finish()
    }
}

/// The future of [`Serve::with_graceful_shutdown`]: a server that stops when its signal
/// completes, and then completes once every open connection has closed.
#[must_use = "a server does nothing unless it is awaited or spawned"]
pub struct WithGracefulShutdown<F> {
    stage: ServeStage<(TcpListener, Router, F)>,
}

// The signal is moved into the boxed server at the first poll and pinned only there, never
// in this struct, so this struct may move whatever `F` is.
impl<F> Unpin for WithGracefulShutdown<F> {}

impl<F> Future for WithGracefulShutdown<F>
where
    F: Future<Output = ()> + Send + 'static,
{
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().stage.poll(cx, |(listener, app, signal)| {
            Box::pin(serve_until(listener, app, signal))
        })
    }
}

impl<F> fmt::Debug for WithGracefulShutdown<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithGracefulShutdown")
            .field("stage", &self.stage)
            .finish()
    }
}

/// A running server: the accept loop, boxed once at the first poll.
type RunningServer = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// A server's parts until its first poll, then the running server.
enum ServeStage<P> {
    Parts(P),
    RunningServer(RunningServer),
    /// Completed (or between the two above, for an instant of `poll`).
    Done,
}

impl<P> ServeStage<P> {
    /// Starts the server with `start` at the first call, then polls it.
    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        start: impl FnOnce(P) -> RunningServer,
    ) -> Poll<io::Result<()>> {
        if matches!(self, ServeStage::Parts(_)) {
            let ServeStage::Parts(parts) = std::mem::replace(self, ServeStage::Done) else {
                unreachable!("matched just above");
            };
            *self = ServeStage::RunningServer(start(parts));
        }
        let ServeStage::RunningServer(running) = self else {
            panic!("filch::axum: a server polled after it completed");
        };
        let result = ready!(running.as_mut().poll(cx));
        *self = ServeStage::Done;
        Poll::Ready(result)
    }
}

impl<P> fmt::Debug for ServeStage<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ServeStage::Parts(_) => "not started",
            ServeStage::RunningServer(_) => "running",
            ServeStage::Done => "completed",
        })
    }
}

/// [`serve`]'s accept loop.
async fn serve_forever(listener: TcpListener, app: Router) -> io::Result<()> {
    let builder = Arc::new(connection_builder());
    loop {
        let stream = accept(&listener).await?;
        spawn_connection(&builder, stream, &app, None);
    }
}

/// [`Serve::with_graceful_shutdown`]'s accept loop, then the wait for the open connections.
async fn serve_until<F: Future<Output = ()>>(
    listener: TcpListener,
    app: Router,
    signal: F,
) -> io::Result<()> {
    let builder = Arc::new(connection_builder());
    // Dropped without `shutdown` (an accept error, or this future dropped), it still tells
    // every watcher to shut its connection down gracefully.
    let graceful = GracefulShutdown::new();
    let mut signal = pin!(signal);
    loop {
        let accept = pin!(accept(&listener));
        let stream = match future::select(accept, signal.as_mut()).await {
            Either::Left((accepted, _)) => accepted?,
            Either::Right(((), _)) => break,
        };
        spawn_connection(&builder, stream, &app, Some(graceful.watcher()));
    }
    // Closed before the wait, so that new connections are refused rather than left in the
    // backlog.
    drop(listener);
    // Tells each connection to finish, then waits until every watcher is gone: a watcher
    // lives in its connection's future, which drops the connection (its socket) first.
    graceful.shutdown().await;
    Ok(())
}

/// The next connection, retrying the accept errors that a retry may fix (module docs).
async fn accept(listener: &TcpListener) -> io::Result<TcpStream> {
    loop {
        let error = match listener.accept().await {
            Ok((stream, _peer)) => return Ok(stream),
            Err(error) => error,
        };
        match AcceptError::of(&error) {
            AcceptError::Retry => {}
            AcceptError::Pause => crate::time::sleep(ACCEPT_ERROR_PAUSE).await,
            AcceptError::Fatal => return Err(error),
        }
    }
}

/// What the accept loop does after an error (module docs, "Accept errors").
#[derive(Debug, PartialEq, Eq)]
enum AcceptError {
    /// Try again now (the listener backs off by itself when out of descriptors).
    Retry,
    /// Try again after [`ACCEPT_ERROR_PAUSE`].
    Pause,
    /// Complete the server with the error.
    Fatal,
}

impl AcceptError {
    fn of(error: &io::Error) -> AcceptError {
        let Some(code) = error.raw_os_error() else {
            // Not the system's: filch's own, the listener's executor has shut down.
            return AcceptError::Fatal;
        };
        match code {
            // One connection's failure, or (Linux, accept(2) "Error handling") a network
            // error pending on the new socket; the next connection may be fine.
            libc::ECONNABORTED
            | libc::ECONNRESET
            | libc::ECONNREFUSED
            | libc::EINTR
            | libc::EPROTO
            | libc::ENOPROTOOPT
            | libc::EOPNOTSUPP
            | libc::ENETDOWN
            | libc::ENETUNREACH
            | libc::EHOSTDOWN
            | libc::EHOSTUNREACH
            | libc::EPERM
            | libc::ETIMEDOUT => AcceptError::Retry,
            // Out of descriptors: the listener waits before its next try.
            libc::EMFILE | libc::ENFILE => AcceptError::Retry,
            // No listening socket to accept on.
            libc::EBADF | libc::EINVAL | libc::ENOTSOCK => AcceptError::Fatal,
            _ => AcceptError::Pause,
        }
    }
}

/// The connection settings: hyper-util's `auto` builder (HTTP/1.1 or HTTP/2, as the client
/// speaks) on filch's executor and timer.
fn connection_builder() -> Builder<HyperExecutor> {
    let mut builder = Builder::new(HyperExecutor::default());
    builder.http1().timer(HyperTimer);
    // Extended CONNECT, which websockets over HTTP/2 use (as axum::serve enables it).
    builder.http2().timer(HyperTimer).enable_connect_protocol();
    builder
}

/// Serves `stream` in a task of its own, watched by `watcher` when there is one.
fn spawn_connection(
    builder: &Arc<Builder<HyperExecutor>>,
    stream: TcpStream,
    app: &Router,
    watcher: Option<Watcher>,
) {
    // hyper writes each response as it is ready; Nagle's algorithm would hold back a small
    // one while an earlier segment waits for its ack. A socket that refuses is served anyway.
    let _ = stream.set_nodelay(true);
    let builder = Arc::clone(builder);
    let service = TowerToHyperService::new(app.clone());
    drop(crate::spawn(async move {
        let connection = builder.serve_connection_with_upgrades(stream, service);
        // A client that resets or sends garbage ends its own connection only; the error
        // concerns nobody else.
        let _ = match watcher {
            Some(watcher) => watcher.watch(connection).await,
            None => connection.await,
        };
    }));
}

#[cfg(test)]
mod tests;
