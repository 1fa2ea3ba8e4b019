//! Property tests of conversion. Generated record schemas and values are laid out in a local,
//! C-like layout (a `NativeRecord` built at run time) and in a synthetic foreign one: another
//! byte order, fields shuffled with random padding (and random bytes in it), integers of
//! another size or signedness that still hold every value, floats of the other width when
//! exact, booleans as wider booleans, integers or chars, and extra fields. `Plan::build` and
//! `interp::run` must turn the foreign body into the local values, field by field; a value
//! that does not fit the local type is `DoesNotFit`; fields the sender lacks come from the
//! local record's defaults or are `Incompatible`; and arbitrary or mutated bytes never panic
//! the message decoder, the format decoder or the converter, whose output stays bounded.

use std::cell::RefCell;

use proptest::collection::vec;
use proptest::prelude::*;
use wire_ndr::convert::interp;
use wire_ndr::convert::plan::Plan;
use wire_ndr::{
    frame_len, parse_frame, parse_message, ByteOrder, Error, ErrorKind, Format, FormatId, IOField,
    NativeField, NativeRecord, NativeType, FORMAT_MAGIC, RECORD_MAGIC,
};

const NATIVE_BIG: bool = cfg!(target_endian = "big");
const SIZES: [usize; 4] = [1, 2, 4, 8];

// ---------------------------------------------------------------------------------------------
// Schemas and values

/// A generated field's element type (the nested record's fields are never records).
#[derive(Debug, Clone)]
enum Leaf {
    Int { size: usize, signed: bool },
    Float(usize),
    Bool,
    Str,
    Rec(Vec<Leaf>),
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    One,
    /// Fixed dimensions, outermost first.
    Fixed(Vec<usize>),
    /// A variable-length array.
    Var,
}

impl Shape {
    fn fixed_count(&self) -> usize {
        match self {
            Shape::Fixed(d) => d.iter().product(),
            _ => 1,
        }
    }
}

#[derive(Debug, Clone)]
struct FieldSchema {
    leaf: Leaf,
    shape: Shape,
}

/// A value, independent of its representation.
#[derive(Debug, Clone)]
enum Val {
    I(i128),
    F32(f32),
    F64(f64),
    B(bool),
    S(String),
    /// A nested record's fields, in the local record's order.
    R(Vec<Val>),
}

