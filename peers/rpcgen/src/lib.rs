//! A reference XDR peer: the C stubs that `rpcgen` generates from
//! `xdr/flick.x`, linked against libtirpc, behind a safe Rust API made only of
//! plain Rust data.
//!
//! It serves two purposes:
//!
//! * **Interop tests.** `encode_*` hands Rust values to the generated C
//!   encoders and returns the exact XDR bytes they produce; `decode_*` runs
//!   the generated C decoders over bytes and converts the result back.
//! * **Benchmarks.** [`CInts`], [`CRects`] and [`CDirents`] hold C-side copies
//!   of a workload built once, so that a timed [`CInts::encode`] call is one
//!   generated `xdr_*` routine over an `xdrmem` stream and nothing else;
//!   `bench_decode_*` likewise time one generated decode plus its `xdr_free`.
//! * **An ONC RPC peer.** The [`rpc`] module runs the C server and client
//!   that rpcgen generates for the `program FLICK_PROG` of `flick.x`
//!   ([`CServer`], [`run_c_client`]), offers an in-process libtirpc client
//!   for benchmarks ([`CRpcClient`]) and the stub-cost function
//!   [`c_stub_pfs_write`]. Its main items are also re-exported here.
//!
//! # Strings
//!
//! rpcgen maps XDR strings to NUL-terminated `char *`. Rust strings handed to
//! C are therefore copied with a terminating NUL and must not contain NUL
//! (the encoders panic if they do). On decode, a string with an embedded NUL
//! is cut short at the NUL by C itself; strings that are not UTF-8 make the
//! decoder return `None`.
//!
//! # Stack depth
//!
//! `struct entry { ...; entry *next; }` is encoded, decoded and freed by
//! rpcgen's code through `xdr_pointer`, which recurses once per list element
//! on the C stack. See [`encode_list`] for the measured cost.

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::fmt;
use std::ptr;
use std::slice;

pub mod rpc;

pub use rpc::{
    c_stub_pfs_write, pfs_write_call_size, run_c_client, CRpcClient, CServer, C_CLIENT, C_SERVER,
    ECHO_DIRENTS, ECHO_INTS, ECHO_LIST, ECHO_RECTS, ECHO_RESULT, FLICK_NULL, FLICK_PROG,
    FLICK_VERS, PFS_WRITE,
};

/// `#[repr(C)]` mirrors of the rpcgen-generated types in `flick.h`, and the
/// entry points of `src/glue.c`. The mirrors are checked against the C
/// compiler's layout by the `layout_matches_c` test.
mod ffi {
    use std::ffi::{c_char, c_int, c_uint};

    /// `struct rect { point a; point b; }` = `[a.x, a.y, b.x, b.y]`.
    pub(crate) type Rect = [c_int; 4];

    /// `typedef int int_array<>;`
    #[repr(C)]
    pub(crate) struct IntArray {
        pub(crate) len: c_uint,
        pub(crate) val: *mut c_int,
    }

    /// `typedef rect rect_array<>;`
    #[repr(C)]
    pub(crate) struct RectArray {
        pub(crate) len: c_uint,
        pub(crate) val: *mut Rect,
    }

    /// `struct dirent { string name<255>; stat_rec st; }` with `stat_rec`
    /// (`int ints[30]; opaque chars[16];`) flattened.
    #[repr(C)]
    pub(crate) struct Dirent {
        pub(crate) name: *mut c_char,
        pub(crate) ints: [c_int; 30],
        pub(crate) chars: [u8; 16],
    }

    /// `typedef dirent dirent_array<>;`
    #[repr(C)]
    pub(crate) struct DirentArray {
        pub(crate) len: c_uint,
        pub(crate) val: *mut Dirent,
    }

    /// `union result switch (int tag)`.
    #[repr(C)]
    pub(crate) struct Result {
        pub(crate) tag: c_int,
        pub(crate) u: ResultU,
    }

