//! A reference CORBA peer: the C++ stubs that omniORB 4.2's `omniidl -bcxx`
//! generates from `idl/flick.idl`, behind a safe Rust API made only of plain
//! Rust data, plus two standalone omniORB programs.
//!
//! It serves three purposes:
//!
//! * **CDR captures.** `encode_*` hands Rust values to the generated
//!   marshaling code (`operator>>=` into a `cdrMemoryStream`) and returns the
//!   exact bytes omniORB produces; `decode_*` runs the generated unmarshaling
//!   code (`operator<<=`) over bytes and converts the result back.
//! * **Benchmarks.** [`OmniInts`], [`OmniRects`] and [`OmniDirents`] hold
//!   C++-side copies of a workload built once, so that a timed `encode` is the
//!   generated marshaling code over a reused stream and nothing else;
//!   `bench_decode_*` time one generated unmarshal into a fresh sequence plus
//!   its destruction; [`OmniClient`] times omniORB-to-omniORB round trips.
//! * **Interop.** [`server_path`] and [`client_path`] locate `omni-server` and
//!   `omni-client`, an omniORB implementation and a checking client of
//!   `Flick::Bench` (see their source files for the command lines).
//!
//! # Byte order and alignment
//!
//! omniORB's `cdrMemoryStream` starts in the host's byte order;
//! `cdrMemoryStream::setByteSwapFlag(little_endian)` selects the order of the
//! data in the buffer (for both marshaling and unmarshaling), which is how
//! [`Order`] is applied. omniORB aligns by the absolute address of the
//! stream position, and a memory stream's data start 8-aligned, so offset 0
//! of every returned buffer is the CDR origin. Alignment padding is zero in
//! the captures here (the streams are created with `clearMemory`); note that
//! omniORB does *not* clear padding in GIOP messages.
//!
//! # Strings
//!
//! IDL strings are NUL-terminated in C++, so strings handed to omniORB must
//! not contain NUL (the encoders panic if they do). omniORB's native code set
//! for `char`/`string` is ISO-8859-1, and its memory streams do no code set
//! conversion on top, so string bytes (UTF-8 included) pass through
//! unchanged in both directions (the tests check non-ASCII bytes); decoded
//! strings that are not UTF-8 make the decoder return `None`.
//!
//! # The ORB
//!
//! omniORB's streams take their code set converters from parameters that
//! `CORBA::ORB_init` sets up, so the first call into this crate initialises
//! one process-wide ORB (with `-ORBgiopMaxMsgSize 268435456`); it is never
//! destroyed.

use std::ffi::{c_int, c_void, CStr, CString};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::ptr::{self, NonNull};
use std::slice;
use std::time::{Duration, Instant};

/// `#[repr(C)]` mirrors of the plain-data structs of `src/glue.cpp`, and its
/// entry points. The mirrors are checked against the C++ compiler's layout by
/// the `layout_matches_cpp` test.
mod ffi {
    use std::ffi::{c_char, c_int, c_void};

    /// Bytes allocated by the glue with `new[]`; released with
    /// `omni_bytes_free`.
    #[repr(C)]
    pub(crate) struct Bytes {
        pub(crate) ptr: *mut u8,
        pub(crate) len: usize,
    }

