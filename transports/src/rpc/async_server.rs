//! The async server: an acceptor task, a task per TCP connection (records cut by
//! [`RecordCodec`], up to a bound of calls in flight per connection, each reply sent as its
//! call completes) and a UDP task. Every call passes the blocking server's admission (RPC
//! version, credentials, program and version lookup), then goes to its program version:
//! a `tower` [`Service`] of [`Request`]s, polled on the connection's task and given a task
//! of its own only if it does not complete at once, or a blocking [`Program`] with the
//! blocking server's dispatch (`GARBAGE_ARGS`, `SYSTEM_ERR` after a panic), run on tokio's
//! blocking pool so that a slow program holds no runtime worker.

use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;
use tower_service::Service;
use wire_xdr::rpc::{CallHeader, DEFAULT_MAX_RECORD};

use super::server::{add_program, admit, serve_call, Admission, ReplyTo};
use super::service::{answer, refusal};
use super::{
    rpcbind, Program, Protocol, Request, Response, RpcError, DEFAULT_MAX_CONNECTIONS, MAX_DATAGRAM,
};
use crate::codec::RecordCodec;
use crate::gather_writes::write_replies;
use crate::read_buf::{BusyPoll, ReadBuf};
use crate::service::{call_caught, poll_caught, BoxError, ErasedService};
use crate::stop::{close_writer, drain, race, stopped, Either};

/// A program version the async server serves.
enum Entry {
    /// A blocking program, run on the blocking pool.
    Blocking(Arc<dyn Program>),
    /// A service; each connection clones it at its first call.
    Service(Mutex<Box<dyn ErasedService<Request, Response>>>),
}

/// The largest count of connections or calls in flight (a semaphore's permits, taken all at
/// once at shutdown as a `u32`).
const MAX_PERMITS: usize = if Semaphore::MAX_PERMITS < u32::MAX as usize {
    Semaphore::MAX_PERMITS
} else {
    u32::MAX as usize
};

/// Default cap on the calls of one TCP connection (or of the UDP socket) served at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Default time [`AsyncServerHandle::shutdown`] gives calls in flight to finish.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// An async server of several programs and versions over TCP, UDP or both, on a tokio
/// runtime. Each program version is a `tower` [`Service`] of [`Request`]s
/// ([`add_service`](AsyncServer::add_service); marshal-build generates one from a `.x`
/// file's async server trait), or one of the blocking [`Server`](super::Server)'s
/// [`Program`]s ([`add`](AsyncServer::add)), with the same dispatch, each call of which runs
/// on the runtime's blocking pool.
///
/// ```
/// use transports::rpc::{AsyncClient, AsyncServer, Call};
/// const PROG: u32 = 0x2000_0001;
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
///     server.add(PROG, 1, |call: &mut Call<'_>| match call.procedure() {
///         0 => call.reply(&()),
///         1 => {
///             let (a, b): (i32, i32) = call.args()?;
///             call.reply(&a.wrapping_add(b))
///         }
///         _ => call.proc_unavail(),
///     });
///     let server = server.spawn()?;
///
///     let tcp = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, 1).await?;
///     assert_eq!(tcp.call::<_, i32>(1, &(2, 3)).await?, 5);
///     let udp = AsyncClient::connect_udp(server.udp_addr().unwrap(), PROG, 1).await?;
///     assert_eq!(udp.call::<_, i32>(1, &(4, 5)).await?, 9);
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncServer {
    tcp: Option<TcpListener>,
    udp: Option<UdpSocket>,
    entries: Vec<(u32, u32, Entry)>,
    register: bool,
    max_record: usize,
    max_connections: usize,
    max_in_flight: usize,
    idle_timeout: Option<Duration>,
    grace: Duration,
    busy_poll: Option<Duration>,
}