    /// `result_u` of `struct result`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(crate) union ResultU {
        pub(crate) ival: c_int,
        pub(crate) sval: *mut c_char,
        pub(crate) other: Rect,
    }

    /// `struct entry { int id; string name<>; entry *next; }`
    #[repr(C)]
    pub(crate) struct Entry {
        pub(crate) id: c_int,
        pub(crate) name: *mut c_char,
        pub(crate) next: *mut Entry,
    }

    /// `struct entry_list { entry *head; }`
    #[repr(C)]
    pub(crate) struct EntryList {
        pub(crate) head: *mut Entry,
    }

    macro_rules! glue_fns {
        ($($ty:ident: $enc:ident, $dec:ident, $free:ident $(, $bench:ident)?;)*) => {
            extern "C" {
                $(
                    pub(crate) fn $enc(
                        obj: *const $ty,
                        out: *mut c_char,
                        len: c_uint,
                        pos: *mut c_uint,
                    ) -> c_int;
                    pub(crate) fn $dec(
                        obj: *mut $ty,
                        buf: *const c_char,
                        len: c_uint,
                        pos: *mut c_uint,
                    ) -> c_int;
                    pub(crate) fn $free(obj: *mut $ty);
                    $(pub(crate) fn $bench(buf: *const c_char, len: c_uint) -> c_int;)?
                )*
            }
        };
    }

    // glue.c also defines glue_bench_decode_{result,entry_list}; they are not
    // part of the Rust API, so they are not declared here.
    glue_fns! {
        IntArray: glue_encode_int_array, glue_decode_int_array,
            glue_free_int_array, glue_bench_decode_int_array;
        RectArray: glue_encode_rect_array, glue_decode_rect_array,
            glue_free_rect_array, glue_bench_decode_rect_array;
        DirentArray: glue_encode_dirent_array, glue_decode_dirent_array,
            glue_free_dirent_array, glue_bench_decode_dirent_array;
        Result: glue_encode_result, glue_decode_result, glue_free_result;
        EntryList: glue_encode_entry_list, glue_decode_entry_list, glue_free_entry_list;
    }

    extern "C" {
        #[cfg(test)]
        pub(crate) fn glue_layout(out: *mut usize, cap: usize) -> usize;
    }
}

/// A generated top-level type together with its glue entry points.
trait CType: Sized {
    /// The value with every pointer member NULL and every length 0: what the
    /// generated decoders must start from so that they allocate.
    fn empty() -> Self;
    const ENCODE: unsafe extern "C" fn(*const Self, *mut c_char, c_uint, *mut c_uint) -> c_int;
    const DECODE: unsafe extern "C" fn(*mut Self, *const c_char, c_uint, *mut c_uint) -> c_int;
    const FREE: unsafe extern "C" fn(*mut Self);
}

macro_rules! impl_ctype {
    ($ty:ty, $empty:expr, $enc:ident, $dec:ident, $free:ident) => {
        impl CType for $ty {
            fn empty() -> Self {
                $empty
            }
            const ENCODE: unsafe extern "C" fn(
                *const Self,
                *mut c_char,
                c_uint,
                *mut c_uint,
            ) -> c_int = ffi::$enc;
            const DECODE: unsafe extern "C" fn(
                *mut Self,
                *const c_char,
                c_uint,
                *mut c_uint,
            ) -> c_int = ffi::$dec;
            const FREE: unsafe extern "C" fn(*mut Self) = ffi::$free;
        }
    };
}

impl_ctype!(
    ffi::IntArray,
    ffi::IntArray {
        len: 0,
        val: ptr::null_mut()
    },
    glue_encode_int_array,
    glue_decode_int_array,
    glue_free_int_array
);
impl_ctype!(
    ffi::RectArray,
    ffi::RectArray {
        len: 0,
        val: ptr::null_mut()
    },
    glue_encode_rect_array,
    glue_decode_rect_array,
    glue_free_rect_array
);
impl_ctype!(
    ffi::DirentArray,
    ffi::DirentArray {
        len: 0,
        val: ptr::null_mut()
    },
    glue_encode_dirent_array,
    glue_decode_dirent_array,
    glue_free_dirent_array
);
impl_ctype!(
    ffi::Result,
    // `other` spans all 16 bytes of the union, so `sval` reads as NULL too.
    ffi::Result {
        tag: 0,
        u: ffi::ResultU { other: [0; 4] }
    },
    glue_encode_result,
    glue_decode_result,
    glue_free_result
);
impl_ctype!(
    ffi::EntryList,
    ffi::EntryList {
        head: ptr::null_mut()
    },
    glue_encode_entry_list,
    glue_decode_entry_list,
    glue_free_entry_list
);

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

