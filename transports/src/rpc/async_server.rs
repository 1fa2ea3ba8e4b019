//! The async server: an acceptor task, a task per TCP connection (records cut by
//! [`RecordCodec`], up to a bound of calls in flight per connection, each reply sent as its
//! call completes) and a UDP task. Programs are the blocking server's [`Program`]s and every
//! message goes through its dispatch (RPC version, credentials, program and version lookup,
//! `GARBAGE_ARGS`, `SYSTEM_ERR` after a panic), run on tokio's blocking pool so that a slow
//! program holds no runtime worker.

use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::codec::{Decoder, Encoder};
use wire_xdr::rpc::DEFAULT_MAX_RECORD;

use super::server::{add_program, dispatch, Programs, ReplyTo};
use super::{rpcbind, Program, Protocol, RpcError, DEFAULT_MAX_CONNECTIONS, MAX_DATAGRAM};
use crate::codec::RecordCodec;

/// The largest count of connections or calls in flight (a semaphore's permits, taken all at
/// once at shutdown as a `u32`).
const MAX_PERMITS: usize = if Semaphore::MAX_PERMITS < u32::MAX as usize {
    Semaphore::MAX_PERMITS
} else {
    u32::MAX as usize
};

/// A connection's read buffer that held a record larger than this, or its write buffer once
/// grown past twice this, is released once (nearly) empty rather than kept, at up to twice
/// the largest message, for the life of the connection.
const BUFFER_KEEP: usize = 64 * 1024;

/// Default cap on the calls of one TCP connection (or of the UDP socket) served at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Default time [`AsyncServerHandle::shutdown`] gives calls in flight to finish.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// An async server of several programs and versions over TCP, UDP or both, on a tokio
/// runtime. Its programs are the blocking [`Server`](super::Server)'s [`Program`]s, with
/// the same dispatch; each call runs on the runtime's blocking pool.
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
    programs: Programs,
    register: bool,
    max_record: usize,
    max_connections: usize,
    max_in_flight: usize,
    idle_timeout: Option<Duration>,
    grace: Duration,
}

impl core::fmt::Debug for AsyncServer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncServer")
            .field("tcp", &self.tcp)
            .field("udp", &self.udp)
            .field(
                "programs",
                &self.programs.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl AsyncServer {
    fn with(tcp: Option<TcpListener>, udp: Option<UdpSocket>) -> AsyncServer {
        AsyncServer {
            tcp,
            udp,
            programs: Vec::new(),
            register: false,
            max_record: DEFAULT_MAX_RECORD,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            idle_timeout: Some(Duration::from_secs(300)),
            grace: DEFAULT_GRACE,
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

    /// Serves `program` at `version` with `imp` (replacing an earlier one for the pair).
    pub fn add(&mut self, program: u32, version: u32, imp: impl Program + 'static) {
        add_program(&mut self.programs, program, version, Arc::new(imp));
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
            programs: self.programs,
            max_record: self.max_record,
            max_in_flight: self.max_in_flight,
            idle_timeout: self.idle_timeout,
            grace: self.grace,
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
            let pairs: Vec<(u32, u32)> = ctx.programs.iter().map(|p| (p.0, p.1)).collect();
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
    programs: Programs,
    max_record: usize,
    max_in_flight: usize,
    idle_timeout: Option<Duration>,
    grace: Duration,
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

/// One of two futures' outputs.
enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Whichever of `a` and `b` completes first (`a` when both are ready).
async fn race<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a), pin!(b));
    poll_fn(|cx| {
        if let Poll::Ready(x) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(x));
        }
        if let Poll::Ready(y) = b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(y));
        }
        Poll::Pending
    })
    .await
}

/// Completes when the server stops (or its handle is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Waits for every permit of `in_flight` (every call done); once the server stops, only
/// until the end of the grace period, which it returns.
async fn drain(in_flight: &Semaphore, n: u32, ctx: &Ctx) -> Option<Instant> {
    let mut stop = ctx.stop.clone();
    match race(in_flight.acquire_many(n), stopped(&mut stop)).await {
        Either::Left(_) => None,
        Either::Right(()) => {
            let deadline = Instant::now() + ctx.grace;
            let _ = tokio::time::timeout_at(deadline, in_flight.acquire_many(n)).await;
            Some(deadline)
        }
    }
}

/// Serves one message; the encoded reply, if it has one.
fn serve_one(
    programs: &Programs,
    message: &[u8],
    peer: SocketAddr,
    protocol: Protocol,
    max: usize,
) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let to = ReplyTo::Buffer {
        out: &mut out,
        max,
        protocol,
    };
    dispatch(programs, message, to, peer);
    (!out.is_empty()).then_some(out)
}

