//! The async GIOP server: a task accepts connections and a task serves each one. Requests
//! to a `tower` service run together (the first poll on the connection's task, a task of
//! their own if that does not complete them), their replies sent by the connection's writer
//! task as they complete; requests to a blocking servant go through the blocking server's
//! dispatch, on the connection's task.

use std::collections::HashMap;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::{AbortHandle, JoinHandle, JoinSet};
use tokio::time::Instant;
use tower_service::Service;
use wire_iiop::giop::{
    encode_message, CloseConnection, Completion, Ior, LocateReplyHeader, LocateStatus, Message,
    MessageError, MessageKind, Version, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_MESSAGE,
};
use wire_iiop::ByteOrder;

use super::server::{handle_message, object_key, Handled, Objects, Out, DEFAULT_MAX_CONNECTIONS};
use super::service::Meta;
use super::{Request, Response, Servant};
use crate::codec::GiopCodec;
use crate::gather_writes::write_replies;
use crate::read_buf::{BusyPoll, ReadBuf};
use crate::service::{call_caught, poll_caught, BoxError, ErasedService};
use crate::stop::{close_writer, drain, or_stop};

/// Spare room a connection keeps in its buffer before each read.
const READ_CHUNK: usize = 8 * 1024;

/// Default cap on the requests of one connection served at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

/// Default time [`AsyncServerHandle::shutdown`] gives requests in flight to finish.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// An object served as a service; each connection clones it at its first request.
type Services = HashMap<Vec<u8>, Mutex<Box<dyn ErasedService<Request, Response>>>>;

/// An async GIOP server of objects by key, on a tokio runtime. Each connection is a task
/// that reads whole messages ([`GiopCodec`]: either byte order, fragments reassembled, sizes
/// capped), answers `LocateRequest`, answers garbage with `MessageError` (and closes), and
/// sends `CloseConnection` at shutdown once the requests in flight are answered.
///
/// An object is a `tower` [`Service`] of [`Request`]s ([`add_service`](AsyncServer::add_service);
/// marshal-build generates one from an IDL interface's async servant trait): a
/// connection's requests to it are in flight together, up to
/// [`set_max_in_flight`](AsyncServer::set_max_in_flight), and each reply goes out as its
/// request completes; a `CancelRequest` drops the request's future. Or it is one of the
/// blocking [`Server`](super::Server)'s [`Servant`]s ([`add`](AsyncServer::add)), with the
/// same dispatch, run on the connection's task: it should not block for long.
///
/// ```
/// use transports::giop::{AsyncClient, AsyncServer, Call};
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
/// rt.block_on(async {
///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
///     server.add("Adder", |call: &mut Call<'_>| match call.operation() {
///         b"add" => {
///             let (a, b): (i32, i32) = call.args()?;
///             call.reply(&a.wrapping_add(b))
///         }
///         _ => call.bad_operation(),
///     });
///     let server = server.spawn()?;
///     let client = AsyncClient::connect(&server.ior("IDL:Adder:1.0", b"Adder")).await?;
///     assert_eq!(client.invoke::<(i32, i32), i32>("add", &(2, 3)).await?, 5);
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncServer {
    listener: TcpListener,
    servants: Objects,
    services: Services,
    caps: Caps,
}

