//! The blocking GIOP client.

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use marshal_core::Reader;
use wire_iiop::giop::{
    Body, Ior, MessageKind, RequestHeader, ServiceContext, TargetAddress, Version,
    DEFAULT_MAX_MESSAGE, RESPONSE_EXPECTED,
};
use wire_iiop::{ByteOrder, Decode, Encode};

use super::connection::{split, RecvError, Rx, SendError, Tx};
use super::reply::{outcome, Outcome};
use super::CallError;
use crate::io_util::busy_budget;

/// `LOCATION_FORWARD` replies followed in a row before giving up.
pub(crate) const MAX_FORWARDS: usize = 8;

/// A blocking GIOP client of one object, over one TCP connection.
///
/// It speaks the GIOP version of the object's IIOP profile (at most 1.2), sends requests in
/// the byte order of [`set_byte_order`](Client::set_byte_order) (the host's by default),
/// matches replies by request id, reassembles fragmented replies, follows
/// `LOCATION_FORWARD`, and reconnects once when the server closes the connection with
/// `CloseConnection` (which promises that unanswered requests were not processed).
///
/// ```no_run
/// use transports::giop::Client;
/// use wire_iiop::giop::Ior;
/// let ior = Ior::parse("corbaloc::127.0.0.1:2809/Bench")?;
/// let mut client = Client::connect(&ior)?;
/// let echoed: Vec<i32> = client.invoke::<Vec<i32>, Vec<i32>>("echo_ints", &vec![1, 2, 3])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Client {
    addr: SocketAddr,
    rx: Rx,
    tx: Tx,
    /// The object key of the current target.
    key: Vec<u8>,
    version: Version,
    order: ByteOrder,
    next_id: u32,
    /// Whether this connection has announced its code sets (once per connection, 1.1+).
    code_sets_sent: bool,
    /// Byte order and body position of the last reply (for user exception bodies).
    reply_order: ByteOrder,
    exception_base: usize,
    max_message: usize,
    timeout: Option<Duration>,
    /// The last call failed in a way that loses the framing: reconnect before the next.
    broken: bool,
    /// How long a wait for a reply busy-polls before it blocks.
    busy_poll: Option<Duration>,
}

/// Host, port, object key and GIOP version of an IOR's first IIOP profile.
pub(crate) fn endpoint(ior: &Ior) -> Result<(String, u16, Vec<u8>, Version), CallError> {
    let p = ior.iiop_profiles().next().ok_or(CallError::NoIiopProfile)?;
    let version = Version {
        major: p.version.0,
        minor: p.version.1,
    };
    if version.major != 1 {
        return Err(CallError::Protocol(format!(
            "IIOP profile version {version} is not 1.x"
        )));
    }
    Ok((
        p.host.clone(),
        p.port,
        p.object_key.clone(),
        version.capped(),
    ))
}

/// What to do after a reply.
enum Next<R> {
    Done(Result<R, CallError>),
    Forward(Ior),
    Reconnect,
}

impl Client {
    /// Connects to the object's first IIOP profile.
    pub fn connect(ior: &Ior) -> Result<Client, CallError> {
        let (host, port, key, version) = endpoint(ior)?;
        let stream = TcpStream::connect((host.as_str(), port))?;
        let addr = stream.peer_addr()?;
        let (rx, tx) = split(stream, DEFAULT_MAX_MESSAGE)?;
        Ok(Client {
            addr,
            rx,
            tx,
            key,
            version,
            order: ByteOrder::NATIVE,
            next_id: 1,
            code_sets_sent: false,
            reply_order: ByteOrder::NATIVE,
            exception_base: 0,
            max_message: DEFAULT_MAX_MESSAGE,
            timeout: None,
            broken: false,
            busy_poll: None,
        })
    }

    /// The byte order of the requests this client sends.
    pub fn set_byte_order(&mut self, order: ByteOrder) {
        self.order = order;
    }

    /// The GIOP version of the requests (by default the profile's, at most 1.2). Lowering it
    /// is always possible; raising it above what the server announced may be refused.
    pub fn set_version(&mut self, version: Version) {
        self.version = version.capped();
    }

