//! PBIO's benchmark record, `KSdata1` (a finite-element solver's state, 100 808 bytes as a C
//! compiler lays it out on x86-64), and its prefixes of about 100 B, 1 KB and 10 KB.
//!
//! ```c
//! struct KSdata1 { int Cnstatv; double Cstatev[12]; int Cnprops; double Cprops[110];
//!     int Cndi[4]; int Cnshr; int Cnpt; double Cdtime; double Ctime[2]; int Cntens;
//!     double Cdfgrd0[3][373]; double Cdfgrd1[3][3]; double Cstress[106];
//!     double Cddsdde[106][106]; };
//! ```
//!
//! The Rust structs are `#[repr(C)]` with the C compiler's padding written out as `_pad`
//! fields, so they have the C layout, no implicit padding, and go out with no copy
//! ([`Format::is_zero_copy`](marshal::ndr::Format::is_zero_copy)). Field names are the C
//! names, so a C sender's records match by name.

#![allow(non_snake_case)]

use marshal::ndr::{message_from_body, ByteOrder, Format, IOField, Kind};
use marshal::Marshal;

/// The first ~100 bytes: `Cnstatv`, `Cstatev[12]` (104 bytes).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Ks100 {
    pub Cnstatv: i32,
    pub _pad0: u32,
    pub Cstatev: [f64; 12],
}

/// Through `Cprops[110]` (992 bytes).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Ks1k {
    pub Cnstatv: i32,
    pub _pad0: u32,
    pub Cstatev: [f64; 12],
    pub Cnprops: i32,
    pub _pad1: u32,
    pub Cprops: [f64; 110],
}

/// Through `Cdfgrd0[3][373]` (10 000 bytes).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Ks10k {
    pub Cnstatv: i32,
    pub _pad0: u32,
    pub Cstatev: [f64; 12],
    pub Cnprops: i32,
    pub _pad1: u32,
    pub Cprops: [f64; 110],
    pub Cndi: [i32; 4],
    pub Cnshr: i32,
    pub Cnpt: i32,
    pub Cdtime: f64,
    pub Ctime: [f64; 2],
    pub Cntens: i32,
    pub _pad2: u32,
    pub Cdfgrd0: [[f64; 373]; 3],
}

/// The whole record (100 808 bytes).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct KSdata1 {
    pub Cnstatv: i32,
    pub _pad0: u32,
    pub Cstatev: [f64; 12],
    pub Cnprops: i32,
    pub _pad1: u32,
    pub Cprops: [f64; 110],
    pub Cndi: [i32; 4],
    pub Cnshr: i32,
    pub Cnpt: i32,
    pub Cdtime: f64,
    pub Ctime: [f64; 2],
    pub Cntens: i32,
    pub _pad2: u32,
    pub Cdfgrd0: [[f64; 373]; 3],
    pub Cdfgrd1: [[f64; 3]; 3],
    pub Cstress: [f64; 106],
    pub Cddsdde: [[f64; 106]; 106],
}

fn doubles<const N: usize>(seed: f64) -> [f64; N] {
    core::array::from_fn(|i| seed + i as f64 * 0.125)
}

fn matrix<const N: usize, const M: usize>(seed: f64) -> [[f64; M]; N] {
    core::array::from_fn(|i| doubles(seed + i as f64 * 1000.0))
}

impl Ks100 {
    /// A record with distinct, exactly representable values.
    pub fn sample(seed: i32) -> Box<Ks100> {
        Box::new(Ks100 {
            Cnstatv: seed,
            _pad0: 0,
            Cstatev: doubles(f64::from(seed)),
        })
    }
}

impl Ks1k {
    /// A record with distinct, exactly representable values.
    pub fn sample(seed: i32) -> Box<Ks1k> {
        let s = f64::from(seed);
        Box::new(Ks1k {
            Cnstatv: seed,
            _pad0: 0,
            Cstatev: doubles(s),
            Cnprops: seed + 1,
            _pad1: 0,
            Cprops: doubles(s + 0.5),
        })
    }
}

impl Ks10k {
    /// A record with distinct, exactly representable values.
    pub fn sample(seed: i32) -> Box<Ks10k> {
        let s = f64::from(seed);
        Box::new(Ks10k {
            Cnstatv: seed,
            _pad0: 0,
            Cstatev: doubles(s),
            Cnprops: seed + 1,
            _pad1: 0,
            Cprops: doubles(s + 0.5),
            Cndi: [seed, seed + 1, seed + 2, seed + 3],
            Cnshr: -seed,
            Cnpt: seed * 2,
            Cdtime: s * 0.25,
            Ctime: [s, s + 1.0],
            Cntens: 6,
            _pad2: 0,
            Cdfgrd0: matrix(s),
        })
    }
}

