//! The multi-threaded server: a thread accepts TCP connections and a thread serves each one
//! (records in order, so pipelined calls are answered in order); a few threads serve the UDP
//! socket. Every message goes through [`dispatch`]: the RPC version and the credentials are
//! checked, the program version found, and the call handed to its [`Program`], which
//! matches on the procedure number and decodes the arguments inline.

use std::cell::Cell;
use std::io;
use std::net::{
    IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs,
    UdpSocket,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use marshal_core::{Error, ErrorKind};
use wire_xdr::rpc::{
    AcceptStat, Auth, AuthStat, CallHeader, OpaqueAuth, RecordReader, RejectedReply, ReplyHeader,
    DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD, RPC_VERSION,
};
use wire_xdr::{Decode, Encode};

use super::framing::{encode_datagram, encode_record, write_record};
use super::{rpcbind, Protocol, RpcError, MAX_DATAGRAM};
use crate::conn_threads::ConnThreads;
use crate::io_util::{busy_budget, BusyRead};

/// One program version's implementation: answers the calls made to it.
///
/// ```
/// use transports::rpc::{Call, Program};
/// struct Echo;
/// impl Program for Echo {
///     fn call(&self, call: &mut Call<'_>) -> Result<(), marshal_core::Error> {
///         match call.procedure() {
///             0 => call.reply(&()),
///             1 => {
///                 let data: &[u8] = call.args()?; // borrowed from the request
///                 call.reply(data)
///             }
///             _ => call.proc_unavail(),
///         }
///     }
/// }
/// ```
pub trait Program: Send + Sync {
    /// Handles one call: match on [`Call::procedure`], decode with [`Call::args`], answer
    /// with [`Call::reply`] (or [`Call::proc_unavail`], [`Call::garbage_args`],
    /// [`Call::system_err`], [`Call::auth_error`]). A call left unanswered is answered
    /// `GARBAGE_ARGS` if its arguments failed to decode, `SYSTEM_ERR` otherwise (and after a
    /// panic).
    fn call(&self, call: &mut Call<'_>) -> Result<(), Error>;
}

impl<F: Fn(&mut Call<'_>) -> Result<(), Error> + Send + Sync> Program for F {
    fn call(&self, call: &mut Call<'_>) -> Result<(), Error> {
        self(call)
    }
}

/// Where a reply goes.
#[derive(Debug)]
pub(super) enum ReplyTo<'a> {
    Tcp {
        stream: &'a TcpStream,
        scratch: &'a mut Vec<u8>,
        max: usize,
    },
    Udp {
        socket: &'a UdpSocket,
        buf: &'a mut Vec<u8>,
    },
    /// Encoded into `out` (cleared first) as one record, mark included (a datagram is the
    /// record without its first 4 bytes), for a caller that sends it: the async server.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    Buffer {
        out: &'a mut Vec<u8>,
        /// The largest reply.
        max: usize,
        /// The transport the call came over.
        protocol: Protocol,
    },
}

/// One call being served.
#[derive(Debug)]
pub struct Call<'a> {
    header: CallHeader<'a>,
    auth: Auth,
    args: &'a [u8],
    /// Offset of the arguments in the message (for error offsets).
    args_at: usize,
    peer: SocketAddr,
    to: ReplyTo<'a>,
    replied: bool,
    args_failed: Cell<bool>,
    /// The reply could not be sent: the connection is unusable.
    broken: bool,
}

