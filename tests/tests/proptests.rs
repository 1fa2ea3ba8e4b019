//! Property tests of the XDR encoders and decoders: round trips of standard and derived types,
//! hostile and mutated input, borrowed decoding, and allocation bounds for huge lengths.
//!
//! Tests named `regression_*` reproduce library bugs found while writing these tests (now
//! fixed); a C-like enum value wider than 32 bits is a compile error (`ui/c_enum_value_too_wide.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::any::type_name;
use std::cell::Cell;
use std::fmt::Debug;
use std::marker::PhantomData;

use bytes::{BufMut, Bytes, BytesMut};
use marshal::xdr::{encode_into, from_slice, size_class, to_vec, Decode, Encode};
use marshal::{ErrorKind, Marshal, SizeClass};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use workloads::{DirEntry, EntryList, Point, Rect, Stat, XResult};

// ---------------------------------------------------------------------------------------------
// A counting allocator: records the largest single allocation made by the current thread while
// tracking is on. Thread-local, so the test harness's other threads do not disturb it.

struct Counting;

thread_local! {
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(size: usize) {
    // `try_with`: allocations during thread teardown must not panic.
    let _ = TRACKING.try_with(|on| {
        if on.get() {
            let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
        }
    });
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the only
// extra work is updating two thread-local `Cell`s, which never allocates or unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: forwarded with the caller's guarantees about `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: forwarded with the caller's guarantees about `layout`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc(new_size);
        // SAFETY: forwarded with the caller's guarantees about `ptr`, `layout` and `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees about `ptr` and `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f`, returning its result and the largest single allocation it made on this thread.
fn largest_alloc_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|m| m.set(0));
    TRACKING.with(|t| t.set(true));
    let r = f();
    TRACKING.with(|t| t.set(false));
    (r, LARGEST.with(Cell::get))
}

// ---------------------------------------------------------------------------------------------
// Derived test types.

/// An XDR enum with explicit values, negative and extreme ones included.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq)]
enum Color {
    Zero = 0,
    Red = 1,
    Green = 2,
    Blue = -7,
    Max = 2_147_483_647,
    Min = -2_147_483_648,
}

const COLORS: [Color; 6] = [
    Color::Zero,
    Color::Red,
    Color::Green,
    Color::Blue,
    Color::Max,
    Color::Min,
];

/// The body of `Shape`'s default arm.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Body {
    n: u16,
    #[marshal(max_len = 32)]
    data: Vec<u8>,
}

/// A union with negative and extreme tags, unit, tuple and struct arms, and a default arm.
#[derive(Marshal, Debug, Clone, PartialEq)]
enum Shape {
    #[marshal(tag = -1)]
    Empty,
    #[marshal(tag = 0)]
    Circle(u32),
    #[marshal(tag = 7)]
    Poly {
        pts: Vec<Point>,
        #[marshal(max_len = 16)]
        label: String,
    },
    #[marshal(tag = 2147483647)]
    Max(bool, Color),
    #[marshal(tag = -2147483648)]
    Min([u8; 3]),
    #[marshal(default)]
    Other(i32, Body),
}

const SHAPE_TAGS: [i32; 5] = [-1, 0, 7, i32::MAX, i32::MIN];

/// A union whose default arm has no body.
#[derive(Marshal, Debug, Clone, PartialEq)]
enum Code {
    #[marshal(tag = 1)]
    A,
    #[marshal(tag = 2)]
    B(u64),
    #[marshal(default)]
    Unknown(i32),
}

const CODE_TAGS: [i32; 2] = [1, 2];

/// A union with implicit tags (the variant index) and one explicit tag; recursive.
#[derive(Marshal, Debug, Clone, PartialEq)]
enum Indexed {
    A(u8),
    B,
    C(String),
    #[marshal(tag = 10)]
    D(Option<Box<Indexed>>),
}

/// A union whose arms all have one size: its class is `Fixed` (the one-chunk path).
#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
enum FixedU {
    #[marshal(tag = 1)]
    A(u32),
    #[marshal(tag = 2)]
    B(i32),
    #[marshal(default)]
    Other(i32, u32),
}

/// A generic struct.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Pair<T> {
    a: T,
    b: T,
}

/// A tuple struct.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Id(u32, #[marshal(max_len = 4)] Vec<u8>, Color);

/// A unit struct (zero bytes on the wire).
#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
struct Nothing;

/// Flat words of 8 bytes (arrays of it are one byte-swap pass).
#[derive(Marshal, Debug, Clone, Copy)]
struct Wide64 {
    a: u64,
    b: i64,
    c: f64,
}

/// Flat words of 4 bytes, floats included.
#[derive(Marshal, Debug, Clone, Copy)]
struct Mix4 {
    a: f32,
    b: u32,
    c: i32,
}

/// Every kind of field.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct AllKinds {
    i: i32,
    u: u32,
    h: i64,
    uh: u64,
    f: f32,
    d: f64,
    flag: bool,
    small: i8,
    byte: u8,
    short: i16,
    ushort: u16,
    #[marshal(max_len = 64)]
    name: String,
    #[marshal(max_len = 8)]
    few: Vec<u32>,
    fixed3: [u8; 3],
    ints: [i32; 4],
    opaque: Vec<u8>,
    #[marshal(max_len = 5)]
    opaque5: Vec<u8>,
    blob: Bytes,
    #[marshal(max_len = 6)]
    blob6: Bytes,
    maybe: Option<u32>,
    boxed: Option<Box<Rect>>,
    plain_box: Box<Point>,
    nested: Vec<Vec<u16>>,
    strings: Vec<String>,
    tuple: (u8, String, bool),
    color: Color,
    shape: Shape,
    pair: Pair<u64>,
    id: Id,
    unit: (),
    phantom: PhantomData<String>,
    nothing: Nothing,
    last: i32,
}

/// `max_len` bounds, and their unbounded twin with the same wire shape.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Tight {
    #[marshal(max_len = 8)]
    v: Vec<u32>,
    #[marshal(max_len = 64)]
    s: String,
    #[marshal(max_len = 5)]
    o: Vec<u8>,
}

#[derive(Marshal, Debug, Clone, PartialEq)]
struct Loose {
    v: Vec<u32>,
    s: String,
    o: Vec<u8>,
}

/// Fields that borrow from the input.
#[derive(Marshal, Debug, PartialEq)]
struct Borrowed<'a> {
    s: &'a str,
    b: &'a [u8],
    #[marshal(max_len = 16)]
    short: &'a str,
    n: u32,
}

