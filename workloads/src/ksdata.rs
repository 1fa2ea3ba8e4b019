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

/// How the bytes of a foreign KSdata body are read: byte order, and where the record starts.
trait Source {
    /// Bytes before the record's first field.
    const BASE: usize;
    fn i32(b: [u8; 4]) -> i32;
    fn u32(b: [u8; 4]) -> u32;
    fn f64(b: [u8; 8]) -> f64;
}

/// A big-endian sender with this machine's layout ([`big_endian_message`]).
struct BigEndian;

impl Source for BigEndian {
    const BASE: usize = 0;
    #[inline(always)]
    fn i32(b: [u8; 4]) -> i32 {
        i32::from_be_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
    #[inline(always)]
    fn f64(b: [u8; 8]) -> f64 {
        f64::from_be_bytes(b)
    }
}

/// A sender with this machine's byte order and one more field first ([`extra_first_message`]).
struct ExtraFirst;

impl Source for ExtraFirst {
    const BASE: usize = 8;
    #[inline(always)]
    fn i32(b: [u8; 4]) -> i32 {
        i32::from_ne_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_ne_bytes(b)
    }
    #[inline(always)]
    fn f64(b: [u8; 8]) -> f64 {
        f64::from_ne_bytes(b)
    }
}

/// A foreign body and its reading rules: each field at its offset (the local one, plus the
/// source's base) read with the source's byte order.
struct Reader<'a, S> {
    src: &'a [u8],
    order: core::marker::PhantomData<S>,
}