impl<'a> Call<'a> {
    fn new(
        header: CallHeader<'a>,
        auth: Auth,
        message: &'a [u8],
        args: &'a [u8],
        to: ReplyTo<'a>,
        peer: SocketAddr,
    ) -> Call<'a> {
        Call {
            header,
            auth,
            args,
            args_at: message.len() - args.len(),
            peer,
            to,
            replied: false,
            args_failed: Cell::new(false),
            broken: false,
        }
    }

    /// The procedure number.
    pub fn procedure(&self) -> u32 {
        self.header.procedure
    }
    /// The program number.
    pub fn program(&self) -> u32 {
        self.header.program
    }
    /// The program version.
    pub fn version(&self) -> u32 {
        self.header.version
    }
    /// The transaction id.
    pub fn xid(&self) -> u32 {
        self.header.xid
    }
    /// The caller's credential (AUTH_NONE or a checked AUTH_SYS; other flavors are refused
    /// before the call reaches a program).
    pub fn auth(&self) -> &Auth {
        &self.auth
    }
    /// The credential as sent.
    pub fn cred(&self) -> OpaqueAuth<'a> {
        self.header.cred
    }
    /// The caller's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }
    /// The transport the call came over.
    pub fn protocol(&self) -> Protocol {
        match self.to {
            ReplyTo::Tcp { .. } => Protocol::Tcp,
            ReplyTo::Udp { .. } => Protocol::Udp,
            ReplyTo::Buffer { protocol, .. } => protocol,
        }
    }
    /// Whether an answer has been sent.
    pub fn replied(&self) -> bool {
        self.replied
    }

    /// Decodes the arguments, which must take the whole rest of the message; they may borrow
    /// from it. A failure, unless the call is then answered otherwise, is answered
    /// `GARBAGE_ARGS`.
    pub fn args<T: Decode<'a>>(&self) -> Result<T, Error> {
        wire_xdr::from_slice(self.args).map_err(|e| {
            self.args_failed.set(true);
            e.in_field("args").shifted(self.args_at)
        })
    }

    /// Answers `SUCCESS` with the results. Large opaque parts go out over TCP with vectored
    /// writes from where they lie.
    pub fn reply<T: Encode + ?Sized>(&mut self, results: &T) -> Result<(), Error> {
        self.answer(
            &ReplyHeader::accepted(self.xid(), AcceptStat::Success),
            results,
        )
    }

    /// Answers `PROC_UNAVAIL`: the default arm of a program's `match`.
    pub fn proc_unavail(&mut self) -> Result<(), Error> {
        self.accept(AcceptStat::ProcUnavail)
    }

    /// Answers `GARBAGE_ARGS`.
    pub fn garbage_args(&mut self) -> Result<(), Error> {
        self.accept(AcceptStat::GarbageArgs)
    }

    /// Answers `SYSTEM_ERR`.
    pub fn system_err(&mut self) -> Result<(), Error> {
        self.accept(AcceptStat::SystemErr)
    }

    /// Denies the call for its credentials (`AUTH_ERROR` with `why`), e.g.
    /// [`AuthStat::TooWeak`] for a call that needs AUTH_SYS.
    pub fn auth_error(&mut self, why: AuthStat) -> Result<(), Error> {
        let h = ReplyHeader::denied(self.xid(), RejectedReply::AuthError(why));
        self.answer(&h, &())
    }

    fn accept(&mut self, stat: AcceptStat) -> Result<(), Error> {
        self.answer(&ReplyHeader::accepted(self.xid(), stat), &())
    }

    fn answer<T: Encode + ?Sized>(
        &mut self,
        head: &ReplyHeader<'_>,
        body: &T,
    ) -> Result<(), Error> {
        if self.replied {
            return Err(Error::without_offset(ErrorKind::Custom(
                "the call was already answered".into(),
            )));
        }
        let msg = (head, body);
        let sent = match &mut self.to {
            ReplyTo::Tcp {
                stream,
                scratch,
                max,
            } => write_record(stream, scratch, *max, msg),
            ReplyTo::Udp { socket, buf } => encode_datagram(buf, MAX_DATAGRAM, msg)
                .and_then(|()| Ok(socket.send_to(buf, self.peer).map(drop)?)),
            ReplyTo::Buffer { out, max, .. } => encode_record(out, *max, &msg),
        };
        match sent {
            Ok(()) => {
                self.replied = true;
                Ok(())
            }
            Err(RpcError::Marshal { error, sent }) => {
                self.replied |= sent;
                self.broken |= sent;
                Err(error)
            }
            Err(RpcError::TooLarge { len, max }) => {
                Err(Error::without_offset(ErrorKind::LengthTooLarge {
                    len: len as u64,
                    max: max as u64,
                })
                .in_field("reply"))
            }
            Err(e) => {
                self.replied = true;
                self.broken = true;
                let what = e.to_string();
                Err(match e {
                    RpcError::Io(io) => Error::io(what, io, None),
                    _ => Error::without_offset(ErrorKind::Custom(what)),
                })
            }
        }
    }
}

/// The program versions served, sorted by (program, version).
pub(super) type Programs = Vec<(u32, u32, Arc<dyn Program>)>;