/// Runs the generated encoder for `obj` into `out`; returns the number of
/// bytes written, or `None` if the encoder returned FALSE (e.g. `out` too
/// small).
///
/// # Safety
///
/// `obj` must be a fully initialised value of the generated type whose every
/// reachable pointer is valid for reads of what the type says is there: array
/// pointers for `len` elements (may dangle only when `len == 0`), strings
/// NUL-terminated, `entry.next` chains NULL-terminated and acyclic. Nothing
/// reachable may be mutated during the call. (The encoder does not write
/// through `obj`.)
unsafe fn encode_into<T: CType>(obj: &T, out: &mut [u8]) -> Option<usize> {
    // xdrmem streams take a `u_int` size; a shorter view of `out` is fine.
    let len = c_uint::try_from(out.len()).unwrap_or(c_uint::MAX);
    let mut pos: c_uint = 0;
    // SAFETY: `obj` satisfies the encoder's contract (this function's
    // precondition); `out` is valid for writes of `len <= out.len()` bytes and
    // exclusively borrowed for the call; `pos` is a valid local. The C side
    // keeps no pointer past the call.
    let ok = unsafe { (T::ENCODE)(obj, out.as_mut_ptr().cast(), len, &mut pos) };
    (ok != 0).then_some(pos as usize)
}

/// Encodes `obj` into a fresh buffer of exactly `size` bytes and checks that
/// the generated encoder filled it exactly.
///
/// # Safety
///
/// As for [`encode_into`].
unsafe fn encode_exact<T: CType>(obj: &T, size: usize) -> Vec<u8> {
    assert!(
        c_uint::try_from(size).is_ok(),
        "rpcgen-peer: encoding of {size} bytes exceeds the 4 GiB xdrmem limit"
    );
    let mut out = vec![0u8; size];
    // SAFETY: forwarded precondition of this function.
    let written = unsafe { encode_into(obj, &mut out) };
    assert_eq!(
        written,
        Some(size),
        "rpcgen-peer: the generated encoder did not produce the predicted size"
    );
    out
}

/// XDR size of a variable-length string/opaque with `n` bytes of payload.
fn xdr_str_size(n: usize) -> usize {
    4 + n.div_ceil(4) * 4
}

/// NUL-terminated copies of some strings in one allocation that C structs
/// point into. The buffer is never touched again after construction (only
/// dropped), so the pointers stay valid for as long as the value lives, even
/// when it is moved (moving a `Vec` does not move its heap buffer).
struct CStrings {
    _bytes: Vec<u8>,
    ptrs: Vec<*mut c_char>,
}

impl CStrings {
    /// Panics if a string contains NUL.
    fn new<'a>(strings: impl IntoIterator<Item = &'a str>) -> Self {
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        for s in strings {
            assert!(
                !s.as_bytes().contains(&0),
                "rpcgen-peer: strings passed to C must not contain NUL: {s:?}"
            );
            offsets.push(bytes.len());
            bytes.extend_from_slice(s.as_bytes());
            bytes.push(0);
        }
        // Only now, with `bytes` complete, take pointers into it.
        let base = bytes.as_mut_ptr();
        let ptrs = offsets
            .into_iter()
            .map(|off| base.wrapping_add(off).cast::<c_char>())
            .collect();
        CStrings {
            _bytes: bytes,
            ptrs,
        }
    }
}

/// C-side copy of an `int_array`, built once; for benchmarks.
pub struct CInts {
    data: Vec<c_int>,
    obj: ffi::IntArray,
}

impl CInts {
    /// Copies `v` into a C `int_array`.
    ///
    /// # Panics
    ///
    /// If `v` has more than `u32::MAX` elements.
    pub fn new(v: &[i32]) -> Self {
        let mut data: Vec<c_int> = v.to_vec();
        let len = c_uint::try_from(data.len()).expect("rpcgen-peer: array too long");
        let val = data.as_mut_ptr();
        CInts {
            data,
            obj: ffi::IntArray { len, val },
        }
    }

    /// Encodes with the generated `xdr_int_array` into `out`; returns the
    /// number of bytes written.
    ///
    /// # Panics
    ///
    /// If `out` is too small.
    pub fn encode(&self, out: &mut [u8]) -> usize {
        // SAFETY: `obj.val` points to `data`'s buffer of `obj.len` initialised
        // ints, which lives (and is not mutated) as long as `self`.
        let n = unsafe { encode_into(&self.obj, out) };
        n.expect("rpcgen-peer: output buffer too small for xdr_int_array")
    }

    fn wire_size(&self) -> usize {
        4 + 4 * self.data.len()
    }
}

impl fmt::Debug for CInts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CInts")
            .field("len", &self.data.len())
            .finish_non_exhaustive()
    }
}

/// C-side copy of a `rect_array`, built once; for benchmarks.
pub struct CRects {
    data: Vec<ffi::Rect>,
    obj: ffi::RectArray,
}

