//! rkyv 0.8's mirrors of the KSdata1 records: the same fields (padding words included, so the
//! archived bytes are the same size), serialized with rkyv and accessed in place with its
//! validation (bytecheck), the same-machine zero-copy competitor of NDR.

#![allow(non_snake_case)]
// rkyv's derive emits resolver types without `Debug`.
#![allow(missing_debug_implementations)]

use workloads::ksdata::{KSdata1, Ks100, Ks10k, Ks1k};

macro_rules! mirror {
    ($name:ident from $src:ident { $($f:ident: $t:ty),* $(,)? }) => {
        #[doc = concat!("rkyv's mirror of `", stringify!($src), "`.")]
        #[derive(rkyv::Archive, rkyv::Serialize, Debug)]
        pub struct $name {
            $(pub $f: $t,)*
        }
        impl From<&$src> for $name {
            fn from(s: &$src) -> $name {
                $name { $($f: s.$f,)* }
            }
        }
    };
}

mirror!(RKs100 from Ks100 { Cnstatv: i32, _pad0: u32, Cstatev: [f64; 12] });
mirror!(RKs1k from Ks1k {
    Cnstatv: i32, _pad0: u32, Cstatev: [f64; 12], Cnprops: i32, _pad1: u32, Cprops: [f64; 110],
});
mirror!(RKs10k from Ks10k {
    Cnstatv: i32, _pad0: u32, Cstatev: [f64; 12], Cnprops: i32, _pad1: u32, Cprops: [f64; 110],
    Cndi: [i32; 4], Cnshr: i32, Cnpt: i32, Cdtime: f64, Ctime: [f64; 2], Cntens: i32, _pad2: u32,
    Cdfgrd0: [[f64; 373]; 3],
});
mirror!(RKsdata1 from KSdata1 {
    Cnstatv: i32, _pad0: u32, Cstatev: [f64; 12], Cnprops: i32, _pad1: u32, Cprops: [f64; 110],
    Cndi: [i32; 4], Cnshr: i32, Cnpt: i32, Cdtime: f64, Ctime: [f64; 2], Cntens: i32, _pad2: u32,
    Cdfgrd0: [[f64; 373]; 3], Cdfgrd1: [[f64; 3]; 3], Cstress: [f64; 106],
    Cddsdde: [[f64; 106]; 106],
});
