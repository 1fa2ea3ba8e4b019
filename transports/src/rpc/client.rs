//! The blocking client: one TCP connection (calls may be pipelined on it) or one UDP socket
//! (each call retransmitted until its reply comes or the timeout passes).

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

use marshal_core::Error;
use wire_xdr::rpc::{
    AcceptStat, Auth, CallTemplate, Message, OpaqueAuth, RecordError, RecordReader, ReplyBody,
    DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD,
};
use wire_xdr::{Decode, Encode};

use super::error::timed_out;
use super::framing::{encode_datagram, write_record};
use super::{Protocol, RpcError};
use crate::io_util::{busy_budget, BusyRead};

/// How long a call waits for its reply unless [`Client::set_timeout`] says otherwise (as
/// rpcgen's clients: 25 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(25);
/// The first UDP retransmission comes this long after the call; each next one waits twice
/// as long, up to [`MAX_RETRY`].
pub const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The longest wait between UDP retransmissions.
pub const MAX_RETRY: Duration = Duration::from_secs(4);
/// The largest UDP datagram (the IPv4 payload limit).
pub use wire_xdr::rpc::MAX_DATAGRAM;

/// A client of one program version on one server.
///
/// ```no_run
/// use transports::rpc::Client;
/// let mut c = Client::connect_tcp("127.0.0.1:2049", 100_003, 3)?;
/// c.call::<(), ()>(0, &())?; // NULL
/// // Pipelined: both calls go out before either reply is read.
/// let a = c.send_call(0, &())?;
/// let b = c.send_call(0, &())?;
/// c.recv_reply::<()>(a)?;
/// c.recv_reply::<()>(b)?;
/// # Ok::<(), transports::rpc::RpcError>(())
/// ```
#[derive(Debug)]
pub struct Client {
    conn: Conn,
    program: u32,
    version: u32,
    next_xid: u32,
    timeout: Duration,
    retry: Duration,
    /// The header of this client's calls (program, version, credential), encoded once.
    template: CallTemplate,
    /// The encoding of the message being sent.
    scratch: Vec<u8>,
    /// Calls sent whose replies have not been taken.
    outstanding: Vec<u32>,
    /// Replies that arrived before they were asked for.
    stash: Vec<(u32, Vec<u8>)>,
    max_record: usize,
    /// A failure left the TCP stream mid-record: no further calls.
    broken: bool,
    /// Where the reply last taken lies.
    last: Last,
    /// The last reply taken from `stash`.
    held: Vec<u8>,
    /// How long a TCP read busy-polls before it blocks.
    busy_poll: Option<Duration>,
}

/// Where the reply the last call took its outcome from lies.
#[derive(Debug, Clone, Copy)]
enum Last {
    /// No reply (none yet, or the last call failed before one came).
    None,
    /// The TCP record reader's current record.
    Record,
    /// The first bytes of the UDP receive buffer.
    Datagram(usize),
    /// `held`: a reply that arrived before it was asked for.
    Held,
}

#[derive(Debug)]
enum Conn {
    Tcp {
        stream: TcpStream,
        rx: RecordReader,
        /// The read timeout set on the socket.
        armed: Option<Duration>,
    },
    Udp {
        socket: UdpSocket,
        buf: Vec<u8>,
    },
}

