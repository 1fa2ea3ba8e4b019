//! Derived structs decode field by field in place (`Decode::decode_into`), in XDR and CDR
//! alike. These tests exercise the unsafe parts of that path: the guard that drops fields
//! already decoded when a later one fails, and the check that a `decode_into` returned its own
//! slot.

use std::cell::Cell;
use std::mem::MaybeUninit;

use marshal::__private::xdr::{Reader, SizeClass};
use marshal::cdr::ByteOrder;
use marshal::xdr::{from_slice, to_vec, Decode, Encode};
use marshal::{Error, Marshal};

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

/// A `u32` on the wire that counts live values, to see drops.
#[derive(Debug, PartialEq)]
struct Tracked(u32);

impl Tracked {
    fn new(v: u32) -> Self {
        LIVE.with(|l| l.set(l.get() + 1));
        Tracked(v)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        LIVE.with(|l| l.set(l.get() - 1));
    }
}

impl Encode for Tracked {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(4)
    }
    fn encode(&self, w: &mut marshal::__private::xdr::Writer<'_>) -> Result<(), Error> {
        self.0.encode(w)
    }
}

impl<'de> Decode<'de> for Tracked {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        Ok(Tracked::new(u32::decode(r)?))
    }
}

impl marshal::cdr::Encode for Tracked {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        marshal::cdr::Encode::end(&self.0, pos, depth)
    }
    fn encode(
        &self,
        w: &mut marshal::__private::xdr::Writer<'_>,
        order: ByteOrder,
    ) -> Result<(), Error> {
        marshal::cdr::Encode::encode(&self.0, w, order)
    }
}

impl<'de> marshal::cdr::Decode<'de> for Tracked {
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        Ok(Tracked::new(<u32 as marshal::cdr::Decode>::decode(
            r, order,
        )?))
    }
}

#[derive(Marshal, Debug, PartialEq)]
struct Three {
    a: Tracked,
    name: String,
    b: Tracked,
    flag: bool,
}

/// Two values with four `Tracked` fields between them.
fn two_threes() -> Vec<Three> {
    vec![
        Three {
            a: Tracked::new(1),
            name: "a".into(),
            b: Tracked::new(2),
            flag: false,
        },
        Three {
            a: Tracked::new(3),
            name: "b".into(),
            b: Tracked::new(4),
            flag: true,
        },
    ]
}

fn live() -> i64 {
    LIVE.with(|l| l.get())
}

#[test]
fn a_failing_field_drops_the_fields_before_it() {
    let v = Three {
        a: Tracked::new(1),
        name: "xy".into(),
        b: Tracked::new(2),
        flag: true,
    };
    let mut bytes = to_vec(&v).unwrap();
    drop(v);
    assert_eq!(live(), 0);

    let back: Three = from_slice(&bytes).unwrap();
    assert_eq!(live(), 2);
    drop(back);
    assert_eq!(live(), 0);

    // `flag` = 2 is not a bool: `a`, `name` and `b` were decoded in place and must be dropped.
    let last = bytes.len() - 1;
    bytes[last] = 2;
    let e = from_slice::<Three>(&bytes).unwrap_err();
    assert!(e.to_string().starts_with("flag: "), "{e}");
    assert_eq!(live(), 0, "fields decoded before the failure leaked");

    // The same inside a vector: elements already decoded are dropped with the vector.
    let list = two_threes();
    let mut bytes = to_vec(&list).unwrap();
    drop(list);
    let last = bytes.len() - 1;
    bytes[last] = 7;
    let e = from_slice::<Vec<Three>>(&bytes).unwrap_err();
    assert!(e.to_string().starts_with("[1].flag: "), "{e}");
    assert_eq!(live(), 0);
}

/// A `decode_into` that returns some other initialised value instead of its slot.
#[derive(Debug)]
struct Liar(u32);

