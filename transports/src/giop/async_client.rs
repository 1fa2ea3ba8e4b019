//! The async GIOP client: one connection shared by every clone of the handle, requests
//! multiplexed by request id.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use wire_iiop::giop::{
    encode_message, CancelRequestHeader, Ior, LocateRequestHeader, LocateStatus, Message,
    MessageKind, RequestHeader, ServiceContext, SystemException, TargetAddress, Version,
    RESPONSE_EXPECTED,
};
use wire_iiop::{ByteOrder, Decode, Encode};

use super::async_reply::Reply;
use super::client::{endpoint, MAX_FORWARDS};
use super::reply::{outcome, Outcome};
use super::CallError;
use crate::codec::GiopCodec;
use crate::gather_writes::Gather;
use crate::read_buf::{BusyPoll, ReadBuf};

/// Spare room the reader keeps in its buffer before each read.
const READ_CHUNK: usize = 8 * 1024;

/// An async GIOP client of one object: a cheap, cloneable handle (`Send + Sync`) whose
/// clones share one TCP connection. Each call takes a fresh request id; a reader task routes
/// the replies, in whatever order they come, to the calls awaiting them, so many calls can be
/// in flight at once.
///
/// [`locate`](AsyncClient::locate) asks the server whether it has the object
/// (`LocateRequest`). Like the blocking [`Client`](super::Client), it speaks the GIOP
/// version of the object's
/// IIOP profile (at most 1.2), announces its code sets (UTF-8) once per connection (1.1+),
/// sends requests in the byte order of [`set_byte_order`](AsyncClient::set_byte_order)
/// (the host's by default), turns user and system exceptions into [`CallError`]s and
/// follows `LOCATION_FORWARD` (which retargets the client, as in the blocking one).
///
/// A call whose future is dropped before its reply came sends `CancelRequest`; the reply, if
/// it still comes, is discarded. When the server closes the connection with
/// `CloseConnection`, which promises that unanswered requests were not processed, the calls
/// awaiting replies are sent once more on a new connection (as the blocking client does);
/// when that is closed too, or the socket fails, they fail with [`CallError::Transport`],
/// and the next call connects anew. Must be used within a tokio runtime (it spawns the connection's reader and writer
/// tasks).
///
/// ```
/// use transports::giop::{AsyncClient, AsyncServer, Call};
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
/// rt.block_on(async {
///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
///     server.add("Echo", |call: &mut Call<'_>| call.reply(&call.args::<Vec<i32>>()?));
///     let server = server.spawn()?;
///
///     let client = AsyncClient::connect(&server.ior("IDL:Echo:1.0", b"Echo")).await?;
///     // Clones share the connection; their calls are in flight together.
///     let calls: Vec<_> = (0..4)
///         .map(|i| {
///             let client = client.clone();
///             tokio::spawn(async move { client.invoke::<Vec<i32>, Vec<i32>>("echo", &vec![i; 3]).await })
///         })
///         .collect();
///     for (i, call) in (0..).zip(calls) {
///         assert_eq!(call.await??, vec![i; 3]);
///     }
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AsyncClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Where the object is, and the connection to it (if one is open).
    target: Mutex<Target>,
    /// Held while connecting, so that concurrent calls open one connection.
    connecting: tokio::sync::Mutex<()>,
    /// The minor GIOP version of requests.
    minor: AtomicU8,
    /// The byte order of requests: big-endian if set.
    big_endian: AtomicBool,
    next_id: AtomicU32,
    /// The connections' readers' busy-poll budget.
    busy_poll: BusyPoll,
}

#[derive(Debug)]
struct Target {
    host: String,
    port: u16,
    key: Arc<[u8]>,
    conn: Option<Arc<Conn>>,
}

/// One connection: the sending side of its writer task and the calls awaiting replies.
#[derive(Debug)]
struct Conn {
    /// Whole messages to write, in order. Unbounded, but each call queues one request (and
    /// at most one `CancelRequest`) and then awaits its reply: it holds what the calls in
    /// flight hold.
    out: mpsc::UnboundedSender<Bytes>,
    calls: Arc<Calls>,
    /// A request carrying the code sets context has been queued.
    code_sets_queued: AtomicBool,
    reader: AbortHandle,
}

impl Drop for Conn {
    fn drop(&mut self) {
        // The writer ends with its queue (and closes the sending side); the reader would
        // wait for the server to close.
        self.reader.abort();
    }
}

type ReplySender = oneshot::Sender<Result<Bytes, Closed>>;

/// The calls awaiting replies on one connection.
#[derive(Debug, Default)]
struct Calls {
    state: Mutex<CallsState>,
}

