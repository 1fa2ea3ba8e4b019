//! Conversion plans: how to turn a record of an incoming [`Format`] into the body of a local
//! type, as data. A plan is built once per (incoming format, local type) and cached by the
//! [`Receiver`](crate::Receiver); the [interpreter](crate::convert::interp) executes it, and a JIT may
//! compile it (it must produce the same bytes).
//!
//! Fields are matched **by name**. Each local field becomes one [`Step`]: copy or byte-swap
//! when the representations agree, else widen or narrow integers (narrowing checks the value),
//! convert floats, normalise booleans, move strings and variable-length arrays into the
//! output's variable part, or descend into nested records. Fields the incoming format lacks
//! are copied from the body of the local type's `Default` value when the type says
//! `#[marshal(default_missing)]`, and are an error otherwise. Extra incoming fields are
//! ignored. Neighbouring copies are merged, so a record whose layout is the same is one copy.

use core::any::TypeId;

use crate::convert::limit;
use crate::format::description::{Field, Format};
use crate::format::field_type::Kind;
use crate::format::format_id::FormatId;
use crate::format::registry;
use crate::native::{NativeRecord, NativeType, SLOT};
use crate::{ByteOrder, Error, ErrorKind};

/// A plan's identity: (incoming format, local type). The local type is its `TypeId`, not the
/// address of its `RECORD`: Rust promises no single address for a constant, so one type's
/// record may sit at several addresses and two equal records at one.
pub(crate) type Key = (FormatId, TypeId);

/// How an integer is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntRepr {
    /// Bytes: 1, 2, 4 or 8.
    pub size: u8,
    /// Two's complement (`true`) or unsigned.
    pub signed: bool,
    /// Stored in the byte order opposite to this machine's.
    pub swap: bool,
}

impl IntRepr {
    /// The Rust name of the native integer type, for errors.
    pub fn type_name(self) -> &'static str {
        match (self.signed, self.size) {
            (true, 1) => "i8",
            (true, 2) => "i16",
            (true, 4) => "i32",
            (true, _) => "i64",
            (false, 1) => "u8",
            (false, 2) => "u16",
            (false, 4) => "u32",
            (false, _) => "u64",
        }
    }
}

/// What a step does to each of its `count` elements.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Copy `width` bytes as they are.
    Copy {
        /// Bytes per element.
        width: usize,
    },
    /// Copy reversing the bytes (2, 4 or 8).
    Swap {
        /// Bytes per element.
        width: usize,
    },
    /// Convert an integer (widening, narrowing with a range check, signedness).
    Int {
        /// The incoming representation.
        from: IntRepr,
        /// The local one (native order).
        to: IntRepr,
    },
    /// Convert a float between 4 and 8 bytes (narrowing a finite value to infinity fails).
    Float {
        /// Incoming bytes.
        from: usize,
        /// Local bytes.
        to: usize,
        /// Incoming in the other byte order.
        swap: bool,
    },
    /// An integer or boolean of `from` bytes to a Rust `bool`: zero is false, else true.
    Bool {
        /// Incoming bytes.
        from: usize,
    },
    /// A string slot: the bytes are appended to the output's variable part.
    Str {
        /// The incoming slot is in the other byte order.
        swap: bool,
    },
    /// A variable-length array slot: its elements are converted by `elem` (whose `src` and
    /// `dst` are 0 and which runs once for all elements) into the output's variable part.
    Var {
        /// The incoming slot is in the other byte order.
        swap: bool,
        /// Incoming bytes per element.
        src_elem: usize,
        /// Local bytes per element.
        dst_elem: usize,
        /// The conversion of the elements.
        elem: Box<Step>,
    },
    /// Nested records: `steps` run for each element, at these strides.
    Records {
        /// Incoming bytes per record.
        src_stride: usize,
        /// Local bytes per record.
        dst_stride: usize,
        /// The record's conversion, offsets relative to each record.
        steps: Vec<Step>,
    },
    /// A field the incoming format lacks: `steps` read from `templates[index]` (the body of
    /// the local record's `Default` value) instead of the incoming record.
    Template {
        /// Which template of the plan.
        index: usize,
        /// The field's identity conversion: `src` is its offset in the template's record,
        /// `dst` is 0 (relative to this step's).
        steps: Vec<Step>,
    },
}