/// Serves `message` on the blocking pool; its reply, if any.
async fn serve_blocking(
    ctx: &Arc<Ctx>,
    message: Bytes,
    peer: SocketAddr,
    protocol: Protocol,
) -> Option<Vec<u8>> {
    let c = Arc::clone(ctx);
    let max = match protocol {
        Protocol::Tcp => ctx.max_record,
        Protocol::Udp => MAX_DATAGRAM,
    };
    tokio::task::spawn_blocking(move || serve_one(&c.programs, &message, peer, protocol, max))
        .await
        .ok()
        .flatten()
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
    let mut writer = tokio::spawn(write_replies(write, queue, ctx.idle_timeout));
    let in_flight = Arc::new(Semaphore::new(ctx.max_in_flight));
    let mut codec = RecordCodec::new().max_record(ctx.max_record);
    let mut buf = BytesMut::new();
    // Whether `buf` grew for a record larger than `BUFFER_KEEP`.
    let mut grown = false;
    let mut stop = ctx.stop.clone();
    loop {
        match codec.decode(&mut buf) {
            Ok(Some(record)) => {
                grown |= record.len() > BUFFER_KEEP;
                let permit = match race(
                    Arc::clone(&in_flight).acquire_owned(),
                    ended(&mut stop, &replies),
                )
                .await
                {
                    Either::Left(Ok(permit)) => permit,
                    _ => break,
                };
                let (ctx, replies) = (Arc::clone(&ctx), replies.clone());
                tokio::spawn(async move {
                    if let Some(reply) = serve_blocking(&ctx, record, peer, Protocol::Tcp).await {
                        let _ = replies.send(reply).await;
                    }
                    drop(permit);
                });
                continue;
            }
            Ok(None) => {}
            // Framing lost, or a record over the cap: close.
            Err(_) => break,
        }
        if grown && buf.len() <= 4096 {
            // What is left (part of a record, at the same offsets for the codec) moves to a
            // buffer of its own; the records cut from the old one keep its memory until their
            // calls are done.
            buf = BytesMut::from(&buf[..]);
            grown = false;
        }
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(16 * 1024);
        }
        let read_more = async {
            match ctx.idle_timeout {
                Some(idle) => tokio::time::timeout(idle, read.read_buf(&mut buf))
                    .await
                    .unwrap_or(Ok(0)),
                None => read.read_buf(&mut buf).await,
            }
        };
        match race(read_more, ended(&mut stop, &replies)).await {
            Either::Left(Ok(n)) if n > 0 => {}
            _ => break,
        }
    }
    let deadline = drain(&in_flight, ctx.max_in_flight as u32, &ctx).await;
    drop(replies);
    // The writer ends once every reply queued is sent; a call still running after the
    // grace period holds a sender, so it is stopped then. Once the server has stopped, the
    // calls and the sending of their replies share one grace period, so the connection is
    // closed by its end, as `shutdown` counts on.
    let deadline = deadline.unwrap_or_else(|| Instant::now() + ctx.grace);
    if tokio::time::timeout_at(deadline, &mut writer)
        .await
        .is_err()
    {
        writer.abort();
        // Returns once the writer is dropped, and with it our half of the socket.
        let _ = writer.await;
    }
}

/// Completes when the server stops or the connection's writer has ended (the peer stopped
/// reading its replies, or the socket failed).
async fn ended(stop: &mut watch::Receiver<bool>, replies: &mpsc::Sender<Vec<u8>>) {
    race(stopped(stop), replies.closed()).await;
}

/// Sends each reply as a record, gathering those queued into one write. A write that makes
/// no progress for `idle` (a peer that sends calls but reads no replies) ends the writer,
/// and with it the connection.
async fn write_replies(
    mut write: OwnedWriteHalf,
    mut queue: mpsc::Receiver<Vec<u8>>,
    idle: Option<Duration>,
) {
    let mut codec = RecordCodec::new();
    let mut out = BytesMut::new();
    while let Some(reply) = queue.recv().await {
        let mut next = Some(reply);
        while let Some(reply) = next.take() {
            if codec.encode(&reply[..], &mut out).is_err() {
                // Over the cap (the dispatch caps replies first): not sent.
                continue;
            }
            if out.len() < 64 * 1024 {
                next = queue.try_recv().ok();
            }
        }
        let mut pos = 0;
        while pos < out.len() {
            let wrote = match idle {
                Some(idle) => tokio::time::timeout(idle, write.write(&out[pos..]))
                    .await
                    .unwrap_or(Ok(0)),
                None => write.write(&out[pos..]).await,
            };
            match wrote {
                Ok(n) if n > 0 => pos += n,
                _ => return,
            }
        }
        out.clear();
        if out.capacity() > 2 * BUFFER_KEEP {
            out = BytesMut::new();
        }
    }
    let _ = write.shutdown().await;
}

async fn serve_udp(socket: Arc<UdpSocket>, ctx: Arc<Ctx>) {
    let in_flight = Arc::new(Semaphore::new(ctx.max_in_flight));
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
        let (ctx, socket) = (Arc::clone(&ctx), Arc::clone(&socket));
        tokio::spawn(async move {
            if let Some(reply) = serve_blocking(&ctx, message, peer, Protocol::Udp).await {
                let _ = socket.send_to(&reply, peer).await;
            }
            drop(permit);
        });
    }
    let _ = drain(&in_flight, ctx.max_in_flight as u32, &ctx).await;
}