#[derive(Debug, Default)]
struct CallsState {
    waiting: HashMap<u32, ReplySender>,
    /// Why the connection is unusable, once it is.
    closed: Option<Closed>,
}

/// Why a connection ended.
#[derive(Debug, Clone)]
enum Closed {
    /// The server sent `CloseConnection`.
    ByServer,
    /// The socket failed or ended.
    Transport(io::ErrorKind, String),
    /// The server broke the protocol.
    Protocol(String),
}

impl Closed {
    fn error(&self) -> CallError {
        match self {
            Closed::ByServer => CallError::Transport(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the server closed the connection (GIOP CloseConnection) before replying: the \
                 request was not processed",
            )),
            Closed::Transport(kind, why) => {
                CallError::Transport(io::Error::new(*kind, why.clone()))
            }
            Closed::Protocol(why) => CallError::Protocol(why.clone()),
        }
    }
}

impl Calls {
    fn lock(&self) -> MutexGuard<'_, CallsState> {
        // A panic while the lock was held left the map consistent (each step is one call).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Fails every waiting call with `why` and refuses new ones.
    fn close(&self, why: Closed) {
        let (why, waiting) = {
            let mut s = self.lock();
            // The first reason stands.
            let why = s.closed.get_or_insert(why).clone();
            (why, core::mem::take(&mut s.waiting))
        };
        for (_, tx) in waiting {
            let _ = tx.send(Err(why.clone()));
        }
    }
}

impl Conn {
    /// Connects and starts the reader and writer tasks.
    async fn open(host: &str, port: u16, busy_poll: BusyPoll) -> Result<Arc<Conn>, CallError> {
        let stream = TcpStream::connect((host, port)).await?;
        stream.set_nodelay(true)?;
        let (rd, wr) = stream.into_split();
        let calls = Arc::new(Calls::default());
        let (out, queue) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_replies(rd, Arc::clone(&calls), busy_poll));
        let reader = reader.abort_handle();
        tokio::spawn(write_messages(wr, queue, Arc::clone(&calls)));
        Ok(Arc::new(Conn {
            out,
            calls,
            code_sets_queued: AtomicBool::new(false),
            reader,
        }))
    }

    fn is_closed(&self) -> bool {
        self.calls.lock().closed.is_some()
    }

    /// Registers a call under a free request id from `next_id`.
    fn register(
        &self,
        next_id: &AtomicU32,
    ) -> Result<(u32, oneshot::Receiver<Result<Bytes, Closed>>), Closed> {
        let mut s = self.calls.lock();
        if let Some(why) = &s.closed {
            return Err(why.clone());
        }
        // Ids wrap after 2^32 calls: skip one still awaiting its reply (there are fewer
        // waiting calls than ids, so this ends).
        let mut id = next_id.fetch_add(1, Ordering::Relaxed);
        while s.waiting.contains_key(&id) {
            id = next_id.fetch_add(1, Ordering::Relaxed);
        }
        let (tx, rx) = oneshot::channel();
        s.waiting.insert(id, tx);
        Ok((id, rx))
    }
}

/// A registered call: dropped before its reply came, it unregisters the call and, if the
/// request went out, sends `CancelRequest`.
struct Pending<'c> {
    conn: &'c Conn,
    id: u32,
    version: Version,
    order: ByteOrder,
    sent: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        let was_waiting = self.conn.calls.lock().waiting.remove(&self.id).is_some();
        if was_waiting && self.sent {
            let mut msg = Vec::new();
            let head = CancelRequestHeader {
                request_id: self.id,
            };
            if encode_message(&mut msg, self.version, self.order, &head, &()).is_ok() {
                let _ = self.conn.out.send(msg.into());
            }
        }
    }
}

impl AsyncClient {
    /// Connects to the object's first IIOP profile.
    pub async fn connect(ior: &Ior) -> Result<AsyncClient, CallError> {
        let (host, port, key, version) = endpoint(ior)?;
        let busy_poll = BusyPoll::default();
        let conn = Conn::open(&host, port, busy_poll.clone()).await?;
        Ok(AsyncClient {
            inner: Arc::new(Inner {
                target: Mutex::new(Target {
                    host,
                    port,
                    key: key.into(),
                    conn: Some(conn),
                }),
                connecting: tokio::sync::Mutex::new(()),
                minor: AtomicU8::new(version.minor),
                big_endian: AtomicBool::new(ByteOrder::NATIVE == ByteOrder::Big),
                next_id: AtomicU32::new(1),
                busy_poll,
            }),
        })
    }