impl CRects {
    /// Copies `v` (`[a.x, a.y, b.x, b.y]` each) into a C `rect_array`.
    ///
    /// # Panics
    ///
    /// If `v` has more than `u32::MAX` elements.
    pub fn new(v: &[[i32; 4]]) -> Self {
        let mut data: Vec<ffi::Rect> = v.to_vec();
        let len = c_uint::try_from(data.len()).expect("rpcgen-peer: array too long");
        let val = data.as_mut_ptr();
        CRects {
            data,
            obj: ffi::RectArray { len, val },
        }
    }

    /// Encodes with the generated `xdr_rect_array` into `out`; returns the
    /// number of bytes written.
    ///
    /// # Panics
    ///
    /// If `out` is too small.
    pub fn encode(&self, out: &mut [u8]) -> usize {
        // SAFETY: `obj.val` points to `data`'s buffer of `obj.len` initialised
        // rects, which lives (and is not mutated) as long as `self`.
        let n = unsafe { encode_into(&self.obj, out) };
        n.expect("rpcgen-peer: output buffer too small for xdr_rect_array")
    }

    fn wire_size(&self) -> usize {
        4 + 16 * self.data.len()
    }
}

impl fmt::Debug for CRects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CRects")
            .field("len", &self.data.len())
            .finish_non_exhaustive()
    }
}

/// C-side copy of a `dirent_array`, built once; for benchmarks.
pub struct CDirents {
    _names: CStrings,
    items: Vec<ffi::Dirent>,
    obj: ffi::DirentArray,
    wire_size: usize,
}

impl CDirents {
    /// Copies `v` into a C `dirent_array` (names become NUL-terminated copies).
    ///
    /// # Panics
    ///
    /// If a name is longer than 255 bytes (`string name<255>`) or contains
    /// NUL, or if `v` has more than `u32::MAX` elements.
    pub fn new(v: &[Dirent]) -> Self {
        for d in v {
            assert!(
                d.name.len() <= 255,
                "rpcgen-peer: dirent name is {} bytes, the .x limit is 255",
                d.name.len()
            );
        }
        let names = CStrings::new(v.iter().map(|d| d.name.as_str()));
        let mut items: Vec<ffi::Dirent> = v
            .iter()
            .zip(&names.ptrs)
            .map(|(d, &name)| ffi::Dirent {
                name,
                ints: d.ints,
                chars: d.chars,
            })
            .collect();
        let len = c_uint::try_from(items.len()).expect("rpcgen-peer: array too long");
        let val = items.as_mut_ptr();
        let wire_size = 4 + v
            .iter()
            .map(|d| xdr_str_size(d.name.len()) + 30 * 4 + 16)
            .sum::<usize>();
        CDirents {
            _names: names,
            items,
            obj: ffi::DirentArray { len, val },
            wire_size,
        }
    }

    /// Encodes with the generated `xdr_dirent_array` into `out`; returns the
    /// number of bytes written.
    ///
    /// # Panics
    ///
    /// If `out` is too small.
    pub fn encode(&self, out: &mut [u8]) -> usize {
        // SAFETY: `obj.val` points to `items`' buffer of `obj.len` initialised
        // dirents, whose `name`s point to NUL-terminated strings in `_names`;
        // both buffers live (and are not mutated) as long as `self`.
        let n = unsafe { encode_into(&self.obj, out) };
        n.expect("rpcgen-peer: output buffer too small for xdr_dirent_array")
    }
}

impl fmt::Debug for CDirents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CDirents")
            .field("len", &self.items.len())
            .field("wire_size", &self.wire_size)
            .finish_non_exhaustive()
    }
}

// SAFETY: (for all six impls below) the raw pointers inside CInts/CRects/CDirents
// point only into heap buffers owned by the same value, so moving the value to
// another thread moves ownership of everything it points to; nothing is tied to
// a thread. Through `&self` the only access is `encode`, and the generated
// XDR_ENCODE routines (and libtirpc's xdr_array/xdr_string/xdr_opaque/xdr_int
// in encode mode) only read the C struct, so concurrent `encode`s are
// concurrent reads.
unsafe impl Send for CInts {}
// SAFETY: see above.
unsafe impl Sync for CInts {}
// SAFETY: see above.
unsafe impl Send for CRects {}
// SAFETY: see above.
unsafe impl Sync for CRects {}
// SAFETY: see above.
unsafe impl Send for CDirents {}
// SAFETY: see above.
unsafe impl Sync for CDirents {}