/// A borrowed field next to a type parameter.
#[derive(Marshal, Debug, PartialEq)]
struct BorrowedPair<'a, T> {
    name: &'a str,
    v: T,
}

/// Plain recursion (the link is not the last field): depth-limited.
#[derive(Marshal, Debug, PartialEq)]
struct Chain {
    next: Option<Box<Chain>>,
    v: i32,
}

/// Recursion through a union.
#[derive(Marshal, Debug, Clone, PartialEq)]
enum Expr {
    #[marshal(tag = 0)]
    Lit(i32),
    #[marshal(tag = 1)]
    Neg(Box<Expr>),
    #[marshal(tag = 2)]
    Add(Box<Expr>, Box<Expr>),
}

/// A binary tree: the last field is `Option<Box<Self>>`, so the derive walks `right` with a
/// loop (an optional-data list); `left` is ordinary recursion.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Node {
    v: i32,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

/// Optional-data lists in other spellings: generic, `Self`, tuple struct, with a `max_len`.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct GList<T> {
    v: T,
    next: Option<Box<GList<T>>>,
}

#[derive(Marshal, Debug, Clone, PartialEq)]
struct SelfList {
    #[marshal(max_len = 8)]
    s: String,
    next: Option<Box<Self>>,
}

#[derive(Marshal, Debug, Clone, PartialEq)]
struct TupleList(i16, Option<Box<TupleList>>);

/// A list node with no data besides its link.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct OnlyLink {
    next: Option<Box<OnlyLink>>,
}

/// Empty structs, and a raw identifier as a field name.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct EmptyNamed {}

#[derive(Marshal, Debug, Clone, PartialEq)]
struct EmptyTuple();

#[derive(Marshal, Debug, Clone, PartialEq)]
struct Raw {
    r#type: u32,
    r#in: Vec<EmptyNamed>,
    t: EmptyTuple,
}

/// A generic union.
#[derive(Marshal, Debug, Clone, PartialEq)]
enum Maybe<T> {
    #[marshal(tag = 5)]
    Just(T),
    #[marshal(tag = 6)]
    Nope,
}

/// A type with no XDR encoding, used only inside `PhantomData`.
#[derive(Debug, Clone, PartialEq)]
struct NotMarshal;

/// A type parameter seen only in `PhantomData` gets no bound.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Tagged<T> {
    id: u32,
    _m: PhantomData<T>,
}

/// A type that implements `Drop`, as a field, in a union arm and in a sequence.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Guarded {
    v: u32,
    s: String,
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.v = 0;
    }
}

#[derive(Marshal, Debug, Clone, PartialEq)]
enum GuardedU {
    #[marshal(tag = 1)]
    One(Guarded),
    #[marshal(tag = 2)]
    Many { g: Vec<Guarded>, n: u8 },
}

/// Borrowed data in union arms, the default arm included.
#[derive(Marshal, Debug, PartialEq)]
enum BorrowedU<'a> {
    #[marshal(tag = 1)]
    S(&'a str),
    #[marshal(default)]
    Other(i32, &'a [u8]),
}

// ---------------------------------------------------------------------------------------------
// Checks.

fn cfg() -> ProptestConfig {
    cases(256)
}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        // Keep the source tree clean: no `proptest-regressions` files.
        failure_persistence: None,
        ..ProptestConfig::with_cases(n)
    }
}

fn fail(what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(what.to_string())
}

/// The full round-trip check: encodes with every entry point, decodes, compares with `same`,
/// re-encodes byte-identically, checks the size class and that the decoder consumed exactly
/// the encoded bytes.
fn check_with<T>(v: &T, same: impl Fn(&T, &T) -> bool) -> Result<Vec<u8>, TestCaseError>
where
    T: Encode + for<'de> Decode<'de> + Debug,
{
    let name = type_name::<T>();
    let bytes = to_vec(v).map_err(|e| fail(format!("{name}: encoding {v:?}: {e}")))?;
    prop_assert_eq!(bytes.len() % 4, 0, "{}: length not a multiple of 4", name);

    // Size class: the encoder's and the decoder's agree, and the length respects it.
    let class = size_class::<T>();
    prop_assert_eq!(
        class,
        <T as Decode<'_>>::SIZE,
        "{}: Encode/Decode SIZE",
        name
    );
    match class {
        SizeClass::Fixed(n) => prop_assert_eq!(bytes.len(), n, "{}: Fixed", name),
        SizeClass::Bounded(n) => prop_assert!(bytes.len() <= n, "{}: Bounded({})", name, n),
        SizeClass::Unbounded => {}
    }

    // `encode_into` writes the same bytes, appended after what the buffer holds, through the
    // in-place path (enough room) and the fallback (a fresh `BytesMut`, or little room).
    for cap in [0, 3, bytes.len() + 3, bytes.len() + 64] {
        let mut buf = BytesMut::with_capacity(cap);
        buf.put_slice(b"pre");
        encode_into(v, &mut buf).map_err(|e| fail(format!("{name}: encode_into: {e}")))?;
        prop_assert_eq!(&buf[..3], b"pre");
        prop_assert_eq!(&buf[3..], &bytes[..], "{}: encode_into (cap {})", name, cap);
    }
    let mut out = vec![9u8];
    encode_into(v, &mut out).map_err(|e| fail(format!("{name}: encode_into Vec: {e}")))?;
    prop_assert_eq!(&out[1..], &bytes[..]);
    // Into a slice of exactly the right size; one byte less is an error.
    let mut exact = vec![0u8; bytes.len()];
    encode_into(v, &mut &mut exact[..]).map_err(|e| fail(format!("{name}: into slice: {e}")))?;
    prop_assert_eq!(&exact, &bytes);
    if !bytes.is_empty() {
        let mut short = vec![0u8; bytes.len() - 1];
        prop_assert!(encode_into(v, &mut &mut short[..]).is_err());
    }

    let back: T = from_slice(&bytes).map_err(|e| fail(format!("{name}: decoding {v:?}: {e}")))?;
    prop_assert!(same(v, &back), "{}: {:?} came back as {:?}", name, v, back);
    let again = to_vec(&back).map_err(|e| fail(format!("{name}: re-encoding: {e}")))?;
    prop_assert_eq!(&again, &bytes, "{}: re-encoding differs", name);

    // The decoder consumes exactly the encoding: four more bytes are reported as trailing, at
    // the end of the encoding.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[1, 2, 3, 4]);
    match from_slice::<T>(&longer) {
        Ok(x) => return Err(fail(format!("{name}: decoded {x:?} with 4 trailing bytes"))),
        Err(e) => {
            prop_assert_eq!(e.kind(), &ErrorKind::TrailingBytes { count: 4 }, "{}", name);
            prop_assert_eq!(e.offset(), Some(bytes.len()), "{}", name);
        }
    }
    Ok(bytes)
}

