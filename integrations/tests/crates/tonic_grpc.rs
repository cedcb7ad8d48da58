//! gRPC with tonic: a tonic server and a tonic client (tonic's own transport, on tokio's
//! `net`), with the `tokio-context` feature. The server is started from a filch task with
//! `tokio::spawn`, so it runs on the process's tokio runtime; the client's calls run in
//! filch tasks, many at once over one channel (HTTP/2 streams), with no tokio runtime of the
//! test's own. The messages and the service are written by hand (what `tonic-build` would
//! generate, without protoc).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::codegen::http;
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

use crate::common::{executor, watchdog};

#[derive(Clone, PartialEq, prost::Message)]
struct EchoRequest {
    #[prost(string, tag = "1")]
    text: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EchoReply {
    #[prost(string, tag = "1")]
    text: String,
    #[prost(uint64, tag = "2")]
    chars: u64,
}

/// The `echo.Echo/Say` method.
struct Say;

impl tonic::server::UnaryService<EchoRequest> for Say {
    type Response = EchoReply;
    type Future = Pin<Box<dyn Future<Output = Result<Response<EchoReply>, Status>> + Send>>;

    fn call(&mut self, request: Request<EchoRequest>) -> Self::Future {
        let text = request.into_inner().text;
        Box::pin(async move {
            Ok(Response::new(EchoReply {
                chars: text.chars().count() as u64,
                text,
            }))
        })
    }
}

/// The `echo.Echo` service: one unary method, `Say`.
#[derive(Clone)]
struct EchoServer;

impl tonic::server::NamedService for EchoServer {
    const NAME: &'static str = "echo.Echo";
}

impl tower_service::Service<http::Request<tonic::body::Body>> for EchoServer {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        Box::pin(async move {
            if request.uri().path() != "/echo.Echo/Say" {
                return Ok(Status::unimplemented("no such method").into_http());
            }
            let mut grpc =
                tonic::server::Grpc::new(ProstCodec::<EchoReply, EchoRequest>::default());
            Ok(grpc.unary(Say, request).await)
        })
    }
}

/// One `Say` call on `channel`.
async fn say(channel: tonic::transport::Channel, text: String) -> Result<EchoReply, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path = http::uri::PathAndQuery::from_static("/echo.Echo/Say");
    let codec = ProstCodec::<EchoRequest, EchoReply>::default();
    Ok(grpc
        .unary(Request::new(EchoRequest { text }), path, codec)
        .await?
        .into_inner())
}

#[test]
fn a_tonic_client_in_filch_tasks_talks_to_a_tonic_server() {
    watchdog(60, "tonic", || {
        let ex = executor(2);
        ex.block_on(async {
            // The server, on the process's tokio runtime (tokio's context is here).
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let incoming = futures::stream::unfold(listener, |listener| async move {
                let accepted = listener.accept().await.map(|(stream, _)| stream);
                Some((accepted, listener))
            });
            let server = tokio::spawn(
                tonic::transport::Server::builder()
                    .add_service(EchoServer)
                    .serve_with_incoming(incoming),
            );
            // The client: one channel, 32 calls at once from filch tasks.
            let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
                .unwrap()
                .connect()
                .await
                .expect("cannot connect to the tonic server");
            let calls: Vec<_> = (0..32)
                .map(|i| filch::spawn(say(channel.clone(), format!("call {i}: héllo"))))
                .collect();
            for (i, call) in calls.into_iter().enumerate() {
                let reply = call.await.unwrap().expect("the call failed");
                let text = format!("call {i}: héllo");
                assert_eq!(reply.chars, text.chars().count() as u64);
                assert_eq!(reply.text, text);
            }
            server.abort();
        });
    });
}