    /// A string: input strings need no NUL terminator (the glue copies
    /// `len` bytes); output strings borrow a NUL-terminated C++ string.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(crate) struct Str {
        pub(crate) ptr: *const c_char,
        pub(crate) len: usize,
    }

    #[repr(C)]
    pub(crate) struct DirEntry {
        pub(crate) name: Str,
        pub(crate) ints: [i32; 30],
        pub(crate) chars: [u8; 16],
    }

    /// `d` 0: `ival`; 1: `sval`; anything else: the default arm `other`.
    #[repr(C)]
    pub(crate) struct Shape {
        pub(crate) d: i32,
        pub(crate) ival: i32,
        pub(crate) sval: Str,
        pub(crate) other: [i32; 4],
    }

    #[repr(C)]
    pub(crate) struct Prims {
        pub(crate) o: u8,
        pub(crate) b: u8,
        pub(crate) c: i8,
        pub(crate) s: i16,
        pub(crate) us: u16,
        pub(crate) l: i32,
        pub(crate) ul: u32,
        pub(crate) ll: i64,
        pub(crate) ull: u64,
        pub(crate) f: f32,
        pub(crate) d: f64,
        pub(crate) str: Str,
        pub(crate) color: u32,
    }

    extern "C" {
        pub(crate) fn omni_last_error() -> *const c_char;
        pub(crate) fn omni_bytes_free(ptr: *mut u8);

        pub(crate) fn omni_encode_ints(
            little: c_int,
            v: *const i32,
            n: usize,
            out: *mut Bytes,
        ) -> c_int;
        pub(crate) fn omni_encode_rects(
            little: c_int,
            v: *const i32,
            n: usize,
            out: *mut Bytes,
        ) -> c_int;
        pub(crate) fn omni_encode_dirents(
            little: c_int,
            v: *const DirEntry,
            n: usize,
            out: *mut Bytes,
        ) -> c_int;
        pub(crate) fn omni_encode_shape(little: c_int, v: *const Shape, out: *mut Bytes) -> c_int;
        pub(crate) fn omni_encode_prims(little: c_int, v: *const Prims, out: *mut Bytes) -> c_int;
        pub(crate) fn omni_encode_oops(
            little: c_int,
            code: i32,
            why: Str,
            out: *mut Bytes,
        ) -> c_int;
        pub(crate) fn omni_encode_encapsulated_prims(
            little: c_int,
            v: *const Prims,
            out: *mut Bytes,
        ) -> c_int;

        pub(crate) fn omni_decode_ints(
            little: c_int,
            buf: *const u8,
            len: usize,
            data: *mut *const i32,
            n: *mut usize,
        ) -> *mut c_void;
        pub(crate) fn omni_free_ints(h: *mut c_void);
        pub(crate) fn omni_decode_rects(
            little: c_int,
            buf: *const u8,
            len: usize,
            data: *mut *const i32,
            n: *mut usize,
        ) -> *mut c_void;
        pub(crate) fn omni_free_rects(h: *mut c_void);
        pub(crate) fn omni_decode_dirents(
            little: c_int,
            buf: *const u8,
            len: usize,
            n: *mut usize,
        ) -> *mut c_void;
        pub(crate) fn omni_dirents_get(h: *const c_void, i: usize, out: *mut DirEntry);
        pub(crate) fn omni_free_dirents(h: *mut c_void);
        pub(crate) fn omni_decode_shape(
            little: c_int,
            buf: *const u8,
            len: usize,
            out: *mut Shape,
        ) -> *mut c_void;
        pub(crate) fn omni_free_shape(h: *mut c_void);
        pub(crate) fn omni_decode_prims(
            little: c_int,
            buf: *const u8,
            len: usize,
            out: *mut Prims,
        ) -> *mut c_void;
        pub(crate) fn omni_decode_encapsulated_prims(
            buf: *const u8,
            len: usize,
            out: *mut Prims,
        ) -> *mut c_void;
        pub(crate) fn omni_free_prims(h: *mut c_void);

        pub(crate) fn omni_enc_new_ints(v: *const i32, n: usize) -> *mut c_void;
        pub(crate) fn omni_enc_new_rects(v: *const i32, n: usize) -> *mut c_void;
        pub(crate) fn omni_enc_new_dirents(v: *const DirEntry, n: usize) -> *mut c_void;
        pub(crate) fn omni_enc_encode(h: *mut c_void, little: c_int) -> usize;
        pub(crate) fn omni_enc_bytes(h: *const c_void, p: *mut *const u8, n: *mut usize);
        pub(crate) fn omni_enc_free(h: *mut c_void);

        pub(crate) fn omni_bench_decode_ints(little: c_int, buf: *const u8, len: usize) -> usize;
        pub(crate) fn omni_bench_decode_rects(little: c_int, buf: *const u8, len: usize) -> usize;
        pub(crate) fn omni_bench_decode_dirents(little: c_int, buf: *const u8, len: usize)
            -> usize;

        pub(crate) fn omni_client_connect(ior: *const c_char) -> *mut c_void;
        pub(crate) fn omni_client_free(h: *mut c_void);
        pub(crate) fn omni_client_echo_ints(
            h: *mut c_void,
            n: usize,
            iters: u64,
            nanos: *mut u64,
        ) -> c_int;
        pub(crate) fn omni_client_echo_octets(
            h: *mut c_void,
            n: usize,
            iters: u64,
            nanos: *mut u64,
        ) -> c_int;

        #[cfg(test)]
        pub(crate) fn omni_layout(out: *mut usize, cap: usize) -> usize;
    }
}

// ---------------------------------------------------------------------------
// Executables
// ---------------------------------------------------------------------------

/// Path of `omni-server`, built by build.rs from `src/omni_server.cpp`.
///
/// `omni-server [--giop 1.0|1.1|1.2] [-ORB<option> <value>]...` listens on
/// 127.0.0.1 (ephemeral port unless `-ORBendPoint` is given), prints the
/// object's stringified IOR on the first line of stdout and
/// `corbaloc::127.0.0.1:<port>/Bench` on the second, then serves until its
/// stdin reaches EOF and exits 0.
pub fn server_path() -> &'static Path {
    Path::new(env!("OMNI_SERVER"))
}

/// Path of `omni-client`, built by build.rs from `src/omni_client.cpp`.
///
/// `omni-client <IOR-or-corbaloc> [--giop 1.0|1.1|1.2] [-ORB<option> <value>]...`
/// calls every `Flick::Bench` operation, prints `ok <op> <case>` or
/// `FAIL <op> <case>: <detail>` per check and exits 0 only if all passed.
pub fn client_path() -> &'static Path {
    Path::new(env!("OMNI_CLIENT"))
}

/// A running `omni-server` process; dropping it closes its stdin, which stops it (and kills
/// it if [`stop`](OmniServer::stop) was not called, as after a failed test).
#[derive(Debug)]
pub struct OmniServer {
    child: Child,
    stdin: Option<ChildStdin>,
    ior: String,
    corbaloc: String,
}

impl OmniServer {
    /// Starts `omni-server` with `args` (such as `["--giop", "1.1"]`) and reads the two
    /// lines it prints. Panics if it cannot be started: a missing peer fails the test.
    pub fn start(args: &[&str]) -> OmniServer {
        let mut child = Command::new(server_path())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", server_path().display()));
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = || {
            let mut s = String::new();
            out.read_line(&mut s).expect("reading omni-server's stdout");
            s.trim_end().to_owned()
        };
        let ior = line();
        let corbaloc = line();
        assert!(ior.starts_with("IOR:"), "first line {ior:?}");
        assert!(
            corbaloc.starts_with("corbaloc::127.0.0.1:") && corbaloc.ends_with("/Bench"),
            "second line {corbaloc:?}"
        );
        OmniServer {
            child,
            stdin,
            ior,
            corbaloc,
        }
    }