impl core::fmt::Debug for AsyncServer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let keys = self.servants.keys().chain(self.services.keys());
        f.debug_struct("AsyncServer")
            .field("listener", &self.listener)
            .field("objects", &keys.collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl AsyncServer {
    /// Listens on `addr` (port 0 picks a free one).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<AsyncServer> {
        Ok(AsyncServer {
            listener: TcpListener::bind(addr).await?,
            servants: HashMap::new(),
            services: HashMap::new(),
            caps: Caps {
                max_message: DEFAULT_MAX_MESSAGE,
                max_connections: DEFAULT_MAX_CONNECTIONS,
                max_in_flight: DEFAULT_MAX_IN_FLIGHT,
                grace: DEFAULT_GRACE,
                busy_poll: None,
            },
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves the blocking `servant` under `object_key` (replacing what served it before).
    /// It runs on the task of the connection the request came on.
    pub fn add(&mut self, object_key: impl Into<Vec<u8>>, servant: impl Servant + 'static) {
        let key = object_key.into();
        self.services.remove(&key);
        self.servants.insert(key, Arc::new(servant));
    }

    /// Serves a `tower` service of [`Request`]s under `object_key` (replacing what served it
    /// before), such as the `service` function marshal-build generates for an interface's
    /// async servant trait. Each connection clones `service` at its first request to the
    /// object, then calls its clone, after `poll_ready`, for each request: many may be in
    /// flight at once, up to [`set_max_in_flight`](AsyncServer::set_max_in_flight), and a
    /// `CancelRequest` drops the request's future. A request whose future completes at its
    /// first poll is answered from the connection's task; one that does not gets a task of
    /// its own. A service that fails with a [`marshal_core::Error`] (arguments that do not
    /// decode, [`Request::args`]'s error) is answered with the system exception `MARSHAL`;
    /// any other error, or a panic, with `UNKNOWN`.
    ///
    /// ```
    /// use std::future::{ready, Ready};
    /// use std::task::{Context, Poll};
    /// use transports::giop::{AsyncClient, AsyncServer, Request, Response};
    /// use transports::giop::Service;
    ///
    /// #[derive(Clone)]
    /// struct Adder;
    ///
    /// impl Service<Request> for Adder {
    ///     type Response = Response;
    ///     type Error = marshal_core::Error;
    ///     type Future = Ready<Result<Response, marshal_core::Error>>;
    ///
    ///     fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
    ///         Poll::Ready(Ok(()))
    ///     }
    ///
    ///     fn call(&mut self, req: Request) -> Self::Future {
    ///         ready(match req.operation() {
    ///             b"add" => req.args::<(i32, i32)>().and_then(|(a, b)| req.reply(&a.wrapping_add(b))),
    ///             _ => Ok(req.bad_operation()),
    ///         })
    ///     }
    /// }
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// rt.block_on(async {
    ///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
    ///     server.add_service("Adder", Adder);
    ///     let server = server.spawn()?;
    ///     let client = AsyncClient::connect(&server.ior("IDL:Adder:1.0", b"Adder")).await?;
    ///     assert_eq!(client.invoke::<(i32, i32), i32>("add", &(2, 3)).await?, 5);
    ///     server.shutdown().await;
    ///     Ok::<(), Box<dyn std::error::Error>>(())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_service<S>(&mut self, object_key: impl Into<Vec<u8>>, service: S)
    where
        S: Service<Request, Response = Response> + Clone + Send + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        let key = object_key.into();
        self.servants.remove(&key);
        self.services.insert(key, Mutex::new(Box::new(service)));
    }

    /// Caps the size of a request (reassembled), 256 MiB by default.
    pub fn set_max_message(&mut self, max: usize) {
        self.caps.max_message = max;
    }

    /// Caps the connections served at once (`DEFAULT_MAX_CONNECTIONS`, 1024, by default):
    /// each holds buffers, so a peer opening connections without end cannot exhaust memory.
    /// A connection beyond the cap is closed at once (clients retry later).
    pub fn set_max_connections(&mut self, max: usize) {
        self.caps.max_connections = max;
    }

    /// Caps the requests of one connection served at once ([`DEFAULT_MAX_IN_FLIGHT`] at
    /// first): beyond it, no more is read until one completes.
    pub fn set_max_in_flight(&mut self, max: usize) {
        self.caps.max_in_flight = max.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
    }

    /// How long [`AsyncServerHandle::shutdown`] lets requests in flight finish before it
    /// drops them and sends `CloseConnection` ([`DEFAULT_GRACE`] at first; a client resends
    /// a request that `CloseConnection` left unanswered).
    pub fn set_grace_period(&mut self, grace: Duration) {
        self.caps.grace = grace;
    }

    /// How long a connection's task, finding no request to read, keeps trying (yielding to
    /// the runtime in between) before it waits for the socket: off (`None`) at first, at most
    /// 10 ms. Its worker then stays awake for a request that comes within the budget, instead
    /// of letting its CPU idle and having to be woken (on a VM whose idle vCPUs halt, tens of
    /// microseconds a call), at the price of that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.caps.busy_poll = budget;
    }

    /// Starts serving on the current tokio runtime: a task accepts connections and a task
    /// serves each one.
    pub fn spawn(self) -> io::Result<AsyncServerHandle> {
        let addr = self.listener.local_addr()?;
        let (stop, stopped) = watch::channel(false);
        let ctx = Arc::new(Ctx {
            servants: self.servants,
            services: self.services,
            caps: self.caps,
        });
        let acceptor = tokio::spawn(accept_loop(self.listener, ctx, stopped));
        Ok(AsyncServerHandle {
            addr,
            stop,
            acceptor: Some(acceptor),
        })
    }
}

/// What every connection of a server shares.
struct Ctx {
    servants: Objects,
    services: Services,
    caps: Caps,
}

/// A running [`AsyncServer`]; [`shutdown`](AsyncServerHandle::shutdown) stops it (dropping
/// the handle stops it too, without waiting).
#[derive(Debug)]
pub struct AsyncServerHandle {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    acceptor: Option<JoinHandle<()>>,
}

impl AsyncServerHandle {
    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A reference to the object `object_key` here: one IIOP 1.2 profile.
    pub fn ior(&self, type_id: &str, object_key: &[u8]) -> Ior {
        Ior::new(
            type_id,
            &self.addr.ip().to_string(),
            self.addr.port(),
            object_key,
        )
    }

    /// Stops accepting, lets the requests in flight finish and their replies go out within
    /// the grace period (then drops them), tells every connected client `CloseConnection`,
    /// and waits for the connections' tasks to end: a client that reads nothing holds the
    /// shutdown no longer than the grace period.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.await;
        }
    }
}