fn check<T>(v: &T) -> Result<Vec<u8>, TestCaseError>
where
    T: Encode + for<'de> Decode<'de> + Debug + PartialEq,
{
    check_with(v, T::eq)
}

/// Decoding arbitrary bytes must not panic; if it succeeds, the bytes are the value's encoding
/// (XDR is canonical: padding, booleans, discriminants and lengths each have one encoding).
fn hostile<'a, T>(bytes: &'a [u8]) -> Result<(), TestCaseError>
where
    T: Decode<'a> + Encode + Debug,
{
    if let Ok(v) = from_slice::<T>(bytes) {
        let again = to_vec(&v).map_err(|e| {
            fail(format!(
                "{}: {v:?} decoded but does not encode: {e}",
                type_name::<T>()
            ))
        })?;
        prop_assert_eq!(
            &again[..],
            bytes,
            "{}: decoded {:?} from bytes that are not its encoding",
            type_name::<T>(),
            v
        );
    }
    Ok(())
}

macro_rules! hostile_all {
    ($bytes:expr; $($t:ty),* $(,)?) => {{
        let bytes: &[u8] = $bytes;
        $(hostile::<$t>(bytes)?;)*
    }};
}

/// Decodes `bytes` (a valid encoding of a `T`) with one byte changed and truncated: never a
/// panic; a truncation is always an error; a successful decode of the changed bytes is
/// canonical.
fn mutated<T>(bytes: &[u8], at: Index, xor: u8, cut: Index) -> Result<(), TestCaseError>
where
    T: for<'de> Decode<'de> + Encode + Debug,
{
    if bytes.is_empty() {
        return Ok(());
    }
    let mut flipped = bytes.to_vec();
    flipped[at.index(bytes.len())] ^= xor;
    hostile::<T>(&flipped)?;
    let n = cut.index(bytes.len());
    if let Ok(v) = from_slice::<T>(&bytes[..n]) {
        return Err(fail(format!(
            "{}: decoded {v:?} from the first {n} of {} bytes",
            type_name::<T>(),
            bytes.len()
        )));
    }
    Ok(())
}

fn same_f64(a: &f64, b: &f64) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_f32(a: &f32, b: &f32) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_wide64(a: &Wide64, b: &Wide64) -> bool {
    a.a == b.a && a.b == b.b && same_f64(&a.c, &b.c)
}

fn same_mix4(a: &Mix4, b: &Mix4) -> bool {
    same_f32(&a.a, &b.a) && a.b == b.b && a.c == b.c
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

// ---------------------------------------------------------------------------------------------
// Strategies.

/// Every `f64` bit pattern, NaNs with payloads included, plus proptest's special values.
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![any::<u64>().prop_map(f64::from_bits), any::<f64>()]
}

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![any::<u32>().prop_map(f32::from_bits), any::<f32>()]
}

fn no_nan_f64() -> impl Strategy<Value = f64> {
    use proptest::num::f64::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

fn no_nan_f32() -> impl Strategy<Value = f32> {
    use proptest::num::f32::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

/// Unicode strings of at most `max_chars` characters (at most `4 * max_chars` bytes).
fn text(max_chars: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("\\PC{{0,{max_chars}}}")).expect("valid regex")
}

fn color() -> impl Strategy<Value = Color> {
    proptest::sample::select(&COLORS[..])
}

fn point() -> impl Strategy<Value = Point> {
    (any::<i32>(), any::<i32>()).prop_map(|(x, y)| Point { x, y })
}

fn rect() -> impl Strategy<Value = Rect> {
    (point(), point()).prop_map(|(a, b)| Rect { a, b })
}

fn bytes_upto(n: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..=n)
}

fn body() -> impl Strategy<Value = Body> {
    (any::<u16>(), bytes_upto(32)).prop_map(|(n, data)| Body { n, data })
}

/// A discriminant that is none of `taken`; biased towards the neighbours of taken ones.
fn free_tag(taken: &'static [i32]) -> impl Strategy<Value = i32> {
    let near: Vec<i32> = taken
        .iter()
        .flat_map(|t| [t.wrapping_sub(1), t.wrapping_add(1)])
        .filter(|t| !taken.contains(t))
        .collect();
    prop_oneof![proptest::sample::select(near), any::<i32>()]
        .prop_filter("a tagged variant's discriminant", move |d| {
            !taken.contains(d)
        })
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<u32>().prop_map(Shape::Circle),
        (vec(point(), 0..4), text(4)).prop_map(|(pts, label)| Shape::Poly { pts, label }),
        (any::<bool>(), color()).prop_map(|(b, c)| Shape::Max(b, c)),
        any::<[u8; 3]>().prop_map(Shape::Min),
        (free_tag(&SHAPE_TAGS), body()).prop_map(|(d, b)| Shape::Other(d, b)),
    ]
}

fn code() -> impl Strategy<Value = Code> {
    prop_oneof![
        Just(Code::A),
        any::<u64>().prop_map(Code::B),
        free_tag(&CODE_TAGS).prop_map(Code::Unknown),
    ]
}

fn fixed_u() -> impl Strategy<Value = FixedU> {
    prop_oneof![
        any::<u32>().prop_map(FixedU::A),
        any::<i32>().prop_map(FixedU::B),
        (free_tag(&[1, 2]), any::<u32>()).prop_map(|(d, v)| FixedU::Other(d, v)),
    ]
}

fn indexed() -> impl Strategy<Value = Indexed> {
    let leaf = prop_oneof![
        any::<u8>().prop_map(Indexed::A),
        Just(Indexed::B),
        text(6).prop_map(Indexed::C),
        Just(Indexed::D(None)),
    ];
    leaf.prop_recursive(4, 16, 1, |inner| {
        inner.prop_map(|i| Indexed::D(Some(Box::new(i))))
    })
}

fn expr() -> impl Strategy<Value = Expr> {
    any::<i32>()
        .prop_map(Expr::Lit)
        .prop_recursive(6, 32, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| Expr::Neg(Box::new(e))),
                (inner.clone(), inner).prop_map(|(a, b)| Expr::Add(Box::new(a), Box::new(b))),
            ]
        })
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = any::<i32>().prop_map(|v| Node {
        v,
        left: None,
        right: None,
    });
    leaf.prop_recursive(5, 32, 2, |inner| {
        (
            any::<i32>(),
            proptest::option::of(inner.clone()),
            proptest::option::of(inner),
        )
            .prop_map(|(v, l, r)| Node {
                v,
                left: l.map(Box::new),
                right: r.map(Box::new),
            })
    })
}

