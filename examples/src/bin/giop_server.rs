//! A CORBA server over GIOP/IIOP: the `Flick::Bench` interface of
//! `peers/omniorb/idl/flick.idl`, which omniORB's C++ client calls. IDL types are derived
//! Rust types; a servant matches on the operation name, decodes the `in`/`inout` arguments
//! with `call.args()` and replies with the result then the `inout`/`out` values.
//!
//! ```sh
//! cargo run -p marshal-examples --bin giop_server          # an ephemeral port
//! cargo run -p marshal-examples --bin giop_server -- 2809  # port 2809
//! ```
//!
//! It prints the object's IOR, then its `corbaloc:` URL; give either to a CORBA client, e.g.
//! omniORB's (`omni-client <IOR>`, built by the `omniorb-peer` crate). Stop it with Ctrl-C.

use marshal::giop::{Call, Server};
use marshal::Marshal;

/// `struct Point { long x; long y; };`
#[derive(Marshal, Debug, Clone, Copy)]
struct Point {
    x: i32,
    y: i32,
}

/// `struct Rect { Point a; Point b; };`
#[derive(Marshal, Debug, Clone, Copy)]
struct Rect {
    a: Point,
    b: Point,
}

/// `struct Stat { long ints[30]; octet chars[16]; };`
#[derive(Marshal, Debug, Clone)]
struct Stat {
    ints: [i32; 30],
    chars: [u8; 16],
}

/// `struct DirEntry { string<255> name; Stat st; };` The name borrows from the request.
#[derive(Marshal, Debug, Clone)]
struct DirEntry<'a> {
    #[marshal(max_len = 255)]
    name: &'a str,
    st: Stat,
}

/// `union Shape switch (long) { case 0: long ival; case 1: string sval; default: Rect other; };`
#[derive(Marshal, Debug, Clone)]
enum Shape {
    #[marshal(tag = 0)]
    Int(i32),
    #[marshal(tag = 1)]
    Str(String),
    /// Keeps the discriminant it came with, so it is echoed unchanged.
    #[marshal(default)]
    Other(i32, Rect),
}

/// `enum Color { red, green, blue };` (CDR sends the ordinal).
#[derive(Marshal, Debug, Clone, Copy)]
enum Color {
    Red,
    Green,
    Blue,
}

/// `struct Prims`: one of each IDL primitive (`char` is `i8`), a string and an enum.
#[derive(Marshal, Debug, Clone)]
struct Prims {
    o: u8,
    b: bool,
    c: i8,
    s: i16,
    us: u16,
    l: i32,
    ul: u32,
    ll: i64,
    ull: u64,
    f: f32,
    d: f64,
    str: String,
    col: Color,
}

/// `exception Oops { long code; string why; };` (its members, as a reply carries them).
#[derive(Marshal, Debug)]
struct Oops {
    code: i32,
    why: String,
}

/// `interface Bench`: one arm per operation.
fn bench(call: &mut Call<'_>) -> Result<(), marshal::Error> {
    match call.operation() {
        b"echo_ints" => call.reply(&call.args::<Vec<i32>>()?),
        b"echo_rects" => call.reply(&call.args::<Vec<Rect>>()?),
        b"echo_dirents" => call.reply(&call.args::<Vec<DirEntry<'_>>>()?),
        // A borrowed octet sequence: no copy on the way in.
        b"echo_octets" => call.reply(&call.args::<&[u8]>()?),
        b"echo_shape" => call.reply(&call.args::<Shape>()?),
        b"echo_prims" => call.reply(&call.args::<Prims>()?),
        // long long sum_ints(in IntSeq v);
        b"sum_ints" => {
            let v: Vec<i32> = call.args()?;
            call.reply(&v.iter().map(|&x| i64::from(x)).sum::<i64>())
        }
        // void fail(in long code) raises (Oops);
        b"fail" => match call.args::<i32>()? {
            0 => call.reply(&()),
            code => {
                let why = format!("failed {code}");
                call.user_exception("IDL:Flick/Oops:1.0", &Oops { code, why })
            }
        },
        // long mix(in long a, out long b, inout string s): the arguments are `a` and `s`; the
        // reply is the result, then `b` and `s`.
        b"mix" => {
            let (a, s): (i32, &str) = call.args()?;
            call.reply(&(a.wrapping_add(1), a.wrapping_mul(2), format!("{s}!")))
        }
        // Anything else: CORBA::BAD_OPERATION.
        _ => call.bad_operation(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::args().nth(1) {
        Some(p) => p.parse()?,
        None => 0,
    };
    let mut server = Server::bind(("127.0.0.1", port))?;
    // Requests for object key "Bench" go to `bench`.
    server.add("Bench", bench);
    let server = server.spawn()?;

    // The object reference: the interface's repository id, the address and the object key.
    let ior = server.ior("IDL:Flick/Bench:1.0", b"Bench");
    println!("{ior}");
    println!("{}", ior.to_corbaloc().expect("one IIOP address"));

    loop {
        std::thread::park();
    }
}