impl Drop for AsyncServerHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// A server's caps.
#[derive(Debug, Clone, Copy)]
struct Caps {
    max_message: usize,
    max_connections: usize,
    max_in_flight: usize,
    grace: Duration,
    busy_poll: Option<Duration>,
}

async fn accept_loop(listener: TcpListener, ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut conns = JoinSet::new();
    while let Some(accepted) = or_stop(&mut stop, listener.accept()).await {
        // Forget the connections that ended.
        while conns.try_join_next().is_some() {}
        match accepted {
            // Dropping the stream closes it.
            Ok(_) if conns.len() >= ctx.caps.max_connections => {}
            Ok((stream, _)) => {
                conns.spawn(serve(stream, Arc::clone(&ctx), stop.clone()));
            }
            // Out of descriptors, say: let the connections run, then accept again.
            Err(_) => tokio::task::yield_now().await,
        }
    }
    drop(listener);
    while conns.join_next().await.is_some() {}
}

/// The requests of one connection to services: the connection's clones of the services
/// (made at the first request to each), the tasks of the requests that did not complete
/// at once, by request id (for `CancelRequest`), and the permits that bound them.
struct Requests {
    ctx: Arc<Ctx>,
    services: HashMap<Vec<u8>, Box<dyn ErasedService<Request, Response>>>,
    tasks: JoinSet<u32>,
    running: HashMap<u32, AbortHandle>,
    in_flight: Arc<Semaphore>,
    stop: watch::Receiver<bool>,
}

impl Requests {
    fn new(ctx: &Arc<Ctx>, stop: watch::Receiver<bool>) -> Requests {
        Requests {
            stop,
            services: HashMap::new(),
            tasks: JoinSet::new(),
            running: HashMap::new(),
            in_flight: Arc::new(Semaphore::new(ctx.caps.max_in_flight)),
            ctx: Arc::clone(ctx),
        }
    }

    /// Forgets the requests whose tasks have ended.
    fn reap(&mut self) {
        while let Some(done) = self.tasks.try_join_next() {
            if let Ok(request_id) = done {
                self.running.remove(&request_id);
            }
        }
    }

