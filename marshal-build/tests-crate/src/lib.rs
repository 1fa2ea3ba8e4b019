//! marshal-build's output for real `.x` files, each in its own module; the tests are in
//! `tests/`. Types a file uses without defining them (C typedefs, or types of another `.x`
//! file that rpcgen's C output takes from a header) are brought into scope before the
//! `include!`, as a user of marshal-build would.

macro_rules! generated {
    ($($name:ident $({ $($prelude:item)* })?),* $(,)?) => {
        $(
            #[doc = concat!("Generated from `", stringify!($name), ".x`.")]
            pub mod $name {
                $($($prelude)*)?
                include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
            }
        )*
    };
}

/// The C typedefs of libtirpc that `rpcb_prot.x` uses, as XDR sees them.
pub mod tirpc {
    /// `rpcprog_t`: `uint32_t`.
    pub type RpcprogT = u32;
    /// `rpcvers_t`: `uint32_t`.
    pub type RpcversT = u32;
    /// `rpcproc_t`: `uint32_t`.
    pub type RpcprocT = u32;

    /// `struct netbuf` as `xdr_netbuf` codes it: `maxlen`, then `buf` as `opaque<>`.
    #[derive(marshal::Marshal, Debug, Clone, PartialEq, Eq)]
    pub struct Netbuf {
        /// The buffer's capacity.
        pub maxlen: u32,
        /// The bytes.
        pub buf: Vec<u8>,
    }
}

generated!(
    flick,
    unions,
    calc,
    exact,
    rpcb_prot {
        pub use crate::tirpc::{Netbuf, RpcprocT, RpcprogT, RpcversT};
    },
    bootparam_prot,
    key_prot,
    klm_prot,
    mount,
    nfs_prot,
    nis,
    nis_callback {
        pub use crate::nis::{NisError, NisObject};
    },
    nis_object,
    nlm_prot,
    rex,
    rquota,
    rstat,
    rusers,
    sm_inter,
    spray,
    yp,
    yppasswd,
);

/// The same files generated with `Config::borrowed(true)`: strings and opaque data as `Cow`.
pub mod borrowed {
    macro_rules! borrowed {
        ($($name:ident $({ $($prelude:item)* })?),* $(,)?) => {
            $(
                #[doc = concat!("Generated from `", stringify!($name), ".x`, borrowed.")]
                pub mod $name {
                    $($($prelude)*)?
                    include!(concat!(env!("OUT_DIR"), "/borrowed/", stringify!($name), ".rs"));
                }
            )*
        };
    }
    borrowed!(
        flick,
        calc,
        unions,
        nfs_prot,
        mount,
        yp,
        rpcb_prot {
            pub use crate::tirpc::{Netbuf, RpcprocT, RpcprogT, RpcversT};
        },
    );
}

/// Files generated with `Config::async_client(true)` and `Config::async_server(true)`.
pub mod async_stubs {
    /// `xdr/calc.x`.
    pub mod calc {
        include!(concat!(env!("OUT_DIR"), "/async/calc.rs"));
    }
    /// `xdr/kv.x`, borrowed (`Config::borrowed(true)`).
    pub mod kv {
        include!(concat!(env!("OUT_DIR"), "/async/kv.rs"));
    }
}

/// Generated from `peers/omniorb/idl/flick.idl` (CORBA IDL).
pub mod flick_idl {
    include!(concat!(env!("OUT_DIR"), "/idl/flick.rs"));
}

/// Generated from `idl/all.idl` (every construct of the IDL front end).
pub mod all_idl {
    include!(concat!(env!("OUT_DIR"), "/idl/all.rs"));
}

/// `flick.idl`, `all.idl` and `CosNaming.idl` generated with `Config::borrowed(true)`.
pub mod borrowed_idl {
    /// `peers/omniorb/idl/flick.idl`.
    pub mod flick_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/borrowed/flick.rs"));
    }
    /// `idl/all.idl`.
    pub mod all_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/borrowed/all.rs"));
    }
    /// `/usr/share/idl/omniORB/COS/CosNaming.idl`.
    pub mod cos_naming_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/borrowed/CosNaming.rs"));
    }
}

/// IDL files generated with `Config::async_client(true)` and `Config::async_server(true)`.
pub mod async_idl {
    /// `idl/all.idl`.
    pub mod all_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/async/all.rs"));
    }
    /// `idl/store.idl`.
    pub mod store_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/async/store.rs"));
    }
    /// `/usr/share/idl/omniORB/echo.idl`.
    pub mod echo_idl {
        include!(concat!(env!("OUT_DIR"), "/idl/async/echo.rs"));
    }
    /// `idl/all.idl` and `idl/store.idl`, borrowed (`Config::borrowed(true)`).
    pub mod borrowed {
        /// `idl/all.idl`.
        pub mod all_idl {
            include!(concat!(env!("OUT_DIR"), "/idl/async/borrowed/all.rs"));
        }
        /// `idl/store.idl`.
        pub mod store_idl {
            include!(concat!(env!("OUT_DIR"), "/idl/async/borrowed/store.rs"));
        }
    }
}

/// Generated from the files of Debian's `omniorb-idl` that marshal-build accepts (see
/// `OMNIORB_IDL` in `build.rs`), each in its own module (`CosNaming.idl` in `cos_naming_idl`,
/// where its module `CosNaming` is `cos_naming`): a file that includes another
/// (`CosTime.idl` includes `TimeBase.idl`) holds the included definitions too.
pub mod omniorb {
    include!("../omniorb_idl.rs");

    macro_rules! omniorb {
        ($($name:ident = $file:literal),* $(,)?) => {
            $(
                #[doc = concat!("Generated from `/usr/share/idl/omniORB/", $file, "`.")]
                pub mod $name {
                    include!(concat!(env!("OUT_DIR"), "/idl/omniorb/", $file, ".rs"));
                }
            )*
        };
    }
    omniorb!(
        echo_idl = "echo",
        bootstrap_idl = "bootstrap",
        naming_idl = "Naming",
        cos_naming_idl = "CosNaming",
        time_base_idl = "TimeBase",
        cos_time_idl = "CosTime",
        cos_object_identity_idl = "CosObjectIdentity",
        cos_persistence_pid_idl = "CosPersistencePID",
        cos_persistence_pds_idl = "CosPersistencePDS",
        cos_persistence_pds_da_idl = "CosPersistencePDS_DA",
        cos_persistence_po_idl = "CosPersistencePO",
        cos_persistence_pom_idl = "CosPersistencePOM",
        lname_library_idl = "Lname-library",
        rdi_test_types_idl = "RDITestTypes",
    );
}
