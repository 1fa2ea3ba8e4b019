//! The async client: a cloneable handle on one TCP connection (many calls in flight, their
//! replies matched by xid in any order) or one UDP socket (each call retransmitted until its
//! reply comes or its timeout passes).
//!
//! A writer task sends whole records (so a call dropped mid-way never leaves the stream
//! mid-record) and a reader task routes each reply by xid to the `oneshot` of the call
//! waiting for it, through a map of pending calls. A call's future removes its xid from the
//! map when it ends or is dropped; a reply nobody waits for any more is discarded.

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpStream, ToSocketAddrs, UdpSocket};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use wire_xdr::rpc::{Auth, CallTemplate, DEFAULT_MAX_RECORD};
use wire_xdr::{Decode, Encode};

use super::client::{call_template, decode_results, finish, results_at, xid_seed};
use super::framing::{encode_datagram, encode_record};
use super::{Protocol, RpcError, DEFAULT_RETRY, DEFAULT_TIMEOUT, MAX_DATAGRAM, MAX_RETRY};
use crate::codec::RecordCodec;
use crate::read_buf::{BusyPoll, ReadBuf};

/// Records queued for the writer task before callers wait for room.
const WRITE_QUEUE: usize = 256;

/// An async client of one program version on one server: a cheap [`Clone`] handle (every
/// clone shares the connection, its settings and its calls in flight) that is `Send + Sync`.
///
/// Calls on one TCP connection are in flight together and their replies may come in any
/// order. A call waits at most its timeout ([`DEFAULT_TIMEOUT`], as the blocking
/// [`Client`](super::Client), unless [`set_timeout`](AsyncClient::set_timeout) says
/// otherwise), then fails with [`RpcError::Timeout`]; the client stays usable. Dropping a
/// call's future abandons the call (its late reply is discarded). A connection that breaks
/// fails every pending and later call with [`RpcError::Io`].
///
/// ```
/// use transports::rpc::{AsyncClient, Call, Server};
/// const PROG: u32 = 0x2000_0001;
///
/// let mut server = Server::bind("127.0.0.1:0")?;
/// server.add(PROG, 1, |call: &mut Call<'_>| {
///     let (a, b): (i32, i32) = call.args()?;
///     call.reply(&a.wrapping_add(b))
/// });
/// let server = server.spawn()?;
/// let addr = server.tcp_addr().unwrap();
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     let c = AsyncClient::connect_tcp(addr, PROG, 1).await?;
///     let c2 = c.clone(); // the same connection
///     let (x, y) = (c.call::<_, i32>(1, &(2, 3)), c2.call::<_, i32>(1, &(4, 5)));
///     assert_eq!((x.await?, y.await?), (5, 9));
///     Ok::<(), transports::rpc::RpcError>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AsyncClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    program: u32,
    version: u32,
    next_xid: AtomicU32,
    settings: Mutex<Settings>,
    pending: Arc<Pending>,
    conn: Conn,
    /// The reader task, stopped when the last handle goes.
    reader: JoinHandle<()>,
    /// The reader's busy-poll budget.
    busy_poll: BusyPoll,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[derive(Debug, Clone)]
struct Settings {
    timeout: Duration,
    retry: Duration,
    /// The header of the calls (program, version, credential), encoded once.
    template: Arc<CallTemplate>,
}

#[derive(Debug)]
enum Conn {
    Tcp {
        /// Whole records (mark included) for the writer task.
        records: mpsc::Sender<Vec<u8>>,
        peer: SocketAddr,
    },
    Udp {
        socket: Arc<UdpSocket>,
        peer: SocketAddr,
    },
}

/// What a pending call receives: its reply message, or why none will come.
type Outcome = Result<Bytes, RpcError>;

/// The calls waiting for their replies, by xid.
#[derive(Debug, Default)]
struct Pending {
    state: Mutex<PendingState>,
}

