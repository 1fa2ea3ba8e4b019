//! The multi-threaded GIOP server: a thread accepts connections, a thread per connection
//! reads requests, finds the object by key, and hands the call to its [`Servant`], which
//! dispatches on the operation name with a `match` on the bytes.

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use marshal_core::Error;
use wire_iiop::giop::{
    Body, CdrBytes, CloseConnection, Completion, Ior, LocateReplyHeader, LocateStatus, Message,
    MessageError, MessageHead, MessageKind, ReplyHeader, ReplyStatus, RequestHeader,
    ServiceContext, SystemException, TargetAddress, Version, DEFAULT_MAX_MESSAGE,
};
use wire_iiop::{ByteOrder, Decode, Encode};

use crate::conn_threads::ConnThreads;
use crate::io_util::busy_budget;

use super::connection::{split, RecvError, Rx, SendError, Tx};

/// An object's implementation: answers the calls made on it.
///
/// ```
/// use transports::giop::{Call, Servant};
/// struct Adder;
/// impl Servant for Adder {
///     fn invoke(&self, call: &mut Call<'_>) -> Result<(), marshal_core::Error> {
///         match call.operation() {
///             b"add" => {
///                 let (a, b): (i32, i32) = call.args()?;
///                 call.reply(&a.wrapping_add(b))
///             }
///             _ => call.bad_operation(),
///         }
///     }
/// }
/// ```
pub trait Servant: Send + Sync {
    /// Handles one request: match on [`Call::operation`], decode the arguments with
    /// [`Call::args`], answer with [`Call::reply`], [`Call::user_exception`] or
    /// [`Call::system_exception`]. An `Err` (arguments that do not decode) is answered with
    /// the system exception `MARSHAL`; a call left unanswered with `UNKNOWN`.
    fn invoke(&self, call: &mut Call<'_>) -> Result<(), Error>;
}

impl<F: Fn(&mut Call<'_>) -> Result<(), Error> + Send + Sync> Servant for F {
    fn invoke(&self, call: &mut Call<'_>) -> Result<(), Error> {
        self(call)
    }
}

/// One request being served.
#[derive(Debug)]
pub struct Call<'a> {
    header: &'a RequestHeader<'a>,
    key: &'a [u8],
    body: Body<'a>,
    version: Version,
    out: Out<'a>,
    replied: bool,
    /// A reply failed midway, or the socket did: the connection is unusable.
    broken: bool,
}