    /// Serves `req` with the service of its object, its reply going to `replies` (with
    /// `permit` held until it is handed over).
    async fn serve(
        &mut self,
        req: Request,
        replies: &mpsc::Sender<Vec<u8>>,
        permit: OwnedSemaphorePermit,
    ) {
        self.reap();
        let key = req.key();
        let Some(proto) = self.ctx.services.get(&*key) else {
            return;
        };
        if !self.services.contains_key(&*key) {
            let clone = proto
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone_box();
            self.services.insert(key.to_vec(), clone);
        }
        let Some(service) = self.services.get_mut(&*key) else {
            return;
        };
        let meta = req.meta();
        // Backpressure: a service not ready holds this connection's reading (until the
        // server stops).
        match or_stop(&mut self.stop, poll_fn(|cx| service.poll_ready(cx))).await {
            Some(Ok(())) => {}
            Some(Err(_)) => {
                let busy = meta.system_exception("TRANSIENT", Completion::No);
                return self.reply(replies, busy, meta, permit);
            }
            None => return,
        }
        let Some(mut call) = call_caught(&mut **service, req) else {
            // A service that panicked may be broken: the next request clones it anew.
            self.services.remove(&*key);
            let failed = meta.answer(Err("the service panicked".into()));
            return self.reply(replies, failed, meta, permit);
        };
        match poll_fn(|cx| Poll::Ready(poll_caught(&mut call, cx))).await {
            Poll::Ready(outcome) => self.reply(replies, meta.answer(outcome), meta, permit),
            Poll::Pending => {
                let replies = replies.clone();
                let task = self.tasks.spawn(async move {
                    let outcome = poll_fn(|cx| poll_caught(&mut call, cx)).await;
                    send(&replies, meta.answer(outcome)).await;
                    drop(permit);
                    meta.request_id
                });
                // A client reusing the id of a request still running cancels nothing.
                self.running.insert(meta.request_id, task);
            }
        }
    }

    /// Hands `response` to the writer without waiting: if the writer's queue is full (its
    /// peer is slow to read), a task waits for room, holding `permit`, so the connection's
    /// loop goes on and sees the server stop.
    fn reply(
        &mut self,
        replies: &mpsc::Sender<Vec<u8>>,
        response: Response,
        meta: Meta,
        permit: OwnedSemaphorePermit,
    ) {
        let message = response.into_message();
        if message.is_empty() {
            return;
        }
        if let Err(TrySendError::Full(message)) = replies.try_send(message) {
            let replies = replies.clone();
            self.tasks.spawn(async move {
                let _ = replies.send(message).await;
                drop(permit);
                meta.request_id
            });
        }
    }

    /// `CancelRequest`: drops the request's future (no reply is sent).
    fn cancel(&mut self, request_id: u32) {
        self.reap();
        if let Some(task) = self.running.remove(&request_id) {
            task.abort();
        }
    }

    /// Lets the requests in flight finish; once the server stops, only until the end of
    /// the grace period, which it returns. Then drops those still running.
    async fn finish(mut self) -> Option<Instant> {
        let n = self.ctx.caps.max_in_flight as u32;
        let deadline = drain(&self.in_flight, n, &mut self.stop, self.ctx.caps.grace).await;
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        deadline
    }
}

/// Hands a reply to the writer (nothing for a oneway request).
async fn send(replies: &mpsc::Sender<Vec<u8>>, response: Response) {
    let message = response.into_message();
    if !message.is_empty() {
        let _ = replies.send(message).await;
    }
}

/// Why a connection's loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The peer closed, or broke the protocol, or the writer ended.
    Peer,
    /// The server stops.
    Stop,
}

/// What a connection does with a received message.
enum Action {
    /// Serve a request to a service.
    Serve(Request),
    /// Drop the future of a request to a service.
    Cancel(u32),
    /// Send this (if anything), then go on or close.
    Send(Vec<u8>, Handled),
}