    /// The stringified IOR (`IOR:...`).
    pub fn ior(&self) -> &str {
        &self.ior
    }

    /// `corbaloc::127.0.0.1:<port>/Bench`.
    pub fn corbaloc(&self) -> &str {
        &self.corbaloc
    }

    /// Closes stdin and checks that the server exits 0 promptly.
    pub fn stop(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for omni-server") {
                assert!(status.success(), "omni-server exited with {status}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "omni-server did not exit after stdin EOF"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for OmniServer {
    fn drop(&mut self) {
        if self.stdin.take().is_some() {
            // Not stopped cleanly (a test failed): do not leave it behind.
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Runs `omni-client` against `target` (an IOR or corbaloc URL) with `args`, and panics
/// unless it exited 0 having printed only `ok` lines, more than 40 of them, covering every
/// operation of `Flick::Bench`. `what` names the case in the panic message.
pub fn assert_omni_client_passes(target: &str, args: &[&str], what: &str) {
    let out = Command::new(client_path())
        .arg(target)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", client_path().display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what}: omni-client exited with {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() > 40, "{what}: only {} lines", lines.len());
    for line in &lines {
        assert!(line.starts_with("ok "), "{what}: {line}");
    }
    for op in [
        "echo_ints",
        "echo_rects",
        "echo_dirents",
        "echo_octets",
        "echo_shape",
        "echo_prims",
        "sum_ints",
        "fail",
        "mix",
    ] {
        let prefix = format!("ok {op} ");
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "{what}: no check of {op}"
        );
    }
}

// ---------------------------------------------------------------------------
// Plain Rust mirrors of the IDL types
// ---------------------------------------------------------------------------

/// CDR byte order of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Big-endian (byte-order flag 0).
    Big,
    /// Little-endian (byte-order flag 1).
    Little,
}

impl Order {
    fn little(self) -> c_int {
        match self {
            Order::Big => 0,
            Order::Little => 1,
        }
    }
}

/// `struct Prims` of flick.idl.
#[derive(Debug, Clone, PartialEq)]
pub struct Prims {
    /// `octet`.
    pub o: u8,
    /// `boolean`. omniORB decodes any non-zero octet as TRUE.
    pub b: bool,
    /// `char` (one ISO-8859-1 byte).
    pub c: i8,
    /// `short`.
    pub s: i16,
    /// `unsigned short`.
    pub us: u16,
    /// `long`.
    pub l: i32,
    /// `unsigned long`.
    pub ul: u32,
    /// `long long`.
    pub ll: i64,
    /// `unsigned long long`.
    pub ull: u64,
    /// `float`.
    pub f: f32,
    /// `double`.
    pub d: f64,
    /// `string` (no NUL).
    pub str: String,
    /// `Color` as its ordinal: 0 red, 1 green, 2 blue.
    pub color: u32,
}

/// `union Shape switch (long)` of flick.idl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `case 0: long ival;`
    Int(i32),
    /// `case 1: string sval;` (no NUL).
    Str(String),
    /// `default: Rect other;` with the discriminant on the wire (neither 0
    /// nor 1) and the rect as `[a.x, a.y, b.x, b.y]`.
    Other(i32, [i32; 4]),
}

/// `struct DirEntry { string<255> name; Stat st; }` of flick.idl, with
/// `Stat { long ints[30]; octet chars[16]; }` flattened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// `string<255> name`: no NUL; omniORB refuses names over 255 bytes.
    pub name: String,
    /// `st.ints`.
    pub ints: [i32; 30],
    /// `st.chars`.
    pub chars: [u8; 16],
}

// ---------------------------------------------------------------------------
// Conversions to the FFI mirrors
// ---------------------------------------------------------------------------

/// The glue's message for the last failure on this thread.
fn last_error() -> String {
    // SAFETY: omni_last_error has no preconditions and returns a pointer to a
    // NUL-terminated thread-local std::string buffer, valid until the next
    // glue call on this thread; it is copied before any such call.
    let p = unsafe { ffi::omni_last_error() };
    // SAFETY: see above: `p` is non-NULL, NUL-terminated and valid here.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A borrowed input string for the glue; panics on NUL.
fn in_str(s: &str) -> ffi::Str {
    assert!(
        !s.as_bytes().contains(&0),
        "omniorb-peer: IDL strings cannot contain NUL: {s:?}"
    );
    ffi::Str {
        ptr: s.as_ptr().cast(),
        len: s.len(),
    }
}

/// Copies an output string of the glue; `None` if it is not UTF-8.
///
/// # Safety
///
/// `s.ptr` must be valid for reads of `s.len` bytes for the call.
unsafe fn out_str(s: ffi::Str) -> Option<String> {
    if s.len == 0 {
        return Some(String::new());
    }
    // SAFETY: forwarded precondition; `s.len > 0` so `s.ptr` is non-NULL.
    let bytes = unsafe { slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) };
    String::from_utf8(bytes.to_vec()).ok()
}

fn in_dirent(d: &DirEntry) -> ffi::DirEntry {
    ffi::DirEntry {
        name: in_str(&d.name),
        ints: d.ints,
        chars: d.chars,
    }
}

/// The FFI view of `p`, borrowing `p.str`; panics on a NUL in `str` or a
/// color ordinal above 2 (not a valid C++ `Flick::Color`).
fn in_prims(p: &Prims) -> ffi::Prims {
    assert!(
        p.color <= 2,
        "omniorb-peer: Color ordinal {} is not red, green or blue",
        p.color
    );
    ffi::Prims {
        o: p.o,
        b: u8::from(p.b),
        c: p.c,
        s: p.s,
        us: p.us,
        l: p.l,
        ul: p.ul,
        ll: p.ll,
        ull: p.ull,
        f: p.f,
        d: p.d,
        str: in_str(&p.str),
        color: p.color,
    }
}

/// # Safety
///
/// `p.str` must be valid for reads of `p.str.len` bytes for the call.
unsafe fn out_prims(p: &ffi::Prims) -> Option<Prims> {
    Some(Prims {
        o: p.o,
        b: p.b != 0,
        c: p.c,
        s: p.s,
        us: p.us,
        l: p.l,
        ul: p.ul,
        ll: p.ll,
        ull: p.ull,
        f: p.f,
        d: p.d,
        // SAFETY: forwarded precondition.
        str: unsafe { out_str(p.str) }?,
        color: p.color,
    })
}

fn empty_str() -> ffi::Str {
    ffi::Str {
        ptr: ptr::null(),
        len: 0,
    }
}

fn empty_prims() -> ffi::Prims {
    ffi::Prims {
        o: 0,
        b: 0,
        c: 0,
        s: 0,
        us: 0,
        l: 0,
        ul: 0,
        ll: 0,
        ull: 0,
        f: 0.0,
        d: 0.0,
        str: empty_str(),
        color: 0,
    }
}

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

/// Runs one glue encoder, which fills the `Bytes` it is given, and returns
/// a copy of its output. Panics with the glue's message if it fails.
fn encode_with(what: &str, f: impl FnOnce(*mut ffi::Bytes) -> c_int) -> Vec<u8> {
    let mut out = ffi::Bytes {
        ptr: ptr::null_mut(),
        len: 0,
    };
    if f(&mut out) != 0 {
        panic!("omniorb-peer: encoding {what} failed: {}", last_error());
    }
    // SAFETY: on success the glue set `out` to a new[]-allocated buffer
    // (never NULL, even when empty) with `out.len` initialised bytes, owned
    // by us until released below.
    let bytes = unsafe { slice::from_raw_parts(out.ptr, out.len) }.to_vec();
    // SAFETY: `out.ptr` came from the glue's new[] and is released once; the
    // slice borrowing it was dropped (copied) above.
    unsafe { ffi::omni_bytes_free(out.ptr) };
    bytes
}

/// Encodes an `IntSeq` with omniORB's generated marshaling code.
pub fn encode_ints(order: Order, v: &[i32]) -> Vec<u8> {
    encode_with("IntSeq", |out| {
        // SAFETY: `v` is valid for reads of `v.len()` ints (the glue reads
        // none when the length is 0) and outlives the call; `out` is a valid
        // `Bytes` to write.
        unsafe { ffi::omni_encode_ints(order.little(), v.as_ptr(), v.len(), out) }
    })
}

/// Encodes a `RectSeq` (`[a.x, a.y, b.x, b.y]` each).
pub fn encode_rects(order: Order, v: &[[i32; 4]]) -> Vec<u8> {
    encode_with("RectSeq", |out| {
        // SAFETY: `v` is valid for reads of `4 * v.len()` contiguous ints and
        // outlives the call; `out` is a valid `Bytes` to write.
        unsafe { ffi::omni_encode_rects(order.little(), v.as_ptr().cast(), v.len(), out) }
    })
}

/// Encodes a `DirEntrySeq`.
///
/// # Panics
///
/// If a name contains NUL, or omniORB refuses to marshal it (a name over 255
/// bytes: `CORBA::MARSHAL`).
pub fn encode_dirents(order: Order, v: &[DirEntry]) -> Vec<u8> {
    let items: Vec<ffi::DirEntry> = v.iter().map(in_dirent).collect();
    encode_with("DirEntrySeq", |out| {
        // SAFETY: `items` holds `items.len()` initialised entries whose names
        // point into the strings of `v`; both outlive the call. `out` is a
        // valid `Bytes` to write.
        unsafe { ffi::omni_encode_dirents(order.little(), items.as_ptr(), items.len(), out) }
    })
}

/// Encodes a `Shape`.
///
/// # Panics
///
/// If a `Str` contains NUL, or `Other`'s discriminant is 0 or 1 (those
/// select the other arms).
pub fn encode_shape(order: Order, v: &Shape) -> Vec<u8> {
    let obj = match v {
        Shape::Int(i) => ffi::Shape {
            d: 0,
            ival: *i,
            sval: empty_str(),
            other: [0; 4],
        },
        Shape::Str(s) => ffi::Shape {
            d: 1,
            ival: 0,
            sval: in_str(s),
            other: [0; 4],
        },
        Shape::Other(d, rect) => {
            assert!(
                *d != 0 && *d != 1,
                "omniorb-peer: Shape::Other needs a discriminant other than 0 and 1 (got {d})"
            );
            ffi::Shape {
                d: *d,
                ival: 0,
                sval: empty_str(),
                other: *rect,
            }
        }
    };
    encode_with("Shape", |out| {
        // SAFETY: `obj` is initialised; for `d == 1` its `sval` points into
        // the string of `v`, which outlives the call (the glue reads `sval`
        // only then). `out` is a valid `Bytes` to write.
        unsafe { ffi::omni_encode_shape(order.little(), &obj, out) }
    })
}

/// Encodes a `Prims`.
///
/// # Panics
///
/// If `str` contains NUL or `color` is above 2.
pub fn encode_prims(order: Order, v: &Prims) -> Vec<u8> {
    let obj = in_prims(v);
    encode_with("Prims", |out| {
        // SAFETY: `obj` is initialised, its `str` points into `v.str`, which
        // outlives the call, and its color is a valid enumerator (checked by
        // `in_prims`). `out` is a valid `Bytes` to write.
        unsafe { ffi::omni_encode_prims(order.little(), &obj, out) }
    })
}

/// Encodes the members of `exception Oops { long code; string why; }`, as
/// they follow the repository id in a reply body.
///
/// # Panics
///
/// If `why` contains NUL.
pub fn encode_oops(order: Order, code: i32, why: &str) -> Vec<u8> {
    let why = in_str(why);
    encode_with("Oops", |out| {
        // SAFETY: `why` points into the caller's string, alive for the call;
        // `out` is a valid `Bytes` to write.
        unsafe { ffi::omni_encode_oops(order.little(), code, why, out) }
    })
}

/// Encodes a `Prims` as a CDR encapsulation with omniORB's
/// `cdrEncapsulationStream`: the byte-order octet (0 big, 1 little), then
/// the body, aligned relative to the octet.
///
/// # Panics
///
/// If `str` contains NUL or `color` is above 2.
pub fn encode_encapsulated_prims(order: Order, v: &Prims) -> Vec<u8> {
    let obj = in_prims(v);
    encode_with("encapsulated Prims", |out| {
        // SAFETY: as in `encode_prims`.
        unsafe { ffi::omni_encode_encapsulated_prims(order.little(), &obj, out) }
    })
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

/// A decoded C++ value owned by the glue, released on drop.
struct Handle {
    ptr: NonNull<c_void>,
    free: unsafe extern "C" fn(*mut c_void),
}

impl Handle {
    /// # Safety
    ///
    /// `ptr`, if non-NULL, must be a handle that `free` releases, owned by
    /// nobody else.
    unsafe fn new(ptr: *mut c_void, free: unsafe extern "C" fn(*mut c_void)) -> Option<Self> {
        NonNull::new(ptr).map(|ptr| Handle { ptr, free })
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: by `Handle::new`'s contract `free` releases `ptr`, which is
        // owned by this value alone and released only here; nothing borrowed
        // from it outlives `self`.
        unsafe { (self.free)(self.ptr.as_ptr()) }
    }
}

/// # Safety
///
/// If `n > 0`, `p` must be valid for reads of `n` initialised `T`s for `'a`.
unsafe fn borrowed<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        // SAFETY: forwarded precondition.
        unsafe { slice::from_raw_parts(p, n) }
    }
}