impl core::fmt::Debug for AsyncServer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncServer")
            .field("tcp", &self.tcp)
            .field("udp", &self.udp)
            .field(
                "programs",
                &self.entries.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl AsyncServer {
    fn with(tcp: Option<TcpListener>, udp: Option<UdpSocket>) -> AsyncServer {
        AsyncServer {
            tcp,
            udp,
            entries: Vec::new(),
            register: false,
            max_record: DEFAULT_MAX_RECORD,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            idle_timeout: Some(Duration::from_secs(300)),
            grace: DEFAULT_GRACE,
            busy_poll: None,
        }
    }

    /// Listens on TCP at `addr` and on UDP at the same address and port (port 0 picks one
    /// free for both).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<AsyncServer> {
        let addr = tokio::net::lookup_host(addr)
            .await?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to bind"))?;
        // The TCP port picked for port 0 may be taken on UDP: try a few.
        let mut last = None;
        for _ in 0..16 {
            let tcp = TcpListener::bind(addr).await?;
            match UdpSocket::bind(tcp.local_addr()?).await {
                Ok(udp) => return Ok(AsyncServer::with(Some(tcp), Some(udp))),
                Err(e) if addr.port() == 0 => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no port free for both TCP and UDP")))
    }

    /// Listens on TCP only.
    pub async fn bind_tcp(addr: impl ToSocketAddrs) -> io::Result<AsyncServer> {
        Ok(AsyncServer::with(
            Some(TcpListener::bind(addr).await?),
            None,
        ))
    }

    /// Listens on UDP only.
    pub async fn bind_udp(addr: impl ToSocketAddrs) -> io::Result<AsyncServer> {
        Ok(AsyncServer::with(None, Some(UdpSocket::bind(addr).await?)))
    }

    /// Serves `program` at `version` with the blocking program `imp` (replacing an earlier
    /// one for the pair). Each call runs on the runtime's blocking pool.
    pub fn add(&mut self, program: u32, version: u32, imp: impl Program + 'static) {
        let entry = Entry::Blocking(Arc::new(imp));
        add_program(&mut self.entries, program, version, entry);
    }

    /// Serves `program` at `version` with a `tower` service of [`Request`]s (replacing an
    /// earlier one for the pair), such as the `service` function marshal-build generates
    /// for a program's async server trait. Each connection (and the UDP socket) clones
    /// `service` at its first call, then calls its clone, after `poll_ready`, for each of
    /// its calls: many may be in flight at once, up to
    /// [`set_max_in_flight`](AsyncServer::set_max_in_flight). A call whose future completes
    /// at its first poll is answered from the connection's task; one that does not gets a
    /// task of its own. A service that fails with [`GarbageArgs`](super::GarbageArgs) (from
    /// [`Request::args`]) is answered `GARBAGE_ARGS`; any other error, or a panic,
    /// `SYSTEM_ERR`.
    ///
    /// ```
    /// use std::future::{ready, Ready};
    /// use std::task::{Context, Poll};
    /// use transports::rpc::{AsyncClient, AsyncServer, BoxError, Request, Response, Service};
    ///
    /// /// Adds two numbers (procedure 1).
    /// #[derive(Clone)]
    /// struct Adder;
    ///
    /// impl Service<Request> for Adder {
    ///     type Response = Response;
    ///     type Error = BoxError;
    ///     type Future = Ready<Result<Response, BoxError>>;
    ///
    ///     fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
    ///         Poll::Ready(Ok(()))
    ///     }
    ///
    ///     fn call(&mut self, req: Request) -> Self::Future {
    ///         ready(match req.procedure() {
    ///             0 => Response::success(&()).map_err(Into::into),
    ///             1 => req
    ///                 .args::<(i32, i32)>()
    ///                 .map_err(BoxError::from)
    ///                 .and_then(|(a, b)| Ok(Response::success(&a.wrapping_add(b))?)),
    ///             _ => Ok(Response::proc_unavail()),
    ///         })
    ///     }
    /// }
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// rt.block_on(async {
    ///     let mut server = AsyncServer::bind_tcp("127.0.0.1:0").await?;
    ///     server.add_service(0x2000_0001, 1, Adder);
    ///     let server = server.spawn()?;
    ///     let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), 0x2000_0001, 1).await?;
    ///     assert_eq!(c.call::<_, i32>(1, &(2, 3)).await?, 5);
    ///     server.shutdown().await;
    ///     Ok::<(), Box<dyn std::error::Error>>(())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_service<S>(&mut self, program: u32, version: u32, service: S)
    where
        S: Service<Request, Response = Response> + Clone + Send + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        let entry = Entry::Service(Mutex::new(Box::new(service)));
        add_program(&mut self.entries, program, version, entry);
    }

    /// Whether [`spawn`](AsyncServer::spawn) registers every program version with the
    /// rpcbind on this host (and shutdown unregisters them). Off at first.
    pub fn register_with_rpcbind(&mut self, register: bool) {
        self.register = register;
    }

    /// Caps the size of a call received over TCP (64 MiB at first); a record beyond it
    /// closes the connection.
    pub fn set_max_record(&mut self, max: usize) {
        self.max_record = max;
    }

    /// Caps the TCP connections served at once ([`DEFAULT_MAX_CONNECTIONS`] at first); a
    /// connection beyond it is closed at once.
    pub fn set_max_connections(&mut self, max: usize) {
        self.max_connections = max.clamp(1, MAX_PERMITS);
    }

    /// Caps the calls of one TCP connection, and of the UDP socket, served at once
    /// ([`DEFAULT_MAX_IN_FLIGHT`] at first): beyond it no more is read until one completes.
    pub fn set_max_in_flight(&mut self, max: usize) {
        self.max_in_flight = max.clamp(1, MAX_PERMITS);
    }

    /// Closes a TCP connection that sends nothing, or reads none of its replies, for this
    /// long (5 minutes at first; `None`: never).
    pub fn set_idle_timeout(&mut self, idle: Option<Duration>) {
        self.idle_timeout = idle;
    }

    /// How long [`AsyncServerHandle::shutdown`] lets calls in flight finish and their replies
    /// be sent before it closes their connections ([`DEFAULT_GRACE`] at first).
    pub fn set_grace_period(&mut self, grace: Duration) {
        self.grace = grace;
    }

    /// How long a TCP connection's task, finding no call to read, keeps trying (yielding to
    /// the runtime in between) before it waits for the socket: off (`None`) at first, at most
    /// 10 ms. Its worker then stays awake for a call that comes within the budget, instead of
    /// letting its CPU idle and having to be woken (on a VM whose idle vCPUs halt, tens of
    /// microseconds a call), at the price of that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = budget;
    }

    /// Starts serving on the current tokio runtime, and registers with rpcbind if asked to
    /// (the registration calls block briefly, before this returns).
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn spawn(self) -> Result<AsyncServerHandle, RpcError> {
        let tcp_addr = self.tcp.as_ref().map(TcpListener::local_addr).transpose()?;
        let udp_addr = self.udp.as_ref().map(UdpSocket::local_addr).transpose()?;
        let (stop_tx, stop) = watch::channel(false);
        let ctx = Arc::new(Ctx {
            entries: self.entries,
            max_record: self.max_record,
            max_in_flight: self.max_in_flight,
            idle_timeout: self.idle_timeout,
            grace: self.grace,
            busy_poll: BusyPoll::new(self.busy_poll),
            stop,
        });
        let conns = Arc::new(Semaphore::new(self.max_connections));
        let mut handle = AsyncServerHandle {
            tcp_addr,
            udp_addr,
            stop: stop_tx,
            tasks: Vec::new(),
            conns: Arc::clone(&conns),
            max_connections: self.max_connections as u32,
            grace: self.grace,
            registered: Vec::new(),
        };
        if let Some(listener) = self.tcp {
            handle
                .tasks
                .push(tokio::spawn(accept_loop(listener, Arc::clone(&ctx), conns)));
        }
        if let Some(socket) = self.udp {
            handle
                .tasks
                .push(tokio::spawn(serve_udp(Arc::new(socket), Arc::clone(&ctx))));
        }
        if self.register {
            let pairs: Vec<(u32, u32)> = ctx.entries.iter().map(|p| (p.0, p.1)).collect();
            for (program, version) in pairs {
                for (protocol, addr) in [(Protocol::Tcp, tcp_addr), (Protocol::Udp, udp_addr)] {
                    if let Some(addr) = addr {
                        // On failure, dropping the handle unregisters what was registered.
                        rpcbind::register(program, version, protocol, addr)?;
                        handle.registered.push((program, version, protocol));
                    }
                }
            }
        }
        Ok(handle)
    }
}

