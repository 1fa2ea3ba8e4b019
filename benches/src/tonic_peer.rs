//! tonic, the gRPC stack a Rust user would pick for async RPC, as the alternative in
//! `benches/async_rpc.rs`: an echo service over HTTP/2 with prost messages.
//!
//! The messages derive [`prost::Message`] by hand and the client and server are written over
//! tonic's own building blocks ([`tonic::client::Grpc`], [`tonic::server::Grpc::unary`],
//! [`tonic_prost::ProstCodec`]), as `tonic-build` would generate them from
//!
//! ```proto
//! syntax = "proto3";
//! package bench;
//! message Octets { bytes data = 1; }
//! message Ints { repeated sfixed32 values = 1; }
//! message Empty {}
//! service Echo {
//!   rpc EchoOctets(Octets) returns (Octets);
//!   rpc EchoInts(Ints) returns (Ints);
//!   rpc Null(Empty) returns (Empty);
//! }
//! ```
//!
//! so that neither the build nor CI needs `protoc`. The server is one service routing by
//! path (tonic's router, which needs axum, is left out).
//!
//! ```
//! use marshal_benches::tonic_peer::{Ints, TonicClient, TonicServer};
//!
//! let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
//! rt.block_on(async {
//!     let server = TonicServer::start().await?;
//!     let mut client = TonicClient::connect(server.addr()).await?;
//!     let reply = client.echo(Ints { values: vec![1, -2, 3] }).await?;
//!     assert_eq!(reply.values, [1, -2, 3]);
//!     client.null().await?;
//!     drop(client);
//!     server.shutdown().await;
//!     Ok::<(), Box<dyn std::error::Error>>(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::convert::Infallible;
use std::future::{ready, Future, Ready};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::uri::PathAndQuery;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::body::Body;
use tonic::client::Grpc;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Channel, Endpoint, Server};
use tonic::{Code, Request, Response, Status};
use tonic_prost::ProstCodec;

/// `message Octets { bytes data = 1; }`: an opaque byte array.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Octets {
    #[prost(bytes = "vec", tag = "1")]
    pub data: Vec<u8>,
}

/// `message Ints { repeated sfixed32 values = 1; }`: packed (proto3's default for scalars),
/// each value a fixed 4 bytes as in XDR and CDR (a `repeated int32` would be varints, 1 to
/// 10 bytes each, so the payload's size would depend on the values).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Ints {
    #[prost(sfixed32, repeated, tag = "1")]
    pub values: Vec<i32>,
}

/// A message of an echo method: built from, and measured in, the values it carries.
pub trait EchoMessage: prost::Message + Default + Send + Sync + 'static {
    /// What it carries, one value a field element.
    type Value;
    /// The path of its echo method.
    const PATH: &'static str;
    /// The message of `values`.
    fn of(values: Vec<Self::Value>) -> Self;
    /// How many values it carries.
    fn count(&self) -> usize;
}

impl EchoMessage for Octets {
    type Value = u8;
    const PATH: &'static str = ECHO_OCTETS;
    fn of(data: Vec<u8>) -> Octets {
        Octets { data }
    }
    fn count(&self) -> usize {
        self.data.len()
    }
}

impl EchoMessage for Ints {
    type Value = i32;
    const PATH: &'static str = ECHO_INTS;
    fn of(values: Vec<i32>) -> Ints {
        Ints { values }
    }
    fn count(&self) -> usize {
        self.values.len()
    }
}

/// `message Empty {}`: the argument and result of the null procedure.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Empty {}

/// The path of `Echo.EchoOctets`.
pub const ECHO_OCTETS: &str = "/bench.Echo/EchoOctets";
/// The path of `Echo.EchoInts`.
pub const ECHO_INTS: &str = "/bench.Echo/EchoInts";
/// The path of `Echo.Null`.
pub const NULL: &str = "/bench.Echo/Null";

/// The client of `bench.Echo` on one [`Channel`] (one HTTP/2 connection). Cloning is cheap
/// and clones share the connection: each call takes `&mut self`, so concurrent calls each
/// use a clone, and HTTP/2 multiplexes them.
#[derive(Debug, Clone)]
pub struct TonicClient {
    grpc: Grpc<Channel>,
}

impl TonicClient {
    /// Connects to a server at `addr` (plain-text HTTP/2, `TCP_NODELAY`).
    pub async fn connect(addr: SocketAddr) -> Result<TonicClient, tonic::transport::Error> {
        let channel = Endpoint::from_shared(format!("http://{addr}"))?
            .tcp_nodelay(true)
            .connect()
            .await?;
        Ok(TonicClient {
            grpc: Grpc::new(channel),
        })
    }