/// Decodes an `IntSeq` with omniORB's generated unmarshaling code. `None` if
/// omniORB throws (e.g. the bytes end early, or the count exceeds them) or
/// if bytes are left over.
pub fn decode_ints(order: Order, bytes: &[u8]) -> Option<Vec<i32>> {
    let mut data: *const i32 = ptr::null();
    let mut n = 0usize;
    // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes for the call
    // and never written; `data` and `n` are valid locals. The glue keeps no
    // pointer to `bytes` after returning.
    let h = unsafe {
        ffi::omni_decode_ints(
            order.little(),
            bytes.as_ptr(),
            bytes.len(),
            &mut data,
            &mut n,
        )
    };
    // SAFETY: a non-NULL result is a new IntSeq* owned by us, released by
    // omni_free_ints.
    let h = unsafe { Handle::new(h, ffi::omni_free_ints) }?;
    // SAFETY: `data` is the sequence's buffer of `n` longs, alive while `h`.
    let v = unsafe { borrowed(data, n) }.to_vec();
    drop(h);
    Some(v)
}

/// Decodes a `RectSeq` (`[a.x, a.y, b.x, b.y]` each). `None` as for
/// [`decode_ints`].
pub fn decode_rects(order: Order, bytes: &[u8]) -> Option<Vec<[i32; 4]>> {
    let mut data: *const i32 = ptr::null();
    let mut n = 0usize;
    // SAFETY: as in `decode_ints`.
    let h = unsafe {
        ffi::omni_decode_rects(
            order.little(),
            bytes.as_ptr(),
            bytes.len(),
            &mut data,
            &mut n,
        )
    };
    // SAFETY: a non-NULL result is a new RectSeq* owned by us, released by
    // omni_free_rects.
    let h = unsafe { Handle::new(h, ffi::omni_free_rects) }?;
    // SAFETY: `data` is the sequence's buffer of `n` Rects, each four packed
    // longs (static_assert in glue.cpp), i.e. `n` `[i32; 4]` with the same
    // alignment as i32; alive while `h`.
    let v = unsafe { borrowed(data.cast::<[i32; 4]>(), n) }.to_vec();
    drop(h);
    Some(v)
}