/// Encodes an `int_array` with the generated `xdr_int_array`.
pub fn encode_ints(v: &[i32]) -> Vec<u8> {
    let c = CInts::new(v);
    // SAFETY: `c.obj` points into `c.data`, see `CInts::encode`.
    unsafe { encode_exact(&c.obj, c.wire_size()) }
}

/// Encodes a `rect_array` (`[a.x, a.y, b.x, b.y]` each) with the generated
/// `xdr_rect_array`.
pub fn encode_rects(v: &[[i32; 4]]) -> Vec<u8> {
    let c = CRects::new(v);
    // SAFETY: `c.obj` points into `c.data`, see `CRects::encode`.
    unsafe { encode_exact(&c.obj, c.wire_size()) }
}

/// One `struct dirent` of `flick.x`, with `stat_rec` flattened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirent {
    /// `string name<255>`: at most 255 bytes, no NUL.
    pub name: String,
    /// `st.ints`.
    pub ints: [i32; 30],
    /// `st.chars` (`opaque chars[16]`).
    pub chars: [u8; 16],
}

/// Encodes a `dirent_array` with the generated `xdr_dirent_array`.
///
/// # Panics
///
/// If a name is longer than 255 bytes or contains NUL.
pub fn encode_dirents(v: &[Dirent]) -> Vec<u8> {
    let c = CDirents::new(v);
    // SAFETY: `c.obj` points into `c.items` and `c._names`, see
    // `CDirents::encode`.
    unsafe { encode_exact(&c.obj, c.wire_size) }
}

/// `union result switch (int tag)` of `flick.x`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CResult {
    /// `case 0: int ival;`
    Int(i32),
    /// `case 1: string sval<>;`
    Str(String),
    /// `case 2: void;`
    Void,
    /// `default: rect other;` — `tag` must not be 0, 1 or 2.
    Other {
        /// The discriminant actually on the wire.
        tag: i32,
        /// `[a.x, a.y, b.x, b.y]`.
        rect: [i32; 4],
    },
}

/// Encodes a `union result` with the generated `xdr_result`.
///
/// # Panics
///
/// If a `Str` contains NUL, or if `Other`'s tag is 0, 1 or 2 (those tags
/// select other arms; the C encoder would read the wrong union member).
pub fn encode_result(v: &CResult) -> Vec<u8> {
    let mut strings = CStrings::new(match v {
        CResult::Str(s) => Some(s.as_str()),
        _ => None,
    });
    let (obj, size) = match v {
        CResult::Int(i) => (
            ffi::Result {
                tag: 0,
                u: ffi::ResultU { ival: *i },
            },
            8,
        ),
        CResult::Str(s) => (
            ffi::Result {
                tag: 1,
                u: ffi::ResultU {
                    sval: strings.ptrs.pop().expect("one string"),
                },
            },
            4 + xdr_str_size(s.len()),
        ),
        CResult::Void => (
            ffi::Result {
                tag: 2,
                u: ffi::ResultU { other: [0; 4] },
            },
            4,
        ),
        CResult::Other { tag, rect } => {
            assert!(
                !(0..=2).contains(tag),
                "rpcgen-peer: CResult::Other needs a tag other than 0, 1, 2 (got {tag})"
            );
            (
                ffi::Result {
                    tag: *tag,
                    u: ffi::ResultU { other: *rect },
                },
                4 + 16,
            )
        }
    };
    // SAFETY: the union member selected by `obj.tag` is the one initialised
    // above (tag 0: ival; 1: sval; 2: none read; any other: other, the
    // default arm), and `sval` points to a NUL-terminated string owned by
    // `strings`, which outlives the call.
    unsafe { encode_exact(&obj, size) }
}