/// One step: `count` elements from incoming offset `src` to local offset `dst` (both relative
/// to the enclosing record).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Offset in the incoming record.
    pub src: usize,
    /// Offset in the local record.
    pub dst: usize,
    /// Elements (the product of the array dimensions; 1 for a scalar).
    pub count: usize,
    /// The local field, for error paths.
    pub field: &'static str,
    /// What to do.
    pub op: Op,
}

/// A conversion plan from one incoming format to one local record type.
#[derive(Debug, Clone)]
pub struct Plan {
    pub(crate) src_size: usize,
    pub(crate) dst_size: usize,
    pub(crate) steps: Vec<Step>,
    pub(crate) templates: Vec<Vec<u8>>,
    pub(crate) identical: bool,
    pub(crate) var: bool,
}

impl Plan {
    /// Bytes of the incoming fixed part.
    pub fn src_size(&self) -> usize {
        self.src_size
    }
    /// Bytes of the local fixed part.
    pub fn dst_size(&self) -> usize {
        self.dst_size
    }
    /// The steps, by local offset.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
    /// Bodies of `Default` values that [`Op::Template`] steps read.
    pub fn templates(&self) -> &[Vec<u8>] {
        &self.templates
    }
    /// How many times the incoming body's size the converted body's variable parts may take
    /// ([`EXPANSION`](crate::convert::limit::EXPANSION), whatever the formats: see
    /// [`output_limit`](crate::convert::limit::output_limit)).
    pub fn expansion(&self) -> usize {
        limit::EXPANSION
    }
    /// The incoming format is the local one: the record is used as it is.
    pub fn is_identical(&self) -> bool {
        self.identical
    }
    /// Whether the plan moves variable parts (strings, variable-length arrays).
    pub fn has_variable_parts(&self) -> bool {
        self.var
    }

    /// Builds the plan that converts records of `src` into bodies of the local record `dst`.
    ///
    /// # Panics
    /// If no format can describe `dst` (see [`Format::of`]).
    pub fn build(src: &Format, dst: &'static NativeRecord) -> Result<Plan, Error> {
        Plan::build_with(src, dst, &registry::of_record(dst))
    }

    /// [`Plan::build`] with `local`, the native format of `dst`, already known.
    pub(crate) fn build_with(
        src: &Format,
        dst: &'static NativeRecord,
        local: &Format,
    ) -> Result<Plan, Error> {
        let mut b = Builder {
            templates: Vec::new(),
        };
        let steps = b.record(src, dst, local)?;
        Ok(Plan {
            src_size: src.size(),
            dst_size: dst.size,
            var: has_var(&steps),
            steps,
            templates: b.templates.into_iter().map(|(_, t)| t).collect(),
            identical: src.id() == local.id(),
        })
    }
}

fn incompatible(msg: String) -> Error {
    Error::without_offset(ErrorKind::Incompatible(msg))
}

struct Builder {
    /// Templates by the address of the record they belong to, within this one plan: a record
    /// found at two addresses costs a second copy of its template, and two records at one
    /// address are equal (defaults included), so the plan is right either way.
    templates: Vec<(usize, Vec<u8>)>,
}

impl Builder {
    /// The steps from a record of `src` to the local record `dst`, whose own (native) format
    /// is `own`.
    fn record(
        &mut self,
        src: &Format,
        dst: &'static NativeRecord,
        own: &Format,
    ) -> Result<Vec<Step>, Error> {
        let mut steps = Vec::with_capacity(dst.fields.len());
        for df in dst.fields {
            let step = match src.field(df.name) {
                Some(sf) => self.field(src, sf, &df.ty, df.offset, df.name, own),
                None => self.missing(src, dst, own, df.name, &df.ty, df.offset),
            };
            steps.push(step.map_err(|e| e.in_field(df.name))?);
        }
        Ok(coalesce(steps))
    }

