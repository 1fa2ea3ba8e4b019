//! Property tests of format descriptions: generated formats round-trip through their canonical
//! bytes with the same id; arbitrary and mutated bytes never panic the decoder, and a
//! description whose id does not match its bytes is refused.

use proptest::collection::vec;
use proptest::prelude::*;
use wire_ndr::{ByteOrder, Format, FormatId, IOField};

const SCALARS: [(&str, &[usize]); 5] = [
    ("integer", &[1, 2, 4, 8]),
    ("unsigned integer", &[1, 2, 4, 8]),
    ("float", &[4, 8]),
    ("char", &[1]),
    ("boolean", &[1, 4]),
];

/// A record of 1..12 scalar or array fields laid out one after another, with gaps.
fn format() -> impl Strategy<Value = Format> {
    let field = (
        0..SCALARS.len(),
        any::<prop::sample::Index>(),
        vec(1usize..4, 0..3),
        0usize..5,
    );
    (vec(field, 1..12), any::<bool>()).prop_map(|(fields, big)| {
        let mut at = 0;
        let list: Vec<IOField> = fields
            .iter()
            .enumerate()
            .map(|(i, (k, size, dims, gap))| {
                let (ty, sizes) = SCALARS[*k];
                let size = sizes[size.index(sizes.len())];
                let dims: String = dims.iter().map(|d| format!("[{d}]")).collect();
                at += gap;
                let f = IOField::new(&format!("f{i}"), &format!("{ty}{dims}"), size, at);
                at += size * dims_product(&f.type_name);
                f
            })
            .collect();
        let order = if big {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        };
        Format::from_fields("rec", order, at + 3, &list, &[]).expect("generated formats are valid")
    })
}

fn dims_product(t: &str) -> usize {
    t.split('[')
        .skip(1)
        .map(|d| d.trim_end_matches(']').parse::<usize>().unwrap())
        .product()
}

proptest! {
    #[test]
    fn formats_round_trip_with_their_id(f in format()) {
        let b = f.to_bytes();
        let g = Format::from_bytes(&b).unwrap();
        prop_assert_eq!(g.id(), f.id());
        prop_assert_eq!(g, f);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in vec(any::<u8>(), 0..300)) {
        let _ = Format::from_bytes(&b);
        // With a matching id, the description itself is parsed and validated.
        let mut with_id = FormatId::of_description(&b).as_bytes().to_vec();
        with_id.extend_from_slice(&b);
        let _ = Format::from_bytes(&with_id);
    }

    #[test]
    fn mutated_descriptions_are_refused_or_valid(f in format(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let b = f.to_bytes();
        let mut m = b.clone();
        let i = at.index(m.len());
        prop_assume!(m[i] != byte);
        m[i] = byte;
        // The id no longer matches.
        prop_assert!(Format::from_bytes(&m).is_err());
        // Re-signed, it is either refused or a valid format that encodes to exactly these bytes.
        let d = &m[16..];
        let mut signed = FormatId::of_description(d).as_bytes().to_vec();
        signed.extend_from_slice(d);
        if let Ok(g) = Format::from_bytes(&signed) {
            prop_assert_eq!(g.to_bytes(), signed);
        }
    }
}

/// PBIO's KSdata1 record as gcc lays it out on x86-64.
#[test]
fn ksdata1_is_described_as_pbio_users_do() {
    let fields = [
        IOField::new("Cnstatv", "integer", 4, 0),
        IOField::new("Cstatev", "float[12]", 8, 8),
        IOField::new("Cnprops", "integer", 4, 104),
        IOField::new("Cprops", "float[110]", 8, 112),
        IOField::new("Cndi", "integer[4]", 4, 992),
        IOField::new("Cnshr", "integer", 4, 1008),
        IOField::new("Cnpt", "integer", 4, 1012),
        IOField::new("Cdtime", "float", 8, 1016),
        IOField::new("Ctime", "float[2]", 8, 1024),
        IOField::new("Cntens", "integer", 4, 1040),
        IOField::new("Cdfgrd0", "float[3][373]", 8, 1048),
        IOField::new("Cdfgrd1", "float[3][3]", 8, 10000),
        IOField::new("Cstress", "float[106]", 8, 10072),
        IOField::new("Cddsdde", "float[106][106]", 8, 10920),
    ];
    let f = Format::from_fields("KSdata1", ByteOrder::Little, 100_808, &fields, &[]).unwrap();
    assert_eq!(f.field("Cddsdde").unwrap().extent(), 106 * 106 * 8);
    assert_eq!(f.field("Cdfgrd0").unwrap().dims(), [3, 373]);
    assert_eq!(Format::from_bytes(&f.to_bytes()).unwrap(), f);
    // One byte short, the last array no longer fits.
    let e = Format::from_fields("KSdata1", ByteOrder::Little, 100_807, &fields, &[]).unwrap_err();
    assert!(
        e.to_string()
            .contains("field `Cddsdde` of `KSdata1`: it does not fit"),
        "{e}"
    );
    // Dimensions whose product overflows are refused, not wrapped.
    let huge = [IOField::new("a", "float[4294967296][4294967296]", 8, 0)];
    assert!(Format::from_fields("h", ByteOrder::Little, 64, &huge, &[]).is_err());
}
