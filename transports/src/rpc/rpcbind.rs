//! Clients of the portmapper (program 100000 version 2: GETPORT, SET, UNSET, DUMP) and of
//! rpcbind (versions 3 and 4: GETADDR, SET, UNSET, DUMP), over TCP to port 111, and the
//! registration a [`Server`](super::Server) makes of itself.
//!
//! ```no_run
//! use std::net::Ipv4Addr;
//! use transports::rpc::{rpcbind, Protocol};
//! let port = rpcbind::getport(Ipv4Addr::LOCALHOST.into(), 100_000, 2, Protocol::Tcp)?;
//! assert_eq!(port, 111);
//! for m in rpcbind::PortMapper::connect(Ipv4Addr::LOCALHOST.into())?.dump()? {
//!     println!("{} {} {} {}", m.program, m.version, m.protocol, m.port);
//! }
//! # Ok::<(), transports::rpc::RpcError>(())
//! ```

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use marshal_core::{Error, Reader, SizeClass, Writer};
use wire_xdr::{Decode, Encode};

use super::rpcb_prot::rpcbprog::{rpcbvers, rpcbvers4};
use super::{Client, Protocol, RpcError};

/// The portmapper's and rpcbind's program number.
pub const PROGRAM: u32 = 100_000;
/// Their well-known port.
pub const PORT: u16 = 111;

const SET: u32 = 1;
const UNSET: u32 = 2;
const GETPORT_OR_GETADDR: u32 = 3;
const DUMP: u32 = 4;

/// This host, where registrations are made.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
/// The owner a registration names (rpcbind records its own idea of the caller instead).
const OWNER: &str = "marshal";

/// How long a call to rpcbind may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The port `program` `version` listens on for `protocol` at `host`, asked of its
/// portmapper (version 2 GETPORT). No registration is [`RpcError::NotRegistered`].
pub fn getport(
    host: IpAddr,
    program: u32,
    version: u32,
    protocol: Protocol,
) -> Result<u16, RpcError> {
    PortMapper::connect(host)?.getport(program, version, protocol)
}

/// A portmapper (version 2) mapping: `struct mapping { unsigned int prog; unsigned int
/// vers; unsigned int prot; unsigned int port; }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mapping {
    /// The program.
    pub program: u32,
    /// The version.
    pub version: u32,
    /// The IP protocol: 6 (TCP) or 17 (UDP); see [`Protocol::ip_protocol`].
    pub protocol: u32,
    /// The port.
    pub port: u32,
}

impl Encode for Mapping {
    const SIZE: SizeClass = SizeClass::Fixed(16);
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(16)
    }
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        (self.program, self.version, self.protocol, self.port).encode(w)
    }
}

impl<'de> Decode<'de> for Mapping {
    const SIZE: SizeClass = SizeClass::Fixed(16);
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let (program, version, protocol, port) = Decode::decode(r)?;
        Ok(Mapping {
            program,
            version,
            protocol,
            port,
        })
    }
}

/// An rpcbind (versions 3 and 4) registration, generated from `rpcb_prot.x`: `r_prog`,
/// `r_vers`, `r_netid` (`tcp`, `udp`, `tcp6`, `udp6`, `local`, …), `r_addr` (the universal
/// address, see [`universal_address`]) and `r_owner`.
pub use super::rpcb_prot::Rpcb;

/// An XDR optional-data list (`struct list { T item; list *next; }`) read with a loop: each
/// element costs input, so its length is bounded by the message.
struct List<T>(Vec<T>);

impl<'de, T: Decode<'de>> Decode<'de> for List<T> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let mut items = Vec::new();
        while bool::decode(r)? {
            let i = items.len();
            items.push(T::decode(r).map_err(|e| e.at_index(i))?);
        }
        Ok(List(items))
    }
}

/// A portmapper (version 2) client.
#[derive(Debug)]
pub struct PortMapper {
    client: Client,
}