    fn missing(
        &mut self,
        src: &Format,
        dst: &'static NativeRecord,
        own: &Format,
        name: &'static str,
        ty: &NativeType,
        offset: usize,
    ) -> Result<Step, Error> {
        let Some(defaults) = dst.defaults else {
            return Err(incompatible(format!(
                "`{}` has no field `{name}`, which `{}` needs (a type that says \
                 #[marshal(default_missing)] takes missing fields from its Default)",
                src.name(),
                dst.name
            )));
        };
        let key = dst as *const NativeRecord as usize;
        let index = match self.templates.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let body = defaults()?;
                if body.len() < dst.size {
                    return Err(incompatible(format!(
                        "the default body of `{}` is {} bytes, shorter than the record's {}",
                        dst.name,
                        body.len(),
                        dst.size
                    )));
                }
                self.templates.push((key, body));
                self.templates.len() - 1
            }
        };
        // The field's identity conversion, from the local format to itself.
        let Some(sf) = own.field(name) else {
            return Err(incompatible(format!("`{}` lacks its own field", dst.name)));
        };
        let mut inner = self.field(own, sf, ty, offset, name, own)?;
        inner.dst = 0;
        Ok(Step {
            src: 0,
            dst: offset,
            count: 1,
            field: name,
            op: Op::Template {
                index,
                steps: vec![inner],
            },
        })
    }

    fn field(
        &mut self,
        src: &Format,
        sf: &Field,
        ty: &NativeType,
        offset: usize,
        name: &'static str,
        own: &Format,
    ) -> Result<Step, Error> {
        let (leaf, dims, var) = flatten(ty);
        if sf.is_variable() != var {
            return Err(incompatible(format!(
                "`{}`.{name} is {}a variable-length array and the local field is {}",
                src.name(),
                if sf.is_variable() { "" } else { "not " },
                if var { "one" } else { "not" },
            )));
        }
        if !var && sf.dims() != dims.as_slice() {
            return Err(incompatible(format!(
                "`{}`.{name} has dimensions {:?} and the local field {:?}",
                src.name(),
                sf.dims(),
                dims
            )));
        }
        let swap = src.byte_order() != ByteOrder::native();
        let op = self.leaf(src, sf, leaf, swap, own)?;
        if var {
            return Ok(Step {
                src: sf.offset(),
                dst: offset,
                count: 1,
                field: name,
                op: Op::Var {
                    swap,
                    src_elem: sf.size(),
                    dst_elem: native_size(leaf),
                    elem: Box::new(Step {
                        src: 0,
                        dst: 0,
                        count: 1,
                        field: name,
                        op,
                    }),
                },
            });
        }
        Ok(Step {
            src: sf.offset(),
            dst: offset,
            count: dims.iter().product(),
            field: name,
            op,
        })
    }

    /// The element conversion from an incoming field's kind to a local leaf type, in a local
    /// record whose own format is `own`.
    fn leaf(
        &mut self,
        src: &Format,
        sf: &Field,
        leaf: &NativeType,
        swap: bool,
        own: &Format,
    ) -> Result<Op, Error> {
        let size = sf.size();
        let integer = matches!(sf.kind(), Kind::Int | Kind::UInt | Kind::Char | Kind::Bool);
        let same = |width: usize| {
            if swap && width > 1 {
                Op::Swap { width }
            } else {
                Op::Copy { width }
            }
        };
        Ok(match (sf.kind(), *leaf) {
            // A C `char` is a byte: it goes into `u8` or `i8` as it is.
            (Kind::Char, NativeType::Int(1) | NativeType::UInt(1)) => Op::Copy { width: 1 },
            (_, NativeType::Int(n) | NativeType::UInt(n)) if integer => {
                let from = IntRepr {
                    size: size as u8,
                    signed: *sf.kind() == Kind::Int,
                    swap,
                };
                let to = IntRepr {
                    size: n as u8,
                    signed: matches!(leaf, NativeType::Int(_)),
                    swap: false,
                };
                if from.size == to.size && from.signed == to.signed {
                    same(size)
                } else {
                    Op::Int { from, to }
                }
            }
            (Kind::Float, NativeType::Float(n)) if n == size => same(size),
            (Kind::Float, NativeType::Float(n)) => Op::Float {
                from: size,
                to: n,
                swap,
            },
            (_, NativeType::Bool) if integer => Op::Bool { from: size },
            (Kind::String, NativeType::String) => Op::Str { swap },
            (Kind::Record(rname), NativeType::Record(rec)) => {
                let Some(nested) = src.nested_format(rname) else {
                    return Err(incompatible(format!(
                        "`{}` names record `{rname}` but does not describe it",
                        src.name()
                    )));
                };
                // The native format of a record nests the formats of its records by name.
                let Some(rec_own) = own.nested_format(rec.name) else {
                    return Err(incompatible(format!(
                        "the local format of `{}` does not describe `{}`",
                        own.name(),
                        rec.name
                    )));
                };
                let steps = self.record(nested, rec, rec_own)?;
                records(size, rec.size, steps)
            }
            (kind, _) => {
                return Err(incompatible(format!(
                    "`{}`.{} is {} and cannot convert to the local {}",
                    src.name(),
                    sf.name(),
                    kind_words(kind),
                    native_words(leaf)
                )))
            }
        })
    }
}