#[derive(Debug, Default)]
struct PendingState {
    waiting: HashMap<u32, oneshot::Sender<Outcome>>,
    /// Set when the connection broke: why (every later call fails with it).
    broken: Option<(io::ErrorKind, String)>,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, PendingState> {
        // No code panics while holding the lock; a poisoned map is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a call: the receiver of its outcome and the guard that unregisters it.
    fn register(
        self: &Arc<Self>,
        xid: u32,
    ) -> Result<(oneshot::Receiver<Outcome>, PendingGuard), RpcError> {
        let mut state = self.lock();
        if let Some((kind, why)) = &state.broken {
            return Err(RpcError::Io(io::Error::new(*kind, why.clone())));
        }
        if state.waiting.contains_key(&xid) {
            // Only after 2^32 calls with one still pending: refuse rather than misroute.
            return Err(RpcError::Io(io::Error::other(format!(
                "xid {xid} is still in use by a pending call"
            ))));
        }
        let (tx, rx) = oneshot::channel();
        state.waiting.insert(xid, tx);
        Ok((
            rx,
            PendingGuard {
                pending: Arc::clone(self),
                xid,
            },
        ))
    }

    /// Hands a reply to the call waiting for it; a reply nobody waits for is dropped.
    fn route(&self, reply: Bytes) {
        let Some(xid) = reply.first_chunk::<4>().map(|b| u32::from_be_bytes(*b)) else {
            return;
        };
        let waiter = self.lock().waiting.remove(&xid);
        if let Some(tx) = waiter {
            // The call may have just been dropped: then the reply goes with it.
            let _ = tx.send(Ok(reply));
        }
    }

    /// The connection broke: every pending and later call fails with `why`.
    fn fail_all(&self, kind: io::ErrorKind, why: String) {
        let waiting = {
            let mut state = self.lock();
            state.broken.get_or_insert((kind, why.clone()));
            std::mem::take(&mut state.waiting)
        };
        for (_, tx) in waiting {
            let _ = tx.send(Err(RpcError::Io(io::Error::new(kind, why.clone()))));
        }
    }
}

/// Unregisters a call when its future ends or is dropped.
#[derive(Debug)]
struct PendingGuard {
    pending: Arc<Pending>,
    xid: u32,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        self.pending.lock().waiting.remove(&self.xid);
    }
}