impl Client {
    /// Connects over TCP to `addr` (the first address that accepts).
    pub fn connect_tcp(
        addr: impl ToSocketAddrs,
        program: u32,
        version: u32,
    ) -> Result<Client, RpcError> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        let conn = Conn::Tcp {
            stream,
            rx: RecordReader::with_caps(DEFAULT_MAX_RECORD, DEFAULT_MAX_FRAGMENTS),
            armed: None,
        };
        Ok(Client::new(conn, program, version))
    }

    /// Makes a UDP client for `addr` (its first address): a socket bound to an ephemeral
    /// port and connected to the server, so only its datagrams are read.
    pub fn connect_udp(
        addr: impl ToSocketAddrs,
        program: u32,
        version: u32,
    ) -> Result<Client, RpcError> {
        let peer = addr.to_socket_addrs()?.next().ok_or_else(|| {
            RpcError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no address to connect to",
            ))
        })?;
        let local: SocketAddr = match peer {
            SocketAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
            SocketAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        let socket = UdpSocket::bind(local)?;
        socket.connect(peer)?;
        let conn = Conn::Udp {
            socket,
            buf: vec![0; MAX_DATAGRAM],
        };
        Ok(Client::new(conn, program, version))
    }

    fn new(conn: Conn, program: u32, version: u32) -> Client {
        Client {
            conn,
            program,
            version,
            next_xid: xid_seed(),
            timeout: DEFAULT_TIMEOUT,
            retry: DEFAULT_RETRY,
            template: CallTemplate::none(program, version),
            scratch: Vec::new(),
            outstanding: Vec::new(),
            stash: Vec::new(),
            max_record: DEFAULT_MAX_RECORD,
            broken: false,
            last: Last::None,
            held: Vec::new(),
            busy_poll: None,
        }
    }

    /// How long a call waits for its reply ([`DEFAULT_TIMEOUT`] at first).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout.max(Duration::from_millis(1));
    }

    /// How long a call over TCP, finding no reply yet, keeps reading without blocking before
    /// it waits: off (`None`) at first, at most 10 ms. The thread then stays on its CPU for a
    /// reply that comes within the budget, instead of sleeping and having to be woken (on a
    /// VM whose idle vCPUs halt, tens of microseconds a call), at the price of that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = busy_budget(budget);
    }

    /// How long a UDP call waits before its first retransmission ([`DEFAULT_RETRY`] at
    /// first); the wait doubles after each one, up to [`MAX_RETRY`].
    pub fn set_retry(&mut self, retry: Duration) {
        self.retry = retry.max(Duration::from_millis(1));
    }

    /// The credential sent with every call from now on (AUTH_NONE at first).
    ///
    /// # Panics
    ///
    /// If the credential breaks its flavor's limits (an AUTH_SYS machine name over 255
    /// bytes, more than 16 groups, a body over 400 bytes).
    pub fn set_auth(&mut self, auth: Auth) {
        self.template = call_template(self.program, self.version, &auth);
    }

    /// Caps the size of a record sent or received over TCP (64 MiB at first).
    pub fn set_max_record(&mut self, max: usize) {
        self.max_record = max;
        if let Conn::Tcp { rx, .. } = &mut self.conn {
            *rx = RecordReader::with_caps(max, DEFAULT_MAX_FRAGMENTS);
        }
    }

    /// The program called.
    pub fn program(&self) -> u32 {
        self.program
    }

    /// The program version called.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The transport.
    pub fn protocol(&self) -> Protocol {
        match self.conn {
            Conn::Tcp { .. } => Protocol::Tcp,
            Conn::Udp { .. } => Protocol::Udp,
        }
    }

    /// The server's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match &self.conn {
            Conn::Tcp { stream, .. } => stream.peer_addr(),
            Conn::Udp { socket, .. } => socket.peer_addr(),
        }
    }

    /// Calls `procedure` with `args` and waits for its results. `Args` and `Ret` are derived
    /// types, primitives, `()` (XDR `void`) or tuples (several parameters, in order).
    pub fn call<Args, Ret>(&mut self, procedure: u32, args: &Args) -> Result<Ret, RpcError>
    where
        Args: Encode + ?Sized,
        Ret: for<'de> Decode<'de>,
    {
        self.call_ref(procedure, args)
    }

    /// Like [`call`](Client::call), but the results may borrow from the reply where it lies
    /// in the client's receive buffer (`&[u8]` and `&str` fields are not copied): they keep
    /// the client borrowed until they are dropped, since the next call reuses the buffer.
    ///
    /// ```
    /// use transports::rpc::{Call, Client, Server};
    /// const PROG: u32 = 0x2000_0001;
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add(PROG, 1, |call: &mut Call<'_>| {
    ///     let (offset, count): (u64, u32) = call.args()?;
    ///     let file = vec![7u8; 10_000];
    ///     let start = (offset as usize).min(file.len());
    ///     let end = (start + count as usize).min(file.len());
    ///     call.reply(&(end == file.len(), &file[start..end]))
    /// });
    /// let server = server.spawn()?;
    ///
    /// let mut c = Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1)?;
    /// let (eof, data): (bool, &[u8]) = c.call_ref(6, &(0u64, 8192u32))?;
    /// assert!(!eof && data.len() == 8192);
    /// let got = data.len() as u64; // the borrow of `c` ends with the last use of `data`
    /// let (eof, data): (bool, &[u8]) = c.call_ref(6, &(got, 8192u32))?;
    /// assert!(eof && data.len() == 10_000 - 8192);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn call_ref<'c, Args, Ret>(
        &'c mut self,
        procedure: u32,
        args: &Args,
    ) -> Result<Ret, RpcError>
    where
        Args: Encode + ?Sized,
        Ret: Decode<'c>,
    {
        match self.conn {
            Conn::Tcp { .. } => {
                let xid = self.send_call(procedure, args)?;
                self.recv_reply_ref(xid)
            }
            Conn::Udp { .. } => {
                self.call_udp(procedure, args)?;
                finish(self.last_reply())
            }
        }
    }

    /// The whole RPC message of the reply the last call (or
    /// [`recv_reply`](Client::recv_reply)) took its outcome from, where it lies in the
    /// client's buffers; empty before the first reply and after a call that failed before
    /// its reply came.
    ///
    /// ```
    /// use transports::rpc::{Call, Client, Server};
    /// const PROG: u32 = 0x2000_0001;
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add(PROG, 1, |call: &mut Call<'_>| call.reply(&()));
    /// let server = server.spawn()?;
    ///
    /// let mut c = Client::connect_udp(server.udp_addr().unwrap(), PROG, 1)?;
    /// assert!(c.last_reply().is_empty());
    /// c.call::<(), ()>(0, &())?;
    /// // xid, REPLY, MSG_ACCEPTED, an empty AUTH_NONE verifier, SUCCESS: no results.
    /// assert_eq!(c.last_reply().len(), 24);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_reply(&self) -> &[u8] {
        match (self.last, &self.conn) {
            (Last::Record, Conn::Tcp { rx, .. }) => rx.record(),
            (Last::Datagram(n), Conn::Udp { buf, .. }) => &buf[..n],
            (Last::Held, _) => &self.held,
            _ => &[],
        }
    }

    /// Sends a call without waiting for its reply, and returns its xid for
    /// [`recv_reply`](Client::recv_reply): calls pipelined on one TCP connection. Arguments'
    /// octet runs of 16 KiB or more are written to the socket from where they lie. Over UDP
    /// the datagram is sent once (no retransmission).
    pub fn send_call<Args: Encode + ?Sized>(
        &mut self,
        procedure: u32,
        args: &Args,
    ) -> Result<u32, RpcError> {
        if self.broken {
            return Err(broken());
        }
        let xid = self.take_xid();
        // The header by value: on the common path it stays in registers.
        let msg = (self.template.header(xid, procedure), args);
        match &mut self.conn {
            Conn::Tcp { stream, .. } => {
                let sent = write_record(stream, &mut self.scratch, self.max_record, msg);
                if let Err(RpcError::Io(_) | RpcError::Marshal { sent: true, .. }) = sent {
                    self.broken = true;
                }
                sent?;
            }
            Conn::Udp { socket, .. } => {
                encode_datagram(&mut self.scratch, MAX_DATAGRAM, msg)?;
                socket.send(&self.scratch)?;
            }
        }
        self.outstanding.push(xid);
        Ok(xid)
    }

    /// Waits for the reply to the call `xid` made by [`send_call`](Client::send_call), and
    /// decodes its results. Replies to other pipelined calls that arrive first are kept for
    /// their own `recv_reply`.
    pub fn recv_reply<Ret: for<'de> Decode<'de>>(&mut self, xid: u32) -> Result<Ret, RpcError> {
        self.recv_reply_ref(xid)
    }

    /// Like [`recv_reply`](Client::recv_reply), but the results may borrow from the reply
    /// where it lies in the client's buffers, as with [`call_ref`](Client::call_ref).
    ///
    /// ```
    /// use transports::rpc::{Call, Client, Server};
    /// const PROG: u32 = 0x2000_0001;
    ///
    /// let mut server = Server::bind("127.0.0.1:0")?;
    /// server.add(PROG, 1, |call: &mut Call<'_>| {
    ///     let name: String = call.args()?;
    ///     call.reply(&name)
    /// });
    /// let server = server.spawn()?;
    ///
    /// let mut c = Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1)?;
    /// let a = c.send_call(1, "first")?;
    /// let b = c.send_call(1, "second")?;
    /// let second: &str = c.recv_reply_ref(b)?;
    /// assert_eq!(second, "second");
    /// let first: &str = c.recv_reply_ref(a)?; // its reply came first and was kept aside
    /// assert_eq!(first, "first");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recv_reply_ref<'c, Ret: Decode<'c>>(&'c mut self, xid: u32) -> Result<Ret, RpcError> {
        self.await_reply(xid)?;
        finish(self.last_reply())
    }

    /// Waits for the reply to the call `xid`, and leaves it where [`Client::last_reply`]
    /// finds it.
    fn await_reply(&mut self, xid: u32) -> Result<(), RpcError> {
        self.last = Last::None;
        // A reply kept aside earlier is not held longer than until the next call.
        self.held = Vec::new();
        if let Some(i) = self.stash.iter().position(|(x, _)| *x == xid) {
            let (_, bytes) = self.stash.swap_remove(i);
            self.forget(xid);
            self.held = bytes;
            self.last = Last::Held;
            return Ok(());
        }
        if !self.outstanding.contains(&xid) {
            return Err(RpcError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("no call with xid {xid} is waiting for its reply"),
            )));
        }
        if self.broken {
            return Err(broken());
        }
        let deadline = Instant::now() + self.timeout;
        let mut first = true;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() && !first {
                self.forget(xid);
                return Err(RpcError::Timeout);
            }
            let wait_all = std::mem::replace(&mut first, false);
            let (got, at) = match &mut self.conn {
                Conn::Tcp { stream, rx, armed } => {
                    // The first read of a call waits the whole timeout, so the socket is
                    // set once per client, not per call; reads after a record that was not
                    // the reply wait what is left.
                    let want = if wait_all { self.timeout } else { remaining };
                    if *armed != Some(want) {
                        stream.set_read_timeout(Some(want))?;
                        *armed = Some(want);
                    }
                    let mut input = BusyRead {
                        stream,
                        budget: self.busy_poll,
                    };
                    match rx.read_record(&mut input) {
                        Ok(record) => (record, Last::Record),
                        Err(RecordError::Io(e)) if timed_out(&e) => continue,
                        Err(RecordError::Io(e)) => {
                            self.broken = true;
                            return Err(RpcError::Io(e));
                        }
                        Err(RecordError::Protocol(e)) => {
                            self.broken = true;
                            return Err(RpcError::BadReply(e));
                        }
                    }
                }
                Conn::Udp { socket, buf } => match recv_within(socket, buf, remaining)? {
                    Some(n) => (&buf[..n], Last::Datagram(n)),
                    None => continue,
                },
            };
            let Some(got_xid) = got.first_chunk::<4>().map(|b| u32::from_be_bytes(*b)) else {
                continue;
            };
            if got_xid == xid {
                self.outstanding.retain(|x| *x != xid);
                self.last = at;
                return Ok(());
            }
            if self.outstanding.contains(&got_xid) {
                self.stash.push((got_xid, got.to_vec()));
            }
            // Otherwise a late reply to a call given up on: dropped.
        }
    }

    /// A call over UDP: sent, then sent again after each retry interval without its reply,
    /// which is left where [`Client::last_reply`] finds it.
    fn call_udp<Args: Encode + ?Sized>(
        &mut self,
        procedure: u32,
        args: &Args,
    ) -> Result<(), RpcError> {
        self.last = Last::None;
        // A reply kept aside earlier is not held longer than until the next call.
        self.held = Vec::new();
        let xid = self.send_call(procedure, args)?;
        self.forget(xid);
        let Conn::Udp { socket, buf } = &mut self.conn else {
            unreachable!("call_udp on a TCP client")
        };
        let deadline = Instant::now() + self.timeout;
        let mut wait = self.retry;
        let mut resend_at = Instant::now() + wait;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(RpcError::Timeout);
            }
            if now >= resend_at {
                socket.send(&self.scratch)?;
                wait = (wait * 2).min(MAX_RETRY);
                resend_at = now + wait;
            }
            let wait = resend_at.min(deadline).saturating_duration_since(now);
            match recv_within(socket, buf, wait)? {
                Some(n) if buf[..n].starts_with(&xid.to_be_bytes()) => {
                    self.last = Last::Datagram(n);
                    return Ok(());
                }
                // A stale reply to an earlier call, or time to send again.
                _ => {}
            }
        }
    }

    fn take_xid(&mut self) -> u32 {
        let xid = self.next_xid;
        self.next_xid = self.next_xid.wrapping_add(1);
        xid
    }

    fn forget(&mut self, xid: u32) {
        self.outstanding.retain(|x| *x != xid);
    }
}