/// Encodes an `entry_list`: `head -> entry -> ... -> NULL`, one entry per
/// element of `v`, in order, with the generated `xdr_entry_list`.
///
/// # Stack use
///
/// rpcgen's `xdr_entry` recurses through `xdr_pointer`/`xdr_reference` once
/// per element, on the C stack of the calling thread; the same holds for
/// [`decode_list`] and the `xdr_free` it runs. With this build (gcc -O2,
/// libtirpc 1.3.3, x86-64) that was measured at about 145 bytes per element
/// (1 MiB of stack held ~7,200 elements, 256 KiB ~1,750), so a
/// 10,000-element list needs about 1.5 MB: it fits the 2 MiB default of
/// spawned Rust threads, and the 8 MiB main thread holds roughly 55,000.
/// Longer lists need a thread with a larger stack; overflowing it aborts the
/// process (stack overflow is caught by the guard page, not UB).
///
/// # Panics
///
/// If a name contains NUL.
pub fn encode_list(v: &[(i32, String)]) -> Vec<u8> {
    let names = CStrings::new(v.iter().map(|(_, s)| s.as_str()));
    let n = v.len();
    let mut nodes: Vec<ffi::Entry> = Vec::with_capacity(n);
    // Capacity is reserved up front, so the pushes below never reallocate and
    // `base` stays the address of `nodes`' buffer.
    let base = nodes.as_mut_ptr();
    for (i, ((id, _), &name)) in v.iter().zip(&names.ptrs).enumerate() {
        let next = if i + 1 < n {
            base.wrapping_add(i + 1)
        } else {
            ptr::null_mut()
        };
        nodes.push(ffi::Entry {
            id: *id,
            name,
            next,
        });
    }
    assert_eq!(nodes.as_mut_ptr(), base, "nodes were reallocated");
    let list = ffi::EntryList {
        head: if n == 0 { ptr::null_mut() } else { base },
    };
    let size = 4 + v
        .iter()
        .map(|(_, s)| 4 + 4 + xdr_str_size(s.len()))
        .sum::<usize>();
    // SAFETY: `list.head` is NULL or points to `nodes[0]`; each `nodes[i].next`
    // points to `nodes[i + 1]` (all initialised, same allocation, not
    // reallocated as asserted above) and the last is NULL, so the chain is
    // NULL-terminated and acyclic; every `name` points to a NUL-terminated
    // string in `names`. `nodes` and `names` outlive the call and are not
    // touched during it.
    unsafe { encode_exact(&list, size) }
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

/// A value filled in by a generated decoder. Invariant: every non-NULL
/// pointer reachable from it was allocated and initialised by that decoder
/// (libtirpc's `mem_alloc`), lives until `drop`, which releases it with the
/// generated routine in `XDR_FREE` mode; array pointers are valid for their
/// `len` elements; strings are NUL-terminated; `entry.next` chains are
/// NULL-terminated.
struct Decoded<T: CType>(T);

impl<T: CType> Drop for Decoded<T> {
    fn drop(&mut self) {
        // SAFETY: `self.0` started as `T::empty()` and was only written by
        // `T::DECODE` (successful or not); the generated routines in XDR_FREE
        // mode free exactly what the decoder allocated (a failed decode leaves
        // NULLs or zero-filled elements, which XDR_FREE skips) and reset the
        // pointers to NULL. Nothing borrowed from `self` outlives this call.
        unsafe { (T::FREE)(&mut self.0) }
    }
}

/// Runs the generated decoder; `None` unless it returned TRUE and consumed
/// exactly `buf.len()` bytes.
fn decode_c<T: CType>(buf: &[u8]) -> Option<Decoded<T>> {
    let len = c_uint::try_from(buf.len()).ok()?;
    let mut d = Decoded(T::empty());
    let mut pos: c_uint = 0;
    // SAFETY: `d.0` is `T::empty()` (all pointers NULL), as the decoder
    // requires; `buf` is valid for reads of `len` bytes for the call and the
    // decoder never writes to it; `pos` is a valid local; the decoder keeps no
    // pointer to `buf`, `d.0` or `pos` after returning. Whatever it allocated
    // is owned by `d` and freed by its `Drop`, also on the early return below.
    let ok = unsafe { (T::DECODE)(&mut d.0, buf.as_ptr().cast(), len, &mut pos) };
    (ok != 0 && pos == len).then_some(d)
}

/// Rejects input whose leading array count cannot possibly fit in `buf`, so
/// that hostile counts cannot make the generated decoder allocate (and zero)
/// gigabytes before failing.
fn array_count_fits(buf: &[u8], min_elem_size: u64) -> bool {
    match buf.first_chunk::<4>() {
        Some(hdr) => u64::from(u32::from_be_bytes(*hdr)) * min_elem_size <= (buf.len() - 4) as u64,
        None => true, // too short: the decoder fails on its own
    }
}

/// The elements of a decoded array.
///
/// # Safety
///
/// If `len > 0` and `p` is non-NULL, `p` must be valid for reads of `len`
/// initialised elements for `'a`.
unsafe fn decoded_slice<'a, T>(p: *const T, len: c_uint) -> Option<&'a [T]> {
    if len == 0 {
        Some(&[])
    } else if p.is_null() {
        None
    } else {
        // SAFETY: forwarded precondition; `len as usize` is lossless (u32 to
        // usize on every supported target).
        Some(unsafe { slice::from_raw_parts(p, len as usize) })
    }
}

/// A decoded C string as a Rust `String`; `None` if NULL or not UTF-8.
///
/// # Safety
///
/// If non-NULL, `p` must point to a NUL-terminated string valid for reads for
/// the duration of the call.
unsafe fn decoded_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        // libtirpc's xdr_string "succeeds" without allocating for a length
        // of 0xFFFFFFFF when the bound is ~0; treat that as invalid.
        return None;
    }
    // SAFETY: forwarded precondition.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().ok().map(str::to_owned)
}