impl AsyncClient {
    /// Connects over TCP to `addr` (the first address that accepts). Must be called within
    /// a tokio runtime, which runs the connection's reader and writer tasks.
    pub async fn connect_tcp(
        addr: impl ToSocketAddrs,
        program: u32,
        version: u32,
    ) -> Result<AsyncClient, RpcError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let peer = stream.peer_addr()?;
        let (read, write) = stream.into_split();
        let pending = Arc::new(Pending::default());
        let (records, queue) = mpsc::channel(WRITE_QUEUE);
        tokio::spawn(write_records(write, queue, Arc::clone(&pending)));
        let busy_poll = BusyPoll::default();
        let reader = tokio::spawn(read_records(read, Arc::clone(&pending), busy_poll.clone()));
        Ok(AsyncClient::new(
            Conn::Tcp { records, peer },
            pending,
            (reader, busy_poll),
            program,
            version,
        ))
    }

    /// Makes a UDP client for `addr` (its first address): a socket bound to an ephemeral
    /// port and connected to the server. Must be called within a tokio runtime.
    pub async fn connect_udp(
        addr: impl ToSocketAddrs,
        program: u32,
        version: u32,
    ) -> Result<AsyncClient, RpcError> {
        let peer = tokio::net::lookup_host(addr).await?.next().ok_or_else(|| {
            RpcError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no address to connect to",
            ))
        })?;
        let local: SocketAddr = match peer {
            SocketAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
            SocketAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        let socket = UdpSocket::bind(local).await?;
        socket.connect(peer).await?;
        let socket = Arc::new(socket);
        let pending = Arc::new(Pending::default());
        let reader = tokio::spawn(read_datagrams(Arc::clone(&socket), Arc::clone(&pending)));
        Ok(AsyncClient::new(
            Conn::Udp { socket, peer },
            pending,
            (reader, BusyPoll::default()),
            program,
            version,
        ))
    }

    fn new(
        conn: Conn,
        pending: Arc<Pending>,
        (reader, busy_poll): (JoinHandle<()>, BusyPoll),
        program: u32,
        version: u32,
    ) -> AsyncClient {
        AsyncClient {
            inner: Arc::new(Inner {
                program,
                version,
                next_xid: AtomicU32::new(xid_seed()),
                settings: Mutex::new(Settings {
                    timeout: DEFAULT_TIMEOUT,
                    retry: DEFAULT_RETRY,
                    template: Arc::new(CallTemplate::none(program, version)),
                }),
                pending,
                conn,
                reader,
                busy_poll,
            }),
        }
    }

    fn settings(&self) -> MutexGuard<'_, Settings> {
        self.inner
            .settings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// How long each call made from now on (by this handle or any clone) waits for its
    /// reply ([`DEFAULT_TIMEOUT`] at first; at least 1 ms).
    pub fn set_timeout(&self, timeout: Duration) {
        self.settings().timeout = timeout.max(Duration::from_millis(1));
    }

    /// How long the connection's reader, finding no reply, keeps trying (yielding to the
    /// runtime in between) before it waits for the socket: off (`None`) at first, at most
    /// 10 ms. Its worker then stays awake for a reply that comes within the budget, instead of
    /// letting its CPU idle and having to be woken (on a VM whose idle vCPUs halt, tens of
    /// microseconds a call), at the price of that CPU time. TCP only.
    pub fn set_busy_poll(&self, budget: Option<Duration>) {
        self.inner.busy_poll.set(budget);
    }

    /// How long a UDP call waits before its first retransmission ([`DEFAULT_RETRY`] at
    /// first); the wait doubles after each one, up to [`MAX_RETRY`].
    pub fn set_retry(&self, retry: Duration) {
        self.settings().retry = retry.max(Duration::from_millis(1));
    }

    /// The credential sent with every call made from now on, by this handle or any clone
    /// (AUTH_NONE at first).
    ///
    /// # Panics
    ///
    /// If the credential breaks its flavor's limits (an AUTH_SYS machine name over 255
    /// bytes, more than 16 groups, a body over 400 bytes).
    pub fn set_auth(&self, auth: Auth) {
        let template = Arc::new(call_template(self.inner.program, self.inner.version, &auth));
        self.settings().template = template;
    }

    /// The program called.
    pub fn program(&self) -> u32 {
        self.inner.program
    }

    /// The program version called.
    pub fn version(&self) -> u32 {
        self.inner.version
    }

    /// The transport.
    pub fn protocol(&self) -> Protocol {
        match self.inner.conn {
            Conn::Tcp { .. } => Protocol::Tcp,
            Conn::Udp { .. } => Protocol::Udp,
        }
    }

    /// The server's address.
    pub fn peer_addr(&self) -> SocketAddr {
        match self.inner.conn {
            Conn::Tcp { peer, .. } | Conn::Udp { peer, .. } => peer,
        }
    }

    /// How many calls wait for their replies (for tests: a dropped call is not counted).
    #[doc(hidden)]
    pub fn pending_len(&self) -> usize {
        self.inner.pending.lock().waiting.len()
    }

    /// Calls `procedure` with `args` and waits for its results. `Args` and `Ret` are derived
    /// types, primitives, `()` (XDR `void`) or tuples (several parameters, in order).
    ///
    /// The future may be dropped at any point: the call is then abandoned and the client
    /// stays usable.
    pub async fn call<Args, Ret>(&self, procedure: u32, args: &Args) -> Result<Ret, RpcError>
    where
        Args: Encode + ?Sized,
        Ret: for<'de> Decode<'de>,
    {
        finish(&self.exchange(procedure, args).await?)
    }

    /// Like [`call`](AsyncClient::call), but keeps the whole reply, whose results may then
    /// be decoded borrowing from it (`&str`, `&[u8]`, `Cow` fields): the async counterpart
    /// of [`Client::call_ref`](super::Client::call_ref). Fails as `call` does for every
    /// outcome but `SUCCESS`.
    ///
    /// ```
    /// use transports::rpc::{AsyncClient, Call, Server};
    /// const PROG: u32 = 0x2000_0001;
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add(PROG, 1, |call: &mut Call<'_>| {
    ///     let name: &str = call.args()?;
    ///     call.reply(&(name.len() as u32, name))
    /// });
    /// let server = server.spawn()?;
    /// let addr = server.tcp_addr().unwrap();
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// rt.block_on(async {
    ///     let c = AsyncClient::connect_tcp(addr, PROG, 1).await?;
    ///     let reply = c.call_reply(1, "borrowed").await?;
    ///     let (len, name): (u32, &str) = reply.results()?; // points into `reply`
    ///     assert_eq!((len, name), (8, "borrowed"));
    ///     Ok::<(), transports::rpc::RpcError>(())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn call_reply<Args>(&self, procedure: u32, args: &Args) -> Result<Reply, RpcError>
    where
        Args: Encode + ?Sized,
    {
        let msg = self.exchange(procedure, args).await?;
        let at = results_at(&msg)?;
        Ok(Reply { msg, at })
    }

    /// Sends a call and waits for its reply message (whatever its outcome).
    async fn exchange<Args>(&self, procedure: u32, args: &Args) -> Result<Bytes, RpcError>
    where
        Args: Encode + ?Sized,
    {
        let Settings {
            timeout,
            retry,
            template,
        } = self.settings().clone();
        let xid = self.inner.next_xid.fetch_add(1, Ordering::Relaxed);
        let header = template.header(xid, procedure);
        let msg = (&header, args);
        let reply = match &self.inner.conn {
            Conn::Tcp { records, .. } => {
                let mut record = Vec::new();
                encode_record(&mut record, DEFAULT_MAX_RECORD, &msg)?;
                let (rx, _guard) = self.inner.pending.register(xid)?;
                let exchange = async {
                    // Cancel-safe: a record is queued whole or not at all.
                    records.send(record).await.map_err(|_| writer_gone())?;
                    rx.await.map_err(|_| writer_gone())?
                };
                match tokio::time::timeout(timeout, exchange).await {
                    Ok(outcome) => outcome?,
                    Err(_) => return Err(RpcError::Timeout),
                }
            }
            Conn::Udp { socket, .. } => {
                let mut datagram = Vec::new();
                encode_datagram(&mut datagram, MAX_DATAGRAM, msg)?;
                let (mut rx, _guard) = self.inner.pending.register(xid)?;
                let deadline = tokio::time::Instant::now() + timeout;
                let mut wait = retry;
                loop {
                    socket.send(&datagram).await?;
                    let now = tokio::time::Instant::now();
                    if now >= deadline {
                        return Err(RpcError::Timeout);
                    }
                    let until = (now + wait).min(deadline);
                    match tokio::time::timeout_at(until, &mut rx).await {
                        Ok(Ok(outcome)) => break outcome?,
                        Ok(Err(_)) => return Err(writer_gone()),
                        Err(_) if until >= deadline => return Err(RpcError::Timeout),
                        Err(_) => wait = (wait * 2).min(MAX_RETRY),
                    }
                }
            }
        };
        Ok(reply)
    }
}

