//! The derived types the targets decode into.
//!
//! XDR and CDR types cover what the derive supports: unions with void arms, data arms, a
//! negative tag and a default arm, a union switching on an octet, an optional-data list,
//! bounded strings, opaques and vectors, borrowed fields, nested vectors, options, arrays and
//! tuples, C-like enums, floats, recursion through `Box` and `Vec`, and wire-empty elements.
//!
//! Memory bound: each type keeps the in-memory size of one element at most 16 times its
//! smallest encoding in both formats (checked in the tests below), so a decode holds at most
//! 16 × its input — except [`Zbs`], whose elements take no wire bytes at all and which the
//! decoders cap by memory instead.
//!
//! NDR types cover what a record may hold: integers of every size, floats, booleans, byte
//! arrays, multi-dimensional arrays, strings, vectors, nested records, and
//! `#[marshal(default_missing)]` (with a 4 KiB element, [`NBig`], for output amplification).

use marshal::Marshal;

/// A C-like enum: XDR sends the value, CDR the ordinal.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// 0.
    Red = 0,
    /// 1.
    Green = 1,
    /// 7 (ordinal 2).
    Blue = 7,
}

/// A point.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pt {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
}

/// `union shape switch (int kind) { case 0: void; case 1: circle; case 2: string<16>;
/// case 3: pt<8>; case -7: hyper; case 9: void; default: pt *; }`
#[derive(Marshal, Debug, Clone, PartialEq)]
pub enum Shape {
    /// A void arm.
    #[marshal(tag = 0)]
    Empty,
    /// A struct arm.
    #[marshal(tag = 1)]
    Circle {
        /// Centre.
        center: Pt,
        /// Radius.
        r: u32,
    },
    /// A bounded string.
    #[marshal(tag = 2)]
    Label(#[marshal(max_len = 16)] String),
    /// A bounded vector.
    #[marshal(tag = 3)]
    Poly(#[marshal(max_len = 8)] Vec<Pt>),
    /// A negative tag.
    #[marshal(tag = -7)]
    Neg(i64),
    /// Another void arm.
    #[marshal(tag = 9)]
    Nothing,
    /// The default arm: keeps its discriminant, with an optional point.
    #[marshal(default)]
    Other(i32, Option<Box<Pt>>),
}

/// A union switching on an octet in CDR (one byte on the wire for a void arm).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(discriminant = u8)]
pub enum Small {
    /// An octet.
    #[marshal(tag = 1)]
    Byte(u8),
    /// A long.
    #[marshal(tag = 2)]
    Word(u32),
    /// Void.
    #[marshal(tag = 3)]
    Void,
    /// Anything else: the octet it was decoded with.
    #[marshal(default)]
    Rest(u8),
}

/// `struct node { unsigned id; node *next; }`: an optional-data list, coded with a loop.
///
/// No `Clone`, `PartialEq` or manual `Drop`: the first two would recurse over the list, and
/// the derive is to make dropping a long list iterative.
#[derive(Marshal, Debug)]
pub struct Node {
    /// The node's id.
    pub id: u32,
    /// The rest of the list.
    pub next: Option<Box<Node>>,
}

/// Bounded and borrowed fields.
#[derive(Marshal, Debug, PartialEq)]
pub struct Bounded<'a> {
    /// `string<32>`.
    #[marshal(max_len = 32)]
    pub name: String,
    /// `opaque<64>`.
    #[marshal(max_len = 64)]
    pub data: Vec<u8>,
    /// `string<16>`, borrowed.
    #[marshal(max_len = 16)]
    pub tag: &'a str,
    /// `opaque<>`, borrowed.
    pub raw: &'a [u8],
    /// `unsigned short<4>`.
    #[marshal(max_len = 4)]
    pub small: Vec<u16>,
    /// `opaque[5]` (padded in XDR).
    pub fixed: [u8; 5],
    /// `bool[3]`.
    pub flags: [bool; 3],
    /// An enum.
    pub color: Color,
}

/// Nested vectors, options, arrays and tuples.
#[derive(Marshal, Debug, PartialEq)]
pub struct Nested {
    /// `short[2][3]`.
    pub grid: [[i16; 3]; 2],
    /// `unsigned rows<><>`.
    pub rows: Vec<Vec<u32>>,
    /// `shape<> *`.
    pub shapes: Option<Vec<Shape>>,
    /// `string<> *`.
    pub note: Option<String>,
    /// A tuple.
    pub tuple: (u8, u64, bool),
    /// `unsigned quads<>[4]`.
    pub quads: Vec<[u32; 4]>,
    /// Octet-switched unions.
    pub smalls: Vec<Small>,
    /// Enums.
    pub colors: Vec<Color>,
    /// A double.
    pub real: f64,
    /// Floats.
    pub reals: Vec<f32>,
    /// Wire-empty, zero-sized elements.
    pub units: Vec<()>,
}

/// A struct with lists inside, and a list in a vector.
#[derive(Marshal, Debug)]
pub struct Lists {
    /// A list.
    pub head: Option<Box<Node>>,
    /// Lists.
    pub more: Vec<Node>,
}

/// A wire-empty element that is not zero-sized: `Box<()>` takes no bytes on the wire and 8
/// in memory.
#[derive(Marshal, Debug, PartialEq)]
pub struct Zb {
    /// Void.
    pub a: Box<()>,
}

/// A sequence of 8 KiB elements that take no wire bytes (defect 4: a count of 65,536 from 4
/// bytes allocated 512 MiB).
#[derive(Marshal, Debug, PartialEq)]
pub struct Zbs {
    /// The elements.
    pub items: Vec<[Zb; 1024]>,
}

/// A self-nested union: recursion through `Box`, bounded by the depth limit.
#[derive(Marshal, Debug, PartialEq)]
pub enum Expr {
    /// A leaf.
    #[marshal(tag = 0)]
    Lit(i32),
    /// One child.
    #[marshal(tag = 1)]
    Neg(Box<Expr>),
    /// Two children.
    #[marshal(tag = 2)]
    Add(Box<Expr>, Box<Expr>),
}

/// Recursion through `Vec`, bounded by the depth limit.
#[derive(Marshal, Debug, PartialEq)]
pub struct Tree {
    /// The value.
    pub value: u32,
    /// The children.
    pub children: Vec<Tree>,
}

// ---------------------------------------------------------------------------------------------
// NDR records.

/// A record of one string, for arrays of strings.
#[derive(Marshal, Debug, Clone, PartialEq, Eq, Default)]
pub struct NTag {
    /// The string.
    pub s: String,
}

impl NTag {
    /// A tag of `s`.
    pub fn new(s: &str) -> NTag {
        NTag { s: s.into() }
    }
}

/// A padding-free record (sent and viewed as its own bytes).
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct NPoint {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
}

/// Scalars of every kind, with padding.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct NSample {
    /// An 8-byte integer.
    pub id: i64,
    /// A double.
    pub value: f64,
    /// A byte array (a C `char[8]` converts into it).
    pub label: [u8; 8],
    /// A short.
    pub small: i16,
    /// A boolean.
    pub flag: bool,
    /// An octet.
    pub level: u8,
    /// A float.
    pub ratio: f32,
}

