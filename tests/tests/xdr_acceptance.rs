//! The foundation issue's acceptance points that are not interop or property tests.

use bytes::buf::UninitSlice;
use bytes::BufMut;
use marshal::xdr::{encode_into, from_slice, size_class, to_vec};
use marshal::{Marshal, SizeClass};
use workloads::{DirEntry, EntryList, Point, Rect};

// ---------------------------------------------------------------------------------------------
// RFC 4506 §7: the "file" example, byte for byte.

// `max_len` takes literals: MAXNAMELEN = 255, MAXUSERNAME = 32, MAXFILELEN = 65535.

#[derive(Marshal, Debug, PartialEq, Clone, Copy)]
enum FileKind {
    Text = 0,
    Data = 1,
    Exec = 2,
}

#[derive(Marshal, Debug, PartialEq)]
enum FileType {
    #[marshal(tag = 0)]
    Text,
    #[marshal(tag = 1)]
    Data {
        #[marshal(max_len = 255)]
        creator: String,
    },
    #[marshal(tag = 2)]
    Exec {
        #[marshal(max_len = 255)]
        interpretor: String,
    },
}

#[derive(Marshal, Debug, PartialEq)]
struct File {
    #[marshal(max_len = 255)]
    filename: String,
    kind: FileType,
    #[marshal(max_len = 32)]
    owner: String,
    #[marshal(max_len = 65535)]
    data: Vec<u8>,
}

#[test]
fn rfc4506_section7_file_example() {
    let f = File {
        filename: "sillyprog".into(),
        kind: FileType::Exec {
            interpretor: "lisp".into(),
        },
        owner: "john".into(),
        data: b"(quit)".to_vec(),
    };
    #[rustfmt::skip]
    let expected: [u8; 48] = [
        0x00, 0x00, 0x00, 0x09, // length of filename = 9
        0x73, 0x69, 0x6c, 0x6c, // filename characters
        0x79, 0x70, 0x72, 0x6f, // ... and more characters ...
        0x67, 0x00, 0x00, 0x00, // ... and 3 zero-bytes of fill
        0x00, 0x00, 0x00, 0x02, // filekind is EXEC = 2
        0x00, 0x00, 0x00, 0x04, // length of interpretor = 4
        0x6c, 0x69, 0x73, 0x70, // interpretor characters
        0x00, 0x00, 0x00, 0x04, // length of owner = 4
        0x6a, 0x6f, 0x68, 0x6e, // owner characters
        0x00, 0x00, 0x00, 0x06, // length of file data = 6
        0x28, 0x71, 0x75, 0x69, // file data bytes ...
        0x74, 0x29, 0x00, 0x00, // ... and 2 zero-bytes of fill
    ];
    assert_eq!(to_vec(&f).unwrap(), expected);
    assert_eq!(from_slice::<File>(&expected).unwrap(), f);
    assert_eq!(to_vec(&FileKind::Exec).unwrap(), [0, 0, 0, 2]);
    assert_eq!(
        from_slice::<FileKind>(&[0, 0, 0, 0]).unwrap(),
        FileKind::Text
    );
    assert_eq!(
        from_slice::<FileKind>(&[0, 0, 0, 1]).unwrap(),
        FileKind::Data
    );
    assert!(from_slice::<FileKind>(&[0, 0, 0, 3]).is_err());
}

// ---------------------------------------------------------------------------------------------
// Size classes, asserted in const items (evaluated by rustc) and at run time.

#[derive(Marshal)]
struct Name {
    #[marshal(max_len = 255)]
    s: String,
}

const POINT: SizeClass = size_class::<Point>();
const RECT: SizeClass = size_class::<Rect>();
const RECT4: SizeClass = size_class::<[Rect; 4]>();
const NAME: SizeClass = size_class::<Name>();
const RECTS: SizeClass = size_class::<Vec<Rect>>();
const _: () = assert!(matches!(POINT, SizeClass::Fixed(8)));
const _: () = assert!(matches!(RECT, SizeClass::Fixed(16)));
const _: () = assert!(matches!(RECT4, SizeClass::Fixed(64)));
const _: () = assert!(matches!(NAME, SizeClass::Bounded(260)));
const _: () = assert!(matches!(RECTS, SizeClass::Unbounded));

#[test]
fn size_classes() {
    assert_eq!(POINT, SizeClass::Fixed(8));
    assert_eq!(RECT, SizeClass::Fixed(16));
    assert_eq!(RECT4, SizeClass::Fixed(64));
    assert_eq!(NAME, SizeClass::Bounded(260));
    assert_eq!(RECTS, SizeClass::Unbounded);
    assert_eq!(size_class::<DirEntry>(), SizeClass::Bounded(4 + 256 + 136));
    assert_eq!(size_class::<Option<Rect>>(), SizeClass::Bounded(20));
}

