//! ONC RPC (RFC 5531) over TCP and UDP: a blocking [`Client`], a multi-threaded [`Server`]
//! that serves several programs and versions, and an [`rpcbind`] client; with feature
//! `tokio`, an async client (`AsyncClient`: many calls in flight on one connection) and an
//! async server (`AsyncServer`) serving the same [`Program`]s or `tower` services of
//! `Request`s.
//!
//! Arguments and results are any types with an XDR encoding: derived types, primitives,
//! `()` for `void`, and tuples for several parameters.
//!
//! ```
//! use transports::rpc::{Call, Client, Server};
//! const PROG: u32 = 0x2000_0001;
//!
//! let mut server = Server::bind("127.0.0.1:0")?;
//! server.add(PROG, 1, |call: &mut Call<'_>| match call.procedure() {
//!     0 => call.reply(&()),
//!     1 => {
//!         let (a, b): (i32, i32) = call.args()?;
//!         call.reply(&a.wrapping_add(b))
//!     }
//!     _ => call.proc_unavail(),
//! });
//! let server = server.spawn()?;
//!
//! let mut tcp = Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1)?;
//! assert_eq!(tcp.call::<(i32, i32), i32>(1, &(2, 3))?, 5);
//! let mut udp = Client::connect_udp(server.udp_addr().unwrap(), PROG, 1)?;
//! assert_eq!(udp.call::<(i32, i32), i32>(1, &(2, 3))?, 5);
//! assert!(matches!(udp.call::<(), ()>(9, &()), Err(transports::rpc::RpcError::ProcUnavail)));
//! server.shutdown();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "tokio")]
mod async_client;
#[cfg(feature = "tokio")]
mod async_server;
mod client;
mod error;
mod framing;
mod rpcb_prot;
pub mod rpcbind;
mod server;
#[cfg(feature = "tokio")]
mod service;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_client::{AsyncClient, Reply};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_server::{AsyncServer, AsyncServerHandle, DEFAULT_GRACE, DEFAULT_MAX_IN_FLIGHT};
pub use client::{Client, DEFAULT_RETRY, DEFAULT_TIMEOUT, MAX_DATAGRAM, MAX_RETRY};
pub use error::RpcError;
pub use framing::write_record;
pub use server::{Call, Program, Server, ServerHandle, DEFAULT_MAX_CONNECTIONS};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use service::{BoxError, GarbageArgs, Request, Response};
/// `tower`'s `Service` trait, re-exported: what [`AsyncServer::add_service`] serves.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use tower_service::Service;
pub use wire_xdr::rpc::{AcceptStat, Auth, AuthStat, OpaqueAuth, RejectedReply};

/// A transport protocol, as rpcbind names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// TCP, with record marking.
    Tcp,
    /// UDP, one message per datagram.
    Udp,
}

impl Protocol {
    /// The IP protocol number (portmapper version 2's `prot`: 6 or 17).
    pub fn ip_protocol(self) -> u32 {
        match self {
            Protocol::Tcp => 6,
            Protocol::Udp => 17,
        }
    }

    /// The network id (rpcbind versions 3 and 4): `tcp`/`udp`, or `tcp6`/`udp6` for IPv6.
    pub fn netid(self, ipv6: bool) -> &'static str {
        match (self, ipv6) {
            (Protocol::Tcp, false) => "tcp",
            (Protocol::Udp, false) => "udp",
            (Protocol::Tcp, true) => "tcp6",
            (Protocol::Udp, true) => "udp6",
        }
    }
}
