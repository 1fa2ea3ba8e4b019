//! Derived record types and their native formats: the [`Record`] trait, and each record's
//! [`Format`] built from its [`NativeRecord`] once per type and kept for the life of the
//! process (there is one per derived type that is used, so the set is bounded by the program).

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use crate::format::description::{Field, Format};
use crate::format::field_type::Kind;
use crate::native::{Native, NativeRecord, NativeType, SLOT};
use crate::order::ByteOrder;

/// A derived record: the derive implements this for every struct whose fields are all
/// [`Native`].
pub trait Record: Native {
    /// The record's static description.
    const RECORD: &'static NativeRecord;

    /// The record's native [`Format`], built once per type and kept.
    fn format() -> &'static Format {
        local(Self::RECORD)
    }
}

impl Format {
    /// The native format of a derived type: its name, this machine's byte order, `size_of`,
    /// and each field's name, kind, size and `offset_of!`; nested records by their own formats.
    /// Built once per type and kept.
    pub fn of<T: Record>() -> Format {
        T::format().clone()
    }
}

/// The native format of `rec`, built on first use.
pub fn local(rec: &'static NativeRecord) -> &'static Format {
    static CACHE: OnceLock<RwLock<HashMap<usize, &'static Format>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    // Keyed by the description's address: two descriptions at one address are one description.
    let key = rec as *const NativeRecord as usize;
    if let Some(f) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return f;
    }
    let f: &'static Format = Box::leak(Box::new(of_record(rec)));
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(f)
}

/// Builds the format of a native record.
///
/// # Panics
/// If the record nests two different records of one name, or nests deeper than
/// [`MAX_DEPTH`](crate::MAX_DEPTH): a format cannot describe it.
pub(crate) fn of_record(rec: &'static NativeRecord) -> Format {
    match build(rec, 0) {
        Ok(f) => f,
        Err(why) => panic!("no NDR format for `{}`: {why}", rec.name),
    }
}

fn build(rec: &'static NativeRecord, depth: usize) -> Result<Format, String> {
    let mut fields = Vec::with_capacity(rec.fields.len());
    let mut nested: Vec<Format> = Vec::new();
    for f in rec.fields {
        let (kind, size, dims, var, inner) = describe(&f.ty);
        if let Some(inner) = inner {
            let built = build(inner, depth + 1)?;
            match nested.iter().find(|n| n.name() == inner.name) {
                Some(n) if *n != built => {
                    return Err(format!(
                        "two different records named `{}` are nested in it",
                        inner.name
                    ))
                }
                Some(_) => {}
                None => nested.push(built),
            }
        }
        fields.push(Field {
            name: f.name.to_owned(),
            kind,
            size,
            offset: f.offset,
            dims,
            var,
        });
    }
    let mut f = Format::build(
        rec.name.to_owned(),
        ByteOrder::native(),
        rec.size,
        fields,
        nested,
        depth,
    )?;
    f.zero_copy = rec.zero_copy;
    Ok(f)
}

/// A native type as a field: kind, element size, dimensions, variable, nested record.
fn describe(ty: &NativeType) -> (Kind, usize, Vec<usize>, bool, Option<&'static NativeRecord>) {
    match *ty {
        NativeType::Int(n) => (Kind::Int, n, Vec::new(), false, None),
        NativeType::UInt(n) => (Kind::UInt, n, Vec::new(), false, None),
        NativeType::Float(n) => (Kind::Float, n, Vec::new(), false, None),
        NativeType::Bool => (Kind::Bool, 1, Vec::new(), false, None),
        NativeType::String => (Kind::String, SLOT, Vec::new(), false, None),
        NativeType::Record(r) => (
            Kind::Record(r.name.to_owned()),
            r.size,
            Vec::new(),
            false,
            Some(r),
        ),
        NativeType::Array { elem, len } => {
            let (k, s, mut dims, var, r) = describe(elem);
            dims.insert(0, len);
            (k, s, dims, var, r)
        }
        NativeType::Var { elem } => {
            let (k, s, dims, _, r) = describe(elem);
            (k, s, dims, true, r)
        }
    }
}