/// A `SUCCESS` reply kept whole by [`AsyncClient::call_reply`]: its results decode
/// borrowing from it.
#[derive(Debug, Clone)]
pub struct Reply {
    msg: Bytes,
    /// Where the results begin.
    at: usize,
}

impl Reply {
    /// Decodes the results, which must take the rest of the message; they may borrow from
    /// the reply.
    pub fn results<'r, Ret: Decode<'r>>(&'r self) -> Result<Ret, RpcError> {
        decode_results(&self.msg, self.at)
    }

    /// The whole RPC message of the reply.
    pub fn message(&self) -> &[u8] {
        &self.msg
    }
}

/// The error of a call whose connection's tasks have ended.
fn writer_gone() -> RpcError {
    RpcError::Io(io::Error::new(
        io::ErrorKind::NotConnected,
        "the connection is closed (its reader or writer task ended)",
    ))
}

/// The writer task: sends each queued record whole, flushing when the queue is empty.
async fn write_records(
    write: OwnedWriteHalf,
    mut queue: mpsc::Receiver<Vec<u8>>,
    pending: Arc<Pending>,
) {
    let mut out = BufWriter::with_capacity(64 * 1024, write);
    while let Some(record) = queue.recv().await {
        let mut sent = out.write_all(&record).await;
        while sent.is_ok() {
            match queue.try_recv() {
                Ok(record) => sent = out.write_all(&record).await,
                Err(_) => break,
            }
        }
        if let Err(e) = sent.and(out.flush().await) {
            pending.fail_all(e.kind(), format!("sending a call failed: {e}"));
            return;
        }
    }
    // Every handle is gone: close our side.
    let _ = out.shutdown().await;
}

/// The reader task: cuts the stream into records and routes each to its call, until the
/// stream ends or breaks its framing, which fails every pending call.
async fn read_records(mut read: OwnedReadHalf, pending: Arc<Pending>, busy_poll: BusyPoll) {
    let mut codec = RecordCodec::new();
    let mut buf = ReadBuf::new(64 * 1024, busy_poll);
    let (kind, why) = loop {
        match buf.decode(&mut codec) {
            Ok(Some(record)) => {
                pending.route(record);
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                break (
                    io::ErrorKind::InvalidData,
                    format!("the server's reply stream broke its framing: {e}"),
                )
            }
        }
        match buf.read(&mut read).await {
            Ok(0) => {
                break (
                    io::ErrorKind::ConnectionAborted,
                    "the server closed the connection".to_owned(),
                )
            }
            Ok(_) => {}
            Err(e) => break (e.kind(), format!("receiving replies failed: {e}")),
        }
    };
    pending.fail_all(kind, why);
}

/// The UDP reader task: routes each datagram to its call.
async fn read_datagrams(socket: Arc<UdpSocket>, pending: Arc<Pending>) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        match socket.recv(&mut buf).await {
            Ok(n) => pending.route(Bytes::copy_from_slice(&buf[..n])),
            // An ICMP error for an earlier datagram (nobody listening yet, say): calls
            // retransmit until their timeout.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionRefused
                        | io::ErrorKind::ConnectionReset
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => {
                pending.fail_all(e.kind(), format!("receiving replies failed: {e}"));
                return;
            }
        }
    }
}