/// Default cap on TCP connections served at once (each has a thread).
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// A server of several programs and versions over TCP, UDP or both.
///
/// ```no_run
/// use transports::rpc::{Call, Server};
/// let mut server = Server::bind("0.0.0.0:0")?; // TCP and UDP on one port
/// server.add(0x2000_0001, 1, |call: &mut Call<'_>| call.reply(&()));
/// server.register_with_rpcbind(true); // rpcinfo -p lists it while it runs
/// let handle = server.spawn()?;
/// println!("serving on port {}", handle.tcp_addr().unwrap().port());
/// handle.shutdown(); // unregisters
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Server {
    tcp: Option<TcpListener>,
    udp: Option<UdpSocket>,
    programs: Programs,
    register: bool,
    max_record: usize,
    max_connections: usize,
    udp_threads: usize,
    idle_timeout: Option<Duration>,
    busy_poll: Option<Duration>,
}

impl core::fmt::Debug for Server {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("tcp", &self.tcp)
            .field("udp", &self.udp)
            .field(
                "programs",
                &self.programs.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Server {
    fn with(tcp: Option<TcpListener>, udp: Option<UdpSocket>) -> Server {
        Server {
            tcp,
            udp,
            programs: Vec::new(),
            register: false,
            max_record: DEFAULT_MAX_RECORD,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            udp_threads: 2,
            idle_timeout: Some(Duration::from_secs(300)),
            busy_poll: None,
        }
    }

    /// Listens on TCP at `addr` and on UDP at the same address and port (port 0 picks one
    /// free for both).
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<Server> {
        let addr = first_addr(addr)?;
        // The TCP port picked for port 0 may be taken on UDP: try a few.
        let mut last = None;
        for _ in 0..16 {
            let tcp = TcpListener::bind(addr)?;
            match UdpSocket::bind(tcp.local_addr()?) {
                Ok(udp) => return Ok(Server::with(Some(tcp), Some(udp))),
                Err(e) if addr.port() == 0 => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no port free for both TCP and UDP")))
    }

    /// Listens on TCP only.
    pub fn bind_tcp(addr: impl ToSocketAddrs) -> io::Result<Server> {
        Ok(Server::with(Some(TcpListener::bind(addr)?), None))
    }

    /// Listens on UDP only.
    pub fn bind_udp(addr: impl ToSocketAddrs) -> io::Result<Server> {
        Ok(Server::with(None, Some(UdpSocket::bind(addr)?)))
    }

    /// Serves `program` at `version` with `imp` (replacing an earlier one for the pair).
    pub fn add(&mut self, program: u32, version: u32, imp: impl Program + 'static) {
        add_program(&mut self.programs, program, version, Arc::new(imp));
    }

    /// Whether [`spawn`](Server::spawn) registers every program version with the rpcbind on
    /// this host (and shutdown unregisters them). Off at first.
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
        self.max_connections = max;
    }

    /// How many threads serve the UDP socket (2 at first).
    pub fn set_udp_threads(&mut self, n: usize) {
        self.udp_threads = n.max(1);
    }

    /// Closes a TCP connection that sends nothing for this long (5 minutes at first;
    /// `None`: never). A client stalled mid-record holds only its own thread meanwhile.
    pub fn set_idle_timeout(&mut self, idle: Option<Duration>) {
        self.idle_timeout = idle;
    }

    /// How long a TCP connection's thread, finding no call to read, keeps reading without
    /// blocking before it waits: off (`None`) at first, at most 10 ms. The thread then stays
    /// on its CPU for a call that comes within the budget, instead of sleeping and having to
    /// be woken (on a VM whose idle vCPUs halt, tens of microseconds a call), at the price of
    /// that CPU time.
    pub fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = busy_budget(budget);
    }

    /// Starts serving, and registers with rpcbind if asked to.
    pub fn spawn(self) -> Result<ServerHandle, RpcError> {
        let tcp_addr = self.tcp.as_ref().map(TcpListener::local_addr).transpose()?;
        let udp_addr = self.udp.as_ref().map(UdpSocket::local_addr).transpose()?;
        let shared = Arc::new(Shared {
            programs: self.programs,
            stopping: AtomicBool::new(false),
            conns: ConnThreads::new(self.max_connections),
            max_record: self.max_record,
            idle_timeout: self.idle_timeout,
            busy_poll: self.busy_poll,
        });
        let mut handle = ServerHandle {
            tcp_addr,
            udp_addr,
            shared: Arc::clone(&shared),
            threads: Vec::new(),
            registered: Vec::new(),
        };
        if let Some(listener) = self.tcp {
            let s = Arc::clone(&shared);
            handle.threads.push(
                std::thread::Builder::new()
                    .name("rpc-accept".into())
                    .spawn(move || accept_loop(listener, s))?,
            );
        }
        if let Some(socket) = self.udp {
            for _ in 0..self.udp_threads {
                let socket = socket.try_clone()?;
                let s = Arc::clone(&shared);
                handle.threads.push(
                    std::thread::Builder::new()
                        .name("rpc-udp".into())
                        .spawn(move || serve_udp(socket, &s))?,
                );
            }
        }
        if self.register {
            let pairs: Vec<(u32, u32)> = shared.programs.iter().map(|p| (p.0, p.1)).collect();
            for (program, version) in pairs {
                for (protocol, addr) in [(Protocol::Tcp, tcp_addr), (Protocol::Udp, udp_addr)] {
                    if let Some(addr) = addr {
                        // On failure, dropping the handle unregisters what was registered.
                        rpcbind::register(program, version, protocol, addr)?;
                        handle.registered.push((program, version, protocol, addr));
                    }
                }
            }
        }
        Ok(handle)
    }
}

/// Adds `imp` for `(program, version)` to `programs`, kept sorted (replacing an earlier one
/// for the pair).
pub(super) fn add_program<P>(
    programs: &mut Vec<(u32, u32, P)>,
    program: u32,
    version: u32,
    imp: P,
) {
    let entry = (program, version, imp);
    match programs.binary_search_by_key(&(program, version), |p| (p.0, p.1)) {
        Ok(i) => programs[i] = entry,
        Err(i) => programs.insert(i, entry),
    }
}

fn first_addr(addr: impl ToSocketAddrs) -> io::Result<SocketAddr> {
    addr.to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to bind"))
}

struct Shared {
    programs: Programs,
    stopping: AtomicBool,
    conns: ConnThreads,
    max_record: usize,
    idle_timeout: Option<Duration>,
    busy_poll: Option<Duration>,
}

impl core::fmt::Debug for Shared {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Shared")
            .field("stopping", &self.stopping)
            .finish_non_exhaustive()
    }
}

/// A running server; [`shutdown`](ServerHandle::shutdown) (or drop) stops it.
#[derive(Debug)]
pub struct ServerHandle {
    tcp_addr: Option<SocketAddr>,
    udp_addr: Option<SocketAddr>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    registered: Vec<(u32, u32, Protocol, SocketAddr)>,
}

impl ServerHandle {
    /// The TCP address, if it serves TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp_addr
    }