/// What every task of a server shares.
struct Ctx {
    entries: Vec<(u32, u32, Entry)>,
    max_record: usize,
    max_in_flight: usize,
    idle_timeout: Option<Duration>,
    grace: Duration,
    busy_poll: BusyPoll,
    /// Becomes `true` on shutdown.
    stop: watch::Receiver<bool>,
}

/// A running async server; [`shutdown`](AsyncServerHandle::shutdown) stops it gracefully
/// (dropping the handle stops it too, without waiting).
#[derive(Debug)]
pub struct AsyncServerHandle {
    tcp_addr: Option<SocketAddr>,
    udp_addr: Option<SocketAddr>,
    stop: watch::Sender<bool>,
    /// The acceptor and the UDP task.
    tasks: Vec<JoinHandle<()>>,
    /// A permit per connection served.
    conns: Arc<Semaphore>,
    max_connections: u32,
    grace: Duration,
    registered: Vec<(u32, u32, Protocol)>,
}

impl AsyncServerHandle {
    /// The TCP address, if it serves TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp_addr
    }

    /// The UDP address, if it serves UDP.
    pub fn udp_addr(&self) -> Option<SocketAddr> {
        self.udp_addr
    }

    /// Unregisters from rpcbind, stops accepting connections and reading calls, lets the
    /// calls in flight finish and send their replies within the grace period, then closes
    /// every connection; returns when all of that is done.
    pub async fn shutdown(mut self) {
        let registered = std::mem::take(&mut self.registered);
        if !registered.is_empty() {
            let _ = tokio::task::spawn_blocking(move || unregister_all(registered)).await;
        }
        self.stop.send_replace(true);
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
        // Each connection closes within the grace period; a little more for the closing.
        let all = self.conns.acquire_many(self.max_connections);
        let _ = tokio::time::timeout(self.grace + Duration::from_secs(1), all).await;
    }
}