/// Strings, vectors, arrays of arrays, nested records, and defaults for missing fields (a
/// `Default` with no zero field, so that a field not taken from it shows).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(default_missing)]
pub struct NMixed {
    /// An id.
    pub id: u32,
    /// A string.
    pub name: String,
    /// A vector of records.
    pub pts: Vec<NPoint>,
    /// `short[2][3]`.
    pub grid: [[i16; 3]; 2],
    /// A vector of floats.
    pub scores: Vec<f32>,
    /// A boolean.
    pub ok: bool,
    /// A nested record.
    pub inner: NPoint,
    /// An array of records that hold strings (NDR has no `[String; N]`: a `String` is 24
    /// bytes around an 8-byte slot, which no format can describe as array elements).
    pub tags: [NTag; 2],
    /// A wide unsigned integer.
    pub wide: u64,
}

impl Default for NMixed {
    fn default() -> Self {
        NMixed {
            id: 0xd1,
            name: "default".into(),
            pts: vec![NPoint { x: -1, y: -2 }],
            grid: [[1, 2, 3], [4, 5, 6]],
            scores: vec![0.5, 0.25],
            ok: true,
            inner: NPoint { x: 11, y: 12 },
            tags: [NTag::new("x"), NTag::new("yz")],
            wide: 0xdead_beef_0000_0001,
        }
    }
}