/// Decodes an `int_array` with the generated `xdr_int_array`.
pub fn decode_ints(buf: &[u8]) -> Option<Vec<i32>> {
    if !array_count_fits(buf, 4) {
        return None;
    }
    let d = decode_c::<ffi::IntArray>(buf)?;
    // SAFETY: by `Decoded`'s invariant, a non-NULL `val` holds `len`
    // initialised ints allocated by the decoder, alive while `d` is.
    let ints = unsafe { decoded_slice(d.0.val, d.0.len) }?;
    Some(ints.to_vec())
}

/// Decodes a `rect_array` with the generated `xdr_rect_array`.
pub fn decode_rects(buf: &[u8]) -> Option<Vec<[i32; 4]>> {
    if !array_count_fits(buf, 16) {
        return None;
    }
    let d = decode_c::<ffi::RectArray>(buf)?;
    // SAFETY: by `Decoded`'s invariant, a non-NULL `val` holds `len`
    // initialised rects allocated by the decoder, alive while `d` is.
    let rects = unsafe { decoded_slice(d.0.val, d.0.len) }?;
    Some(rects.to_vec())
}

/// Decodes a `dirent_array` with the generated `xdr_dirent_array`.
/// `None` also if a name is not UTF-8.
pub fn decode_dirents(buf: &[u8]) -> Option<Vec<Dirent>> {
    if !array_count_fits(buf, 4 + 30 * 4 + 16) {
        return None;
    }
    let d = decode_c::<ffi::DirentArray>(buf)?;
    // SAFETY: by `Decoded`'s invariant, a non-NULL `val` holds `len`
    // initialised dirents allocated by the decoder, alive while `d` is.
    let items = unsafe { decoded_slice(d.0.val, d.0.len) }?;
    items
        .iter()
        .map(|it| {
            // SAFETY: by `Decoded`'s invariant `it.name` is NULL or a
            // NUL-terminated string allocated by the decoder, alive while `d`
            // is.
            let name = unsafe { decoded_string(it.name) }?;
            Some(Dirent {
                name,
                ints: it.ints,
                chars: it.chars,
            })
        })
        .collect()
}

/// Decodes a `union result` with the generated `xdr_result`.
/// `None` also if a string is not UTF-8.
pub fn decode_result(buf: &[u8]) -> Option<CResult> {
    let d = decode_c::<ffi::Result>(buf)?;
    let r = &d.0;
    Some(match r.tag {
        0 => {
            // SAFETY: for tag 0 the decoder wrote `ival`; and any bit pattern
            // of the (fully initialised, see `empty`) union is a valid int.
            CResult::Int(unsafe { r.u.ival })
        }
        1 => {
            // SAFETY: for tag 1 the decoder wrote `sval` (or left the NULL
            // from `empty`); any initialised pointer-sized bytes are a valid
            // raw pointer.
            let p = unsafe { r.u.sval };
            // SAFETY: by `Decoded`'s invariant `p` is NULL or a NUL-terminated
            // string allocated by the decoder, alive while `d` is.
            CResult::Str(unsafe { decoded_string(p) }?)
        }
        2 => CResult::Void,
        tag => {
            // SAFETY: for the default arm the decoder wrote `other`; any bit
            // pattern of the initialised union is a valid `[c_int; 4]`.
            let rect = unsafe { r.u.other };
            CResult::Other { tag, rect }
        }
    })
}