    /// How long a call, finding no reply yet, keeps reading without blocking before it
    /// waits: off (`None`) at first, at most 10 ms. The thread then stays on its CPU for a
    /// reply that comes within the budget, instead of sleeping and having to be woken (on a
    /// VM whose idle vCPUs halt, tens of microseconds a call), at the price of that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = busy_budget(budget);
        self.rx.set_busy_poll(self.busy_poll);
    }

    /// The GIOP version in use.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The byte order the server used in its last reply.
    pub fn reply_order(&self) -> ByteOrder {
        self.reply_order
    }

    /// Calls `operation` with `args` (the `in` and `inout` parameters in IDL order: a
    /// struct, one value, `()` or a tuple) and decodes the result as `Ret` (the return value
    /// then the `inout` and `out` parameters in IDL order).
    ///
    /// After a transport or protocol error (a timeout, say) the connection's framing is lost:
    /// the next call opens a new one.
    pub fn invoke<Args: Encode + ?Sized, Ret: for<'de> Decode<'de>>(
        &mut self,
        operation: &str,
        args: &Args,
    ) -> Result<Ret, CallError> {
        self.invoke_with(operation, args, |body| body.decode::<Ret>())
    }

    /// Like [`invoke`](Client::invoke), but the result may borrow from the reply where it
    /// lies in the client's receive buffer (`&[u8]` and `&str` are not copied): it keeps the
    /// client borrowed until it is dropped, since the next call reuses the buffer.
    ///
    /// The whole reply is received before it is decoded (`invoke` decodes a large reply
    /// while its end is still arriving).
    ///
    /// ```
    /// use transports::giop::{Call, Client, Server};
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add("Files", |call: &mut Call<'_>| {
    ///     let name: String = call.args()?;
    ///     call.reply(&(name.as_str(), vec![7u8; 100_000]))
    /// });
    /// let server = server.spawn()?;
    ///
    /// let mut client = Client::connect(&server.ior("IDL:Files:1.0", b"Files"))?;
    /// let (name, data): (&str, &[u8]) = client.invoke_ref("read", "notes.txt")?;
    /// assert_eq!((name, data.len()), ("notes.txt", 100_000));
    /// // The borrow of `client` ends with the last use of `name` and `data`.
    /// let (name, _): (&str, &[u8]) = client.invoke_ref("read", "todo.txt")?;
    /// assert_eq!(name, "todo.txt");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invoke_ref<'c, Args: Encode + ?Sized, Ret: Decode<'c>>(
        &'c mut self,
        operation: &str,
        args: &Args,
    ) -> Result<Ret, CallError> {
        self.invoke_ref_or_else(operation, args, |_, e| e)
    }

    /// Like [`invoke_ref`](Client::invoke_ref), but a call that fails (a user exception, a
    /// system exception, a transport error) is first handed to `on_error` with the client,
    /// which can decode a user exception's members with
    /// [`decode_user_exception`](Client::decode_user_exception) while no result borrows the
    /// client; an undecodable reply becomes `E::from(CallError::Marshal(..))`.
    ///
    /// ```
    /// use transports::giop::{Call, CallError, Client, Server};
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add("Files", |call: &mut Call<'_>| {
    ///     let name: &str = call.args()?;
    ///     if name.is_empty() {
    ///         return call.user_exception("IDL:Files/Empty:1.0", &7u32);
    ///     }
    ///     call.reply(&name)
    /// });
    /// let server = server.spawn()?;
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum OpenError { Empty(u32), Call(String) }
    /// impl From<CallError> for OpenError {
    ///     fn from(e: CallError) -> Self { OpenError::Call(e.to_string()) }
    /// }
    /// fn open_error(c: &Client, e: CallError) -> OpenError {
    ///     match &e {
    ///         CallError::UserException { body, .. } => match c.decode_user_exception(body) {
    ///             Ok(code) => OpenError::Empty(code),
    ///             Err(d) => OpenError::Call(d.to_string()),
    ///         },
    ///         _ => e.into(),
    ///     }
    /// }
    ///
    /// let mut client = Client::connect(&server.ior("IDL:Files:1.0", b"Files"))?;
    /// let name: &str = client.invoke_ref_or_else("open", "a", open_error).unwrap();
    /// assert_eq!(name, "a");
    /// let e = client.invoke_ref_or_else::<_, &str, _>("open", "", open_error);
    /// assert_eq!(e, Err(OpenError::Empty(7)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invoke_ref_or_else<'c, Args, Ret, E>(
        &'c mut self,
        operation: &str,
        args: &Args,
        on_error: impl FnOnce(&Client, CallError) -> E,
    ) -> Result<Ret, E>
    where
        Args: Encode + ?Sized,
        Ret: Decode<'c>,
        E: From<CallError>,
    {
        let position = match self.invoke_with(operation, args, |body| Ok(body.position())) {
            Ok(position) => position,
            Err(e) => return Err(on_error(self, e)),
        };
        let order = self.reply_order;
        let message = match self.rx.last_whole() {
            Ok(message) => message,
            Err(e) => {
                self.broken = true;
                return Err(CallError::Transport(e).into());
            }
        };
        let body = message.get(position..).unwrap_or_default();
        Body::new(body, position, order)
            .decode()
            .map_err(|e| CallError::Marshal(e).into())
    }

    /// The whole GIOP message last received from the server (as much of it as has arrived):
    /// the reply the last call took its outcome from, or empty before the first reply and
    /// after a call that failed before its reply came.
    ///
    /// ```
    /// use transports::giop::{Call, Client, Server};
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add("Echo", |call: &mut Call<'_>| call.reply(&call.args::<u32>()?));
    /// let server = server.spawn()?;
    ///
    /// let mut client = Client::connect(&server.ior("IDL:Echo:1.0", b"Echo"))?;
    /// assert!(client.last_reply().is_empty());
    /// assert_eq!(client.invoke::<u32, u32>("echo", &7)?, 7);
    /// assert_eq!(&client.last_reply()[..4], b"GIOP");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_reply(&self) -> &[u8] {
        self.rx.last()
    }

    /// A call whose successful reply `take` reads (as the reply arrives).
    fn invoke_with<Args: Encode + ?Sized, R>(
        &mut self,
        operation: &str,
        args: &Args,
        take: impl Fn(&Body<'_>) -> Result<R, marshal_core::Error>,
    ) -> Result<R, CallError> {
        if self.broken {
            self.reconnect()?;
        }
        let r = self.call(operation, args, &take);
        if matches!(r, Err(CallError::Transport(_) | CallError::Protocol(_))) {
            self.broken = true;
        }
        r
    }

    /// Sets a timeout on each send and each wait for a reply (`None`, the default, waits
    /// forever). A call that times out fails with [`CallError::Transport`].
    pub fn set_timeout(&mut self, timeout: Option<Duration>) -> Result<(), CallError> {
        self.timeout = timeout;
        self.apply_timeout()
    }

    fn apply_timeout(&self) -> Result<(), CallError> {
        let s = self.tx.stream();
        s.set_read_timeout(self.timeout)?;
        s.set_write_timeout(self.timeout)?;
        Ok(())
    }

    fn call<Args: Encode + ?Sized, R>(
        &mut self,
        operation: &str,
        args: &Args,
        take: &impl Fn(&Body<'_>) -> Result<R, marshal_core::Error>,
    ) -> Result<R, CallError> {
        let mut forwards = 0;
        let mut reconnected = false;
        loop {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            self.send_request(id, operation, args)?;
            match self.await_reply(id, take)? {
                Next::Done(r) => return r,
                Next::Forward(ior) => {
                    forwards += 1;
                    if forwards > MAX_FORWARDS {
                        return Err(CallError::TooManyForwards(MAX_FORWARDS));
                    }
                    self.retarget(&ior)?;
                }
                Next::Reconnect if !reconnected => {
                    reconnected = true;
                    self.reconnect()?;
                }
                Next::Reconnect => {
                    return Err(CallError::Protocol(
                        "the server closed the connection twice".into(),
                    ))
                }
            }
        }
    }

    /// Decodes the members of a user exception that the last call raised (the `body` of
    /// [`CallError::UserException`]), with the reply's byte order and alignment.
    pub fn decode_user_exception<'b, T: Decode<'b>>(
        &self,
        body: &'b [u8],
    ) -> Result<T, marshal_core::Error> {
        let mut r = Reader::new(body, self.exception_base);
        let v = T::decode(&mut r, self.reply_order)?;
        r.finish()?;
        Ok(v)
    }

    fn send_request<Args: Encode + ?Sized>(
        &mut self,
        id: u32,
        operation: &str,
        args: &Args,
    ) -> Result<(), CallError> {
        let service_contexts = if !self.code_sets_sent && self.version >= Version::V1_1 {
            vec![ServiceContext::code_sets_utf8()]
        } else {
            Vec::new()
        };
        let head = RequestHeader {
            request_id: id,
            response_flags: RESPONSE_EXPECTED,
            target: TargetAddress::Key(&self.key),
            operation: operation.as_bytes(),
            service_contexts,
            principal: &[],
        };
        match self.tx.send(self.version, self.order, &head, args) {
            Ok(()) => {
                self.code_sets_sent = true;
                Ok(())
            }
            Err(SendError::Io(e)) => Err(CallError::Transport(e)),
            Err(SendError::Marshal { error, sent }) => {
                if sent {
                    // Part of a message is on the wire: the connection cannot be used again.
                    self.reconnect()?;
                }
                Err(CallError::Marshal(error))
            }
        }
    }

    fn await_reply<R>(
        &mut self,
        id: u32,
        take: &impl Fn(&Body<'_>) -> Result<R, marshal_core::Error>,
    ) -> Result<Next<R>, CallError> {
        loop {
            let incoming = self.rx.receive().map_err(|e| match e {
                RecvError::Io(e) => CallError::Transport(e),
                RecvError::Protocol(e) => CallError::Protocol(e.to_string()),
            })?;
            // Headers that stopped arriving are the transport's failure.
            let msg = incoming.parse().map_err(|e| match incoming.blame(e) {
                Ok(io) => CallError::Transport(io),
                Err(e) => CallError::Protocol(e.to_string()),
            })?;
            let body = msg.body();
            let head = match msg.kind {
                MessageKind::Reply(h) if h.request_id == id => h,
                // A late reply to a request given up on.
                MessageKind::Reply(_) => continue,
                MessageKind::CloseConnection => return Ok(Next::Reconnect),
                MessageKind::MessageError => {
                    return Err(CallError::Protocol(
                        "the server answered MessageError".into(),
                    ))
                }
                _ => {
                    return Err(CallError::Protocol(format!(
                        "unexpected {:?} from the server",
                        msg.header.msg_type
                    )))
                }
            };
            self.reply_order = body.order();
            // A decode error because the reply stopped arriving is the transport's.
            let marshal = |e: marshal_core::Error| match incoming.blame(e) {
                Ok(io) => CallError::Transport(io),
                Err(e) => CallError::Marshal(e),
            };
            return Ok(match outcome(head.status, &body, take).map_err(marshal)? {
                Outcome::Done(r) => Next::Done(r),
                Outcome::UserException(e, base) => {
                    self.exception_base = base;
                    Next::Done(Err(e))
                }
                Outcome::Forward(ior) => Next::Forward(ior),
            });
        }
    }

    /// Connects to `ior` instead (a forward).
    fn retarget(&mut self, ior: &Ior) -> Result<(), CallError> {
        let (host, port, key, version) = endpoint(ior)?;
        let stream = TcpStream::connect((host.as_str(), port))?;
        self.addr = stream.peer_addr()?;
        let (rx, tx) = split(stream, self.max_message)?;
        self.rx = rx;
        self.rx.set_busy_poll(self.busy_poll);
        self.tx = tx;
        self.key = key;
        self.version = version;
        self.code_sets_sent = false;
        self.apply_timeout()
    }

    /// A fresh connection to the same address.
    fn reconnect(&mut self) -> Result<(), CallError> {
        let (rx, tx) = split(TcpStream::connect(self.addr)?, self.max_message)?;
        self.rx = rx;
        self.rx.set_busy_poll(self.busy_poll);
        self.tx = tx;
        self.code_sets_sent = false;
        self.broken = false;
        self.apply_timeout()
    }
}