/// Nested records in arrays and vectors.
#[derive(Marshal, Debug, Clone, PartialEq, Default)]
pub struct NNest {
    /// A nested record.
    pub head: NPoint,
    /// An array of records.
    pub corners: [NPoint; 3],
    /// A vector of records.
    pub path: Vec<NPoint>,
    /// A string.
    pub label: String,
    /// A vector of records with padding.
    pub samples: Vec<NSample>,
}

/// A 4 KiB record whose missing fields come from `Default`: 4,104 bytes of output from one
/// incoming byte (defect 3).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(default_missing)]
pub struct NBig {
    /// A tag.
    pub tag: u8,
    /// 4 KiB.
    pub blob: [u64; 512],
}

impl Default for NBig {
    fn default() -> Self {
        NBig {
            tag: 0,
            blob: [0x5a5a_5a5a_5a5a_5a5a; 512],
        }
    }
}

/// A vector of big records.
#[derive(Marshal, Debug, Clone, PartialEq, Default)]
pub struct NBigs {
    /// The records.
    pub items: Vec<NBig>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::size_of;

    /// The memory bound of `xdr_derived` and `cdr_derived` rests on these ratios: an element
    /// (of a vector, or behind an option or a box) is at most 16 times its smallest encoding.
    #[test]
    fn in_memory_size_is_at_most_16_times_the_smallest_encoding() {
        // (in-memory bytes of one element, smallest XDR encoding, smallest CDR encoding)
        let cases: [(&str, usize, usize, usize); 12] = [
            ("Shape", size_of::<Shape>(), 4, 4),
            ("Small", size_of::<Small>(), 4, 1),
            ("Node (boxed)", size_of::<Node>(), 8, 8),
            ("Pt", size_of::<Pt>(), 8, 8),
            ("Vec<u32>", size_of::<Vec<u32>>(), 4, 4),
            ("String", size_of::<String>(), 4, 4),
            (
                "Option<Box<Pt>>",
                size_of::<Option<Box<Pt>>>() + size_of::<Pt>(),
                4,
                4,
            ),
            ("[u32; 4]", size_of::<[u32; 4]>(), 16, 16),
            ("Color", size_of::<Color>(), 4, 4),
            ("f32", size_of::<f32>(), 4, 4),
            (
                "Expr (boxed)",
                size_of::<Expr>() + size_of::<Box<Expr>>(),
                4,
                4,
            ),
            ("Tree", size_of::<Tree>(), 8, 8),
        ];
        for (name, mem, xdr, cdr) in cases {
            assert!(mem <= 16 * xdr, "{name}: {mem} bytes for {xdr} XDR bytes");
            assert!(mem <= 16 * cdr, "{name}: {mem} bytes for {cdr} CDR bytes");
        }
        assert_eq!(size_of::<()>(), 0);
        // What the memory bound of `ndr_dynamic` counts per decoded value.
        assert_eq!(size_of::<marshal::ndr::Value>(), 32);
        assert_eq!(size_of::<[Zb; 1024]>(), 8192, "the amplifier of defect 4");
    }
}