impl PartialEq for Val {
    fn eq(&self, o: &Val) -> bool {
        match (self, o) {
            (Val::I(a), Val::I(b)) => a == b,
            // NaN payloads may change through a conversion; everything else is exact.
            (Val::F32(a), Val::F32(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (Val::F64(a), Val::F64(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (Val::B(a), Val::B(b)) => a == b,
            (Val::S(a), Val::S(b)) => a == b,
            (Val::R(a), Val::R(b)) => a == b,
            _ => false,
        }
    }
}

/// Each field's elements (one for a scalar), in the local record's field order.
type Values = Vec<Vec<Val>>;

fn scalar_leaf() -> BoxedStrategy<Leaf> {
    prop_oneof![
        4 => (0..4usize, any::<bool>()).prop_map(|(s, signed)| Leaf::Int { size: SIZES[s], signed }),
        2 => prop_oneof![Just(Leaf::Float(4)), Just(Leaf::Float(8))],
        1 => Just(Leaf::Bool),
        1 => Just(Leaf::Str),
    ]
    .boxed()
}

fn field_schema() -> impl Strategy<Value = FieldSchema> {
    let leaf = prop_oneof![5 => scalar_leaf(), 1 => vec(scalar_leaf(), 1..=3).prop_map(Leaf::Rec)];
    leaf.prop_flat_map(|leaf| {
        // Small multi-dimensional arrays, and long ones (compiled code loops over them and
        // swaps them 16 bytes at a time).
        let fixed = prop_oneof![3 => vec(1usize..=3, 1..=2), 1 => vec(1usize..=80, 1..=1)]
            .prop_map(Shape::Fixed);
        // Strings cannot be variable-length arrays; the rest can (`Vec<T>`).
        let shape = if matches!(leaf, Leaf::Str) {
            prop_oneof![3 => Just(Shape::One), 1 => fixed].boxed()
        } else {
            prop_oneof![3 => Just(Shape::One), 1 => fixed, 1 => Just(Shape::Var)].boxed()
        };
        shape.prop_map(move |shape| FieldSchema {
            leaf: leaf.clone(),
            shape,
        })
    })
}

fn leaf_value(leaf: &Leaf) -> BoxedStrategy<Val> {
    match leaf {
        // Values of every magnitude the type holds: the top `bits` bits of a random word.
        &Leaf::Int { size, signed } => (any::<u64>(), 1..=8 * size as u32)
            .prop_map(move |(raw, bits)| {
                let shift = 64 - bits;
                Val::I(if signed {
                    i128::from((raw as i64) >> shift)
                } else {
                    i128::from(raw >> shift)
                })
            })
            .boxed(),
        Leaf::Float(4) => prop_oneof![any::<f32>(), (-1000i16..1000).prop_map(f32::from)]
            .prop_map(Val::F32)
            .boxed(),
        Leaf::Float(_) => prop_oneof![
            any::<f64>(),
            any::<f32>().prop_map(f64::from),
            (-1000i16..1000).prop_map(f64::from)
        ]
        .prop_map(Val::F64)
        .boxed(),
        Leaf::Bool => any::<bool>().prop_map(Val::B).boxed(),
        Leaf::Str => "\\PC{0,12}".prop_map(Val::S).boxed(),
        Leaf::Rec(fields) => fields
            .iter()
            .map(leaf_value)
            .collect::<Vec<_>>()
            .prop_map(Val::R)
            .boxed(),
    }
}

fn field_values(f: &FieldSchema) -> BoxedStrategy<Vec<Val>> {
    let v = leaf_value(&f.leaf);
    match &f.shape {
        Shape::Var => vec(v, 0..=5).boxed(),
        shape => vec(v, shape.fixed_count()).boxed(),
    }
}

fn schema_and_values() -> impl Strategy<Value = (Vec<FieldSchema>, Values)> {
    vec(field_schema(), 1..=8).prop_flat_map(|s| {
        let v: Vec<_> = s.iter().map(field_values).collect();
        (Just(s), v)
    })
}

// ---------------------------------------------------------------------------------------------
// Layouts: the local one and synthetic foreign ones

/// An element's representation.
#[derive(Debug, Clone)]
enum Elem {
    Int {
        size: usize,
        signed: bool,
    },
    /// A C `char`: one byte.
    Char,
    Float(usize),
    /// A boolean of this many bytes (the local one is 1).
    Bool(usize),
    /// A slot: offset and length, two `u32`s.
    Str,
    Rec(Box<Layout>),
}

impl Elem {
    fn size(&self) -> usize {
        match self {
            Elem::Int { size, .. } | Elem::Float(size) | Elem::Bool(size) => *size,
            Elem::Char => 1,
            Elem::Str => 8,
            Elem::Rec(l) => l.size,
        }
    }
    fn align(&self) -> usize {
        match self {
            Elem::Str => 4,
            Elem::Rec(l) => l.align,
            e => e.size(),
        }
    }
}

#[derive(Debug, Clone)]
struct LField {
    name: String,
    elem: Elem,
    shape: Shape,
    offset: usize,
    /// Index of the field's values (in `Values`, or in a nested record's `Val::R`).
    val: usize,
}

impl LField {
    fn extent(&self) -> usize {
        match self.shape {
            Shape::Var => 8,
            ref s => self.elem.size() * s.fixed_count(),
        }
    }
    fn align(&self) -> usize {
        match self.shape {
            Shape::Var => 4,
            _ => self.elem.align(),
        }
    }
}

#[derive(Debug, Clone)]
struct Layout {
    name: String,
    big: bool,
    size: usize,
    align: usize,
    fields: Vec<LField>,
}

/// A C-like layout: each field at the next multiple of its alignment, the size rounded up to
/// the record's alignment.
fn c_layout(name: &str, fields: Vec<(String, Elem, Shape)>) -> Layout {
    let (mut at, mut align) = (0, 1);
    let mut out = Vec::new();
    for (val, (name, elem, shape)) in fields.into_iter().enumerate() {
        let mut f = LField {
            name,
            elem,
            shape,
            offset: 0,
            val,
        };
        let a = f.align();
        at = usize::next_multiple_of(at, a);
        align = align.max(a);
        f.offset = at;
        at += f.extent();
        out.push(f);
    }
    Layout {
        name: name.to_owned(),
        big: NATIVE_BIG,
        size: at.next_multiple_of(align),
        align,
        fields: out,
    }
}

fn local_elem(leaf: &Leaf, i: usize) -> Elem {
    match leaf {
        &Leaf::Int { size, signed } => Elem::Int { size, signed },
        &Leaf::Float(n) => Elem::Float(n),
        Leaf::Bool => Elem::Bool(1),
        Leaf::Str => Elem::Str,
        Leaf::Rec(fields) => Elem::Rec(Box::new(c_layout(
            &format!("n{i}"),
            fields
                .iter()
                .enumerate()
                .map(|(j, l)| (format!("a{j}"), local_elem(l, j), Shape::One))
                .collect(),
        ))),
    }
}

fn local_layout(schema: &[FieldSchema]) -> Layout {
    c_layout(
        "rec",
        schema
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("f{i}"), local_elem(&f.leaf, i), f.shape.clone()))
            .collect(),
    )
}

type Defaults = fn() -> Result<Vec<u8>, Error>;

fn leak<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The local layout as the `NativeRecord` a derive would emit (leaked: plans want `'static`).
fn native_record(
    l: &Layout,
    defaults: &dyn Fn(&Layout) -> Option<Defaults>,
) -> &'static NativeRecord {
    let fields: Vec<NativeField> = l
        .fields
        .iter()
        .map(|f| {
            let leaf = match &f.elem {
                &Elem::Int { size, signed: true } => NativeType::Int(size),
                &Elem::Int { size, .. } => NativeType::UInt(size),
                &Elem::Float(n) => NativeType::Float(n),
                Elem::Bool(_) => NativeType::Bool,
                Elem::Str => NativeType::String,
                Elem::Rec(n) => NativeType::Record(native_record(n, defaults)),
                Elem::Char => unreachable!("local layouts have no chars"),
            };
            let ty = match &f.shape {
                Shape::One => leaf,
                Shape::Fixed(d) => d
                    .iter()
                    .rev()
                    .fold(leaf, |t, &len| NativeType::Array { elem: leak(t), len }),
                Shape::Var => NativeType::Var { elem: leak(leaf) },
            };
            NativeField {
                name: leak_str(&f.name),
                offset: f.offset,
                ty,
            }
        })
        .collect();
    leak(NativeRecord {
        name: leak_str(&l.name),
        size: l.size,
        align: l.align,
        fields: Box::leak(fields.into_boxed_slice()),
        defaults: defaults(l),
        zero_copy: false,
    })
}

/// The layout as a PBIO user describes it.
fn to_format(l: &Layout) -> Format {
    let mut nested = Vec::new();
    let fields: Vec<IOField> = l
        .fields
        .iter()
        .map(|f| {
            let ty = match &f.elem {
                Elem::Int { signed: true, .. } => "integer".to_owned(),
                Elem::Int { .. } => "unsigned integer".to_owned(),
                Elem::Char => "char".to_owned(),
                Elem::Float(_) => "float".to_owned(),
                Elem::Bool(_) => "boolean".to_owned(),
                Elem::Str => "string".to_owned(),
                Elem::Rec(n) => {
                    nested.push(to_format(n));
                    n.name.clone()
                }
            };
            let dims: String = match &f.shape {
                Shape::One => String::new(),
                Shape::Fixed(d) => d.iter().map(|d| format!("[{d}]")).collect(),
                Shape::Var => "[]".to_owned(),
            };
            IOField::new(&f.name, &format!("{ty}{dims}"), f.elem.size(), f.offset)
        })
        .collect();
    let order = if l.big {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };
    Format::from_fields(&l.name, order, l.size, &fields, &nested)
        .unwrap_or_else(|e| panic!("generated layout refused: {e}\n{l:#?}"))
}

/// SplitMix64: the foreign layout's choices come from a seed the strategies draw.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn int_range(size: usize, signed: bool) -> (i128, i128) {
    let bits = 8 * size as u32;
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn int_name(size: usize, signed: bool) -> &'static str {
    let names = if signed {
        ["i8", "i16", "i32", "i64"]
    } else {
        ["u8", "u16", "u32", "u64"]
    };
    names[size.trailing_zeros() as usize]
}