impl Drop for AsyncServerHandle {
    fn drop(&mut self) {
        self.stop.send_replace(true);
        let registered = std::mem::take(&mut self.registered);
        if !registered.is_empty() {
            // rpcbind calls block: not on a runtime worker.
            std::thread::spawn(move || unregister_all(registered));
        }
    }
}

fn unregister_all(registered: Vec<(u32, u32, Protocol)>) {
    for (program, version, protocol) in registered {
        let _ = rpcbind::unregister(program, version, protocol);
    }
}

/// A connection's (or the UDP socket's) way back to its callers.
#[derive(Debug, Clone)]
enum Sink {
    /// Whole records for the connection's writer task.
    Tcp(mpsc::Sender<Vec<u8>>),
    /// Datagrams to the caller's address.
    Udp(Arc<UdpSocket>, SocketAddr),
}

impl Sink {
    /// Sends `record` (a datagram: without its mark).
    async fn send(&self, record: Vec<u8>) {
        match self {
            Sink::Tcp(replies) => {
                let _ = replies.send(record).await;
            }
            Sink::Udp(socket, peer) => {
                let _ = socket.send_to(&record[4..], *peer).await;
            }
        }
    }
}

/// What serves the calls of one connection (or of the UDP socket): the server's entries,
/// the connection's own clones of its services (made at the first call of each), and the
/// tasks of the calls that did not complete at once.
struct Calls {
    ctx: Arc<Ctx>,
    protocol: Protocol,
    services: Vec<Option<Box<dyn ErasedService<Request, Response>>>>,
    tasks: JoinSet<()>,
    stop: watch::Receiver<bool>,
}

impl Calls {
    fn new(ctx: &Arc<Ctx>, protocol: Protocol) -> Calls {
        Calls {
            services: (0..ctx.entries.len()).map(|_| None).collect(),
            ctx: Arc::clone(ctx),
            protocol,
            tasks: JoinSet::new(),
            stop: ctx.stop.clone(),
        }
    }

    /// The largest reply message.
    fn max(&self) -> usize {
        match self.protocol {
            Protocol::Tcp => self.ctx.max_record,
            Protocol::Udp => MAX_DATAGRAM,
        }
    }

