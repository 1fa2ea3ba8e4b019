//! `ndr_format`: NDR format descriptions (`Format::from_bytes`) and everything read from a
//! validated format.
//!
//! Input: `[flags][bytes]`. Flags bit 0 set: the bytes are `Format::to_bytes` output (the id,
//! then the description), so the id check is exercised; clear: the bytes are the description
//! alone and the id is computed here, so mutations reach validation.
//!
//! A format that validates must: re-encode to exactly its bytes (the encoding is canonical);
//! answer `elements()`, `extent()`, `type_name()` and `io_field()` for every field of it and
//! of its nested formats without overflow, with every field inside its record; be rebuilt
//! equal by `Format::from_fields` from its own `io_fields()` (as documented); travel in a
//! format frame; and give plans for the local types or errors, never a panic. (Records of
//! fuzzed formats are decoded by `ndr_dynamic` and converted by `ndr_convert_*`.)

use marshal::ndr::convert::plan::Plan;
use marshal::ndr::{format_frame, parse_frame, Format, FormatId, Frame, Kind, Record};

use crate::types::{NBig, NBigs, NMixed, NNest, NPoint, NSample};
use crate::xdr_derived::same_bytes;

/// The target.
pub fn run(data: &[u8]) {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    let full = if flags & 1 == 1 {
        bytes.to_vec()
    } else {
        let mut full = FormatId::of_description(bytes).as_bytes().to_vec();
        full.extend_from_slice(bytes);
        full
    };
    let Ok(f) = Format::from_bytes(&full) else {
        return;
    };
    same_bytes("a format's canonical bytes", &f.to_bytes(), &full);
    touch(&f);

    let rebuilt = Format::from_fields(
        f.name(),
        f.byte_order(),
        f.size(),
        &f.io_fields(),
        f.nested(),
    )
    .unwrap_or_else(|e| panic!("a valid format is not rebuilt from its io_fields: {e}"));
    // `from_fields` keeps only the nested formats that fields name; a description may carry
    // others (validated, never used), which changes its id but not its layout.
    if nested_all_used(&f) {
        assert_eq!(rebuilt, f, "a format rebuilt from its io_fields");
        assert_eq!(rebuilt.id(), f.id(), "the id of a rebuilt format");
    } else {
        assert_eq!(
            (
                rebuilt.name(),
                rebuilt.byte_order(),
                rebuilt.size(),
                rebuilt.fields()
            ),
            (f.name(), f.byte_order(), f.size(), f.fields()),
            "a format rebuilt from its io_fields"
        );
    }

    match parse_frame(&format_frame(&f)) {
        Ok(Frame::Format(g)) => assert_eq!(g, f, "a format through a format frame"),
        other => panic!("a format frame parses as {other:?}"),
    }

    plan::<NPoint>(&f);
    plan::<NSample>(&f);
    plan::<NMixed>(&f);
    plan::<NNest>(&f);
    plan::<NBig>(&f);
    plan::<NBigs>(&f);
}

/// Whether every nested format of `f` (and of its nested formats) is named by a field.
fn nested_all_used(f: &Format) -> bool {
    f.nested().iter().all(|n| {
        f.fields()
            .iter()
            .any(|x| matches!(x.kind(), Kind::Record(r) if r == n.name()))
            && nested_all_used(n)
    })
}

/// Reads every fact of `f` and its nested formats.
fn touch(f: &Format) {
    let _ = (f.name(), f.byte_order(), f.id(), f.is_zero_copy());
    for field in f.fields() {
        let _ = (
            field.name(),
            field.kind(),
            field.dims(),
            field.is_variable(),
        );
        let elements = field.elements();
        let product = field
            .dims()
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d));
        assert_eq!(Some(elements), product, "elements() of `{}`", field.name());
        let extent = field.extent();
        assert!(
            field
                .offset()
                .checked_add(extent)
                .is_some_and(|end| end <= f.size()),
            "field `{}` ({} + {extent} bytes) lies outside its record of {}",
            field.name(),
            field.offset(),
            f.size()
        );
        let io = field.io_field();
        assert_eq!(io.type_name, field.type_name());
        assert_eq!((io.size, io.offset), (field.size(), field.offset()));
        assert!(f.field(field.name()).is_some());
    }
    for n in f.nested() {
        assert!(f.nested_format(n.name()).is_some());
        touch(n);
    }
}

fn plan<T: Record>(f: &Format) {
    if let Ok(p) = Plan::build(f, T::RECORD) {
        assert_eq!(p.src_size(), f.size());
        assert_eq!(p.dst_size(), core::mem::size_of::<T>());
        let _ = (p.steps().len(), p.templates().len(), p.expansion());
    }
}