/// Decodes an `entry_list` with the generated `xdr_entry_list`, returning
/// the entries from `head` on. `None` also if a name is not UTF-8.
/// See [`encode_list`] about C stack use.
pub fn decode_list(buf: &[u8]) -> Option<Vec<(i32, String)>> {
    let d = decode_c::<ffi::EntryList>(buf)?;
    let mut out = Vec::new();
    let mut p: *const ffi::Entry = d.0.head;
    while !p.is_null() {
        // SAFETY: by `Decoded`'s invariant every non-NULL `head`/`next` points
        // to an initialised entry allocated by the decoder (xdr_reference),
        // alive while `d` is; the chain is NULL-terminated because the decoder
        // allocated each node fresh.
        let e = unsafe { &*p };
        // SAFETY: by `Decoded`'s invariant `e.name` is NULL or a
        // NUL-terminated string allocated by the decoder, alive while `d` is.
        let name = unsafe { decoded_string(e.name) }?;
        out.push((e.id, name));
        p = e.next;
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// Benchmark decoders
// ---------------------------------------------------------------------------

macro_rules! bench_decode {
    ($(#[$doc:meta])* $name:ident, $glue:ident) => {
        $(#[$doc])*
        ///
        /// Decodes into a zeroed C struct with the generated routine (which
        /// mallocs arrays and strings), then `xdr_free`s it. Returns whether
        /// the generated decoder returned TRUE; unlike the `decode_*`
        /// functions it does not check that all of `buf` was consumed and does
        /// not guard against huge array counts, so feed it trusted input.
        pub fn $name(buf: &[u8]) -> bool {
            let Ok(len) = c_uint::try_from(buf.len()) else {
                return false;
            };
            // SAFETY: `buf` is valid for reads of `len` bytes for the call and
            // is never written; the C side decodes into its own zeroed local,
            // frees everything it allocated and keeps no pointer to `buf`.
            unsafe { ffi::$glue(buf.as_ptr().cast(), len) != 0 }
        }
    };
}

bench_decode!(
    /// `xdr_int_array` decode + `xdr_free`, for benchmarks.
    bench_decode_ints,
    glue_bench_decode_int_array
);
bench_decode!(
    /// `xdr_rect_array` decode + `xdr_free`, for benchmarks.
    bench_decode_rects,
    glue_bench_decode_rect_array
);
bench_decode!(
    /// `xdr_dirent_array` decode + `xdr_free`, for benchmarks.
    bench_decode_dirents,
    glue_bench_decode_dirent_array
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Same order as `glue_layout` in glue.c.
    fn rust_layout() -> Vec<usize> {
        use ffi::*;
        let int = size_of::<c_int>();
        vec![
            size_of::<IntArray>(),
            align_of::<IntArray>(),
            offset_of!(IntArray, len),
            offset_of!(IntArray, val),
            size_of::<Rect>(),
            align_of::<Rect>(),
            0,
            int,
            2 * int,
            3 * int,
            size_of::<RectArray>(),
            align_of::<RectArray>(),
            offset_of!(RectArray, len),
            offset_of!(RectArray, val),
            size_of::<Dirent>(),
            align_of::<Dirent>(),
            offset_of!(Dirent, name),
            offset_of!(Dirent, ints),
            offset_of!(Dirent, chars),
            size_of::<DirentArray>(),
            align_of::<DirentArray>(),
            offset_of!(DirentArray, len),
            offset_of!(DirentArray, val),
            size_of::<Result>(),
            align_of::<Result>(),
            offset_of!(Result, tag),
            offset_of!(Result, u) + offset_of!(ResultU, ival),
            offset_of!(Result, u) + offset_of!(ResultU, sval),
            offset_of!(Result, u) + offset_of!(ResultU, other),
            size_of::<Entry>(),
            align_of::<Entry>(),
            offset_of!(Entry, id),
            offset_of!(Entry, name),
            offset_of!(Entry, next),
            size_of::<EntryList>(),
            align_of::<EntryList>(),
            offset_of!(EntryList, head),
        ]
    }

    #[test]
    fn layout_matches_c() {
        let rust = rust_layout();
        let mut c = vec![0usize; 64];
        // SAFETY: `c` is valid for writes of `c.len()` usizes; glue_layout
        // writes at most that many and keeps no pointer.
        let n = unsafe { ffi::glue_layout(c.as_mut_ptr(), c.len()) };
        assert!(n <= c.len());
        c.truncate(n);
        assert_eq!(rust, c);
    }

    #[test]
    fn array_count_guard() {
        assert!(array_count_fits(&[], 4));
        assert!(array_count_fits(&[0, 0, 0, 1, 0, 0, 0, 5], 4));
        assert!(!array_count_fits(&[0, 0, 0, 2, 0, 0, 0, 5], 4));
        assert!(!array_count_fits(&[0xff, 0xff, 0xff, 0xff], 4));
    }
}
