//! The axum application of `integrations/examples/axum_app` (included below), served by
//! `filch::axum::serve` over real loopback sockets: every route answers as it should (text,
//! path parameter, JSON in and out, shared state, a route that awaits a data-parallel loop,
//! one that uses the blocking pool), bad input gets a 4xx, many concurrent keep-alive clients are all served, and a
//! graceful shutdown lets a request in flight finish before the server returns.
//!
//! The client is hyper's own (HTTP/1.1 over tokio), so no test code parses HTTP. Every test
//! runs under a watchdog. Only 127.0.0.1.

#[allow(dead_code)]
#[path = "../../examples/axum_app/app.rs"]
mod app;

use std::net::SocketAddr;
use std::thread;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;

use crate::common::{named_executor, watchdog};

/// The app on its own filch executor (2 workers, threads `axum-test-*`), served from a std
/// thread until `stop` is sent.
struct Running {
    addr: SocketAddr,
    stop: async_channel::Sender<()>,
    thread: Option<thread::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    fn start() -> Running {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = async_channel::bounded::<()>(1);
        let thread = thread::spawn(move || {
            let ex = named_executor(2, "axum-test");
            ex.block_on(async move {
                let listener = filch::net::TcpListener::from_std(listener)?;
                filch::axum::serve(listener, app::router())
                    .with_graceful_shutdown(async move {
                        let _ = stopped.recv().await;
                    })
                    .await
            })
        });
        Running {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Asks for a graceful shutdown and waits until `serve` returned.
    fn shut_down(mut self) {
        let _ = self.stop.try_send(());
        self.thread.take().unwrap().join().unwrap().unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.try_send(());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One keep-alive HTTP/1.1 connection of hyper's client, on a tokio runtime of its own.
struct Client {
    rt: tokio::runtime::Runtime,
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let sender = rt.block_on(async {
            let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .unwrap();
            tokio::spawn(connection);
            sender
        });
        Client { rt, sender }
    }

    fn request(&mut self, method: Method, path: &str, body: &str) -> (StatusCode, String) {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.to_owned())))
            .unwrap();
        let sender = &mut self.sender;
        self.rt.block_on(async {
            sender.ready().await.unwrap();
            let response = sender.send_request(request).await.unwrap();
            let status = response.status();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            (status, String::from_utf8(body.to_vec()).unwrap())
        })
    }

    fn get(&mut self, path: &str) -> (StatusCode, String) {
        self.request(Method::GET, path, "")
    }
}

#[test]
fn every_route_answers() {
    watchdog(60, "every route", || {
        let server = Running::start();
        let mut client = Client::connect(server.addr);
        assert_eq!(client.get("/"), (StatusCode::OK, app::HELLO.to_owned()));
        assert_eq!(
            client.get("/hello/filch"),
            (StatusCode::OK, "Hello, filch!\n".to_owned())
        );
        let (status, body) = client.request(Method::POST, "/echo", r#"{"text":"héllo"}"#);
        assert_eq!(status, StatusCode::OK);
        let echo: app::EchoOut = serde_json::from_str(&body).unwrap();
        assert_eq!((echo.echo.as_str(), echo.chars), ("héllo", 5));
        assert_eq!(client.get("/hits"), (StatusCode::OK, "1".to_owned()));
        assert_eq!(client.get("/hits"), (StatusCode::OK, "2".to_owned()));
        let (status, body) = client.get("/squares/1000");
        assert_eq!(status, StatusCode::OK);
        let squares: app::Squares = serde_json::from_str(&body).unwrap();
        assert_eq!(squares.sum, (0..1000u128).map(|i| i * i).sum::<u128>());
        let (status, body) = client.get("/blocking");
        assert_eq!(status, StatusCode::OK);
        assert!(
            body.starts_with("axum-test-blocking-"),
            "the blocking route ran on {body:?}, not on the blocking pool"
        );
        server.shut_down();
    });
}

#[test]
fn bad_input_gets_a_client_error_and_the_connection_goes_on() {
    watchdog(60, "bad input", || {
        let server = Running::start();
        let mut client = Client::connect(server.addr);
        let (status, _) = client.request(Method::POST, "/echo", "not json");
        assert!(status.is_client_error(), "{status}");
        let (status, _) = client.request(Method::POST, "/echo", r#"{"wrong":1}"#);
        assert!(status.is_client_error(), "{status}");
        let (status, _) = client.get(&format!("/squares/{}", app::MAX_SQUARES + 1));
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let (status, _) = client.get("/squares/minus-one");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(client.get("/nowhere").0, StatusCode::NOT_FOUND);
        assert_eq!(
            client.request(Method::DELETE, "/", "").0,
            StatusCode::METHOD_NOT_ALLOWED
        );
        // The same connection still serves.
        assert_eq!(client.get("/").0, StatusCode::OK);
        server.shut_down();
    });
}

#[test]
fn many_concurrent_keep_alive_clients_are_all_served() {
    watchdog(120, "concurrent clients", || {
        let server = Running::start();
        let addr = server.addr;
        let clients: Vec<_> = (0..16)
            .map(|c| {
                thread::spawn(move || {
                    let mut client = Client::connect(addr);
                    for i in 0..50 {
                        let name = format!("c{c}r{i}");
                        assert_eq!(
                            client.get(&format!("/hello/{name}")),
                            (StatusCode::OK, format!("Hello, {name}!\n"))
                        );
                    }
                })
            })
            .collect();
        for c in clients {
            c.join().unwrap();
        }
        server.shut_down();
    });
}

#[test]
fn a_graceful_shutdown_lets_a_request_in_flight_finish() {
    watchdog(120, "graceful shutdown", || {
        let server = Running::start();
        let addr = server.addr;
        // A request that stays in flight for 1.5 s (a filch timer in the handler).
        let slow = thread::spawn(move || Client::connect(addr).get("/sleep/1500"));
        // Let it reach the handler, then shut down while it waits.
        thread::sleep(std::time::Duration::from_millis(300));
        server.shut_down();
        let (status, body) = slow.join().unwrap();
        assert_eq!((status, body.as_str()), (StatusCode::OK, "slept 1500 ms\n"));
        // No connection is accepted any more.
        assert!(std::net::TcpStream::connect(addr).is_err());
    });
}