impl<'a> Call<'a> {
    /// The operation name.
    pub fn operation(&self) -> &'a [u8] {
        self.header.operation
    }
    /// The object key the request was sent to.
    pub fn object_key(&self) -> &'a [u8] {
        self.key
    }
    /// The request id.
    pub fn request_id(&self) -> u32 {
        self.header.request_id
    }
    /// The request's GIOP version.
    pub fn version(&self) -> Version {
        self.version
    }
    /// The byte order of the request (the reply uses it too).
    pub fn order(&self) -> ByteOrder {
        self.body.order()
    }
    /// The request's service contexts.
    pub fn service_contexts(&self) -> &[ServiceContext<'a>] {
        &self.header.service_contexts
    }
    /// Whether an answer has been sent (or, for a oneway call, given).
    pub fn replied(&self) -> bool {
        self.replied
    }

    /// Decodes the arguments (the `in` and `inout` parameters in IDL order), which must take
    /// the whole request body. They may borrow from the request.
    pub fn args<T: Decode<'a>>(&self) -> Result<T, Error> {
        self.body.decode()
    }

    /// Answers with the results (the return value, then the `inout` and `out` parameters in
    /// IDL order). Large octet sequences go out with vectored writes from where they lie.
    pub fn reply<T: Encode + ?Sized>(&mut self, results: &T) -> Result<(), Error> {
        self.answer(ReplyStatus::NoException, results)
    }

    /// Answers with a user exception: its repository id, then its members.
    pub fn user_exception<T: Encode + ?Sized>(
        &mut self,
        repository_id: &str,
        members: &T,
    ) -> Result<(), Error> {
        self.answer(
            ReplyStatus::UserException,
            &(CdrBytes(repository_id.as_bytes()), members),
        )
    }

    /// Answers with a system exception.
    pub fn system_exception(&mut self, e: &SystemException) -> Result<(), Error> {
        self.answer(ReplyStatus::SystemException, e)
    }

    /// Answers `LOCATION_FORWARD`: the client should send this request (and the ones after
    /// it) to `ior` instead.
    pub fn forward(&mut self, ior: &Ior) -> Result<(), Error> {
        self.answer(ReplyStatus::LocationForward, ior)
    }

    /// Answers `BAD_OPERATION`: the operation is not one of the object's (the default arm of
    /// a servant's `match`).
    pub fn bad_operation(&mut self) -> Result<(), Error> {
        self.system_exception(&SystemException::new("BAD_OPERATION", 0, Completion::No))
    }

    fn answer<T: Encode + ?Sized>(&mut self, status: ReplyStatus, body: &T) -> Result<(), Error> {
        if self.replied {
            return Err(Error::without_offset(marshal_core::ErrorKind::Custom(
                "the call was already answered".into(),
            )));
        }
        if !self.header.response_expected() {
            self.replied = true;
            return Ok(());
        }
        // The whole request is read before the reply goes out: a client still sending a
        // large request is not reading, and a large reply would block on it.
        if let Err(e) = self.body.arrive_all() {
            self.replied = true;
            return Err(e);
        }
        let head = ReplyHeader {
            request_id: self.header.request_id,
            status,
            service_contexts: Vec::new(),
        };
        match self.out.send(self.version, self.order(), &head, body) {
            Ok(()) => {
                self.replied = true;
                Ok(())
            }
            Err(SendError::Io(e)) => {
                self.replied = true;
                self.broken = true;
                Err(Error::io(e.to_string(), e, None))
            }
            Err(SendError::Marshal { error, sent }) => {
                if sent {
                    self.replied = true;
                    self.broken = true;
                }
                Err(error)
            }
        }
    }
}

/// Where a connection's answers go.
#[derive(Debug)]
pub(crate) enum Out<'a> {
    /// Straight to the blocking socket (large octet runs with vectored writes).
    Socket(&'a mut Tx),
    /// Appended to a buffer, whole messages, for an async connection to write.
    #[cfg(feature = "tokio")]
    Buffer(&'a mut Vec<u8>),
}

impl Out<'_> {
    fn send<'h, H: MessageHead<'h>, B: Encode + ?Sized>(
        &mut self,
        version: Version,
        order: ByteOrder,
        head: &H,
        body: &B,
    ) -> Result<(), SendError> {
        match self {
            Out::Socket(tx) => tx.send(version, order, head, body),
            #[cfg(feature = "tokio")]
            Out::Buffer(buf) => {
                let start = buf.len();
                wire_iiop::giop::encode_message(buf, version, order, head, body).map_err(|error| {
                    buf.truncate(start);
                    SendError::Marshal { error, sent: false }
                })
            }
        }
    }
}

pub(crate) type Objects = HashMap<Vec<u8>, Arc<dyn Servant>>;

/// A GIOP server that owns objects by key.
///
/// ```no_run
/// use transports::giop::{Call, Server};
/// let mut server = Server::bind("127.0.0.1:0")?;
/// server.add("Echo", |call: &mut Call<'_>| {
///     let v: Vec<u8> = call.args()?;
///     call.reply(&v)
/// });
/// let handle = server.spawn()?;
/// println!("{}", handle.ior("IDL:Echo:1.0", b"Echo"));
/// handle.shutdown();
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Server {
    listener: TcpListener,
    objects: Objects,
    max_message: usize,
    max_connections: usize,
    busy_poll: Option<Duration>,
}