// ---------------------------------------------------------------------------------------------
// Capacity reservations, counted through a BufMut: every `chunk_mut` is a capacity check and
// every `put_slice` a bulk hand-over; the encoders make as few as the size classes allow.

struct Counting {
    inner: Vec<u8>,
    reservations: usize,
}

impl Counting {
    fn new(cap: usize) -> Self {
        Counting {
            inner: Vec::with_capacity(cap),
            reservations: 0,
        }
    }
}

// SAFETY: every method forwards to `Vec<u8>`'s implementation, which upholds the contract.
unsafe impl BufMut for Counting {
    fn remaining_mut(&self) -> usize {
        self.inner.remaining_mut()
    }
    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: forwarded with the caller's guarantee that `cnt` bytes were initialised.
        unsafe { self.inner.advance_mut(cnt) }
    }
    fn chunk_mut(&mut self) -> &mut UninitSlice {
        self.reservations += 1;
        self.inner.chunk_mut()
    }
    fn put_slice(&mut self, src: &[u8]) {
        self.reservations += 1;
        self.inner.extend_from_slice(src);
    }
}

#[derive(Marshal, Debug, PartialEq)]
struct Mixed {
    id: u32,
    #[marshal(max_len = 64)]
    label: String,
    r: Rect,
}

fn reservations<T: marshal::xdr::Encode>(v: &T, cap: usize) -> usize {
    let mut buf = Counting::new(cap);
    encode_into(v, &mut buf).unwrap();
    assert_eq!(buf.inner, to_vec(v).unwrap());
    buf.reservations
}

#[test]
fn one_reservation_per_segment() {
    let rect = workloads::rects(1)[0];
    let rects = workloads::rects(10_000);
    let mixed = Mixed {
        id: 7,
        label: "label".into(),
        r: rect,
    };
    // With room in the buffer: one check each.
    assert_eq!(reservations(&rect, 1 << 20), 1);
    assert!(reservations(&rects, 1 << 20) <= 2);
    assert!(reservations(&mixed, 1 << 20) <= 2);
    // From an empty buffer (Vec's chunk_mut offers 64 bytes): the check plus one hand-over.
    assert_eq!(reservations(&rect, 0), 1);
    assert!(reservations(&rects, 0) <= 2);
    assert!(reservations(&mixed, 0) <= 2);
}

// ---------------------------------------------------------------------------------------------
// Errors name the field path and the offset.

#[derive(Marshal, Debug)]
struct Dir {
    dirent: Vec<DirEntry>,
}

#[test]
fn error_names_path_and_offset() {
    let mut d = Dir {
        dirent: workloads::dirents(5),
    };
    d.dirent[3].name = "z".repeat(300);
    let e = to_vec(&d).unwrap_err();
    // 4 (count) + 3 entries × 256 bytes = 772: the name's length word of entry 3.
    assert_eq!(
        e.to_string(),
        "dirent[3].name: length 300 exceeds max_len 255 at offset 772"
    );
    // The same error from `encode_into` whether the buffer has room (one pass, no measuring)
    // or not, and nothing committed.
    for cap in [0, 1 << 16] {
        let mut buf = Vec::with_capacity(cap);
        buf.push(1);
        let e = encode_into(&d, &mut buf).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dirent[3].name: length 300 exceeds max_len 255 at offset 772"
        );
        assert_eq!(buf, [1]);
    }
    // And on decode: patch entry 3's name length to 300 in a valid encoding.
    d.dirent[3].name = "z".repeat(116);
    let mut bytes = to_vec(&d).unwrap();
    bytes[772..776].copy_from_slice(&300u32.to_be_bytes());
    let e = from_slice::<Dir>(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dirent[3].name: length 300 exceeds max_len 255 at offset 772"
    );
}

// ---------------------------------------------------------------------------------------------
// Optional-data lists are iterative; other recursion is bounded by a depth limit.

#[test]
fn list_of_100000_on_a_256k_stack() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let pairs: Vec<(i32, String)> = (0..100_000).map(|i| (i, format!("e{i}"))).collect();
            let list = EntryList::from_pairs(&pairs);
            let bytes = to_vec(&list).unwrap();
            let back: EntryList = from_slice(&bytes).unwrap();
            assert_eq!(back.to_pairs(), pairs);
            assert_eq!(to_vec(&back).unwrap(), bytes);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[derive(Marshal, Debug, PartialEq)]
struct Tree {
    value: u32,
    children: Vec<Tree>,
}

#[derive(Marshal, Debug, PartialEq)]
enum Expr {
    Lit(i32),
    Neg(Box<Expr>),
}

