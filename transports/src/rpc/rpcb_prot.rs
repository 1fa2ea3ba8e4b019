//! rpcbind's protocol, versions 3 and 4: the types and clients marshal-build generates from
//! libtirpc's `rpcb_prot.x` (`rpcb_prot.generated.rs`, checked in; the test
//! `marshal-build-tests/tests/checked_in.rs` regenerates it and fails if it differs). To
//! regenerate:
//!
//! ```sh
//! cargo run -p marshal-build -- xdr --marshal-path crate::rpc::rpcb_prot::rt \
//!     /usr/include/tirpc/rpc/rpcb_prot.x -o transports/src/rpc/rpcb_prot.generated.rs
//! ```

// The generated code serves every procedure of both versions; `rpcbind` uses the clients.
#![allow(dead_code, unreachable_pub)]

/// What the generated code names as `marshal`: transports sits below the facade, so the
/// derive and the RPC items are reached from here.
pub(crate) mod rt {
    pub(crate) use marshal_core::Error;
    pub(crate) use marshal_derive::Marshal;

    pub(crate) mod rpc {
        pub(crate) use crate::rpc::{Call, Client, Program, RpcError};
    }

    // The derive emits CDR and NDR code too when the facade turns its `iiop` and `ndr`
    // features on (which also turns on transports' own): these are used only then.
    #[allow(unused_imports)]
    pub(crate) mod __private {
        #[cfg(feature = "iiop")]
        pub(crate) use wire_iiop::__private as iiop;
        #[cfg(feature = "ndr")]
        pub(crate) use wire_ndr::__private as ndr;
        pub(crate) use wire_xdr::__private as xdr;
    }
}

/// `rpcprog_t` (libtirpc's `<rpc/types.h>`): `uint32_t`.
pub type RpcprogT = u32;
/// `rpcvers_t`: `uint32_t`.
pub type RpcversT = u32;
/// `rpcproc_t`: `uint32_t`.
pub type RpcprocT = u32;

/// `struct netbuf` as `xdr_netbuf` codes it: `maxlen`, then `buf` as `opaque<>`.
#[derive(rt::Marshal, Debug, Clone, PartialEq, Eq)]
#[marshal(crate = "crate::rpc::rpcb_prot::rt")]
pub struct Netbuf {
    /// The buffer's capacity.
    pub maxlen: u32,
    /// The bytes.
    pub buf: Vec<u8>,
}

include!("rpcb_prot.generated.rs");