/// A foreign representation of a local element that holds every value in `site`.
fn foreign_elem(rng: &mut Rng, local: &Elem, site: &[&Val]) -> Elem {
    match *local {
        Elem::Int { size, signed } => {
            let ints: Vec<i128> = site
                .iter()
                .map(|v| match v {
                    Val::I(x) => *x,
                    v => unreachable!("{v:?} in an integer field"),
                })
                .collect();
            let holds = |(lo, hi): (i128, i128)| ints.iter().all(|x| (lo..=hi).contains(x));
            let mut c: Vec<Elem> = SIZES
                .iter()
                .flat_map(|&size| [true, false].map(|signed| Elem::Int { size, signed }))
                .filter(|e| match *e {
                    Elem::Int { size, signed } => holds(int_range(size, signed)),
                    _ => false,
                })
                .collect();
            // A char goes into a local byte as it is, and into a wider integer as 0..=255.
            let char_range = if size == 1 {
                int_range(1, signed)
            } else {
                (0, 255)
            };
            if holds(char_range) {
                c.push(Elem::Char);
            }
            rng.pick(&c).clone()
        }
        Elem::Float(4) => {
            let wide = site.iter().any(|v| matches!(v, Val::F64(_)));
            if wide || !rng.one_in(4) {
                Elem::Float(8)
            } else {
                Elem::Float(4)
            }
        }
        Elem::Float(_) => {
            let exact = site.iter().all(|v| match v {
                Val::F64(d) => d.is_nan() || f64::from(*d as f32).to_bits() == d.to_bits(),
                _ => false,
            });
            if exact && !rng.one_in(4) {
                Elem::Float(4)
            } else {
                Elem::Float(8)
            }
        }
        Elem::Bool(_) => match rng.below(3) {
            0 => Elem::Bool(*rng.pick(&SIZES)),
            1 => Elem::Int {
                size: *rng.pick(&SIZES),
                signed: rng.one_in(2),
            },
            _ => Elem::Char,
        },
        Elem::Str => Elem::Str,
        Elem::Char | Elem::Rec(_) => unreachable!("handled by the caller"),
    }
}

/// Which local fields the sender lacks: `top[i]`, or field `j` of field `i`'s record.
#[derive(Debug, Clone)]
struct Missing {
    top: Vec<bool>,
    sub: Vec<Vec<bool>>,
}

impl Missing {
    fn none(l: &Layout) -> Missing {
        Missing {
            top: vec![false; l.fields.len()],
            sub: l
                .fields
                .iter()
                .map(|f| match &f.elem {
                    Elem::Rec(n) => vec![false; n.fields.len()],
                    _ => Vec::new(),
                })
                .collect(),
        }
    }
}

/// The foreign fields of a local record whose field `i` holds `sites[i]`.
fn foreign_fields(
    rng: &mut Rng,
    local: &Layout,
    big: bool,
    sites: &[Vec<&Val>],
    drop: &Missing,
) -> Vec<LField> {
    let mut out = Vec::new();
    for (i, f) in local.fields.iter().enumerate() {
        if drop.top[i] {
            continue;
        }
        let elem = match &f.elem {
            Elem::Rec(n) => {
                let sub: Vec<Vec<&Val>> = (0..n.fields.len())
                    .map(|j| {
                        sites[i]
                            .iter()
                            .map(|v| match v {
                                Val::R(vs) => &vs[j],
                                v => unreachable!("{v:?} in a record field"),
                            })
                            .collect()
                    })
                    .collect();
                let sub_drop = Missing {
                    top: drop.sub[i].clone(),
                    sub: vec![Vec::new(); n.fields.len()],
                };
                let fields = foreign_fields(rng, n, big, &sub, &sub_drop);
                Elem::Rec(Box::new(place(rng, &n.name, big, fields)))
            }
            e => foreign_elem(rng, e, &sites[i]),
        };
        out.push(LField {
            elem,
            offset: 0,
            ..f.clone()
        });
    }
    out
}

/// Fields in a random order at random offsets (no alignment), random padding at the end.
fn place(rng: &mut Rng, name: &str, big: bool, mut fields: Vec<LField>) -> Layout {
    rng.shuffle(&mut fields);
    let mut at = 0;
    for f in &mut fields {
        if rng.one_in(2) {
            at += rng.below(8);
        }
        f.offset = at;
        at += f.extent();
    }
    Layout {
        name: name.to_owned(),
        big,
        // A record all of whose fields the sender lacks still takes a byte: a field of zero
        // bytes may not sit at the start of another.
        size: (at + rng.below(8)).max(1),
        align: 1,
        fields,
    }
}