fn glist<T: Debug + Clone>(
    elem: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = GList<T>> {
    (elem.clone(), vec(elem, 0..6)).prop_map(|(first, rest)| {
        let mut tail = None;
        for v in rest.into_iter().rev() {
            tail = Some(Box::new(GList { v, next: tail }));
        }
        GList {
            v: first,
            next: tail,
        }
    })
}

fn self_list() -> impl Strategy<Value = SelfList> {
    vec("[a-z]{0,8}", 1..6).prop_map(|ss| {
        let mut node: Option<Box<SelfList>> = None;
        for s in ss.into_iter().rev() {
            node = Some(Box::new(SelfList { s, next: node }));
        }
        *node.expect("at least one")
    })
}

fn tuple_list() -> impl Strategy<Value = TupleList> {
    vec(any::<i16>(), 1..6).prop_map(|vs| {
        let mut node: Option<Box<TupleList>> = None;
        for v in vs.into_iter().rev() {
            node = Some(Box::new(TupleList(v, node)));
        }
        *node.expect("at least one")
    })
}

fn guarded() -> impl Strategy<Value = Guarded> {
    (any::<u32>(), text(4)).prop_map(|(v, s)| Guarded { v, s })
}

fn guarded_u() -> impl Strategy<Value = GuardedU> {
    prop_oneof![
        guarded().prop_map(GuardedU::One),
        (vec(guarded(), 0..4), any::<u8>()).prop_map(|(g, n)| GuardedU::Many { g, n }),
    ]
}

fn id() -> impl Strategy<Value = Id> {
    (any::<u32>(), bytes_upto(4), color()).prop_map(|(a, b, c)| Id(a, b, c))
}

fn all_kinds() -> impl Strategy<Value = AllKinds> {
    let numbers = (
        any::<i32>(),
        any::<u32>(),
        any::<i64>(),
        any::<u64>(),
        no_nan_f32(),
        no_nan_f64(),
        any::<bool>(),
        any::<i8>(),
        any::<u8>(),
        any::<i16>(),
        any::<u16>(),
    );
    let sequences = (
        text(16),
        vec(any::<u32>(), 0..=8),
        any::<[u8; 3]>(),
        any::<[i32; 4]>(),
        bytes_upto(40),
        bytes_upto(5),
        bytes_upto(20).prop_map(Bytes::from),
        bytes_upto(6).prop_map(Bytes::from),
        vec(vec(any::<u16>(), 0..5), 0..5),
        vec(text(5), 0..4),
    );
    let others = (
        proptest::option::of(any::<u32>()),
        proptest::option::of(rect().prop_map(Box::new)),
        point().prop_map(Box::new),
        (any::<u8>(), text(5), any::<bool>()),
        color(),
        shape(),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| Pair { a, b }),
        id(),
        any::<i32>(),
    );
    (numbers, sequences, others).prop_map(
        |(
            (i, u, h, uh, f, d, flag, small, byte, short, ushort),
            (name, few, fixed3, ints, opaque, opaque5, blob, blob6, nested, strings),
            (maybe, boxed, plain_box, tuple, color, shape, pair, id, last),
        )| AllKinds {
            i,
            u,
            h,
            uh,
            f,
            d,
            flag,
            small,
            byte,
            short,
            ushort,
            name,
            few,
            fixed3,
            ints,
            opaque,
            opaque5,
            blob,
            blob6,
            maybe,
            boxed,
            plain_box,
            nested,
            strings,
            tuple,
            color,
            shape,
            pair,
            id,
            unit: (),
            phantom: PhantomData,
            nothing: Nothing,
            last,
        },
    )
}

/// Names of at most 255 bytes (the `string<255>`), some of exactly 255.
fn dirent_name() -> impl Strategy<Value = String> {
    prop_oneof![
        text(63),
        proptest::string::string_regex("[a-z0-9._-]{255}").expect("valid regex"),
        proptest::string::string_regex("[a-z]{0,255}").expect("valid regex"),
    ]
}

fn dir_entry() -> impl Strategy<Value = DirEntry> {
    (dirent_name(), any::<[i32; 30]>(), any::<[u8; 16]>()).prop_map(|(name, ints, chars)| {
        DirEntry {
            name,
            st: Stat { ints, chars },
        }
    })
}

fn xresult() -> impl Strategy<Value = XResult> {
    prop_oneof![
        any::<i32>().prop_map(XResult::Int),
        text(12).prop_map(XResult::Str),
        Just(XResult::Void),
        (free_tag(&[0, 1, 2]), rect()).prop_map(|(d, r)| XResult::Other(d, r)),
    ]
}

fn entry_list() -> impl Strategy<Value = EntryList> {
    vec((any::<i32>(), text(8)), 0..12).prop_map(|p| EntryList::from_pairs(&p))
}

/// Hostile input: random bytes, or words biased towards small lengths, flags, discriminants
/// and huge lengths (so that decoders get past their first field more often).
fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    let word = prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        0u32..=300,
        Just(u32::MAX),
        Just(0x8000_0000),
        Just(0xFFFF_FFF0),
        Just(0x7FFF_FFFF),
        any::<u32>(),
    ];
    prop_oneof![
        vec(any::<u8>(), 0..512),
        vec(word, 0..128).prop_map(|ws| words(&ws)),
    ]
}