    /// The UDP address, if it serves UDP.
    pub fn udp_addr(&self) -> Option<SocketAddr> {
        self.udp_addr
    }

    /// Unregisters from rpcbind, stops accepting, closes every connection after the call it
    /// is serving, and waits for the threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        for (program, version, protocol, _) in self.registered.drain(..) {
            let _ = rpcbind::unregister(program, version, protocol);
        }
        if self.shared.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the acceptor and the UDP threads: each sees `stopping` after its wake-up.
        if let Some(addr) = self.tcp_addr {
            let _ = TcpStream::connect(reachable(addr));
        }
        if let Some(addr) = self.udp_addr {
            if let Ok(s) = UdpSocket::bind((unspecified(addr.ip()), 0)) {
                for _ in 0..self.threads.len() {
                    let _ = s.send_to(&[], reachable(addr));
                }
            }
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.shared.conns.close_all();
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The address to reach a socket bound to `addr` from this host (loopback for a wildcard).
fn reachable(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

fn unspecified(like: IpAddr) -> IpAddr {
    match like {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let s = Arc::clone(&shared);
    shared
        .conns
        .accept_loop(listener, &shared.stopping, "rpc-conn", move |stream| {
            serve_tcp(stream, &s)
        });
}

/// Serves one connection: records in order until it closes, idles out, or breaks a cap.
fn serve_tcp(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(shared.idle_timeout);
    let Ok(peer) = stream.peer_addr() else { return };
    let mut rx = RecordReader::with_caps(shared.max_record, DEFAULT_MAX_FRAGMENTS);
    let mut scratch = Vec::new();
    let mut input = BusyRead {
        stream: &stream,
        budget: shared.busy_poll,
    };
    while let Ok(record) = rx.read_record(&mut input) {
        let to = ReplyTo::Tcp {
            stream: &stream,
            scratch: &mut scratch,
            max: shared.max_record,
        };
        if dispatch(&shared.programs, record, to, peer) {
            break;
        }
    }
    // The acceptor holds a clone for shutdown: dropping ours would not close the socket.
    let _ = stream.shutdown(Shutdown::Both);
}

fn serve_udp(socket: UdpSocket, shared: &Shared) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut out = Vec::new();
    loop {
        let received = socket.recv_from(&mut buf);
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok((n, peer)) = received else { continue };
        let to = ReplyTo::Udp {
            socket: &socket,
            buf: &mut out,
        };
        dispatch(&shared.programs, &buf[..n], to, peer);
    }
}

/// What the checks every server makes before a program sees a call decide: serve it with
/// the entry found for its program and version, or answer it at once.
pub(super) enum Admission {
    /// Serve it with the table's `index`th entry; the credential checked as `auth`.
    Serve { index: usize, auth: Auth },
    /// Refuse it with this reply (RPC version, credential, program or version).
    Refuse(ReplyHeader<'static>),
}

/// Checks a call's RPC version and credential, then finds its program version in `table`
/// (sorted by program and version, as [`add_program`] keeps it): the blocking and the async
/// servers' one admission.
pub(super) fn admit<P>(table: &[(u32, u32, P)], header: &CallHeader<'_>) -> Admission {
    if header.rpcvers != RPC_VERSION {
        let why = RejectedReply::RpcMismatch {
            low: RPC_VERSION,
            high: RPC_VERSION,
        };
        return Admission::Refuse(ReplyHeader::denied(header.xid, why));
    }
    let auth = match Auth::from_opaque(header.cred.flavor, header.cred.body) {
        Ok(Auth::Other { .. }) => {
            let why = RejectedReply::AuthError(AuthStat::RejectedCred);
            return Admission::Refuse(ReplyHeader::denied(header.xid, why));
        }
        Ok(auth) => auth,
        Err(_) => {
            let why = RejectedReply::AuthError(AuthStat::BadCred);
            return Admission::Refuse(ReplyHeader::denied(header.xid, why));
        }
    };
    let key = (header.program, header.version);
    match table.binary_search_by_key(&key, |p| (p.0, p.1)) {
        Ok(index) => Admission::Serve { index, auth },
        Err(_) => {
            let versions = || table.iter().filter(|p| p.0 == header.program).map(|p| p.1);
            let stat = match (versions().min(), versions().max()) {
                (Some(low), Some(high)) => AcceptStat::ProgMismatch { low, high },
                _ => AcceptStat::ProgUnavail,
            };
            Admission::Refuse(ReplyHeader::accepted(header.xid, stat))
        }
    }
}

/// Serves one message with `programs` (the blocking server's dispatch): `true` if the
/// connection broke. Messages that are not calls, or whose header does not parse, are
/// dropped (as libtirpc does: without a header there is nobody to answer).
pub(super) fn dispatch(
    programs: &Programs,
    message: &[u8],
    to: ReplyTo<'_>,
    peer: SocketAddr,
) -> bool {
    let Some((header, args)) = CallHeader::parse(message) else {
        return false;
    };
    match admit(programs, &header) {
        Admission::Serve { index, auth } => {
            serve_call(&*programs[index].2, header, auth, message, args, to, peer)
        }
        Admission::Refuse(reply) => {
            let mut call = Call::new(header, Auth::None, message, args, to, peer);
            let _ = call.answer(&reply, &());
            call.broken
        }
    }
}

/// Serves a call admitted to `imp` (its header parsed from `message`, its arguments `args`):
/// `true` if the connection broke. A call the program leaves unanswered is answered
/// `GARBAGE_ARGS` if its arguments failed to decode, `SYSTEM_ERR` otherwise (and after a
/// panic).
pub(super) fn serve_call(
    imp: &dyn Program,
    header: CallHeader<'_>,
    auth: Auth,
    message: &[u8],
    args: &[u8],
    to: ReplyTo<'_>,
    peer: SocketAddr,
) -> bool {
    let mut call = Call::new(header, auth, message, args, to, peer);
    let outcome = catch_unwind(AssertUnwindSafe(|| imp.call(&mut call)));
    if !call.replied {
        let stat = match outcome {
            Ok(Err(_)) if call.args_failed.get() => AcceptStat::GarbageArgs,
            _ => AcceptStat::SystemErr,
        };
        let _ = call.accept(stat);
    }
    call.broken
}