/// Decodes a `DirEntrySeq`. `None` as for [`decode_ints`], and if a name is
/// not UTF-8.
pub fn decode_dirents(order: Order, bytes: &[u8]) -> Option<Vec<DirEntry>> {
    let mut n = 0usize;
    // SAFETY: as in `decode_ints`.
    let h =
        unsafe { ffi::omni_decode_dirents(order.little(), bytes.as_ptr(), bytes.len(), &mut n) };
    // SAFETY: a non-NULL result is a new DirEntrySeq* owned by us, released
    // by omni_free_dirents.
    let h = unsafe { Handle::new(h, ffi::omni_free_dirents) }?;
    (0..n)
        .map(|i| {
            let mut e = ffi::DirEntry {
                name: empty_str(),
                ints: [0; 30],
                chars: [0; 16],
            };
            // SAFETY: `h` is a live DirEntrySeq of length `n` and `i < n`;
            // `e` is a valid place to write.
            unsafe { ffi::omni_dirents_get(h.ptr.as_ptr(), i, &mut e) };
            Some(DirEntry {
                // SAFETY: `e.name` borrows element `i`'s name, alive while `h`.
                name: unsafe { out_str(e.name) }?,
                ints: e.ints,
                chars: e.chars,
            })
        })
        .collect()
}