// ---------------------------------------------------------------------------------------------
// Round trips.

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn round_trip_integers_and_bools(
        a in any::<i32>(), b in any::<u32>(), c in any::<i64>(), d in any::<u64>(),
        e in any::<i8>(), f in any::<u8>(), g in any::<i16>(), h in any::<u16>(),
        flag in any::<bool>(),
    ) {
        check(&a)?;
        check(&b)?;
        check(&c)?;
        check(&d)?;
        check(&e)?;
        check(&f)?;
        check(&g)?;
        check(&h)?;
        check(&flag)?;
        prop_assert_eq!(to_vec(&e).unwrap(), i32::from(e).to_be_bytes());
        prop_assert_eq!(to_vec(&h).unwrap(), u32::from(h).to_be_bytes());
        prop_assert_eq!(to_vec(&f).unwrap(), u32::from(f).to_be_bytes());
    }

    #[test]
    fn round_trip_floats_bit_exact(x in any_f64(), y in any_f32()) {
        check_with(&x, same_f64)?;
        check_with(&y, same_f32)?;
        prop_assert_eq!(to_vec(&x).unwrap(), x.to_bits().to_be_bytes());
        prop_assert_eq!(to_vec(&y).unwrap(), y.to_bits().to_be_bytes());
        check_with(&vec![x, -x], |a: &Vec<f64>, b: &Vec<f64>| {
            a.len() == b.len() && a.iter().zip(b).all(|(p, q)| same_f64(p, q))
        })?;
        check_with(&[y; 3], |a: &[f32; 3], b: &[f32; 3]| a.iter().zip(b).all(|(p, q)| same_f32(p, q)))?;
    }

    #[test]
    fn round_trip_strings_and_opaques(
        s in any::<String>(),
        o in vec(any::<u8>(), 0..300),
        a5 in any::<[u8; 5]>(),
    ) {
        let bytes = check(&s)?;
        prop_assert_eq!(bytes.len(), 4 + s.len().div_ceil(4) * 4);
        let bytes = check(&o)?;
        prop_assert_eq!(&bytes[..4], (o.len() as u32).to_be_bytes());
        prop_assert_eq!(&bytes[4..4 + o.len()], &o[..]);
        prop_assert!(bytes[4 + o.len()..].iter().all(|&p| p == 0));
        check(&Bytes::from(o.clone()))?;
        prop_assert_eq!(check(&a5)?.len(), 8);
        check(&(s, a5, Bytes::from(o)))?;
    }

    #[test]
    fn round_trip_sequences_options_tuples(
        vi in vec(any::<i32>(), 0..64),
        vu in vec(any::<u64>(), 0..64),
        o in proptest::option::of(any::<u32>()),
        os in proptest::option::of(any::<String>()),
        nested in vec(vec(any::<u16>(), 0..8), 0..8),
        strings in vec(any::<String>(), 0..8),
        opaques in vec(vec(any::<u8>(), 0..9), 0..8),
        t3 in any::<(u32, String, bool)>(),
        t2 in any::<(i8, u64)>(),
        bools in vec(any::<bool>(), 0..9),
        narrow in vec((any::<i8>(), any::<u16>()), 0..9),
        arr in any::<[i16; 3]>(),
    ) {
        prop_assert_eq!(check(&vi)?.len(), 4 + 4 * vi.len());
        prop_assert_eq!(check(&vu)?.len(), 4 + 8 * vu.len());
        check(&o)?;
        check(&os)?;
        check(&nested)?;
        check(&strings)?;
        check(&opaques)?;
        check(&t3)?;
        check(&t2)?;
        check(&bools)?;
        check(&narrow)?;
        check(&arr)?;
        check(&((t2, arr), o, Box::new(t3.0)))?;
        check(&[vi.clone(), vi])?;
        check(&[(); 3])?;
        check(&())?;
    }

    #[test]
    fn round_trip_derived(
        all in all_kinds(),
        c in color(),
        sh in shape(),
        co in code(),
        ix in indexed(),
        fu in fixed_u(),
        id in id(),
        pu in (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Pair { a, b }),
        ps in (text(6), text(6)).prop_map(|(a, b)| Pair { a, b }),
        pp in vec((point(), point()).prop_map(|(a, b)| Pair { a, b }), 0..6),
        pl in vec((any::<i64>(), any::<i64>()).prop_map(|(a, b)| Pair { a, b }), 0..6),
        p8 in vec((any::<u8>(), any::<u8>()).prop_map(|(a, b)| Pair { a, b }), 0..6),
        ex in expr(),
        nd in node(),
        n_nothing in 0usize..100,
        gl in glist(any::<u32>()),
        gs in glist("\\PC{0,3}"),
        sl in self_list(),
        tl in tuple_list(),
        mb in proptest::option::of(vec(any::<u16>(), 0..4)),
        gu in guarded_u(),
        links in 0usize..50,
        raw in (any::<u32>(), 0usize..5),
    ) {
        check(&all)?;
        prop_assert_eq!(check(&c)?.len(), 4);
        check(&sh)?;
        check(&co)?;
        check(&ix)?;
        prop_assert_eq!(check(&fu)?.len(), 8);
        check(&id)?;
        check(&pu)?;
        check(&ps)?;
        check(&pp)?;
        check(&pl)?;
        check(&p8)?;
        check(&ex)?;
        check(&nd)?;
        prop_assert_eq!(check(&vec![Nothing; n_nothing])?.len(), 4);
        check(&vec![all.clone(), all])?;
        check(&vec![sh.clone(), sh])?;
        check(&vec![c; 3])?;
        check(&gl)?;
        check(&gs)?;
        check(&sl)?;
        check(&tl)?;
        let mb = match mb {
            Some(v) => Maybe::Just(v),
            None => Maybe::Nope,
        };
        check(&mb)?;
        let t: Tagged<NotMarshal> = Tagged { id: pu.a, _m: PhantomData };
        prop_assert_eq!(check(&t)?.len(), 4);
        check(&gu)?;
        check(&vec![gu.clone(), gu])?;
        let mut only = OnlyLink { next: None };
        for _ in 0..links {
            only = OnlyLink { next: Some(Box::new(only)) };
        }
        prop_assert_eq!(check(&only)?.len(), 4 * (links + 1));
        let raw = Raw { r#type: raw.0, r#in: vec![EmptyNamed {}; raw.1], t: EmptyTuple() };
        prop_assert_eq!(check(&raw)?.len(), 8);
    }

    #[test]
    fn round_trip_flat_structs_bit_exact(
        w in vec((any::<u64>(), any::<i64>(), any_f64()).prop_map(|(a, b, c)| Wide64 { a, b, c }), 0..16),
        m in vec((any_f32(), any::<u32>(), any::<i32>()).prop_map(|(a, b, c)| Mix4 { a, b, c }), 0..16),
        r in vec(rect(), 0..16),
        a3 in vec(any::<[u32; 3]>(), 0..8),
        f2 in vec(any::<[u64; 2]>().prop_map(|[a, b]| [f64::from_bits(a), f64::from_bits(b)]), 0..8),
        ra in any::<[i32; 12]>(),
    ) {
        let bytes = check_with(&w, |a: &Vec<Wide64>, b: &Vec<Wide64>| {
            a.len() == b.len() && a.iter().zip(b).all(|(p, q)| same_wide64(p, q))
        })?;
        for (i, x) in w.iter().enumerate() {
            let at = 4 + 24 * i;
            prop_assert_eq!(&bytes[at..at + 8], x.a.to_be_bytes());
            prop_assert_eq!(&bytes[at + 8..at + 16], x.b.to_be_bytes());
            prop_assert_eq!(&bytes[at + 16..at + 24], x.c.to_bits().to_be_bytes());
        }
        let bytes = check_with(&m, |a: &Vec<Mix4>, b: &Vec<Mix4>| {
            a.len() == b.len() && a.iter().zip(b).all(|(p, q)| same_mix4(p, q))
        })?;
        for (i, x) in m.iter().enumerate() {
            let at = 4 + 12 * i;
            prop_assert_eq!(&bytes[at..at + 4], x.a.to_bits().to_be_bytes());
            prop_assert_eq!(&bytes[at + 4..at + 8], x.b.to_be_bytes());
            prop_assert_eq!(&bytes[at + 8..at + 12], x.c.to_be_bytes());
        }
        let bytes = check(&r)?;
        for (i, x) in r.iter().enumerate() {
            let at = 4 + 16 * i;
            prop_assert_eq!(&bytes[at..at + 16], words(&[x.a.x as u32, x.a.y as u32, x.b.x as u32, x.b.y as u32]));
        }
        let bytes = check(&a3)?;
        prop_assert_eq!(&bytes[4..], words(&a3.concat()));
        check_with(&f2, |a: &Vec<[f64; 2]>, b: &Vec<[f64; 2]>| {
            a.len() == b.len() && a.iter().flatten().zip(b.iter().flatten()).all(|(p, q)| same_f64(p, q))
        })?;
        let rects: [Rect; 3] = std::array::from_fn(|i| Rect {
            a: Point { x: ra[4 * i], y: ra[4 * i + 1] },
            b: Point { x: ra[4 * i + 2], y: ra[4 * i + 3] },
        });
        let bytes = check(&rects)?;
        prop_assert_eq!(&bytes, &to_vec(&ra).unwrap());
        let nested: [[i32; 2]; 6] = std::array::from_fn(|i| [ra[2 * i], ra[2 * i + 1]]);
        prop_assert_eq!(&check(&nested)?, &bytes);
    }

    #[test]
    fn round_trip_workloads(
        r in rect(),
        d in dir_entry(),
        ds in vec(dir_entry(), 0..4),
        x in xresult(),
        l in entry_list(),
    ) {
        prop_assert_eq!(check(&r)?.len(), 16);
        check(&d)?;
        check(&ds)?;
        check(&x)?;
        let bytes = to_vec(&l).unwrap();
        let back: EntryList = from_slice(&bytes).unwrap();
        prop_assert_eq!(back.to_pairs(), l.to_pairs());
        check(&l)?;
    }

    /// `max_len`: encoding fails past the bound; decoding the unbounded twin's encoding
    /// succeeds exactly when every length is within its bound.
    #[test]
    fn max_len_bounds(
        v in vec(any::<u32>(), 0..12),
        s in "[a-z]{0,70}",
        o in bytes_upto(8),
    ) {
        let within = v.len() <= 8 && s.len() <= 64 && o.len() <= 5;
        let loose = Loose { v: v.clone(), s: s.clone(), o: o.clone() };
        let tight = Tight { v, s, o };
        let wire = check(&loose)?;
        match to_vec(&tight) {
            Ok(bytes) => {
                prop_assert!(within);
                prop_assert_eq!(&bytes, &wire);
                check(&tight)?;
            }
            Err(e) => {
                prop_assert!(!within);
                prop_assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { .. }), "{}", e);
            }
        }
        match from_slice::<Tight>(&wire) {
            Ok(t) => {
                prop_assert!(within);
                prop_assert_eq!(t, tight);
            }
            Err(e) => {
                prop_assert!(!within);
                prop_assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { .. }), "{}", e);
            }
        }
    }

    /// The `default` arm keeps any discriminant that is not another arm's, byte for byte; a
    /// discriminant that is another arm's does not encode.
    #[test]
    fn default_arms(
        d in free_tag(&SHAPE_TAGS),
        taken in proptest::sample::select(&SHAPE_TAGS[..]),
        b in body(),
        dc in free_tag(&CODE_TAGS),
        tc in proptest::sample::select(&CODE_TAGS[..]),
        dx in free_tag(&[0, 1, 2]),
        tx in 0i32..3,
        r in rect(),
    ) {
        let v = Shape::Other(d, b.clone());
        let bytes = check(&v)?;
        prop_assert_eq!(&bytes[..4], d.to_be_bytes());
        prop_assert_eq!(&bytes[4..], &to_vec(&b).unwrap()[..]);
        taken_is_error(&Shape::Other(taken, b), taken)?;

        let bytes = check(&Code::Unknown(dc))?;
        prop_assert_eq!(bytes, dc.to_be_bytes());
        taken_is_error(&Code::Unknown(tc), tc)?;

        let bytes = check(&XResult::Other(dx, r))?;
        prop_assert_eq!(&bytes[..4], dx.to_be_bytes());
        taken_is_error(&XResult::Other(tx, r), tx)?;

        prop_assert_eq!(check(&FixedU::Other(dx.max(3), 5))?.len(), 8);
        taken_is_error(&FixedU::Other(1 + (tx & 1), 5), 1 + (tx & 1))?;
    }

    // -----------------------------------------------------------------------------------------
    // Borrowed decoding.

    #[test]
    fn borrowed_fields_point_into_the_input(
        s in any::<String>(),
        b in vec(any::<u8>(), 0..40),
        short in text(4),
        n in any::<u32>(),
    ) {
        let v = Borrowed { s: &s, b: &b, short: &short, n };
        let bytes = to_vec(&v).unwrap();
        let owned = to_vec(&(s.clone(), b.clone(), short.clone(), n)).unwrap();
        prop_assert_eq!(&bytes, &owned);
        let back: Borrowed<'_> = from_slice(&bytes).unwrap();
        prop_assert_eq!(&back, &v);
        let range = bytes.as_ptr_range();
        for (p, len) in [
            (back.s.as_ptr(), back.s.len()),
            (back.b.as_ptr(), back.b.len()),
            (back.short.as_ptr(), back.short.len()),
        ] {
            prop_assert!(range.start <= p && p.wrapping_add(len) <= range.end, "not borrowed from the input");
        }
        // The string sits right after its length prefix.
        prop_assert_eq!(back.s.as_ptr(), bytes[4..].as_ptr());

        let bp = BorrowedPair { name: &short, v: b.clone() };
        let bytes = to_vec(&bp).unwrap();
        let back: BorrowedPair<'_, Vec<u8>> = from_slice(&bytes).unwrap();
        prop_assert_eq!(&back, &bp);
        prop_assert_eq!(back.name.as_ptr(), bytes[4..].as_ptr());
        let wire = to_vec(&s).unwrap();
        let direct: &str = from_slice(&wire).unwrap();
        prop_assert_eq!(direct, &s[..]);

        for v in [BorrowedU::S(&s), BorrowedU::Other(n as i32 | 2, &b)] {
            let bytes = to_vec(&v).unwrap();
            let back: BorrowedU<'_> = from_slice(&bytes).unwrap();
            prop_assert_eq!(&back, &v);
            let p = match back {
                BorrowedU::S(s) => s.as_ptr(),
                BorrowedU::Other(_, b) => b.as_ptr(),
            };
            prop_assert_eq!(p, bytes[8..].as_ptr());
        }
    }
}