    /// `EchoOctets` or `EchoInts`, as `M` says: the server sends `msg` back.
    pub async fn echo<M: EchoMessage>(&mut self, msg: M) -> Result<M, Status> {
        self.unary(msg, M::PATH).await
    }

    /// `Null`: an empty message there and back.
    pub async fn null(&mut self) -> Result<(), Status> {
        self.unary(Empty {}, NULL).await.map(|Empty {}| ())
    }

    /// One unary call, as tonic-build's generated clients make it.
    async fn unary<M>(&mut self, msg: M, path: &'static str) -> Result<M, Status>
    where
        M: prost::Message + Default + Send + Sync + 'static,
    {
        self.grpc
            .ready()
            .await
            .map_err(|e| Status::unknown(format!("the channel is not ready: {e}")))?;
        let codec = ProstCodec::<M, M>::default();
        let reply = self
            .grpc
            .unary(Request::new(msg), PathAndQuery::from_static(path), codec)
            .await?;
        Ok(reply.into_inner())
    }
}

/// A running tonic server of `bench.Echo` on a loopback port of the current runtime.
#[derive(Debug)]
pub struct TonicServer {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl TonicServer {
    /// Listens on a free port of 127.0.0.1 and serves there (`TCP_NODELAY`) on the current
    /// tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub async fn start() -> io::Result<TonicServer> {
        let incoming =
            TcpIncoming::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?.with_nodelay(Some(true));
        let addr = incoming.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let serve = Server::builder().serve_with_incoming_shutdown(EchoService, incoming, async {
            let _ = stopped.await;
        });
        Ok(TonicServer {
            addr,
            stop,
            task: tokio::spawn(serve),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, waits for the open connections to close, and returns.
    ///
    /// # Panics
    ///
    /// If the server failed or its task panicked.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        self.task
            .await
            .expect("the tonic server task")
            .expect("the tonic server");
    }
}

/// The `bench.Echo` service as tonic-build generates a server: a [`tower_service::Service`]
/// of HTTP requests routing each by path to [`tonic::server::Grpc::unary`].
#[derive(Debug, Clone, Copy)]
struct EchoService;

type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, Infallible>> + Send + 'static>>;

impl tower_service::Service<http::Request<Body>> for EchoService {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<http::Response<Body>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        match req.uri().path() {
            ECHO_OCTETS => Box::pin(echo::<Octets>(req)),
            ECHO_INTS => Box::pin(echo::<Ints>(req)),
            NULL => Box::pin(echo::<Empty>(req)),
            _ => Box::pin(async { Ok(Status::new(Code::Unimplemented, "").into_http()) }),
        }
    }
}

/// Serves one unary call of an echo method: decodes an `M`, sends it back.
async fn echo<M>(req: http::Request<Body>) -> Result<http::Response<Body>, Infallible>
where
    M: prost::Message + Default + Send + Sync + 'static,
{
    let mut grpc = tonic::server::Grpc::new(ProstCodec::<M, M>::default());
    Ok(grpc.unary(Echo, req).await)
}

/// The handler of every echo method: the request's message is the response's.
#[derive(Debug, Clone, Copy)]
struct Echo;

impl<M> tower_service::Service<Request<M>> for Echo {
    type Response = Response<M>;
    type Error = Status;
    type Future = Ready<Result<Response<M>, Status>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<M>) -> Self::Future {
        ready(Ok(Response::new(req.into_inner())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    }

    #[test]
    fn every_method_echoes() {
        let rt = runtime();
        rt.block_on(async {
            let server = TonicServer::start().await.unwrap();
            let mut client = TonicClient::connect(server.addr()).await.unwrap();
            let octets = Octets {
                data: (0..=255).collect(),
            };
            assert_eq!(client.echo(octets.clone()).await.unwrap(), octets);
            let ints = Ints {
                values: vec![i32::MIN, -1, 0, 1, i32::MAX],
            };
            assert_eq!(client.echo(ints.clone()).await.unwrap(), ints);
            client.null().await.unwrap();
            drop(client);
            server.shutdown().await;
        });
    }

    #[test]
    fn an_unknown_method_is_unimplemented() {
        let rt = runtime();
        rt.block_on(async {
            let server = TonicServer::start().await.unwrap();
            let mut client = TonicClient::connect(server.addr()).await.unwrap();
            let err = client
                .unary(Empty {}, "/bench.Echo/Nope")
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::Unimplemented);
            drop(client);
            server.shutdown().await;
        });
    }

    #[test]
    fn sfixed32_is_four_bytes_a_value() {
        // Tag and length (1 + 2 bytes for 256 bytes of values), then 4 bytes per value.
        let ints = Ints {
            values: vec![7; 64],
        };
        assert_eq!(prost::Message::encoded_len(&ints), 3 + 64 * 4);
    }
}