/// Decodes a `Shape`. `None` as for [`decode_ints`], and if a string is not
/// UTF-8.
pub fn decode_shape(order: Order, bytes: &[u8]) -> Option<Shape> {
    let mut s = ffi::Shape {
        d: 0,
        ival: 0,
        sval: empty_str(),
        other: [0; 4],
    };
    // SAFETY: as in `decode_ints`; `s` is a valid place to write.
    let h = unsafe { ffi::omni_decode_shape(order.little(), bytes.as_ptr(), bytes.len(), &mut s) };
    // SAFETY: a non-NULL result is a new Shape* owned by us, released by
    // omni_free_shape.
    let _h = unsafe { Handle::new(h, ffi::omni_free_shape) }?;
    Some(match s.d {
        0 => Shape::Int(s.ival),
        // SAFETY: for d == 1 the glue set `sval` to the union's string,
        // alive while `_h`.
        1 => Shape::Str(unsafe { out_str(s.sval) }?),
        d => Shape::Other(d, s.other),
    })
}

/// Decodes a `Prims`. `None` as for [`decode_ints`] (including a `Color`
/// ordinal above 2), and if `str` is not UTF-8.
pub fn decode_prims(order: Order, bytes: &[u8]) -> Option<Prims> {
    let mut p = empty_prims();
    // SAFETY: as in `decode_ints`; `p` is a valid place to write.
    let h = unsafe { ffi::omni_decode_prims(order.little(), bytes.as_ptr(), bytes.len(), &mut p) };
    // SAFETY: a non-NULL result is a new Prims* owned by us, released by
    // omni_free_prims.
    let _h = unsafe { Handle::new(h, ffi::omni_free_prims) }?;
    // SAFETY: `p.str` borrows the decoded Prims' string, alive while `_h`.
    unsafe { out_prims(&p) }
}

/// Decodes a CDR encapsulation of a `Prims` with omniORB's
/// `cdrEncapsulationStream`, which takes the byte order from the first
/// octet. `None` as for [`decode_prims`].
pub fn decode_encapsulated_prims(bytes: &[u8]) -> Option<Prims> {
    let mut p = empty_prims();
    // SAFETY: as in `decode_ints`; `p` is a valid place to write.
    let h = unsafe { ffi::omni_decode_encapsulated_prims(bytes.as_ptr(), bytes.len(), &mut p) };
    // SAFETY: a non-NULL result is a new Prims* owned by us, released by
    // omni_free_prims.
    let _h = unsafe { Handle::new(h, ffi::omni_free_prims) }?;
    // SAFETY: `p.str` borrows the decoded Prims' string, alive while `_h`.
    unsafe { out_prims(&p) }
}

// ---------------------------------------------------------------------------
// Benchmark handles
// ---------------------------------------------------------------------------

/// A generated sequence held in C++ plus the `cdrMemoryStream` it is
/// marshaled into, reused across encodings.
struct EncHandle(NonNull<c_void>);

impl EncHandle {
    fn new(h: *mut c_void) -> Self {
        EncHandle(NonNull::new(h).unwrap_or_else(|| {
            panic!(
                "omniorb-peer: building a benchmark workload failed: {}",
                last_error()
            )
        }))
    }

    fn encode(&mut self, order: Order) -> usize {
        // SAFETY: `self.0` is a live handle from omni_enc_new_*, exclusively
        // borrowed for the call.
        let n = unsafe { ffi::omni_enc_encode(self.0.as_ptr(), order.little()) };
        if n == usize::MAX {
            panic!("omniorb-peer: encoding failed: {}", last_error());
        }
        n
    }

    fn bytes(&self) -> &[u8] {
        let mut p: *const u8 = ptr::null();
        let mut n = 0usize;
        // SAFETY: `self.0` is a live handle; `p` and `n` are valid locals.
        unsafe { ffi::omni_enc_bytes(self.0.as_ptr(), &mut p, &mut n) };
        // SAFETY: `p` is the stream's buffer holding `n` initialised bytes;
        // it changes only in `encode`/drop, which need `&mut self`, so it
        // stays valid and unchanged while `&self` is borrowed.
        unsafe { borrowed(p, n) }
    }
}

impl Drop for EncHandle {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from omni_enc_new_*, is owned by this value
        // alone and is released only here.
        unsafe { ffi::omni_enc_free(self.0.as_ptr()) }
    }
}

// SAFETY: the handle owns C++ heap objects (a generated sequence and a
// cdrMemoryStream) that reference no thread-local state and nothing outside
// the handle, so it may move between threads. `&self` only reads the stream's
// buffer pointer and length.
unsafe impl Send for EncHandle {}
// SAFETY: see above; mutation needs `&mut self`.
unsafe impl Sync for EncHandle {}