#[test]
fn deep_recursion_is_an_error_not_a_stack_overflow() {
    // The depth limit (128) keeps recursion within 512 KiB even in unoptimised builds
    // (measured: 256 KiB overflows in debug, 128 KiB suffices in release), a quarter of a
    // spawned thread's default 2 MiB.
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            // 100,000 nested single-child trees: value 0, count 1, value 0, count 1, …
            let mut bytes = Vec::new();
            for _ in 0..100_000 {
                bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1]);
            }
            let e = from_slice::<Tree>(&bytes).unwrap_err();
            assert!(
                e.to_string().contains("nesting deeper than the limit"),
                "{e}"
            );
            let mut bytes = Vec::new();
            for _ in 0..100_000 {
                bytes.extend_from_slice(&[0, 0, 0, 1]);
            }
            let e = from_slice::<Expr>(&bytes).unwrap_err();
            assert!(
                e.to_string().contains("nesting deeper than the limit"),
                "{e}"
            );
            // Shallow values are fine.
            let t = Tree {
                value: 1,
                children: vec![Tree {
                    value: 2,
                    children: vec![],
                }],
            };
            assert_eq!(from_slice::<Tree>(&to_vec(&t).unwrap()).unwrap(), t);
            // Encoding a value nested deeper than the limit fails too.
            let mut e = Expr::Lit(1);
            for _ in 0..1000 {
                e = Expr::Neg(Box::new(e));
            }
            assert!(to_vec(&e).is_err());
            // Also in one pass into a buffer with room, which does not measure first.
            let mut buf = Vec::with_capacity(1 << 16);
            let err = encode_into(&e, &mut buf).unwrap_err();
            assert!(
                err.to_string().contains("nesting deeper than the limit"),
                "{err}"
            );
            assert!(buf.is_empty());
            // (Dropping the 1000-deep value recursively is fine on this stack.)
        })
        .unwrap()
        .join()
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Generic types, Drop types, borrowed fields.

#[derive(Marshal, Debug, PartialEq)]
struct Pair<T> {
    a: T,
    b: T,
}

#[derive(Marshal, Debug, PartialEq, Default)]
struct Tagged<T> {
    id: u32,
    _marker: std::marker::PhantomData<T>,
}

/// Not `Encode`: `Tagged<NoXdr>` still derives, because `T` only appears in `PhantomData`.
#[derive(Debug, PartialEq, Default)]
struct NoXdr;

#[derive(Marshal, Debug, PartialEq)]
struct Guarded {
    id: u32,
    names: Vec<String>,
}

impl Drop for Guarded {
    fn drop(&mut self) {}
}

#[derive(Marshal, Debug, PartialEq)]
struct View<'a> {
    #[marshal(max_len = 16)]
    name: &'a str,
    body: &'a [u8],
}

#[derive(Marshal, Debug, PartialEq)]
struct Unit;

#[derive(Marshal, Debug, PartialEq)]
struct Tuple(u32, #[marshal(max_len = 3)] Vec<u16>);

#[test]
fn generics_drop_borrowing() {
    let p = Pair { a: 1u64, b: 2 };
    assert_eq!(from_slice::<Pair<u64>>(&to_vec(&p).unwrap()).unwrap(), p);
    assert_eq!(size_class::<Pair<Rect>>(), SizeClass::Fixed(32));
    let t: Tagged<NoXdr> = Tagged {
        id: 3,
        _marker: Default::default(),
    };
    assert_eq!(to_vec(&t).unwrap(), [0, 0, 0, 3]);
    assert_eq!(from_slice::<Tagged<NoXdr>>(&[0, 0, 0, 3]).unwrap(), t);
    let g = Guarded {
        id: 1,
        names: vec!["x".into()],
    };
    assert_eq!(from_slice::<Guarded>(&to_vec(&g).unwrap()).unwrap(), g);
    let bytes = to_vec(&(String::from("abc"), vec![1u8, 2, 3])).unwrap();
    let v: View<'_> = from_slice(&bytes).unwrap();
    assert_eq!(
        v,
        View {
            name: "abc",
            body: &[1, 2, 3]
        }
    );
    assert!(std::ptr::eq(v.body.as_ptr(), bytes[12..].as_ptr()));
    assert_eq!(to_vec(&Unit).unwrap(), []);
    let tu = Tuple(5, vec![1, 2]);
    assert_eq!(from_slice::<Tuple>(&to_vec(&tu).unwrap()).unwrap(), tu);
    assert_eq!(
        to_vec(&Tuple(5, vec![1, 2, 3, 4])).unwrap_err().to_string(),
        "1: length 4 exceeds max_len 3 at offset 4"
    );
}