// Hostile input: cheap per case, so many more cases.
proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn hostile_input_never_panics(bytes in hostile_bytes()) {
        hostile_all!(&bytes;
            i32, u32, i64, u64, f32, f64, bool, i8, u8, i16, u16, (),
            String, Vec<u8>, [u8; 5], Bytes, Vec<i32>, Vec<u64>, Option<u32>, Vec<Vec<u16>>,
            Vec<String>, Vec<Vec<u8>>, Vec<bool>, Vec<i8>, Vec<Option<u32>>, [i16; 3],
            (u32, String, bool), (i8, u64), Box<u32>, &str, &[u8],
            AllKinds, Color, Shape, Code, Indexed, FixedU, Id, Nothing, Vec<Nothing>, Vec<()>,
            Pair<u32>, Pair<String>, Vec<Pair<u32>>, Vec<Pair<i64>>, Vec<Pair<u8>>,
            Tight, Loose, Borrowed<'_>, BorrowedPair<'_, Vec<u8>>, Chain, Expr, Node,
            Rect, Vec<Rect>, DirEntry, Vec<DirEntry>, XResult, Vec<XResult>, EntryList,
            Vec<Color>, Vec<Shape>, Vec<FixedU>, Option<Box<Shape>>,
            GList<u32>, GList<String>, SelfList, TupleList, Maybe<Vec<u16>>,
            Tagged<NotMarshal>, GuardedU, BorrowedU<'_>, OnlyLink, EmptyNamed, EmptyTuple, Raw,
        );
        // Floats and flat float structs are canonical too, but NaN != NaN: compare bytes only.
        hostile_all!(&bytes; Vec<f64>, Vec<f32>, Wide64, Mix4, Vec<Wide64>, Vec<Mix4>);
    }

    #[test]
    fn mutated_all_kinds(v in all_kinds(), at in any::<Index>(), x in 1u8..=255, cut in any::<Index>()) {
        mutated::<AllKinds>(&to_vec(&v).unwrap(), at, x, cut)?;
    }

    #[test]
    fn mutated_dirents(v in vec(dir_entry(), 1..3), at in any::<Index>(), x in 1u8..=255, cut in any::<Index>()) {
        mutated::<Vec<DirEntry>>(&to_vec(&v).unwrap(), at, x, cut)?;
    }

    #[test]
    fn mutated_unions(
        s in shape(), xr in xresult(), e in expr(), i in indexed(),
        at in any::<Index>(), x in 1u8..=255, cut in any::<Index>(),
    ) {
        mutated::<Shape>(&to_vec(&s).unwrap(), at, x, cut)?;
        mutated::<XResult>(&to_vec(&xr).unwrap(), at, x, cut)?;
        mutated::<Expr>(&to_vec(&e).unwrap(), at, x, cut)?;
        mutated::<Indexed>(&to_vec(&i).unwrap(), at, x, cut)?;
    }

    #[test]
    fn mutated_lists(
        l in entry_list(), n in node(),
        at in any::<Index>(), x in 1u8..=255, cut in any::<Index>(),
    ) {
        mutated::<EntryList>(&to_vec(&l).unwrap(), at, x, cut)?;
        mutated::<Node>(&to_vec(&n).unwrap(), at, x, cut)?;
    }

}