    /// The byte order of the requests this client (and its clones) send from now on.
    pub fn set_byte_order(&self, order: ByteOrder) {
        self.inner
            .big_endian
            .store(order == ByteOrder::Big, Ordering::Relaxed);
    }

    /// The byte order of requests.
    pub fn byte_order(&self) -> ByteOrder {
        if self.inner.big_endian.load(Ordering::Relaxed) {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        }
    }

    /// How long the connection's reader, finding no reply, keeps trying (yielding to the
    /// runtime in between) before it waits for the socket: off (`None`) at first, at most
    /// 10 ms. Its worker then stays awake for a reply that comes within the budget, instead of
    /// letting its CPU idle and having to be woken (on a VM whose idle vCPUs halt, tens of
    /// microseconds a call), at the price of that CPU time.
    pub fn set_busy_poll(&self, budget: Option<Duration>) {
        self.inner.busy_poll.set(budget);
    }

    /// The GIOP version of the requests (by default the profile's, at most 1.2). Lowering it
    /// is always possible; raising it above what the server announced may be refused.
    pub fn set_version(&self, version: Version) {
        self.inner
            .minor
            .store(version.capped().minor, Ordering::Relaxed);
    }

    /// The GIOP version in use.
    pub fn version(&self) -> Version {
        Version {
            major: 1,
            minor: self.inner.minor.load(Ordering::Relaxed),
        }
    }

    /// Calls awaiting their replies on the current connection (a test hook).
    #[doc(hidden)]
    pub fn pending_calls(&self) -> usize {
        let target = self.target();
        target
            .conn
            .as_ref()
            .map_or(0, |c| c.calls.lock().waiting.len())
    }

    /// Calls `operation` with `args` (the `in` and `inout` parameters in IDL order: a
    /// struct, one value, `()` or a tuple) and decodes the result as `Ret` (the return value
    /// then the `inout` and `out` parameters in IDL order).
    ///
    /// Dropping the future before it completes cancels the call (`CancelRequest`).
    pub async fn invoke<Args: Encode + ?Sized, Ret: for<'de> Decode<'de>>(
        &self,
        operation: &str,
        args: &Args,
    ) -> Result<Ret, CallError> {
        self.invoke_reply(operation, args).await?.results()
    }

    /// Like [`invoke`](AsyncClient::invoke), but returns the reply whole, which the call
    /// owns: its results decode borrowing from it ([`Reply::results`]), and so do the members
    /// of a user exception it carries ([`Reply::exception_members`], in the reply's byte
    /// order and alignment), which is therefore an `Ok` here. Every other failure (a system
    /// exception, a transport or protocol error) is the `Err`.
    ///
    /// Dropping the future before it completes cancels the call (`CancelRequest`).
    pub async fn invoke_reply<Args: Encode + ?Sized>(
        &self,
        operation: &str,
        args: &Args,
    ) -> Result<Reply, CallError> {
        let mut forwards = 0;
        let mut reconnected = false;
        loop {
            let reply = match self.request(operation, args).await? {
                Ok(reply) => reply,
                // CloseConnection promises the request was not processed: once more, on a
                // new connection (as the blocking client does).
                Err(Closed::ByServer) if !reconnected => {
                    reconnected = true;
                    continue;
                }
                Err(why) => return Err(why.error()),
            };
            let msg = Message::parse(&reply).map_err(|e| {
                CallError::Protocol(format!("the reply's headers do not parse: {e}"))
            })?;
            let MessageKind::Reply(head) = &msg.kind else {
                return Err(CallError::Protocol("the reader routed a non-reply".into()));
            };
            let body = msg.body();
            let order = body.order();
            let (at, exception) = match outcome(head.status, &body, |b| Ok(b.position()))? {
                Outcome::Done(r) => (r?, None),
                Outcome::UserException(CallError::UserException { repository_id, .. }, at) => {
                    (at, Some(repository_id))
                }
                Outcome::UserException(e, _) => return Err(e),
                Outcome::Forward(ior) => {
                    forwards += 1;
                    if forwards > MAX_FORWARDS {
                        return Err(CallError::TooManyForwards(MAX_FORWARDS));
                    }
                    self.retarget(&ior)?;
                    continue;
                }
            };
            return Reply::new(reply, at, order, exception).ok_or_else(|| {
                CallError::Protocol(format!("the reply's body begins past its end ({at})"))
            });
        }
    }