/// A random value of a representation (in range for integers).
fn random_val(rng: &mut Rng, e: &Elem) -> Val {
    match *e {
        Elem::Int { size, signed } => {
            let shift = 64 - 8 * size as u32;
            let raw = rng.next();
            Val::I(if signed {
                i128::from(((raw << shift) as i64) >> shift)
            } else {
                i128::from((raw << shift) >> shift)
            })
        }
        Elem::Char => Val::I(i128::from(rng.next() as u8)),
        Elem::Float(4) => Val::F32(f32::from_bits(rng.next() as u32)),
        Elem::Float(_) => Val::F64(f64::from_bits(rng.next())),
        Elem::Bool(_) => Val::B(rng.one_in(2)),
        Elem::Str => {
            let n = rng.below(8);
            Val::S(
                (0..n)
                    .map(|_| *rng.pick(&['a', 'Z', '0', 'é', '☃']))
                    .collect(),
            )
        }
        Elem::Rec(ref l) => Val::R(l.fields.iter().map(|f| random_val(rng, &f.elem)).collect()),
    }
}

fn random_vals(rng: &mut Rng, e: &Elem, shape: &Shape) -> Vec<Val> {
    let n = match shape {
        Shape::Var => rng.below(4),
        s => s.fixed_count(),
    };
    (0..n).map(|_| random_val(rng, e)).collect()
}

/// A record as a foreign sender puts it on the wire.
#[derive(Debug)]
struct Sent {
    format: Format,
    body: Vec<u8>,
    /// Where the body's slots are (offset word, then length word).
    slots: Vec<usize>,
}

/// Lays `vals` (of the local layout) out in a synthetic foreign layout, without the fields
/// `drop` names and with 0–2 extra fields.
fn send(rng: &mut Rng, local: &Layout, vals: &Values, drop: &Missing) -> Sent {
    let big = rng.one_in(2);
    let sites: Vec<Vec<&Val>> = vals.iter().map(|v| v.iter().collect()).collect();
    let mut fields = foreign_fields(rng, local, big, &sites, drop);
    let mut fvals = vals.clone();
    for k in 0..rng.below(3) {
        let elem = match rng.below(5) {
            0 => Elem::Int {
                size: *rng.pick(&SIZES),
                signed: rng.one_in(2),
            },
            1 => Elem::Float(*rng.pick(&[4, 8])),
            2 => Elem::Bool(*rng.pick(&SIZES)),
            3 => Elem::Char,
            _ => Elem::Str,
        };
        let shape = match rng.below(4) {
            0 => Shape::Fixed(vec![1 + rng.below(3)]),
            1 if !matches!(elem, Elem::Str) => Shape::Var,
            _ => Shape::One,
        };
        fvals.push(random_vals(rng, &elem, &shape));
        fields.push(LField {
            name: format!("x{k}"),
            elem,
            shape,
            offset: 0,
            val: fvals.len() - 1,
        });
    }
    let foreign = place(rng, "sent", big, fields);
    let format = to_format(&foreign);
    let mut enc = Enc {
        big,
        junk: Some(rng),
        slots: Vec::new(),
    };
    let body = enc.body(&foreign, &fvals);
    Sent {
        format,
        body,
        slots: enc.slots,
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding and reading bodies

/// Writes bodies of any layout. With `junk`, padding and gaps hold random bytes and variable
/// parts start anywhere after the fixed part; without, padding is zero and variable parts
/// start at multiples of 8 (a local body).
struct Enc<'r> {
    big: bool,
    junk: Option<&'r mut Rng>,
    slots: Vec<usize>,
}

impl Enc<'_> {
    fn local() -> Enc<'static> {
        Enc {
            big: NATIVE_BIG,
            junk: None,
            slots: Vec::new(),
        }
    }

    fn body(&mut self, l: &Layout, vals: &Values) -> Vec<u8> {
        let mut buf = match self.junk.as_deref_mut() {
            Some(r) => r.bytes(l.size),
            None => vec![0; l.size],
        };
        for f in &l.fields {
            self.field(&mut buf, f.offset, f, &vals[f.val]);
        }
        buf
    }

    fn field(&mut self, buf: &mut Vec<u8>, at: usize, f: &LField, vs: &[Val]) {
        let size = f.elem.size();
        if f.shape == Shape::Var {
            let start = self.var_start(buf);
            match self.junk.as_deref_mut() {
                Some(r) => buf.extend(r.bytes(vs.len() * size)),
                None => buf.resize(start + vs.len() * size, 0),
            }
            for (i, v) in vs.iter().enumerate() {
                self.val(buf, start + i * size, &f.elem, v);
            }
            self.slot(buf, at, start, vs.len());
        } else {
            assert_eq!(vs.len(), f.shape.fixed_count(), "{f:?}");
            for (i, v) in vs.iter().enumerate() {
                self.val(buf, at + i * size, &f.elem, v);
            }
        }
    }

    fn var_start(&mut self, buf: &mut Vec<u8>) -> usize {
        match self.junk.as_deref_mut() {
            Some(r) => {
                let gap = r.below(12);
                buf.extend(r.bytes(gap));
            }
            None => buf.resize(buf.len().next_multiple_of(8), 0),
        }
        buf.len()
    }

    fn val(&mut self, buf: &mut Vec<u8>, at: usize, e: &Elem, v: &Val) {
        match (e, v) {
            (&Elem::Int { size, .. }, Val::I(x)) => self.uint(buf, at, size, *x as u64),
            (Elem::Char, Val::I(x)) => buf[at] = *x as u8,
            // True is nonzero: here, only the most significant byte is set.
            (&Elem::Int { size, .. } | &Elem::Bool(size), Val::B(b)) => {
                self.uint(buf, at, size, u64::from(*b) << (8 * (size - 1)))
            }
            (Elem::Char, Val::B(b)) => buf[at] = u8::from(*b),
            (Elem::Float(4), Val::F32(x)) => self.uint(buf, at, 4, x.to_bits().into()),
            (Elem::Float(_), Val::F32(x)) => self.uint(buf, at, 8, f64::from(*x).to_bits()),
            (Elem::Float(4), Val::F64(x)) => self.uint(buf, at, 4, (*x as f32).to_bits().into()),
            (Elem::Float(_), Val::F64(x)) => self.uint(buf, at, 8, x.to_bits()),
            (Elem::Str, Val::S(s)) => {
                let start = self.var_start(buf);
                buf.extend_from_slice(s.as_bytes());
                self.slot(buf, at, start, s.len());
            }
            (Elem::Rec(l), Val::R(vs)) => {
                for f in &l.fields {
                    self.field(buf, at + f.offset, f, std::slice::from_ref(&vs[f.val]));
                }
            }
            (e, v) => panic!("no encoding of {v:?} as {e:?}"),
        }
    }

    fn uint(&self, buf: &mut [u8], at: usize, size: usize, x: u64) {
        let b = &mut buf[at..at + size];
        b.copy_from_slice(&x.to_le_bytes()[..size]);
        if self.big {
            b.reverse();
        }
    }

    fn slot(&mut self, buf: &mut [u8], at: usize, off: usize, len: usize) {
        self.slots.push(at);
        self.uint(buf, at, 4, off as u64);
        self.uint(buf, at + 4, 4, len as u64);
    }
}