/// Decides what to do with `msg` (parsed from `message`): requests to services and their
/// `LocateRequest`s and `CancelRequest`s here, everything else the blocking server's way
/// (its servants run now, on the connection's task).
fn act(ctx: &Ctx, message: &Bytes, msg: &Message<'_>) -> Action {
    let (version, order) = (msg.header.version, msg.header.order);
    match &msg.kind {
        MessageKind::Request(h) => {
            if let Some(key) = object_key(&h.target).filter(|k| ctx.services.contains_key(&**k)) {
                return Action::Serve(Request::new(message, h, &msg.body(), version, &key));
            }
        }
        MessageKind::LocateRequest(h)
            if object_key(&h.target).is_some_and(|k| ctx.services.contains_key(&*k)) =>
        {
            let head = LocateReplyHeader {
                request_id: h.request_id,
                status: LocateStatus::ObjectHere,
            };
            let mut out = Vec::new();
            let _ = encode_message(&mut out, version, order, &head, &());
            return Action::Send(out, Handled::Continue);
        }
        MessageKind::CancelRequest(h) => return Action::Cancel(h.request_id),
        _ => {}
    }
    let mut out = Vec::new();
    let handled = handle_message(&ctx.servants, msg, Out::Buffer(&mut out));
    Action::Send(out, handled)
}

/// Serves one connection until it closes, the peer breaks the protocol, or the server stops.
async fn serve(stream: TcpStream, ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let (mut rd, wr) = stream.into_split();
    let (replies, queue) = mpsc::channel(ctx.caps.max_in_flight + 2);
    let writer = tokio::spawn(write_replies(wr, queue, None));
    let mut requests = Requests::new(&ctx, stop.clone());
    let mut codec = GiopCodec::with_caps(ctx.caps.max_message, DEFAULT_MAX_FRAGMENTS);
    let mut buf = ReadBuf::new(READ_CHUNK, BusyPoll::new(ctx.caps.busy_poll));
    // What a MessageError or CloseConnection goes out in: the peer's last message's.
    let mut version = Version::V1_0;
    let mut order = ByteOrder::Big;
    let end = loop {
        let message = match buf.decode(&mut codec) {
            Ok(Some(message)) => message,
            Ok(None) => match or_stop(&mut stop, buf.read(&mut rd)).await {
                Some(Ok(0) | Err(_)) => break End::Peer,
                Some(Ok(_)) => continue,
                None => break End::Stop,
            },
            Err(_) => {
                let mut out = Vec::new();
                let _ = encode_message(&mut out, version, order, &MessageError::default(), &());
                let _ = replies.send(out).await;
                break End::Peer;
            }
        };
        // `Message` borrows a non-`Sync` refill: it is read before anything is awaited.
        let action = match Message::parse(&message) {
            Ok(msg) => {
                version = msg.header.version;
                order = msg.header.order;
                act(&ctx, &message, &msg)
            }
            Err(_) => {
                let mut out = Vec::new();
                let _ = encode_message(&mut out, version, order, &MessageError::default(), &());
                Action::Send(out, Handled::Stop)
            }
        };
        match action {
            Action::Serve(req) => {
                let permit = Arc::clone(&requests.in_flight).acquire_owned();
                let Some(Ok(permit)) = or_stop(&mut stop, permit).await else {
                    break End::Stop;
                };
                requests.serve(req, &replies, permit).await;
            }
            Action::Cancel(request_id) => requests.cancel(request_id),
            Action::Send(out, handled) => {
                if !out.is_empty() {
                    match or_stop(&mut stop, replies.send(out)).await {
                        Some(Ok(())) => {}
                        Some(Err(_)) => break End::Peer,
                        None => break End::Stop,
                    }
                }
                if handled == Handled::Stop {
                    break End::Peer;
                }
            }
        }
    };
    drop(rd);
    let deadline = requests.finish().await;
    if end == End::Stop || deadline.is_some() {
        // After the replies already queued; a peer that reads nothing does not get it.
        let mut out = Vec::new();
        let _ = encode_message(&mut out, version, order, &CloseConnection::default(), &());
        let _ = replies.try_send(out);
    }
    drop(replies);
    close_writer(writer, deadline, &mut stop, ctx.caps.grace).await;
}