    fn target(&self) -> MutexGuard<'_, Target> {
        self.inner.target.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the server whether it has the object (GIOP `LocateRequest`), without calling
    /// it: [`LocateStatus::ObjectHere`] or [`LocateStatus::UnknownObject`]. On
    /// `ObjectForward` (or `ObjectForwardPerm`) the client is retargeted to the object
    /// reference of the reply, as a `LOCATION_FORWARD` reply does, and the status returned;
    /// a system exception (GIOP 1.2's `LocSystemException`) is the `Err`.
    ///
    /// ```
    /// use transports::giop::{AsyncClient, AsyncServer, Call};
    /// use wire_iiop::giop::LocateStatus;
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
    /// rt.block_on(async {
    ///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
    ///     server.add("Here", |call: &mut Call<'_>| call.reply(&()));
    ///     let server = server.spawn()?;
    ///     let here = AsyncClient::connect(&server.ior("IDL:X:1.0", b"Here")).await?;
    ///     assert_eq!(here.locate().await?, LocateStatus::ObjectHere);
    ///     let gone = AsyncClient::connect(&server.ior("IDL:X:1.0", b"Gone")).await?;
    ///     assert_eq!(gone.locate().await?, LocateStatus::UnknownObject);
    ///     server.shutdown().await;
    ///     Ok::<(), Box<dyn std::error::Error>>(())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn locate(&self) -> Result<LocateStatus, CallError> {
        let reply = match self
            .exchange(|id, version, order, key, _| {
                let head = LocateRequestHeader {
                    request_id: id,
                    target: TargetAddress::Key(key),
                };
                let mut msg = Vec::new();
                encode_message(&mut msg, version, order, &head, &())?;
                Ok((msg, false))
            })
            .await?
        {
            Ok(reply) => reply,
            Err(why) => return Err(why.error()),
        };
        let msg = Message::parse(&reply).map_err(|e| {
            CallError::Protocol(format!("the locate reply's headers do not parse: {e}"))
        })?;
        let MessageKind::LocateReply(head) = &msg.kind else {
            return Err(CallError::Protocol(
                "a locate request was answered with a Reply".into(),
            ));
        };
        match head.status {
            LocateStatus::ObjectForward | LocateStatus::ObjectForwardPerm => {
                self.retarget(&msg.body().decode::<Ior>()?)?;
            }
            LocateStatus::LocSystemException => {
                let e: SystemException = msg.body().decode()?;
                return Err(CallError::SystemException {
                    repository_id: e.repository_id,
                    minor: e.minor,
                    completed: e.completed,
                });
            }
            LocateStatus::LocNeedsAddressingMode => {
                return Err(CallError::Protocol(
                    "the server wants another addressing mode".into(),
                ))
            }
            LocateStatus::UnknownObject | LocateStatus::ObjectHere => {}
        }
        Ok(head.status)
    }

    /// Sends a request of `operation` with `args` and awaits its reply.
    async fn request<Args: Encode + ?Sized>(
        &self,
        operation: &str,
        args: &Args,
    ) -> Result<Result<Bytes, Closed>, CallError> {
        self.exchange(|id, version, order, key, code_sets| {
            let head = RequestHeader {
                request_id: id,
                response_flags: RESPONSE_EXPECTED,
                target: TargetAddress::Key(key),
                operation: operation.as_bytes(),
                service_contexts: if code_sets {
                    vec![ServiceContext::code_sets_utf8()]
                } else {
                    Vec::new()
                },
                principal: &[],
            };
            let mut msg = Vec::new();
            encode_message(&mut msg, version, order, &head, args)?;
            Ok((msg, code_sets))
        })
        .await
    }

    /// Sends one message that `encode` makes (given the request id, the version, the byte
    /// order, the object key and whether the code sets are still to be announced; it says
    /// whether it announced them) and awaits its reply (a whole `Reply` or `LocateReply`
    /// message), or learns why the connection ended first.
    async fn exchange(
        &self,
        encode: impl FnOnce(
            u32,
            Version,
            ByteOrder,
            &[u8],
            bool,
        ) -> Result<(Vec<u8>, bool), marshal_core::Error>,
    ) -> Result<Result<Bytes, Closed>, CallError> {
        let mut retried = false;
        let (conn, key, (id, reply)) = loop {
            let (conn, key) = self.connection().await?;
            match conn.register(&self.inner.next_id) {
                Ok(call) => break (conn, key, call),
                // The connection ended since: one more, fresh.
                Err(_) if !retried => retried = true,
                Err(why) => return Err(why.error()),
            }
        };
        let version = self.version();
        let order = self.byte_order();
        let mut pending = Pending {
            conn: &conn,
            id,
            version,
            order,
            sent: false,
        };
        let code_sets = version >= Version::V1_1 && !conn.code_sets_queued.load(Ordering::Acquire);
        let (msg, announced) = encode(id, version, order, &key, code_sets)?;
        if conn.out.send(msg.into()).is_err() {
            // The writer ended: the connection failed, and `close` says why.
            let why = conn.calls.lock().closed.clone();
            return Err(why.map_or_else(
                || CallError::Protocol("the connection's writer ended".into()),
                |w| w.error(),
            ));
        }
        pending.sent = true;
        if announced {
            // Every request queued before this flag is seen carried the context too.
            conn.code_sets_queued.store(true, Ordering::Release);
        }
        let r = reply.await;
        drop(pending);
        match r {
            Ok(r) => Ok(r),
            Err(_) => Err(CallError::Protocol(
                "the connection dropped the call without an answer".into(),
            )),
        }
    }

    /// The open connection and the object key, connecting first if there is none.
    async fn connection(&self) -> Result<(Arc<Conn>, Arc<[u8]>), CallError> {
        if let Some(c) = self.live() {
            return Ok(c);
        }
        let _connecting = self.inner.connecting.lock().await;
        if let Some(c) = self.live() {
            return Ok(c);
        }
        let (host, port) = {
            let t = self.target();
            (t.host.clone(), t.port)
        };
        let conn = Conn::open(&host, port, self.inner.busy_poll.clone()).await?;
        let mut t = self.target();
        t.conn = Some(Arc::clone(&conn));
        Ok((conn, Arc::clone(&t.key)))
    }

    /// The connection, if it is open.
    fn live(&self) -> Option<(Arc<Conn>, Arc<[u8]>)> {
        let t = self.target();
        let conn = t.conn.as_ref().filter(|c| !c.is_closed())?;
        Some((Arc::clone(conn), Arc::clone(&t.key)))
    }

    /// Points the client at `ior` (a forward): the next call connects there. Calls in flight
    /// on the old connection finish there.
    fn retarget(&self, ior: &Ior) -> Result<(), CallError> {
        let (host, port, key, version) = endpoint(ior)?;
        let mut t = self.target();
        *t = Target {
            host,
            port,
            key: key.into(),
            conn: None,
        };
        self.inner.minor.store(version.minor, Ordering::Relaxed);
        Ok(())
    }
}