/// Reads a body in a local layout (native byte order) back into values, following slots;
/// checks that every variable part lies after the fixed part at a multiple of 8, inside.
struct Reader<'b> {
    body: &'b [u8],
    fixed: usize,
}

fn read(l: &Layout, body: &[u8]) -> Result<Values, TestCaseError> {
    let r = Reader {
        body,
        fixed: l.size,
    };
    l.fields
        .iter()
        .map(|f| r.field(f.offset, f))
        .collect::<Result<_, String>>()
        .map_err(TestCaseError::fail)
}

impl Reader<'_> {
    fn field(&self, at: usize, f: &LField) -> Result<Vec<Val>, String> {
        let size = f.elem.size();
        let (start, n) = match f.shape {
            Shape::Var => self.slot(at, size)?,
            ref s => (at, s.fixed_count()),
        };
        (0..n)
            .map(|i| self.val(start + i * size, &f.elem))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", f.name))
    }

    fn bytes(&self, at: usize, n: usize) -> Result<&[u8], String> {
        self.body.get(at..at + n).ok_or_else(|| {
            format!(
                "bytes {at}..{} outside the body of {}",
                at + n,
                self.body.len()
            )
        })
    }

    fn uint(&self, at: usize, size: usize) -> Result<u64, String> {
        let mut w = [0u8; 8];
        w[..size].copy_from_slice(self.bytes(at, size)?);
        if NATIVE_BIG {
            w[..size].reverse();
        }
        Ok(u64::from_le_bytes(w))
    }

    fn slot(&self, at: usize, elem: usize) -> Result<(usize, usize), String> {
        let off = self.uint(at, 4)? as usize;
        let n = self.uint(at + 4, 4)? as usize;
        if !off.is_multiple_of(8) || off < self.fixed {
            return Err(format!(
                "variable part at {off}: not a multiple of 8 after the fixed part of {}",
                self.fixed
            ));
        }
        self.bytes(off, n * elem)?;
        Ok((off, n))
    }

    fn val(&self, at: usize, e: &Elem) -> Result<Val, String> {
        Ok(match e {
            &Elem::Int { size, signed } => {
                let u = self.uint(at, size)?;
                let shift = 64 - 8 * size as u32;
                Val::I(if signed {
                    i128::from(((u << shift) as i64) >> shift)
                } else {
                    i128::from(u)
                })
            }
            Elem::Float(4) => Val::F32(f32::from_bits(self.uint(at, 4)? as u32)),
            Elem::Float(_) => Val::F64(f64::from_bits(self.uint(at, 8)?)),
            Elem::Bool(_) => match self.bytes(at, 1)?[0] {
                0 => Val::B(false),
                1 => Val::B(true),
                b => return Err(format!("bool byte {b} at {at}")),
            },
            Elem::Str => {
                let (off, n) = self.slot(at, 1)?;
                let s = std::str::from_utf8(self.bytes(off, n)?)
                    .map_err(|e| format!("string at {off}: {e}"))?;
                Val::S(s.to_owned())
            }
            Elem::Rec(l) => Val::R(
                l.fields
                    .iter()
                    .map(|f| self.val(at + f.offset, &f.elem))
                    .collect::<Result<_, _>>()?,
            ),
            Elem::Char => unreachable!("local layouts have no chars"),
        })
    }
}

/// Runs the plan into an output buffer that starts with random bytes of a random length, and
/// checks the output bound whatever the result.
fn convert(plan: &Plan, body: &[u8], rng: &mut Rng) -> Result<Vec<u8>, Error> {
    let n = rng.below(plan.dst_size() + 64);
    let mut out = rng.bytes(n);
    #[cfg(feature = "jit")]
    let before = out.clone();
    let r = interp::run(plan, body, &mut out);
    #[cfg(feature = "jit")]
    jit::agrees(plan, body, before, &r, &out);
    let bound = plan.expansion() * body.len() + plan.dst_size() + 4096;
    assert!(
        out.len() <= bound,
        "output of {} bytes from a body of {}: more than {bound}",
        out.len(),
        body.len()
    );
    r.map(|()| out)
}