macro_rules! bench_type {
    ($(#[$doc:meta])* $name:ident, $idl:literal) => {
        $(#[$doc])*
        pub struct $name {
            h: EncHandle,
            len: usize,
        }

        impl $name {
            #[doc = concat!(
                "Marshals the held `", $idl, "` with omniORB's generated code into the ",
                "handle's `cdrMemoryStream` in byte order `order`; returns the encoded length.\n\n",
                "Timed work: `rewindPtrs()` and `setByteSwapFlag()` on the stream (a few ",
                "stores), one virtual call, then the generated `operator>>=` for the ",
                "sequence, which writes straight into the stream's buffer. The buffer is ",
                "kept across calls, so after the first call (warm-up) nothing is allocated. ",
                "The elements were converted to generated types once, in `new`.\n\n",
                "# Panics\n\nIf omniORB throws (it does not for valid workloads)."
            )]
            pub fn encode(&mut self, order: Order) -> usize {
                self.h.encode(order)
            }

            /// The bytes of the last [`encode`](Self::encode) (empty before
            /// the first).
            pub fn bytes(&self) -> &[u8] {
                self.h.bytes()
            }

            /// Number of elements held.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether no elements are held.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("len", &self.len)
                    .finish_non_exhaustive()
            }
        }
    };
}

bench_type!(
    /// An `IntSeq` built once in C++, for benchmarks.
    OmniInts,
    "IntSeq"
);
bench_type!(
    /// A `RectSeq` built once in C++, for benchmarks.
    OmniRects,
    "RectSeq"
);
bench_type!(
    /// A `DirEntrySeq` built once in C++, for benchmarks.
    OmniDirents,
    "DirEntrySeq"
);

impl OmniInts {
    /// Copies `v` into a C++ `Flick::IntSeq`.
    pub fn new(v: &[i32]) -> Self {
        // SAFETY: `v` is valid for reads of `v.len()` ints for the call; the
        // glue copies them.
        let h = unsafe { ffi::omni_enc_new_ints(v.as_ptr(), v.len()) };
        OmniInts {
            h: EncHandle::new(h),
            len: v.len(),
        }
    }
}

impl OmniRects {
    /// Copies `v` (`[a.x, a.y, b.x, b.y]` each) into a C++ `Flick::RectSeq`.
    pub fn new(v: &[[i32; 4]]) -> Self {
        // SAFETY: `v` is valid for reads of `4 * v.len()` contiguous ints for
        // the call; the glue copies them.
        let h = unsafe { ffi::omni_enc_new_rects(v.as_ptr().cast(), v.len()) };
        OmniRects {
            h: EncHandle::new(h),
            len: v.len(),
        }
    }
}

impl OmniDirents {
    /// Copies `v` into a C++ `Flick::DirEntrySeq` (names become CORBA string
    /// copies).
    ///
    /// # Panics
    ///
    /// If a name contains NUL. (A name over 255 bytes is accepted here, and
    /// makes `encode` panic, since omniORB checks the bound when
    /// marshaling.)
    pub fn new(v: &[DirEntry]) -> Self {
        let items: Vec<ffi::DirEntry> = v.iter().map(in_dirent).collect();
        // SAFETY: `items` holds `items.len()` initialised entries whose names
        // point into the strings of `v`, all alive for the call; the glue
        // copies them.
        let h = unsafe { ffi::omni_enc_new_dirents(items.as_ptr(), items.len()) };
        OmniDirents {
            h: EncHandle::new(h),
            len: v.len(),
        }
    }
}

macro_rules! bench_decode {
    ($(#[$doc:meta])* $name:ident, $glue:ident, $idl:literal) => {
        $(#[$doc])*
        #[doc = concat!(
            "\n\nTimed work: wrapping `bytes` in a read-only `cdrMemoryStream` (no copy ",
            "when `bytes` is 8-aligned; otherwise the bytes are first copied into an ",
            "aligned, freshly allocated stream, and that copy is timed too), ",
            "`setByteSwapFlag()`, the generated `operator<<=` into a fresh local `Flick::",
            $idl, "` (which allocates its buffer, and for `DirEntrySeq` each name, as a ",
            "real omniORB receiver does), and the destruction of that sequence. Returns ",
            "the element count. Unlike the `decode_*` functions, trailing bytes are ",
            "ignored.\n\n# Panics\n\nIf omniORB throws (e.g. on truncated input)."
        )]
        pub fn $name(order: Order, bytes: &[u8]) -> usize {
            // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes for
            // the call and never written; the glue keeps no pointer to it.
            let n = unsafe { ffi::$glue(order.little(), bytes.as_ptr(), bytes.len()) };
            if n == usize::MAX {
                panic!(
                    concat!("omniorb-peer: decoding ", $idl, " failed: {}"),
                    last_error()
                );
            }
            n
        }
    };
}

bench_decode!(
    /// Unmarshals an `IntSeq` with omniORB's generated code, for benchmarks.
    bench_decode_ints,
    omni_bench_decode_ints,
    "IntSeq"
);
bench_decode!(
    /// Unmarshals a `RectSeq` with omniORB's generated code, for benchmarks.
    bench_decode_rects,
    omni_bench_decode_rects,
    "RectSeq"
);
bench_decode!(
    /// Unmarshals a `DirEntrySeq` with omniORB's generated code, for
    /// benchmarks.
    bench_decode_dirents,
    omni_bench_decode_dirents,
    "DirEntrySeq"
);

// ---------------------------------------------------------------------------
// Round-trip client
// ---------------------------------------------------------------------------