/// The reader task: routes each reply to the call awaiting it, until the connection ends.
async fn read_replies(mut rd: OwnedReadHalf, calls: Arc<Calls>, busy_poll: BusyPoll) {
    let mut codec = GiopCodec::new();
    let mut buf = ReadBuf::new(READ_CHUNK, busy_poll);
    let why = loop {
        match buf.decode(&mut codec) {
            Ok(Some(msg)) => match route(&calls, msg) {
                Ok(()) => continue,
                Err(why) => break why,
            },
            Ok(None) => {}
            Err(e) => break Closed::Protocol(format!("a message from the server: {e}")),
        }
        match buf.read(&mut rd).await {
            Ok(0) => {
                break Closed::Transport(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection without replying".into(),
                )
            }
            Ok(_) => {}
            Err(e) => break Closed::Transport(e.kind(), e.to_string()),
        }
    };
    calls.close(why);
}

/// Hands a reply to its call (a late reply to a cancelled call is dropped); anything else
/// from a server ends the connection.
fn route(calls: &Calls, msg: Bytes) -> Result<(), Closed> {
    let id = match Message::parse(&msg) {
        Ok(m) => match m.kind {
            MessageKind::Reply(h) => h.request_id,
            MessageKind::LocateReply(h) => h.request_id,
            MessageKind::CloseConnection => return Err(Closed::ByServer),
            MessageKind::MessageError => {
                return Err(Closed::Protocol("the server answered MessageError".into()))
            }
            _ => {
                return Err(Closed::Protocol(format!(
                    "unexpected {:?} from the server",
                    m.header.msg_type
                )))
            }
        },
        Err(e) => {
            return Err(Closed::Protocol(format!(
                "a message from the server does not parse: {e}"
            )))
        }
    };
    let waiting = calls.lock().waiting.remove(&id);
    if let Some(tx) = waiting {
        let _ = tx.send(Ok(msg));
    }
    Ok(())
}

/// The writer task: writes the queued messages in order (those queued together in one
/// write), until every sender is gone (then closes the sending side) or the socket fails.
async fn write_messages(
    mut wr: OwnedWriteHalf,
    mut queue: mpsc::UnboundedReceiver<Bytes>,
    calls: Arc<Calls>,
) {
    let mut gather = Gather::new(None);
    while let Some(msg) = queue.recv().await {
        let wrote = gather.write(&mut wr, msg, || queue.try_recv().ok());
        if let Err(e) = wrote.await {
            calls.close(Closed::Transport(e.kind(), e.to_string()));
            return;
        }
    }
    let _ = wr.shutdown().await;
}