    /// Serves one message from `peer`, its reply going to `sink`; `permit` is held until
    /// the reply is handed over. A service's call that completes at its first poll is
    /// answered here, without a task; one that does not runs on a task of its own, as does
    /// every call of a blocking [`Program`] (on the blocking pool). Nothing here waits but
    /// for the service's readiness.
    async fn serve(
        &mut self,
        message: Bytes,
        peer: SocketAddr,
        sink: &Sink,
        permit: OwnedSemaphorePermit,
    ) {
        // Forget the calls that have completed.
        while self.tasks.try_join_next().is_some() {}
        let Some((header, args)) = CallHeader::parse(&message) else {
            // Not a call: nobody to answer.
            return;
        };
        let (xid, max, protocol) = (header.xid, self.max(), self.protocol);
        let (index, auth) = match admit(&self.ctx.entries, &header) {
            Admission::Refuse(reply) => return self.reply(sink, refusal(&reply), permit),
            Admission::Serve { index, auth } => (index, auth),
        };
        let service = match &self.ctx.entries[index].2 {
            Entry::Blocking(imp) => {
                let (imp, sink) = (Arc::clone(imp), sink.clone());
                self.tasks.spawn(async move {
                    let serve = move || {
                        let (header, args) = CallHeader::parse(&message)?;
                        let mut out = Vec::new();
                        let to = ReplyTo::Buffer {
                            out: &mut out,
                            max,
                            protocol,
                        };
                        serve_call(&*imp, header, auth, &message, args, to, peer);
                        (!out.is_empty()).then_some(out)
                    };
                    if let Ok(Some(reply)) = tokio::task::spawn_blocking(serve).await {
                        sink.send(reply).await;
                    }
                    drop(permit);
                });
                return;
            }
            Entry::Service(proto) => self.services[index].get_or_insert_with(|| {
                proto
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone_box()
            }),
        };
        // Backpressure: a service not ready holds this connection's reading (until the
        // server stops).
        match race(
            poll_fn(|cx| service.poll_ready(cx)),
            stopped(&mut self.stop),
        )
        .await
        {
            Either::Left(Ok(())) => {}
            Either::Left(Err(_)) => {
                let record = Response::system_err().into_record(xid, max);
                return self.reply(sink, record, permit);
            }
            Either::Right(()) => return,
        }
        let req = Request::new(&message, &header, args, auth, peer, protocol);
        let Some(mut call) = call_caught(&mut **service, req) else {
            // A service that panicked may be broken: the next call clones it anew.
            self.services[index] = None;
            let record = Response::system_err().into_record(xid, max);
            return self.reply(sink, record, permit);
        };
        match poll_fn(|cx| Poll::Ready(poll_caught(&mut call, cx))).await {
            Poll::Ready(outcome) => self.reply(sink, answer(outcome).into_record(xid, max), permit),
            Poll::Pending => {
                let sink = sink.clone();
                self.tasks.spawn(async move {
                    let outcome = poll_fn(|cx| poll_caught(&mut call, cx)).await;
                    sink.send(answer(outcome).into_record(xid, max)).await;
                    drop(permit);
                });
            }
        }
    }

    /// Hands `record` to `sink` without waiting: if the writer's queue is full (its peer is
    /// slow to read), a task waits for room, holding `permit`, so the connection's loop goes
    /// on and sees the server stop.
    fn reply(&mut self, sink: &Sink, record: Vec<u8>, permit: OwnedSemaphorePermit) {
        let waiting = match sink {
            Sink::Tcp(replies) => match replies.try_send(record) {
                Err(TrySendError::Full(record)) => record,
                // Sent, or the writer has ended (the connection is closing).
                _ => return,
            },
            Sink::Udp(socket, peer) => match socket.try_send_to(&record[4..], *peer) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => record,
                // Sent, or lost as a datagram may be.
                _ => return,
            },
        };
        let sink = sink.clone();
        self.tasks.spawn(async move {
            sink.send(waiting).await;
            drop(permit);
        });
    }

    /// Lets the calls in flight (holders of `in_flight`'s `n` permits) finish, within the
    /// grace period once the server stops (whose end it returns), then stops those still
    /// running.
    async fn finish(mut self, in_flight: &Semaphore, n: u32) -> Option<Instant> {
        let deadline = drain(in_flight, n, &mut self.stop, self.ctx.grace).await;
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        deadline
    }
}