/// Default cap on connections served at once (each has a thread).
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

impl core::fmt::Debug for Server {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("listener", &self.listener)
            .field("objects", &self.objects.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Server {
    /// Listens on `addr` (port 0 picks a free one).
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(addr)?,
            objects: HashMap::new(),
            max_message: DEFAULT_MAX_MESSAGE,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            busy_poll: None,
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves `servant` under `object_key`.
    pub fn add(&mut self, object_key: impl Into<Vec<u8>>, servant: impl Servant + 'static) {
        self.objects.insert(object_key.into(), Arc::new(servant));
    }

    /// Caps the size of a request (reassembled), 256 MiB by default.
    pub fn set_max_message(&mut self, max: usize) {
        self.max_message = max;
    }

    /// Caps the connections served at once (`DEFAULT_MAX_CONNECTIONS` by default): each
    /// takes a thread, so a peer opening connections without end cannot exhaust them. A
    /// connection beyond the cap is closed at once (clients retry later).
    pub fn set_max_connections(&mut self, max: usize) {
        self.max_connections = max;
    }

    /// How long a connection's thread, finding no request to read, keeps reading without
    /// blocking before it waits: off (`None`) at first, at most 10 ms. The thread then stays
    /// on its CPU for a request that comes within the budget, instead of sleeping and having
    /// to be woken (on a VM whose idle vCPUs halt, tens of microseconds a call), at the price
    /// of that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = busy_budget(budget);
    }

    /// Starts serving: a thread accepts connections and a thread serves each one.
    pub fn spawn(self) -> io::Result<ServerHandle> {
        let addr = self.listener.local_addr()?;
        let shared = Arc::new(Shared {
            objects: self.objects,
            stopping: AtomicBool::new(false),
            conns: ConnThreads::new(self.max_connections),
            max_message: self.max_message,
            busy_poll: self.busy_poll,
        });
        let s = Arc::clone(&shared);
        let listener = self.listener;
        let acceptor = std::thread::Builder::new()
            .name("giop-accept".into())
            .spawn(move || accept_loop(listener, s))?;
        Ok(ServerHandle {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }
}

#[derive(Debug)]
struct Shared {
    objects: Objects,
    stopping: AtomicBool,
    conns: ConnThreads,
    max_message: usize,
    busy_poll: Option<Duration>,
}

impl core::fmt::Debug for dyn Servant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Servant")
    }
}

/// A running server; [`shutdown`](ServerHandle::shutdown) (or drop) stops it.
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl ServerHandle {
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

    /// Stops accepting, tells every connected client `CloseConnection` (after the request
    /// it is serving, if any), and waits for the threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(acceptor) = self.acceptor.take() else {
            return;
        };
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the acceptor.
        let _ = TcpStream::connect(self.addr);
        let _ = acceptor.join();
        // The connections' threads sees the end of its input, answers CloseConnection.
        self.shared.conns.close_all();
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let s = Arc::clone(&shared);
    shared
        .conns
        .accept_loop(listener, &shared.stopping, "giop-conn", move |stream| {
            serve(stream, &s)
        });
}

/// The object key a target names.
pub(crate) fn object_key<'t>(target: &'t TargetAddress<'t>) -> Option<std::borrow::Cow<'t, [u8]>> {
    match target {
        TargetAddress::Key(k) => Some(std::borrow::Cow::Borrowed(k)),
        _ => {
            let p = target.profile()?;
            if p.tag != wire_iiop::giop::TAG_INTERNET_IOP {
                return None;
            }
            wire_iiop::giop::IiopProfile::from_encapsulation(p.data)
                .ok()
                .map(|p| std::borrow::Cow::Owned(p.object_key))
        }
    }
}