/// Waits at most `wait` (at least 100 µs) for a datagram; `None` if none came.
fn recv_within(
    socket: &UdpSocket,
    buf: &mut [u8],
    wait: Duration,
) -> Result<Option<usize>, RpcError> {
    socket.set_read_timeout(Some(wait.max(Duration::from_micros(100))))?;
    match socket.recv(buf) {
        Ok(n) => Ok(Some(n)),
        Err(e) if timed_out(&e) => Ok(None),
        Err(e) => Err(RpcError::Io(e)),
    }
}

/// The header template of calls to `program` `version` carrying `auth` (and an AUTH_NONE
/// verifier): the credential encoded and checked once, when set (for [`Client`] and the
/// async client).
///
/// # Panics
///
/// If the credential breaks its flavor's limits (see [`Client::set_auth`]).
pub(super) fn call_template(program: u32, version: u32, auth: &Auth) -> CallTemplate {
    let body = auth
        .body()
        .unwrap_or_else(|e| panic!("credential out of limits: {e}"));
    let cred = OpaqueAuth {
        flavor: auth.flavor(),
        body: &body,
    };
    CallTemplate::new(program, version, cred)
        .unwrap_or_else(|e| panic!("credential out of limits: {e}"))
}

fn broken() -> RpcError {
    RpcError::Io(io::Error::new(
        io::ErrorKind::NotConnected,
        "the connection broke on an earlier call",
    ))
}