impl<'a, S: Source> Reader<'a, S> {
    /// A reader of `src`, which must hold `size` bytes of record after the base.
    fn new(src: &'a [u8], size: usize) -> Self {
        assert!(
            src.len() >= S::BASE + size,
            "a foreign KSdata body of {} bytes, {} needed",
            src.len(),
            S::BASE + size
        );
        Reader {
            src,
            order: core::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn bytes<const N: usize>(&self, at: usize) -> [u8; N] {
        let mut b = [0u8; N];
        b.copy_from_slice(&self.src[S::BASE + at..S::BASE + at + N]);
        b
    }

    #[inline(always)]
    fn i32(&self, at: usize) -> i32 {
        S::i32(self.bytes(at))
    }

    #[inline(always)]
    fn u32(&self, at: usize) -> u32 {
        S::u32(self.bytes(at))
    }

    #[inline(always)]
    fn f64(&self, at: usize) -> f64 {
        S::f64(self.bytes(at))
    }

    /// `out.len()` integers from `at`.
    #[inline(always)]
    fn i32s(&self, at: usize, out: &mut [i32]) {
        let src = &self.src[S::BASE + at..S::BASE + at + 4 * out.len()];
        for (o, c) in out.iter_mut().zip(src.chunks_exact(4)) {
            *o = S::i32(c.try_into().expect("4 bytes"));
        }
    }

    /// `out.len()` doubles from `at`.
    #[inline(always)]
    fn f64s(&self, at: usize, out: &mut [f64]) {
        let src = &self.src[S::BASE + at..S::BASE + at + 8 * out.len()];
        for (o, c) in out.iter_mut().zip(src.chunks_exact(8)) {
            *o = S::f64(c.try_into().expect("8 bytes"));
        }
    }
}

/// The hand-written conversions a programmer would write for the two foreign senders of the
/// benchmarks, field by field at constant offsets: scalars with `from_be_bytes` (or
/// `from_ne_bytes`), arrays with a loop over `chunks_exact`.
pub trait HandConvert {
    /// Converts the body of [`big_endian_message`] (this layout, big-endian) into `out`.
    ///
    /// # Panics
    /// If `src` is shorter than the record.
    fn hand_convert_be(src: &[u8], out: &mut Self);

    /// Converts the body of [`extra_first_message`] (this machine's byte order, every field 8
    /// bytes later) into `out`: plain copies from each field's offset + 8.
    ///
    /// # Panics
    /// If `src` is shorter than the record and the extra field.
    fn hand_convert_extra_first(src: &[u8], out: &mut Self);
}

/// [`HandConvert::hand_convert_be`] as a function.
pub fn hand_convert_be<T: HandConvert>(src: &[u8], out: &mut T) {
    T::hand_convert_be(src, out)
}

/// [`HandConvert::hand_convert_extra_first`] as a function.
pub fn hand_convert_extra_first<T: HandConvert>(src: &[u8], out: &mut T) {
    T::hand_convert_extra_first(src, out)
}

fn ks100<S: Source>(src: &[u8], out: &mut Ks100) {
    use core::mem::{offset_of, size_of};
    let r = Reader::<S>::new(src, size_of::<Ks100>());
    out.Cnstatv = r.i32(offset_of!(Ks100, Cnstatv));
    out._pad0 = r.u32(offset_of!(Ks100, _pad0));
    r.f64s(offset_of!(Ks100, Cstatev), &mut out.Cstatev);
}

fn ks1k<S: Source>(src: &[u8], out: &mut Ks1k) {
    use core::mem::{offset_of, size_of};
    let r = Reader::<S>::new(src, size_of::<Ks1k>());
    out.Cnstatv = r.i32(offset_of!(Ks1k, Cnstatv));
    out._pad0 = r.u32(offset_of!(Ks1k, _pad0));
    r.f64s(offset_of!(Ks1k, Cstatev), &mut out.Cstatev);
    out.Cnprops = r.i32(offset_of!(Ks1k, Cnprops));
    out._pad1 = r.u32(offset_of!(Ks1k, _pad1));
    r.f64s(offset_of!(Ks1k, Cprops), &mut out.Cprops);
}

fn ks10k<S: Source>(src: &[u8], out: &mut Ks10k) {
    use core::mem::{offset_of, size_of};
    let r = Reader::<S>::new(src, size_of::<Ks10k>());
    out.Cnstatv = r.i32(offset_of!(Ks10k, Cnstatv));
    out._pad0 = r.u32(offset_of!(Ks10k, _pad0));
    r.f64s(offset_of!(Ks10k, Cstatev), &mut out.Cstatev);
    out.Cnprops = r.i32(offset_of!(Ks10k, Cnprops));
    out._pad1 = r.u32(offset_of!(Ks10k, _pad1));
    r.f64s(offset_of!(Ks10k, Cprops), &mut out.Cprops);
    r.i32s(offset_of!(Ks10k, Cndi), &mut out.Cndi);
    out.Cnshr = r.i32(offset_of!(Ks10k, Cnshr));
    out.Cnpt = r.i32(offset_of!(Ks10k, Cnpt));
    out.Cdtime = r.f64(offset_of!(Ks10k, Cdtime));
    r.f64s(offset_of!(Ks10k, Ctime), &mut out.Ctime);
    out.Cntens = r.i32(offset_of!(Ks10k, Cntens));
    out._pad2 = r.u32(offset_of!(Ks10k, _pad2));
    r.f64s(offset_of!(Ks10k, Cdfgrd0), out.Cdfgrd0.as_flattened_mut());
}

fn ksdata1<S: Source>(src: &[u8], out: &mut KSdata1) {
    use core::mem::{offset_of, size_of};
    let r = Reader::<S>::new(src, size_of::<KSdata1>());
    out.Cnstatv = r.i32(offset_of!(KSdata1, Cnstatv));
    out._pad0 = r.u32(offset_of!(KSdata1, _pad0));
    r.f64s(offset_of!(KSdata1, Cstatev), &mut out.Cstatev);
    out.Cnprops = r.i32(offset_of!(KSdata1, Cnprops));
    out._pad1 = r.u32(offset_of!(KSdata1, _pad1));
    r.f64s(offset_of!(KSdata1, Cprops), &mut out.Cprops);
    r.i32s(offset_of!(KSdata1, Cndi), &mut out.Cndi);
    out.Cnshr = r.i32(offset_of!(KSdata1, Cnshr));
    out.Cnpt = r.i32(offset_of!(KSdata1, Cnpt));
    out.Cdtime = r.f64(offset_of!(KSdata1, Cdtime));
    r.f64s(offset_of!(KSdata1, Ctime), &mut out.Ctime);
    out.Cntens = r.i32(offset_of!(KSdata1, Cntens));
    out._pad2 = r.u32(offset_of!(KSdata1, _pad2));
    r.f64s(offset_of!(KSdata1, Cdfgrd0), out.Cdfgrd0.as_flattened_mut());
    r.f64s(offset_of!(KSdata1, Cdfgrd1), out.Cdfgrd1.as_flattened_mut());
    r.f64s(offset_of!(KSdata1, Cstress), &mut out.Cstress);
    r.f64s(offset_of!(KSdata1, Cddsdde), out.Cddsdde.as_flattened_mut());
}

macro_rules! hand_convert {
    ($($t:ty => $f:ident),*) => {$(
        impl HandConvert for $t {
            fn hand_convert_be(src: &[u8], out: &mut Self) {
                $f::<BigEndian>(src, out)
            }
            fn hand_convert_extra_first(src: &[u8], out: &mut Self) {
                $f::<ExtraFirst>(src, out)
            }
        }
    )*};
}

hand_convert!(Ks100 => ks100, Ks1k => ks1k, Ks10k => ks10k, KSdata1 => ksdata1);

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

    fn hand_conversions_of<T>(v: &T, blank: impl Fn() -> Box<T>)
    where
        T: HandConvert + marshal::ndr::Record + PartialEq + core::fmt::Debug,
    {
        use marshal::ndr::HEADER_LEN;
        let f = Format::of::<T>();
        let body = to_body(v).unwrap();
        let (_, msg) = big_endian_message(&f, &body);
        let mut out = blank();
        assert_ne!(&*out, v);
        hand_convert_be(&msg[HEADER_LEN..], &mut *out);
        assert_eq!(&*out, v);
        let (_, msg) = extra_first_message(&f, &body);
        let mut out = blank();
        hand_convert_extra_first(&msg[HEADER_LEN..], &mut *out);
        assert_eq!(&*out, v);
    }

    #[test]
    fn hand_conversions_give_the_sample_back() {
        hand_conversions_of(&*Ks100::sample(3), || Ks100::sample(0));
        hand_conversions_of(&*Ks1k::sample(3), || Ks1k::sample(0));
        hand_conversions_of(&*Ks10k::sample(3), || Ks10k::sample(0));
        hand_conversions_of(&*KSdata1::sample(3), || KSdata1::sample(0));
    }
}