/// With the `jit` feature every conversion above also runs compiled, from the same starting
/// output, and must give the same bytes or the same error: the differential test of the JIT
/// against the interpreter over every generated format, body and mutation.
#[cfg(feature = "jit")]
mod jit {
    use std::cell::RefCell;
    use std::sync::Arc;

    use wire_ndr::convert::interp;
    use wire_ndr::convert::jit::Jit;
    use wire_ndr::convert::plan::Plan;
    use wire_ndr::Error;

    thread_local! {
        static JIT: RefCell<Jit> = RefCell::new(Jit::new().expect("a JIT for this machine"));
    }

    pub fn agrees(
        plan: &Plan,
        body: &[u8],
        mut out: Vec<u8>,
        want: &Result<(), Error>,
        want_out: &[u8],
    ) {
        let code = JIT
            .with(|j| j.borrow_mut().compile(Arc::new(plan.clone())))
            .unwrap_or_else(|e| panic!("{e}\n{plan:#?}"));
        let got = code.run(body, &mut out);
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "result of the compiled plan\n{plan:#?}"
        );
        if want.is_ok() {
            assert_eq!(out, want_out, "bytes of the compiled plan\n{plan:#?}");
        }
        if !plan.has_variable_parts() {
            let mut a = vec![0x5a; plan.dst_size()];
            let mut b = a.clone();
            let ra = interp::run_fixed(plan, body, &mut a);
            let rb = code.run_fixed(body, &mut b);
            assert_eq!(
                format!("{rb:?}"),
                format!("{ra:?}"),
                "fixed result\n{plan:#?}"
            );
            if ra.is_ok() {
                assert_eq!(a, b, "fixed bytes of the compiled plan\n{plan:#?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Defaults: `NativeRecord::defaults` is a plain `fn`, so the templates live in a thread-local,
// slot 0 for the record and slot i + 1 for the record nested in field i.

thread_local! {
    static TEMPLATES: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

macro_rules! template_fns {
    ($($i:literal),*) => {
        [$({
            fn template() -> Result<Vec<u8>, Error> {
                Ok(TEMPLATES.with(|t| t.borrow()[$i].clone()))
            }
            template as Defaults
        }),*]
    };
}

const TEMPLATE_FNS: [Defaults; 9] = template_fns!(0, 1, 2, 3, 4, 5, 6, 7, 8);

fn template_fn(l: &Layout) -> Defaults {
    let slot = match l.name.strip_prefix('n') {
        Some(i) => i.parse::<usize>().unwrap() + 1,
        None => 0,
    };
    TEMPLATE_FNS[slot]
}

// ---------------------------------------------------------------------------------------------
// Properties

/// The local record: one time in `n` with defaults and a random set of fields the sender
/// lacks, else strict and with nothing missing.
fn local_record(
    rng: &mut Rng,
    local: &Layout,
    vals: &Values,
    n: usize,
) -> (&'static NativeRecord, Missing) {
    if rng.one_in(n) {
        let drop = random_missing(rng, local);
        install_defaults(rng, local, vals, &drop);
        (native_record(local, &|l| Some(template_fn(l))), drop)
    } else {
        (native_record(local, &|_| None), Missing::none(local))
    }
}

/// A value that does not fit `size`/`signed` but fits some integer of at most 8 bytes.
fn out_of_range(rng: &mut Rng, size: usize, signed: bool) -> i128 {
    let (lo, hi) = int_range(size, signed);
    let (min, max) = (i128::from(i64::MIN), i128::from(u64::MAX));
    let mut sides = Vec::new();
    if hi < max {
        sides.push(true);
    }
    if lo > min {
        sides.push(false);
    }
    let up = *rng.pick(&sides);
    let span = if up { max - hi } else { lo - min };
    let d = if rng.one_in(2) {
        1
    } else {
        1 + i128::from(rng.next()) % span
    };
    if up {
        hi + d
    } else {
        lo - d
    }
}

/// Leaves out some fields (at least one): top-level ones, or fields of nested records.
fn random_missing(rng: &mut Rng, local: &Layout) -> Missing {
    let mut drop = Missing::none(local);
    for (i, f) in local.fields.iter().enumerate() {
        drop.top[i] = rng.one_in(3);
        if let Elem::Rec(n) = &f.elem {
            if !drop.top[i] {
                for j in 0..n.fields.len() {
                    drop.sub[i][j] = rng.one_in(4);
                }
            }
        }
    }
    if !drop.top.iter().chain(drop.sub.iter().flatten()).any(|&d| d) {
        let i = rng.below(local.fields.len());
        drop.top[i] = true;
    }
    drop
}

/// Makes random defaults for the record and each nested record, installs them where the
/// template functions find them, and returns the values a conversion from a sender lacking
/// the fields `drop` names gives: `vals`, with the missing ones from the defaults.
fn install_defaults(rng: &mut Rng, local: &Layout, vals: &Values, drop: &Missing) -> Values {
    // The defaults: random values for the record and for each nested record.
    let tpl: Values = local
        .fields
        .iter()
        .map(|f| random_vals(rng, &f.elem, &f.shape))
        .collect();
    let mut templates = vec![Enc::local().body(local, &tpl)];
    let mut nested_tpl = Vec::new();
    for f in &local.fields {
        let (body, vs) = match &f.elem {
            Elem::Rec(n) => {
                let vs = match random_val(rng, &f.elem) {
                    Val::R(vs) => vs,
                    v => unreachable!("{v:?}"),
                };
                let as_values = vs.iter().map(|v| vec![v.clone()]).collect();
                (Enc::local().body(n, &as_values), vs)
            }
            _ => (Vec::new(), Vec::new()),
        };
        templates.push(body);
        nested_tpl.push(vs);
    }
    templates.resize(TEMPLATE_FNS.len(), Vec::new());
    TEMPLATES.with(|t| *t.borrow_mut() = templates);

    let mut want = vals.clone();
    for (i, w) in want.iter_mut().enumerate() {
        if drop.top[i] {
            w.clone_from(&tpl[i]);
            continue;
        }
        for v in w.iter_mut() {
            if let Val::R(vs) = v {
                for (j, x) in vs.iter_mut().enumerate() {
                    if drop.sub[i][j] {
                        *x = nested_tpl[i][j].clone();
                    }
                }
            }
        }
    }
    want
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Sent in a foreign layout, converted back equal; the local layout itself is the
    /// identical format and converts as it is.
    #[test]
    fn foreign_layouts_convert_back_equal((schema, vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let rec = native_record(&local, &|_| None);
        let expected = Enc::local().body(&local, &vals);
        let want = read(&local, &expected)?;
        prop_assert_eq!(&want, &vals);

        let same = Plan::build(&to_format(&local), rec).unwrap();
        prop_assert!(same.is_identical());
        let out = convert(&same, &expected, &mut rng).unwrap();
        prop_assert_eq!(&read(&local, &out)?, &want);

        let sent = send(&mut rng, &local, &vals, &Missing::none(&local));
        // The receiver knows the format from its description's bytes.
        let format = Format::from_bytes(&sent.format.to_bytes()).unwrap();
        prop_assert_eq!(&format, &sent.format);
        let plan = Plan::build(&format, rec).unwrap();
        let out = convert(&plan, &sent.body, &mut rng)
            .unwrap_or_else(|e| panic!("{e}\n{format:#?}\n{plan:#?}"));
        prop_assert_eq!(&read(&local, &out)?, &want);
    }

    /// One integer that does not fit its local type (sent wider, or with the other
    /// signedness), or one f64 too large for a local f32: `DoesNotFit`, naming the value.
    #[test]
    fn narrowing_that_overflows_is_refused((schema, mut vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let mut sites = Vec::new();
        for (i, f) in local.fields.iter().enumerate() {
            if vals[i].is_empty() {
                continue;
            }
            match &f.elem {
                e @ (Elem::Int { .. } | Elem::Float(4)) => sites.push((i, None, e.clone())),
                Elem::Rec(n) => {
                    for (j, g) in n.fields.iter().enumerate() {
                        if matches!(g.elem, Elem::Int { .. } | Elem::Float(4)) {
                            sites.push((i, Some(j), g.elem.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
        prop_assume!(!sites.is_empty());
        let (i, j, elem) = rng.pick(&sites).clone();
        let (bad, value, target) = match elem {
            Elem::Int { size, signed } => {
                let v = out_of_range(&mut rng, size, signed);
                (Val::I(v), v.to_string(), int_name(size, signed))
            }
            _ => {
                let m = f64::from(f32::MAX) * (2.0 + rng.below(1000) as f64);
                let v = if rng.one_in(2) { -m } else { m };
                (Val::F64(v), v.to_string(), "f32")
            }
        };
        let mut cells: Vec<&mut Val> = match j {
            None => vals[i].iter_mut().collect(),
            Some(j) => vals[i]
                .iter_mut()
                .map(|v| match v {
                    Val::R(vs) => &mut vs[j],
                    v => unreachable!("{v:?}"),
                })
                .collect(),
        };
        // The others are small, so that the sent type is chosen for the bad one.
        let bad_at = rng.below(cells.len());
        for (k, c) in cells.iter_mut().enumerate() {
            if k == bad_at {
                **c = bad.clone();
            } else if let Val::I(_) = c {
                **c = Val::I(rng.below(64) as i128);
            }
        }
        let rec = native_record(&local, &|_| None);
        let sent = send(&mut rng, &local, &vals, &Missing::none(&local));
        let plan = Plan::build(&sent.format, rec).unwrap();
        let e = convert(&plan, &sent.body, &mut rng).expect_err("a value that does not fit");
        prop_assert_eq!(e.kind(), &ErrorKind::DoesNotFit { value, target });
    }

    /// Fields the sender lacks (top-level or in nested records) come from the local record's
    /// defaults; without defaults, the plan is refused naming the first missing field.
    #[test]
    fn missing_fields_come_from_defaults((schema, vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let drop = random_missing(&mut rng, &local);
        let want = install_defaults(&mut rng, &local, &vals, &drop);
        let sent = send(&mut rng, &local, &vals, &drop);

        let rec = native_record(&local, &|l| Some(template_fn(l)));
        let plan = Plan::build(&sent.format, rec).unwrap();
        let out = convert(&plan, &sent.body, &mut rng).unwrap();
        prop_assert_eq!(&read(&local, &out)?, &want);

        let strict = native_record(&local, &|_| None);
        let first = local
            .fields
            .iter()
            .enumerate()
            .find_map(|(i, f)| {
                if drop.top[i] {
                    return Some(f.name.clone());
                }
                let j = drop.sub[i].iter().position(|&d| d)?;
                match &f.elem {
                    Elem::Rec(n) => Some(n.fields[j].name.clone()),
                    _ => None,
                }
            })
            .unwrap();
        let e = Plan::build(&sent.format, strict).unwrap_err();
        match e.kind() {
            ErrorKind::Incompatible(msg) => {
                prop_assert!(msg.contains(&format!("no field `{first}`")), "{}", msg);
            }
            k => prop_assert!(false, "{:?}", k),
        }
    }

    /// Arbitrary bytes, bare or behind a frame head with the right length.
    #[test]
    fn arbitrary_frames_never_panic(bytes in vec(any::<u8>(), 0..300), head in 0..3u8) {
        let b = match head {
            0 => bytes,
            _ => {
                let mut f = if head == 1 { RECORD_MAGIC } else { FORMAT_MAGIC }.to_vec();
                f.extend_from_slice(&((bytes.len() + 8) as u32).to_be_bytes());
                f.extend_from_slice(&bytes);
                f
            }
        };
        let _ = parse_message(&b);
        let _ = parse_frame(&b);
        if let Some(h) = b.first_chunk::<8>() {
            let _ = frame_len(h);
        }
        let _ = Format::from_bytes(&b);
        let _ = Format::from_bytes(&b[b.len().min(8)..]);
    }

    /// Descriptions of generated foreign formats (nested records, strings, variable arrays)
    /// with a few bytes changed and the id recomputed: refused, or valid and canonical.
    #[test]
    fn mutated_descriptions_never_panic((schema, vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let sent = send(&mut rng, &local, &vals, &Missing::none(&local));
        let mut d = sent.format.to_bytes()[16..].to_vec();
        for _ in 0..1 + rng.below(3) {
            match rng.below(4) {
                0 if !d.is_empty() => d.truncate(rng.below(d.len())),
                1 => d.push(rng.next() as u8),
                _ if !d.is_empty() => {
                    let i = rng.below(d.len());
                    d[i] = rng.next() as u8;
                }
                _ => {}
            }
        }
        let mut signed = FormatId::of_description(&d).as_bytes().to_vec();
        signed.extend_from_slice(&d);
        if let Ok(g) = Format::from_bytes(&signed) {
            prop_assert_eq!(g.to_bytes(), signed.clone());
        }
        let mut frame = FORMAT_MAGIC.to_vec();
        frame.extend_from_slice(&((signed.len() + 8) as u32).to_be_bytes());
        frame.extend_from_slice(&signed);
        let _ = parse_frame(&frame);
    }

    /// Plans of generated formats run on arbitrary bodies: Ok or Err, bounded output.
    #[test]
    fn converter_never_panics_on_arbitrary_bodies(
        (schema, vals) in schema_and_values(),
        seed in any::<u64>(),
        junk in vec(any::<u8>(), 0..512),
    ) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let rec = native_record(&local, &|_| None);
        let sent = send(&mut rng, &local, &vals, &Missing::none(&local));
        let plan = Plan::build(&sent.format, rec).unwrap();
        let _ = convert(&plan, &junk, &mut rng);
        // Long enough for the fixed part, so the slots are read.
        let body: Vec<u8> = junk.iter().cycle().take(plan.src_size() + junk.len()).copied().collect();
        let _ = convert(&plan, &body, &mut rng);
    }

    /// Valid bodies with slots pointing out of the body, at huge lengths or at each other,
    /// bytes changed, cut short or lengthened: Ok or Err, bounded output. Half the senders
    /// lack fields that the local record's defaults fill.
    #[test]
    fn converter_never_panics_on_mutated_bodies((schema, vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let (rec, drop) = local_record(&mut rng, &local, &vals, 2);
        let sent = send(&mut rng, &local, &vals, &drop);
        let plan = Plan::build(&sent.format, rec).unwrap();
        let big = sent.format.byte_order() == ByteOrder::Big;
        for _ in 0..8 {
            let mut b = sent.body.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(6) {
                    0..=2 if !sent.slots.is_empty() => {
                        let at = *rng.pick(&sent.slots) + 4 * rng.below(2);
                        let other = *rng.pick(&sent.slots);
                        let len = b.len() as u32;
                        let w = match rng.below(8) {
                            0 => u32::MAX,
                            1 => u32::MAX - 7,
                            2 => 0x8000_0000,
                            3 => len,
                            4 => len.wrapping_sub(1),
                            5 => 0,
                            _ => rng.next() as u32,
                        };
                        let mut bytes = if big != rng.one_in(8) { w.to_be_bytes() } else { w.to_le_bytes() };
                        // Or another slot's offset: overlapping variable parts.
                        if rng.one_in(4) {
                            if let Some(o) = b.get(other..other + 4) {
                                bytes.copy_from_slice(o);
                            }
                        }
                        if let Some(dst) = b.get_mut(at..at + 4) {
                            dst.copy_from_slice(&bytes);
                        }
                    }
                    3 if !b.is_empty() => {
                        let i = rng.below(b.len());
                        b[i] = rng.next() as u8;
                    }
                    4 if !b.is_empty() => b.truncate(rng.below(b.len())),
                    _ => {
                        let n = rng.below(16);
                        b.extend(rng.bytes(n));
                    }
                }
            }
            let _ = convert(&plan, &b, &mut rng);
        }
    }
}

#[cfg(feature = "jit")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// The JIT against the interpreter over thousands of generated formats: foreign layouts
    /// (byte orders, widths, signedness, offsets, nesting, arrays, extra fields), missing
    /// fields filled from defaults, values that do not fit, the whole body and truncations of
    /// it (`convert` runs both engines and compares bytes or errors).
    #[test]
    fn jit_matches_interpreter((schema, vals) in schema_and_values(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let local = local_layout(&schema);
        let (rec, drop) = local_record(&mut rng, &local, &vals, 3);
        let sent = send(&mut rng, &local, &vals, &drop);
        let plan = Plan::build(&sent.format, rec).unwrap();
        let _ = convert(&plan, &sent.body, &mut rng);
        let n = sent.body.len();
        let fixed = plan.src_size();
        for cut in [0, 1, fixed.saturating_sub(1), fixed, n.saturating_sub(1), rng.below(n + 1)] {
            let _ = convert(&plan, &sent.body[..cut.min(n)], &mut rng);
        }
        // And a value that does not fit, in a random byte of the fixed part.
        let mut b = sent.body.clone();
        if fixed > 0 {
            let i = rng.below(fixed);
            b[i] = rng.next() as u8;
            let _ = convert(&plan, &b, &mut rng);
        }
    }
}
