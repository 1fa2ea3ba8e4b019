//! The `Flick::Bench` interface of `peers/omniorb/idl/flick.idl` in Rust: its IDL types and a
//! servant with the same semantics as omniORB's (`peers/omniorb/src/omni_server.cpp`), so an
//! omniORB client can check a Rust server and the two servers can be benchmarked alike.

use marshal::giop::{Call, Servant};
use marshal::Marshal;

use crate::{DirEntryRef, Rect};

/// `enum Color { red, green, blue };` — values deliberately unlike the ordinals CDR sends.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    Red = 10,
    Green = 20,
    Blue = 30,
}

/// `struct Prims`: every IDL primitive, a string and an enum.
#[derive(Marshal, Debug, Clone, PartialEq)]
pub struct Prims {
    pub o: u8,
    pub b: bool,
    pub c: i8,
    pub s: i16,
    pub us: u16,
    pub l: i32,
    pub ul: u32,
    pub ll: i64,
    pub ull: u64,
    pub f: f32,
    pub d: f64,
    pub str: String,
    pub col: Color,
}

/// `union Shape switch (long) { case 0: long ival; case 1: string sval; default: Rect other; }`
#[derive(Marshal, Debug, Clone, PartialEq)]
pub enum Shape {
    #[marshal(tag = 0)]
    Int(i32),
    #[marshal(tag = 1)]
    Str(String),
    #[marshal(default)]
    Other(i32, Rect),
}

/// `exception Oops { long code; string why; };` (its members, as a reply carries them).
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct Oops {
    pub code: i32,
    pub why: String,
}

/// Sample `Prims` for the interop tests: extremes, zeros, and a negative `char` (which only
/// GIOP 1.0's ISO 8859-1 can carry; with UTF-8 negotiated a `char` must be ASCII).
pub fn sample_prims() -> Vec<Prims> {
    vec![
        Prims {
            o: 0xab,
            b: true,
            c: -5,
            s: -2,
            us: 0xfffe,
            l: i32::MIN,
            ul: u32::MAX,
            ll: i64::MIN + 1,
            ull: u64::MAX - 1,
            f: 1.5,
            d: -0.25,
            str: "padding follows".into(),
            col: Color::Blue,
        },
        Prims {
            o: 0,
            b: false,
            c: 0,
            s: 0,
            us: 0,
            l: 0,
            ul: 0,
            ll: 0,
            ull: 0,
            f: 0.0,
            d: 0.0,
            str: String::new(),
            col: Color::Red,
        },
        Prims {
            o: 1,
            b: true,
            c: 127,
            s: i16::MAX,
            us: 1,
            l: 1,
            ul: 1,
            ll: 1,
            ull: 1,
            f: f32::MAX,
            d: f64::MIN_POSITIVE,
            str: "abc".into(),
            col: Color::Green,
        },
    ]
}

/// The repository id of `Oops`.
pub const OOPS_ID: &str = "IDL:Flick/Oops:1.0";

/// The repository id of `Bench`.
pub const BENCH_ID: &str = "IDL:Flick/Bench:1.0";

/// `interface Bench`, implemented as omniORB's peer implements it.
#[derive(Debug, Clone, Copy, Default)]
pub struct BenchServant;

impl Servant for BenchServant {
    fn invoke(&self, call: &mut Call<'_>) -> Result<(), marshal::Error> {
        // Flick's demultiplexing: one `match` on the operation name's bytes.
        match call.operation() {
            b"echo_ints" => {
                let v: Vec<i32> = call.args()?;
                call.reply(&v)
            }
            b"echo_rects" => {
                let v: Vec<Rect> = call.args()?;
                call.reply(&v)
            }
            b"echo_dirents" => {
                // Names borrow from the request: no allocation per entry.
                let v: Vec<DirEntryRef<'_>> = call.args()?;
                call.reply(&v)
            }
            b"echo_octets" => {
                // Borrowed from the request, sent back with a vectored write when large.
                let v: &[u8] = call.args()?;
                call.reply(&v)
            }
            b"echo_shape" => {
                let s: Shape = call.args()?;
                call.reply(&s)
            }
            b"echo_prims" => {
                let p: Prims = call.args()?;
                call.reply(&p)
            }
            b"sum_ints" => {
                let v: Vec<i32> = call.args()?;
                call.reply(&v.iter().map(|&x| i64::from(x)).sum::<i64>())
            }
            b"fail" => {
                let code: i32 = call.args()?;
                if code == 0 {
                    call.reply(&())
                } else {
                    let why = format!("failed {code}");
                    call.user_exception(OOPS_ID, &Oops { code, why })
                }
            }
            b"mix" => {
                // in long a, out long b, inout string s; returns long.
                let (a, s): (i32, &str) = call.args()?;
                call.reply(&(a.wrapping_add(1), a.wrapping_mul(2), format!("{s}!")))
            }
            _ => call.bad_operation(),
        }
    }
}