impl<'de> Decode<'de> for Liar {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        Ok(Liar(u32::decode(r)?))
    }
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        _out: &'a mut MaybeUninit<Self>,
    ) -> Result<&'a mut Self, Error> {
        Ok(Box::leak(Box::new(Liar(u32::decode(r)?))))
    }
}

#[derive(Marshal, Debug)]
struct HoldsLiar {
    x: u32,
    liar: Liar,
}

impl Encode for Liar {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(4)
    }
    fn encode(&self, w: &mut marshal::__private::xdr::Writer<'_>) -> Result<(), Error> {
        self.0.encode(w)
    }
}

impl marshal::cdr::Encode for Liar {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        marshal::cdr::Encode::end(&self.0, pos, depth)
    }
    fn encode(
        &self,
        w: &mut marshal::__private::xdr::Writer<'_>,
        order: ByteOrder,
    ) -> Result<(), Error> {
        marshal::cdr::Encode::encode(&self.0, w, order)
    }
}

impl<'de> marshal::cdr::Decode<'de> for Liar {
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        Ok(Liar(<u32 as marshal::cdr::Decode>::decode(r, order)?))
    }
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        _out: &'a mut MaybeUninit<Self>,
        order: ByteOrder,
    ) -> Result<&'a mut Self, Error> {
        Ok(Box::leak(Box::new(Liar(
            <u32 as marshal::cdr::Decode>::decode(r, order)?,
        ))))
    }
}

#[test]
fn a_decode_into_that_returns_another_place_is_refused() {
    let bytes = [0, 0, 0, 1, 0, 0, 0, 2];
    let e = from_slice::<HoldsLiar>(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "liar: decode_into returned another place at offset 8"
    );
    let e = from_slice::<Vec<Liar>>(&[0, 0, 0, 1, 0, 0, 0, 2]).unwrap_err();
    assert!(e.to_string().contains("another place"), "{e}");
}

#[test]
fn cdr_a_failing_field_drops_the_fields_before_it() {
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let v = Three {
            a: Tracked::new(1),
            name: "xy".into(),
            b: Tracked::new(2),
            flag: true,
        };
        let mut bytes = marshal::cdr::to_vec(&v, order).unwrap();
        drop(v);
        let back: Three = marshal::cdr::from_slice(&bytes, order).unwrap();
        assert_eq!(live(), 2);
        drop(back);
        assert_eq!(live(), 0);

        // `flag` = 2 is not a boolean: `a`, `name` and `b` were decoded in place and must be
        // dropped.
        let last = bytes.len() - 1;
        bytes[last] = 2;
        let e = marshal::cdr::from_slice::<Three>(&bytes, order).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("flag: invalid boolean 2 (expected 0 or 1) at offset {last}")
        );
        assert_eq!(live(), 0, "fields decoded before the failure leaked");

        // The same inside a sequence: elements already decoded are dropped with the vector.
        let list = two_threes();
        let mut bytes = marshal::cdr::to_vec(&list, order).unwrap();
        drop(list);
        let last = bytes.len() - 1;
        bytes[last] = 7;
        let e = marshal::cdr::from_slice::<Vec<Three>>(&bytes, order).unwrap_err();
        assert!(e.to_string().starts_with("[1].flag: "), "{e}");
        assert_eq!(live(), 0);
    }
}

#[test]
fn cdr_a_decode_into_that_returns_another_place_is_refused() {
    let bytes = [0, 0, 0, 1, 0, 0, 0, 2];
    let e = marshal::cdr::from_slice::<HoldsLiar>(&bytes, ByteOrder::Big).unwrap_err();
    assert_eq!(
        e.to_string(),
        "liar: decode_into returned another place at offset 8"
    );
    let e = marshal::cdr::from_slice::<Vec<Liar>>(&bytes, ByteOrder::Big).unwrap_err();
    assert_eq!(
        e.to_string(),
        "[0]: decode_into returned another place at offset 8"
    );
}