impl PortMapper {
    /// Connects to the portmapper of `host` over TCP.
    pub fn connect(host: IpAddr) -> Result<PortMapper, RpcError> {
        let mut client = Client::connect_tcp((host, PORT), PROGRAM, 2)?;
        client.set_timeout(TIMEOUT);
        Ok(PortMapper { client })
    }

    /// GETPORT: the port of `program` `version` on `protocol`.
    pub fn getport(
        &mut self,
        program: u32,
        version: u32,
        protocol: Protocol,
    ) -> Result<u16, RpcError> {
        let m = Mapping {
            program,
            version,
            protocol: protocol.ip_protocol(),
            port: 0,
        };
        match self.client.call::<_, u32>(GETPORT_OR_GETADDR, &m)? {
            0 => Err(RpcError::NotRegistered { program, version }),
            port => u16::try_from(port).map_err(|_| {
                RpcError::BadReply(Error::without_offset(marshal_core::ErrorKind::OutOfRange {
                    value: port.into(),
                    type_name: "port",
                }))
            }),
        }
    }

    /// SET: registers a mapping; `false` if one exists for its program, version and
    /// protocol.
    pub fn set(&mut self, m: &Mapping) -> Result<bool, RpcError> {
        self.client.call(SET, m)
    }

    /// UNSET: removes every mapping of the program and version (the protocol and port are
    /// ignored).
    pub fn unset(&mut self, m: &Mapping) -> Result<bool, RpcError> {
        self.client.call(UNSET, m)
    }

    /// DUMP: every mapping (what `rpcinfo -p` prints).
    pub fn dump(&mut self) -> Result<Vec<Mapping>, RpcError> {
        Ok(self.client.call::<_, List<Mapping>>(DUMP, &())?.0)
    }
}

/// An rpcbind (version 3 or 4) client: the clients generated from `rpcb_prot.x`.
#[derive(Debug)]
pub struct Rpcbind {
    client: Versioned,
}

/// The generated client of the version connected to.
#[derive(Debug)]
enum Versioned {
    V3(rpcbvers::Client),
    V4(rpcbvers4::Client),
}

/// Calls the same procedure of whichever version is connected (their signatures agree).
macro_rules! either {
    ($self:ident.$method:ident($($arg:expr),*)) => {
        match &mut $self.client {
            Versioned::V3(c) => c.$method($($arg),*),
            Versioned::V4(c) => c.$method($($arg),*),
        }
    };
}

impl Rpcbind {
    /// Connects to rpcbind `version` (3 or 4) of `host` over TCP.
    pub fn connect(host: IpAddr, version: u32) -> Result<Rpcbind, RpcError> {
        let mut client = Client::connect_tcp((host, PORT), PROGRAM, version)?;
        client.set_timeout(TIMEOUT);
        let client = match version {
            rpcbvers::VERSION => Versioned::V3(rpcbvers::Client::new(client)),
            _ => Versioned::V4(rpcbvers4::Client::new(client)),
        };
        Ok(Rpcbind { client })
    }

    /// GETADDR: the universal address of `program` `version` on `netid`, if registered
    /// (`addr` and `owner` of the query are ignored).
    pub fn getaddr(
        &mut self,
        program: u32,
        version: u32,
        netid: &str,
    ) -> Result<Option<String>, RpcError> {
        let q = query(program, version, netid);
        let addr = either!(self.rpcbproc_getaddr(&q))?;
        Ok((!addr.is_empty()).then_some(addr))
    }

    /// SET: registers `r`; `false` if a registration exists for its program, version and
    /// netid.
    pub fn set(&mut self, r: &Rpcb) -> Result<bool, RpcError> {
        either!(self.rpcbproc_set(r))
    }

    /// UNSET: removes the registrations of the program and version on `r.r_netid` (on every
    /// netid if it is empty).
    pub fn unset(&mut self, r: &Rpcb) -> Result<bool, RpcError> {
        either!(self.rpcbproc_unset(r))
    }

