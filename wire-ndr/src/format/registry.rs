//! Derived record types and their native formats: the [`Record`] trait, and each record's
//! [`Format`] built from its [`NativeRecord`] once per type and kept for the life of the
//! process (there is one per derived type that is used, so the set is bounded by the program).

use core::any::TypeId;
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
        local::<Self>()
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

/// The native format of `T`, built on first use and kept.
///
/// Keyed by the type: Rust promises no single address for a constant such as `T::RECORD`, so
/// one type's record may sit at several addresses (one entry each, had they been the key) and
/// two types' equal records at one.
pub(crate) fn local<T: Record>() -> &'static Format {
    static CACHE: OnceLock<RwLock<HashMap<TypeId, &'static Format>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = TypeId::of::<T>();
    if let Some(f) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return f;
    }
    let f: &'static Format = Box::leak(Box::new(of_record(T::RECORD)));
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(f)
}

/// The native format of `rec`, built now and kept for the life of the process: the derive
/// calls this once per non-generic type, from a `static` of that type's own.
pub fn build_static(rec: &'static NativeRecord) -> &'static Format {
    Box::leak(Box::new(of_record(rec)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeField;
    use marshal_core::Error;

    /// Two types with equal `RECORD` constants (which the compiler may place at one address).
    macro_rules! twin {
        ($t:ident) => {
            struct $t(u32);
            // SAFETY: `$t` is one `u32` (no padding, no pointer, any bits), and `TYPE` says so.
            unsafe impl Native for $t {
                const TYPE: NativeType = NativeType::Record(<$t as Record>::RECORD);
                const ANY_BITS: bool = true;
                const AS_BYTES: bool = true;
                fn put(&self, buf: &mut Vec<u8>, base: usize, at: usize) -> Result<(), Error> {
                    self.0.put(buf, base, at)
                }
                fn get(body: &[u8], at: usize) -> Result<Self, Error> {
                    u32::get(body, at).map($t)
                }
            }
            impl Record for $t {
                const RECORD: &'static NativeRecord = &NativeRecord {
                    name: "twin",
                    size: 4,
                    align: 4,
                    fields: &[NativeField {
                        name: "x",
                        offset: 0,
                        ty: NativeType::UInt(4),
                    }],
                    defaults: None,
                    zero_copy: true,
                };
            }
        };
    }
    twin!(A);
    twin!(B);

    #[test]
    fn native_formats_are_kept_per_type() {
        assert_eq!(A::format(), B::format());
        // Keyed by address, equal records merged into one constant would share one entry.
        assert!(!core::ptr::eq(A::format(), B::format()));
        assert!(core::ptr::eq(A::format(), local::<A>()));
        assert_eq!(A(7).0 + B(7).0, 14);
    }
}