/// An in-process omniORB client of a `Flick::Bench` object, for round-trip
/// benchmarks (e.g. against `omni-server`).
pub struct OmniClient(NonNull<c_void>);

impl OmniClient {
    /// Resolves `ior` (a stringified IOR or a `corbaloc:` URL) with the
    /// process-wide ORB and narrows it to `Flick::Bench`. For an IOR whose
    /// type id is `IDL:Flick/Bench:1.0` this does not contact the server
    /// (omniORB then verifies the object with a GIOP LocateRequest on the
    /// first call); otherwise `_narrow` calls `_is_a` remotely. `None` on any
    /// failure; see [`try_connect`](Self::try_connect) for the reason.
    pub fn connect(ior: &str) -> Option<Self> {
        Self::try_connect(ior).ok()
    }

    /// Like [`connect`](Self::connect), with omniORB's error message.
    pub fn try_connect(ior: &str) -> Result<Self, String> {
        let ior = CString::new(ior).map_err(|_| "the IOR contains NUL".to_owned())?;
        // SAFETY: `ior` is NUL-terminated and alive for the call; the glue
        // copies what it needs.
        let h = unsafe { ffi::omni_client_connect(ior.as_ptr()) };
        NonNull::new(h).map(OmniClient).ok_or_else(last_error)
    }

    /// Calls `echo_ints` `iters` times with one `IntSeq` of `v_len` elements
    /// built beforehand; returns the total time of the loop, measured in C++
    /// with `std::chrono::steady_clock` around the calls only (each call
    /// includes marshaling the request, the loopback round trip, the
    /// server's work, unmarshaling the reply into a fresh sequence and
    /// freeing the previous one). The echoed length is checked per call and
    /// the contents once after the loop, outside the timing.
    ///
    /// # Panics
    ///
    /// On any CORBA exception or a wrong echo.
    pub fn echo_ints(&mut self, v_len: usize, iters: u64) -> Duration {
        self.timed("echo_ints", v_len, iters, ffi::omni_client_echo_ints)
    }

    /// Like [`echo_ints`](Self::echo_ints), with an `OctetSeq`.
    ///
    /// # Panics
    ///
    /// On any CORBA exception or a wrong echo.
    pub fn echo_octets(&mut self, v_len: usize, iters: u64) -> Duration {
        self.timed("echo_octets", v_len, iters, ffi::omni_client_echo_octets)
    }

    fn timed(
        &mut self,
        op: &str,
        v_len: usize,
        iters: u64,
        f: unsafe extern "C" fn(*mut c_void, usize, u64, *mut u64) -> c_int,
    ) -> Duration {
        assert!(
            u32::try_from(v_len).is_ok(),
            "omniorb-peer: {op}: sequence too long"
        );
        let mut nanos = 0u64;
        // SAFETY: `self.0` is a live Bench reference from
        // omni_client_connect, exclusively borrowed; `nanos` is a valid
        // local; `f` is one of the two omni_client_echo_* functions, which
        // take exactly these arguments.
        let rc = unsafe { f(self.0.as_ptr(), v_len, iters, &mut nanos) };
        if rc != 0 {
            panic!("omniorb-peer: {op} failed: {}", last_error());
        }
        Duration::from_nanos(nanos)
    }
}

impl Drop for OmniClient {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from omni_client_connect, is owned by this
        // value alone and is released only here.
        unsafe { ffi::omni_client_free(self.0.as_ptr()) }
    }
}

impl fmt::Debug for OmniClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OmniClient").finish_non_exhaustive()
    }
}

// SAFETY: omniORB object references are thread-safe and not tied to the
// thread that created them; the handle is only used through `&mut self`.
unsafe impl Send for OmniClient {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Same order as `omni_layout` in glue.cpp.
    fn rust_layout() -> Vec<usize> {
        use ffi::*;
        vec![
            size_of::<Bytes>(),
            align_of::<Bytes>(),
            offset_of!(Bytes, ptr),
            offset_of!(Bytes, len),
            size_of::<Str>(),
            align_of::<Str>(),
            offset_of!(Str, ptr),
            offset_of!(Str, len),
            size_of::<DirEntry>(),
            align_of::<DirEntry>(),
            offset_of!(DirEntry, name),
            offset_of!(DirEntry, ints),
            offset_of!(DirEntry, chars),
            size_of::<Shape>(),
            align_of::<Shape>(),
            offset_of!(Shape, d),
            offset_of!(Shape, ival),
            offset_of!(Shape, sval),
            offset_of!(Shape, other),
            size_of::<Prims>(),
            align_of::<Prims>(),
            offset_of!(Prims, o),
            offset_of!(Prims, b),
            offset_of!(Prims, c),
            offset_of!(Prims, s),
            offset_of!(Prims, us),
            offset_of!(Prims, l),
            offset_of!(Prims, ul),
            offset_of!(Prims, ll),
            offset_of!(Prims, ull),
            offset_of!(Prims, f),
            offset_of!(Prims, d),
            offset_of!(Prims, str),
            offset_of!(Prims, color),
        ]
    }

    #[test]
    fn layout_matches_cpp() {
        let rust = rust_layout();
        let mut cpp = vec![0usize; 64];
        // SAFETY: `cpp` is valid for writes of `cpp.len()` usizes;
        // omni_layout writes at most that many and keeps no pointer.
        let n = unsafe { ffi::omni_layout(cpp.as_mut_ptr(), cpp.len()) };
        assert!(n <= cpp.len());
        cpp.truncate(n);
        assert_eq!(rust, cpp);
    }
}