    /// DUMP: every registration.
    pub fn dump(&mut self) -> Result<Vec<Rpcb>, RpcError> {
        let mut list = either!(self.rpcbproc_dump())?;
        let mut out = Vec::new();
        while let Some(mut node) = list {
            list = node.rpcb_next.take();
            // The node owns its registration; take it rather than clone it.
            out.push(std::mem::replace(&mut node.rpcb_map, query(0, 0, "")));
        }
        Ok(out)
    }
}

/// A registration with only a program, version and netid (what GETADDR and UNSET read).
fn query(program: u32, version: u32, netid: &str) -> Rpcb {
    Rpcb {
        r_prog: program,
        r_vers: version,
        r_netid: netid.into(),
        r_addr: String::new(),
        r_owner: String::new(),
    }
}

/// The universal address of a socket address (RFC 5665): `h1.h2.h3.h4.p1.p2` for IPv4, the
/// IPv6 text form then `.p1.p2` for IPv6, where `p1.p2` are the port's two bytes.
///
/// ```
/// use transports::rpc::rpcbind::{parse_universal_address, universal_address};
/// let a = "127.0.0.1:2049".parse().unwrap();
/// assert_eq!(universal_address(a), "127.0.0.1.8.1");
/// assert_eq!(parse_universal_address("127.0.0.1.8.1"), Some(a));
/// assert_eq!(parse_universal_address("::1.0.111"), Some("[::1]:111".parse().unwrap()));
/// ```
pub fn universal_address(addr: SocketAddr) -> String {
    let [p1, p2] = addr.port().to_be_bytes();
    format!("{}.{p1}.{p2}", addr.ip())
}

/// Reads a universal address; `None` if it is not one.
pub fn parse_universal_address(s: &str) -> Option<SocketAddr> {
    let (rest, p2) = s.rsplit_once('.')?;
    let (host, p1) = rest.rsplit_once('.')?;
    let port = u16::from_be_bytes([p1.parse().ok()?, p2.parse().ok()?]);
    Some(SocketAddr::new(host.parse().ok()?, port))
}

/// Registers `program` `version` on `protocol` at `addr`'s port with the rpcbind on this
/// host: rpcbind version 4 (UNSET of a stale entry on the same netid, then SET), or the
/// portmapper (version 2) where version 4 is not served. (The portmapper's UNSET removes
/// every protocol of the version, so there a stale entry is not removed first: SET refuses
/// it.)
pub fn register(
    program: u32,
    version: u32,
    protocol: Protocol,
    addr: SocketAddr,
) -> Result<(), RpcError> {
    let r = Rpcb {
        r_prog: program,
        r_vers: version,
        r_netid: protocol.netid(addr.is_ipv6()).into(),
        r_addr: universal_address(addr),
        r_owner: OWNER.into(),
    };
    let mut rb = Rpcbind::connect(LOCAL, 4)?;
    let set = match rb.unset(&r).and_then(|_| rb.set(&r)) {
        Err(RpcError::ProgMismatch { .. }) => PortMapper::connect(LOCAL)?.set(&Mapping {
            program,
            version,
            protocol: protocol.ip_protocol(),
            port: addr.port().into(),
        }),
        other => other,
    }?;
    if set {
        Ok(())
    } else {
        Err(RpcError::RegistrationRefused { program, version })
    }
}

/// Removes the registration of `program` `version` on `protocol` from the rpcbind on this
/// host (IPv4 and IPv6 netids alike; with the portmapper, every protocol of the version).
pub fn unregister(program: u32, version: u32, protocol: Protocol) -> Result<(), RpcError> {
    let mut rb = Rpcbind::connect(LOCAL, 4)?;
    for ipv6 in [false, true] {
        let r = Rpcb {
            r_owner: OWNER.into(),
            ..query(program, version, protocol.netid(ipv6))
        };
        match rb.unset(&r) {
            Ok(_) => {}
            Err(RpcError::ProgMismatch { .. }) => return unset_v2(program, version),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn unset_v2(program: u32, version: u32) -> Result<(), RpcError> {
    let m = Mapping {
        program,
        version,
        protocol: 0,
        port: 0,
    };
    PortMapper::connect(LOCAL)?.unset(&m).map(drop)
}