/// Reads a reply: an error for every outcome but `SUCCESS`, whose results must decode and
/// take the rest of the message.
pub(super) fn finish<'de, Ret: Decode<'de>>(msg: &'de [u8]) -> Result<Ret, RpcError> {
    decode_results(msg, results_at(msg)?)
}

/// Where the results of a reply begin: an error for every outcome but `SUCCESS`.
pub(super) fn results_at(msg: &[u8]) -> Result<usize, RpcError> {
    let (m, rest) = Message::parse(msg).map_err(RpcError::BadReply)?;
    let Message::Reply(h) = m else {
        return Err(RpcError::BadReply(Error::new(
            marshal_core::ErrorKind::Custom("a call where a reply was expected".into()),
            4,
        )));
    };
    match h.body {
        ReplyBody::Accepted {
            stat: AcceptStat::Success,
            ..
        } => Ok(msg.len() - rest.len()),
        ReplyBody::Accepted { stat, .. } => {
            Err(RpcError::from_accept_stat(stat).expect("not SUCCESS"))
        }
        ReplyBody::Denied(why) => Err(RpcError::from_rejected(why)),
    }
}

/// Decodes the results of a `SUCCESS` reply, which begin at `at` and must take the rest of
/// the message.
pub(super) fn decode_results<'de, Ret: Decode<'de>>(
    msg: &'de [u8],
    at: usize,
) -> Result<Ret, RpcError> {
    wire_xdr::from_slice(&msg[at..])
        .map_err(|e| RpcError::BadReply(e.in_field("results").shifted(at)))
}

/// A starting xid unlikely to repeat across clients and runs (RFC 5531 asks only that a
/// client not reuse one for a different call while it may matter).
pub(super) fn xid_seed() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.write_u32(std::process::id());
    h.finish() as u32
}