/// Whether steps move variable parts (strings, variable-length arrays).
fn has_var(steps: &[Step]) -> bool {
    steps.iter().any(|s| match &s.op {
        Op::Str { .. } | Op::Var { .. } => true,
        Op::Records { steps, .. } | Op::Template { steps, .. } => has_var(steps),
        _ => false,
    })
}

/// `Records`, or one copy when the records are the same bytes at the same stride.
fn records(src_stride: usize, dst_stride: usize, steps: Vec<Step>) -> Op {
    if let [Step {
        src: 0,
        dst: 0,
        count,
        op: Op::Copy { width },
        ..
    }] = steps.as_slice()
    {
        if src_stride == dst_stride && count * width == dst_stride {
            return Op::Copy { width: dst_stride };
        }
    }
    Op::Records {
        src_stride,
        dst_stride,
        steps,
    }
}

/// Largest gap of padding two copies may be merged across (the padding comes along).
const MAX_GAP: usize = 16;

/// Sorts steps by local offset and merges neighbouring copies and swaps of one width.
fn coalesce(mut steps: Vec<Step>) -> Vec<Step> {
    steps.sort_by_key(|s| s.dst);
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    for s in steps {
        if let Some(p) = out.last_mut() {
            let plen = p.count * width(&p.op);
            let gap_ok = s.src >= p.src + plen
                && s.dst >= p.dst + plen
                && s.src - p.src == s.dst - p.dst
                && s.dst - (p.dst + plen) <= MAX_GAP;
            match (&p.op, &s.op) {
                (Op::Copy { .. }, Op::Copy { width: w }) if gap_ok => {
                    let end = s.dst + s.count * w;
                    p.count = end - p.dst;
                    p.op = Op::Copy { width: 1 };
                    continue;
                }
                (Op::Swap { width: a }, Op::Swap { width: b })
                    if a == b && s.src == p.src + plen && s.dst == p.dst + plen =>
                {
                    p.count += s.count;
                    continue;
                }
                _ => {}
            }
        }
        out.push(s);
    }
    out
}

fn width(op: &Op) -> usize {
    match op {
        Op::Copy { width } | Op::Swap { width } => *width,
        _ => 0,
    }
}

/// A native type as (leaf, fixed dimensions, variable).
fn flatten(ty: &NativeType) -> (&NativeType, Vec<usize>, bool) {
    match ty {
        NativeType::Array { elem, len } => {
            let (leaf, mut dims, var) = flatten(elem);
            dims.insert(0, *len);
            (leaf, dims, var)
        }
        NativeType::Var { elem } => {
            let (leaf, dims, _) = flatten(elem);
            (leaf, dims, true)
        }
        other => (other, Vec::new(), false),
    }
}

fn native_size(leaf: &NativeType) -> usize {
    match *leaf {
        NativeType::Int(n) | NativeType::UInt(n) | NativeType::Float(n) => n,
        NativeType::Bool => 1,
        NativeType::String => SLOT,
        NativeType::Record(r) => r.size,
        NativeType::Array { .. } | NativeType::Var { .. } => 0,
    }
}

fn kind_words(k: &Kind) -> String {
    match k {
        Kind::Int => "an integer".into(),
        Kind::UInt => "an unsigned integer".into(),
        Kind::Float => "a float".into(),
        Kind::Char => "a char".into(),
        Kind::Bool => "a boolean".into(),
        Kind::String => "a string".into(),
        Kind::Record(r) => format!("record `{r}`"),
    }
}

fn native_words(t: &NativeType) -> String {
    match t {
        NativeType::Int(n) => format!("i{}", n * 8),
        NativeType::UInt(n) => format!("u{}", n * 8),
        NativeType::Float(n) => format!("f{}", n * 8),
        NativeType::Bool => "bool".into(),
        NativeType::String => "String".into(),
        NativeType::Record(r) => format!("record `{}`", r.name),
        NativeType::Array { .. } => "array".into(),
        NativeType::Var { .. } => "Vec".into(),
    }
}