/// Encoding a default arm holding another arm's discriminant fails, and writes nothing.
fn taken_is_error<T: Encode + Debug>(v: &T, tag: i32) -> Result<(), TestCaseError> {
    let e = to_vec(v)
        .err()
        .ok_or_else(|| fail(format!("{v:?} encoded")))?;
    prop_assert!(
        matches!(e.kind(), ErrorKind::DiscriminantTaken { value, .. } if *value == i64::from(tag)),
        "{}",
        e
    );
    let mut buf = BytesMut::with_capacity(64);
    buf.put_slice(b"x");
    prop_assert!(encode_into(v, &mut buf).is_err());
    prop_assert_eq!(&buf[..], b"x");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Huge lengths.

/// A length of 0xFFFF_FFF0 (and other lengths the input cannot hold) followed by 8 bytes fails
/// at once, and the decoder allocates nothing large.
#[test]
fn huge_lengths_fail_at_once_without_allocating() {
    // The tracker sees allocations.
    let (v, big) = largest_alloc_during(|| std::hint::black_box(vec![0u8; 10_000]));
    drop(v);
    assert!(big >= 10_000, "allocation tracking does not work: {big}");

    for len in [0xFFFF_FFF0u32, u32::MAX, 0x8000_0000, 0x0100_0000, 4096] {
        let mut input = len.to_be_bytes().to_vec();
        input.extend_from_slice(&[0; 8]);
        macro_rules! each {
            ($($t:ty),* $(,)?) => {$({
                let (r, largest) = largest_alloc_during(|| from_slice::<$t>(&input).map(drop));
                let e = match r {
                    Ok(()) => panic!("{}: length {len:#x} with 8 bytes decoded", type_name::<$t>()),
                    Err(e) => e,
                };
                assert!(
                    matches!(e.kind(), ErrorKind::LengthExceedsInput { len: l, remaining: 8 } if *l == u64::from(len)),
                    "{}: length {len:#x}: unexpected error {e}",
                    type_name::<$t>()
                );
                // Failed on the length, right after reading it.
                assert_eq!(e.offset(), Some(4), "{}: {e}", type_name::<$t>());
                assert!(
                    largest < 4096,
                    "{}: length {len:#x}: allocated {largest} bytes at once",
                    type_name::<$t>()
                );
            })*};
        }
        each!(
            Vec<u8>,
            String,
            Bytes,
            &str,
            &[u8],
            Vec<u32>,
            Vec<u64>,
            Vec<Rect>,
            Vec<DirEntry>,
            Vec<String>,
            Vec<Vec<u8>>,
            Vec<XResult>,
            Vec<Shape>,
            Vec<Color>,
            Vec<Pair<u32>>,
            Vec<Pair<String>>,
            Vec<Option<u64>>,
            Vec<bool>,
            Vec<i8>,
            Vec<Wide64>,
            Vec<EntryList>,
        );

        // A `max_len` field fails on the length alone.
        let (r, largest) = largest_alloc_during(|| from_slice::<DirEntry>(&input).map(drop));
        let e = r.expect_err("DirEntry with a huge name decoded");
        assert!(
            matches!(e.kind(), ErrorKind::LengthTooLarge { len: l, max: 255 } if *l == u64::from(len)),
            "{e}"
        );
        assert!(
            largest < 4096,
            "DirEntry: allocated {largest} bytes at once"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Nesting depth and long lists.

/// `n` nested `Chain`s, innermost `next` = None.
fn chain_bytes(n: usize) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..n {
        b.extend_from_slice(&1u32.to_be_bytes());
    }
    b.extend_from_slice(&0u32.to_be_bytes());
    for _ in 0..=n {
        b.extend_from_slice(&7u32.to_be_bytes());
    }
    b
}

/// A `Node` whose `left` links nest `n` deep.
fn left_nodes_bytes(n: usize) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..n {
        b.extend_from_slice(&words(&[7, 1])); // v, left present
    }
    b.extend_from_slice(&words(&[7, 0, 0])); // v, no left, no right
    for _ in 0..n {
        b.extend_from_slice(&words(&[0])); // no right
    }
    b
}

fn left_nodes(n: usize) -> Node {
    let mut node = Node {
        v: 7,
        left: None,
        right: None,
    };
    for _ in 0..n {
        node = Node {
            v: 7,
            left: Some(Box::new(node)),
            right: None,
        };
    }
    node
}

fn is_depth_limit<T: Debug>(r: Result<T, marshal::Error>) -> bool {
    matches!(
        r.map_err(|e| e.kind().clone()),
        Err(ErrorKind::DepthLimit { .. })
    )
}

#[test]
fn recursion_is_depth_limited() {
    // Plain recursion: fine when shallow, an error (not a stack overflow) when deep.
    assert!(from_slice::<Chain>(&chain_bytes(100)).is_ok());
    assert!(is_depth_limit(from_slice::<Chain>(&chain_bytes(200))));
    assert!(is_depth_limit(from_slice::<Chain>(&chain_bytes(1_000_000))));

    // Recursion through a union.
    let mut deep = Vec::new();
    for _ in 0..1_000_000 {
        deep.extend_from_slice(&1u32.to_be_bytes());
    }
    deep.extend_from_slice(&words(&[0, 5]));
    assert!(is_depth_limit(from_slice::<Expr>(&deep)));

    // Encoding too.
    let mut e = Expr::Lit(1);
    for _ in 0..200 {
        e = Expr::Neg(Box::new(e));
    }
    assert!(is_depth_limit(to_vec(&e)));
    let mut c = Chain { next: None, v: 7 };
    for _ in 0..200 {
        c = Chain {
            next: Some(Box::new(c)),
            v: 7,
        };
    }
    assert!(is_depth_limit(to_vec(&c)));

    // A long optional-data list is a loop: no depth limit, constant stack.
    let pairs: Vec<(i32, String)> = (0..100_000).map(|i| (i, String::new())).collect();
    let l = EntryList::from_pairs(&pairs);
    let bytes = to_vec(&l).unwrap();
    assert_eq!(bytes.len(), 4 + 100_000 * 12);
    let back: EntryList = from_slice(&bytes).unwrap();
    assert_eq!(back.to_pairs().len(), 100_000);
    // So is a long `right` spine of a `Node` (its last field is the list link).
    let mut b = Vec::new();
    for _ in 0..100_000 {
        b.extend_from_slice(&words(&[7, 0, 1])); // v, no left, right present
    }
    b.extend_from_slice(&words(&[7, 0, 0]));
    let spine: Node = from_slice(&b).unwrap();
    let mut cur = Some(Box::new(spine));
    let mut count = 0;
    while let Some(mut n) = cur {
        cur = n.right.take(); // unlink iteratively: `Node` has no iterative `Drop`
        count += 1;
    }
    assert_eq!(count, 100_001);
}

// ---------------------------------------------------------------------------------------------
// Bugs found while writing these tests.

/// Was a bug: a struct whose last field is `Option<Box<Self>>` is coded with the list loop, which
/// never enters a nesting level, so recursion through its *other* fields (here `left`) has no
/// depth limit. Decoding 200 nested `left`s succeeds (a plain struct fails at 128 — see
/// `Chain`), and hostile input of ~800 KB (100 000 nested `left`s) overflows the stack and
/// aborts the process:
///
/// ```text
/// from_slice::<Node>(&left_nodes_bytes(100_000))
/// thread '...' has overflowed its stack
/// fatal runtime error: stack overflow, aborting
/// ```
#[test]
fn regression_list_struct_recursion_in_other_fields_has_no_depth_limit_on_decode() {
    let r = from_slice::<Node>(&left_nodes_bytes(200));
    let ok = r.is_ok();
    std::mem::forget(r);
    assert!(
        !ok,
        "200 nested `left` nodes decoded: the depth limit of 128 is not applied"
    );
}

/// Was a bug: as above, for encoding: `encoded_len` and `encode` of 200 nested `left`s succeed (a
/// deep enough value overflows the stack in `encoded_len`).
#[test]
fn regression_list_struct_recursion_in_other_fields_has_no_depth_limit_on_encode() {
    let n = left_nodes(200);
    let r = to_vec(&n);
    let mut cur = Some(Box::new(n));
    while let Some(mut node) = cur {
        cur = node.left.take();
    }
    assert!(
        is_depth_limit(r),
        "200 nested `left` nodes encoded: the depth limit of 128 is not applied"
    );
}

/// Was a bug (minor): a sequence of more than 65 536 zero-size elements encodes, but its encoding
/// does not decode (`TooManyElements`): the round trip fails. Either limit both directions or
/// neither.
#[test]
fn regression_zero_size_sequences_encode_but_do_not_decode() {
    // Past the limit, encoding fails as decoding does...
    let e = to_vec(&vec![Nothing; 70_000]).unwrap_err();
    assert!(
        e.to_string()
            .contains("70000 elements exceed the limit of 65536"),
        "{e}"
    );
    // ...and at the limit both directions work.
    let v = vec![Nothing; 65_536];
    let bytes = to_vec(&v).unwrap();
    assert_eq!(bytes, 65_536u32.to_be_bytes());
    assert_eq!(from_slice::<Vec<Nothing>>(&bytes).unwrap().len(), 65_536);
}
