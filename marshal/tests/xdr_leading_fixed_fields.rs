//! A derived XDR struct that is not fixed as a whole reads its leading run of fixed-size
//! fields as one segment: the bytes, the values and the errors (what, which field, where)
//! are those of reading field by field.

use marshal::Marshal;

/// Three fixed fields (16 bytes), an array, then a fixed field again.
#[derive(Marshal, Debug, Clone, PartialEq)]
struct Write {
    handle: u32,
    pos: u64,
    sync: bool,
    data: Vec<u32>,
    tail: u32,
}

fn sample() -> Write {
    Write {
        handle: 3,
        pos: 100,
        sync: true,
        data: vec![7, 8],
        tail: 9,
    }
}

#[test]
fn bytes_and_values_are_those_of_the_fields_in_turn() {
    let v = sample();
    let bytes = marshal::xdr::to_vec(&v).unwrap();
    let mut want = Vec::new();
    want.extend(marshal::xdr::to_vec(&v.handle).unwrap());
    want.extend(marshal::xdr::to_vec(&v.pos).unwrap());
    want.extend(marshal::xdr::to_vec(&v.sync).unwrap());
    want.extend(marshal::xdr::to_vec(&v.data).unwrap());
    want.extend(marshal::xdr::to_vec(&v.tail).unwrap());
    assert_eq!(bytes, want);
    assert_eq!(marshal::xdr::from_slice::<Write>(&bytes).unwrap(), v);
}

#[test]
fn an_invalid_field_in_the_run_is_named_at_its_offset() {
    let mut bytes = marshal::xdr::to_vec(&sample()).unwrap();
    bytes[15] = 2; // `sync`, the last word of the run
    let e = marshal::xdr::from_slice::<Write>(&bytes).unwrap_err();
    assert_eq!(e.offset(), Some(12), "{e}");
    assert!(e.to_string().contains("sync"), "{e}");
    assert!(e.to_string().contains("invalid boolean 2"), "{e}");
}

#[test]
fn short_input_fails_in_the_run_and_after_it() {
    let bytes = marshal::xdr::to_vec(&sample()).unwrap();
    // Inside the run or the array's length: the input ends.
    for cut in [0, 4, 15, 16, 19] {
        let e = marshal::xdr::from_slice::<Write>(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(e.kind(), marshal::ErrorKind::UnexpectedEnd { .. }),
            "cut at {cut}: {e}"
        );
    }
    // In the array's items (its length outruns the input) or the last field.
    for cut in [27, bytes.len() - 1] {
        assert!(marshal::xdr::from_slice::<Write>(&bytes[..cut]).is_err());
    }
    // A trailing byte is still an error.
    let mut long = bytes.clone();
    long.push(0);
    assert!(marshal::xdr::from_slice::<Write>(&long).is_err());
}