impl KSdata1 {
    /// A record with distinct, exactly representable values (built in place on the heap).
    pub fn sample(seed: i32) -> Box<KSdata1> {
        let k = Ks10k::sample(seed);
        let s = f64::from(seed);
        Box::new(KSdata1 {
            Cnstatv: k.Cnstatv,
            _pad0: 0,
            Cstatev: k.Cstatev,
            Cnprops: k.Cnprops,
            _pad1: 0,
            Cprops: k.Cprops,
            Cndi: k.Cndi,
            Cnshr: k.Cnshr,
            Cnpt: k.Cnpt,
            Cdtime: k.Cdtime,
            Ctime: k.Ctime,
            Cntens: k.Cntens,
            _pad2: 0,
            Cdfgrd0: k.Cdfgrd0,
            Cdfgrd1: matrix(s - 7.0),
            Cstress: doubles(s * 3.0),
            Cddsdde: matrix(s + 0.75),
        })
    }
}

/// `format` as a big-endian machine with the same layout would describe it.
pub fn big_endian(format: &Format) -> Format {
    Format::from_fields(
        format.name(),
        ByteOrder::Big,
        format.size(),
        &format.io_fields(),
        &[],
    )
    .expect("a flat native format is valid in either byte order")
}

/// The message a big-endian sender of `format`'s layout sends for `body` (a native body of a
/// flat record: integers and floats only): every field's elements byte-swapped.
pub fn big_endian_message(format: &Format, body: &[u8]) -> (Format, Vec<u8>) {
    let be = big_endian(format);
    let mut swapped = body.to_vec();
    if ByteOrder::native() != ByteOrder::Big {
        for f in format.fields() {
            assert!(
                matches!(f.kind(), Kind::Int | Kind::UInt | Kind::Float) && !f.is_variable(),
                "flat records only"
            );
            for e in swapped[f.offset()..f.offset() + f.extent()].chunks_exact_mut(f.size()) {
                e.reverse();
            }
        }
    }
    let msg = message_from_body(be.id(), &swapped).expect("a small message");
    (be, msg)
}

/// The message of a sender whose record has one more field first (`int Cextra`, then 4 bytes
/// of padding), every other field 8 bytes later: the receiver ignores the extra field and
/// finds the others at their new offsets.
pub fn extra_first_message(format: &Format, body: &[u8]) -> (Format, Vec<u8>) {
    let mut fields = vec![IOField::new("Cextra", "integer", 4, 0)];
    fields.extend(format.io_fields().into_iter().map(|mut f| {
        f.offset += 8;
        f
    }));
    let theirs = Format::from_fields(
        format.name(),
        format.byte_order(),
        format.size() + 8,
        &fields,
        &[],
    )
    .expect("shifted fields stay valid");
    let mut shifted = vec![0u8; 8];
    shifted[..4].copy_from_slice(&0x5eed_i32.to_ne_bytes());
    shifted.extend_from_slice(body);
    let msg = message_from_body(theirs.id(), &shifted).expect("a small message");
    (theirs, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use marshal::ndr::{to_body, Receiver};

    #[test]
    fn layouts_are_pbios() {
        assert_eq!(core::mem::size_of::<Ks100>(), 104);
        assert_eq!(core::mem::size_of::<Ks1k>(), 992);
        assert_eq!(core::mem::size_of::<Ks10k>(), 10_000);
        assert_eq!(core::mem::size_of::<KSdata1>(), 100_808);
        assert_eq!(core::mem::offset_of!(KSdata1, Cddsdde), 10_920);
        assert!(Format::of::<KSdata1>().is_zero_copy());
    }

    #[test]
    fn big_endian_and_shifted_senders_convert_back() {
        let v = KSdata1::sample(3);
        let f = Format::of::<KSdata1>();
        let body = to_body(&*v).unwrap();
        let mut rx = Receiver::new();
        let (be, msg) = big_endian_message(&f, &body);
        rx.register(be);
        let mut out = KSdata1::sample(0);
        rx.decode_into(&msg, &mut *out).unwrap();
        assert_eq!(out, v);
        let (x, msg) = extra_first_message(&f, &body);
        rx.register(x);
        let mut out = KSdata1::sample(0);
        rx.decode_into(&msg, &mut *out).unwrap();
        assert_eq!(out, v);
    }
}