async fn accept_loop(listener: TcpListener, ctx: Arc<Ctx>, conns: Arc<Semaphore>) {
    let mut stop = ctx.stop.clone();
    loop {
        let accepted = match race(listener.accept(), stopped(&mut stop)).await {
            Either::Left(accepted) => accepted,
            Either::Right(()) => return,
        };
        let Ok((stream, peer)) = accepted else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        // Beyond the cap the connection is closed at once (dropped).
        if let Ok(permit) = Arc::clone(&conns).try_acquire_owned() {
            tokio::spawn(serve_tcp(stream, peer, Arc::clone(&ctx), permit));
        }
    }
}

/// Serves one connection until it closes, idles out, breaks its framing, or the server
/// stops; then lets its calls in flight finish.
async fn serve_tcp(
    stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<Ctx>,
    _permit: OwnedSemaphorePermit,
) {
    let _ = stream.set_nodelay(true);
    let (mut read, write) = stream.into_split();
    let (replies, queue) = mpsc::channel(ctx.max_in_flight);
    let writer = tokio::spawn(write_replies(write, queue, ctx.idle_timeout));
    let in_flight = Arc::new(Semaphore::new(ctx.max_in_flight));
    let mut calls = Calls::new(&ctx, Protocol::Tcp);
    let sink = Sink::Tcp(replies.clone());
    let mut codec = RecordCodec::new().max_record(ctx.max_record);
    let mut buf = ReadBuf::new(16 * 1024, ctx.busy_poll.clone());
    let mut stop = ctx.stop.clone();
    loop {
        match buf.decode(&mut codec) {
            Ok(Some(record)) => {
                let permit = match race(
                    Arc::clone(&in_flight).acquire_owned(),
                    ended(&mut stop, &replies),
                )
                .await
                {
                    Either::Left(Ok(permit)) => permit,
                    _ => break,
                };
                calls.serve(record, peer, &sink, permit).await;
                continue;
            }
            Ok(None) => {}
            // Framing lost, or a record over the cap: close.
            Err(_) => break,
        }
        let read_more = async {
            match ctx.idle_timeout {
                Some(idle) => tokio::time::timeout(idle, buf.read(&mut read))
                    .await
                    .unwrap_or(Ok(0)),
                None => buf.read(&mut read).await,
            }
        };
        match race(read_more, ended(&mut stop, &replies)).await {
            Either::Left(Ok(n)) if n > 0 => {}
            _ => break,
        }
    }
    let deadline = calls.finish(&in_flight, ctx.max_in_flight as u32).await;
    drop((sink, replies));
    close_writer(writer, deadline, &mut stop, ctx.grace).await;
}

/// Completes when the server stops or the connection's writer has ended (the peer stopped
/// reading its replies, or the socket failed).
async fn ended(stop: &mut watch::Receiver<bool>, replies: &mpsc::Sender<Vec<u8>>) {
    race(stopped(stop), replies.closed()).await;
}

async fn serve_udp(socket: Arc<UdpSocket>, ctx: Arc<Ctx>) {
    let in_flight = Arc::new(Semaphore::new(ctx.max_in_flight));
    let mut calls = Calls::new(&ctx, Protocol::Udp);
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut stop = ctx.stop.clone();
    loop {
        let permit = match race(Arc::clone(&in_flight).acquire_owned(), stopped(&mut stop)).await {
            Either::Left(Ok(permit)) => permit,
            _ => break,
        };
        let (n, peer) = match race(socket.recv_from(&mut buf), stopped(&mut stop)).await {
            Either::Left(Ok(got)) => got,
            // An ICMP error for an earlier reply: nothing to serve.
            Either::Left(Err(_)) => continue,
            Either::Right(()) => break,
        };
        let message = Bytes::copy_from_slice(&buf[..n]);
        let sink = Sink::Udp(Arc::clone(&socket), peer);
        calls.serve(message, peer, &sink, permit).await;
    }
    let _ = calls.finish(&in_flight, ctx.max_in_flight as u32).await;
}