/// Serves one connection until it closes, then closes the socket (the acceptor keeps a
/// handle on it for shutdown, so dropping ours would not).
fn serve(stream: TcpStream, shared: &Shared) {
    let Ok((mut rx, mut tx)) = split(stream, shared.max_message) else {
        return;
    };
    rx.set_busy_poll(shared.busy_poll);
    serve_messages(rx, &mut tx, shared);
    let _ = tx.stream().shutdown(Shutdown::Both);
}

/// The message loop of one connection.
fn serve_messages(mut rx: Rx, tx: &mut Tx, shared: &Shared) {
    let mut version = Version::V1_0;
    let mut order = ByteOrder::Big;
    loop {
        let incoming = match rx.receive() {
            Ok(m) => m,
            Err(RecvError::Io(_)) => break,
            Err(RecvError::Protocol(_)) => {
                let _ = tx.send(version, order, &MessageError::default(), &());
                return;
            }
        };
        let msg = match incoming.parse() {
            Ok(m) => m,
            Err(_) => {
                let _ = tx.send(version, order, &MessageError::default(), &());
                return;
            }
        };
        version = msg.header.version;
        order = msg.header.order;
        if handle_message(&shared.objects, &msg, Out::Socket(tx)) == Handled::Stop {
            return;
        }
    }
    if shared.stopping.load(Ordering::SeqCst) {
        let _ = tx.send(version, order, &CloseConnection::default(), &());
    }
}

/// What a connection does after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handled {
    /// Reads the next one.
    Continue,
    /// Closes: the peer closed or broke the protocol (answered `MessageError`), or the
    /// connection broke.
    Stop,
}

/// Serves one received message (of a blocking or an async connection): runs a request,
/// answers a `LocateRequest`, and answers what a client must not send with `MessageError`.
pub(crate) fn handle_message(objects: &Objects, msg: &Message<'_>, mut out: Out<'_>) -> Handled {
    let (version, order) = (msg.header.version, msg.header.order);
    let broken = match &msg.kind {
        MessageKind::Request(h) => dispatch(objects, h, msg.body(), version, out),
        MessageKind::LocateRequest(h) => {
            let here = object_key(&h.target).is_some_and(|k| objects.contains_key(&*k));
            let head = LocateReplyHeader {
                request_id: h.request_id,
                status: if here {
                    LocateStatus::ObjectHere
                } else {
                    LocateStatus::UnknownObject
                },
            };
            out.send(version, order, &head, &()).is_err()
        }
        // Requests are served one at a time: nothing is pending to cancel.
        MessageKind::CancelRequest(_) => false,
        MessageKind::CloseConnection | MessageKind::MessageError => true,
        MessageKind::Reply(_) | MessageKind::LocateReply(_) | MessageKind::Fragment { .. } => {
            let _ = out.send(version, order, &MessageError::default(), &());
            true
        }
    };
    if broken {
        Handled::Stop
    } else {
        Handled::Continue
    }
}

/// Runs one request; `true` if the connection broke.
fn dispatch(
    objects: &Objects,
    header: &RequestHeader<'_>,
    body: Body<'_>,
    version: Version,
    out: Out<'_>,
) -> bool {
    let key = object_key(&header.target);
    let servant = key.as_deref().and_then(|k| objects.get(k));
    let mut call = Call {
        header,
        key: key.as_deref().unwrap_or(&[]),
        body,
        version,
        out,
        replied: false,
        broken: false,
    };
    let Some(servant) = servant else {
        let e = SystemException::new("OBJECT_NOT_EXIST", 0, Completion::No);
        let _ = call.system_exception(&e);
        return call.broken;
    };
    let outcome = servant.invoke(&mut call);
    if !call.replied {
        let e = match outcome {
            Err(_) => SystemException::new("MARSHAL", 0, Completion::No),
            Ok(()) => SystemException::new("UNKNOWN", 0, Completion::Maybe),
        };
        let _ = call.system_exception(&e);
    }
    call.broken
}
