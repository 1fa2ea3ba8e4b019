//! The code generated from CORBA IDL works: types round-trip through CDR, and a generated
//! client calls the generated skeleton over loopback GIOP, user exceptions and `_is_a`
//! included.

use marshal::cdr::{from_slice, to_vec, ByteOrder};
use marshal_build_tests::all_idl::{all, inc};
use marshal_build_tests::flick_idl::flick;

fn round_trip<T>(v: &T)
where
    T: marshal::cdr::Encode + for<'de> marshal::cdr::Decode<'de> + PartialEq + std::fmt::Debug,
{
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let bytes = to_vec(v, order).unwrap();
        assert_eq!(&from_slice::<T>(&bytes, order).unwrap(), v);
    }
}

fn prims() -> all::Prims {
    all::Prims {
        o: 1,
        b: true,
        c: -2,
        s: -3,
        us: 4,
        l: -5,
        ul: 6,
        ll: -7,
        ull: 8,
        f: 1.5,
        d: -2.5,
        str: "s".into(),
        col: all::Color::Blue,
    }
}

fn holder() -> all::Holder {
    all::Holder {
        prims: vec![prims()],
        bounded: "b".into(),
        longs: vec![1, 2, 3],
        m: [[1, 2, 3], [4, 5, 6]],
        sh: all::Short("short".into()),
        tag: inc::Tag {
            level: inc::Level::High,
            label: "t".into(),
        },
        module: 9,
    }
}

#[test]
fn constants() {
    assert_eq!(all::N, 19);
    assert_eq!(all::M, 19 * 2 - (19 % 5) / 2);
    assert_eq!(all::BIG, u64::MAX);
    assert_eq!(all::NEG, -7i16);
    assert_eq!(all::GREETING, "hello");
    const { assert!(all::YES) };
    assert_eq!(all::LETTER, 65i8);
    assert_eq!(all::SHIFTED, 64u8);
    assert_eq!(all::LEVEL, inc::Level::High);
    assert_eq!(all::FAVOURITE, all::Color::Green);
}

#[test]
fn repository_ids() {
    assert_eq!(all::Prims::REPOSITORY_ID, "IDL:marshal.test/All/Prims:1.0");
    assert_eq!(all::Oops::REPOSITORY_ID, "IDL:marshal.test/All/Oops:2.1");
    assert_eq!(all::Empty::REPOSITORY_ID, "LOCAL:empty");
    assert_eq!(inc::Tag::REPOSITORY_ID, "IDL:Inc/Tag:1.0");
    assert_eq!(
        all::derived::REPOSITORY_ID,
        "IDL:marshal.test/All/Derived:1.0"
    );
    assert_eq!(
        all::derived::REPOSITORY_IDS,
        [
            "IDL:marshal.test/All/Derived:1.0",
            "IDL:marshal.test/All/Base:1.0"
        ]
    );
    assert_eq!(flick::bench::REPOSITORY_ID, workloads_ids::BENCH);
}

mod workloads_ids {
    pub const BENCH: &str = "IDL:Flick/Bench:1.0";
}

#[test]
fn types_round_trip_through_cdr() {
    round_trip(&prims());
    round_trip(&holder());
    for u in [
        all::ByLong::V0(1),
        all::ByLong::V1OrV2(1, "one".into()),
        all::ByLong::V1OrV2(2, "two".into()),
        all::ByLong::Neg3(all::Color::Red),
        all::ByLong::Default(77, holder()),
    ] {
        round_trip(&u);
    }
    round_trip(&all::ByEnum::Green("g".into()));
    round_trip(&all::ByEnum::Red(1));
    round_trip(&all::ByBool::True(1));
    round_trip(&all::ByBool::False("no".into()));
    round_trip(&all::ByShort::V1(7));
    round_trip(&all::ByChar::V97(1));
    round_trip(&all::ByChar::V98(0.5));
    // Several labels on one arm: the variant keeps the label it was decoded with.
    let two = to_vec(&all::ByLong::V1OrV2(2, "two".into()), ByteOrder::Big).unwrap();
    assert_eq!(two[..4], [0, 0, 0, 2]);
    assert!(to_vec(&all::ByLong::V1OrV2(5, "x".into()), ByteOrder::Big).is_err());
    round_trip(&all::ByEnumDefault::RedOrGreen(all::Color::Green, 3));
    // An enum-switched union's default arm holds the enum.
    round_trip(&all::ByEnumDefault::Default(all::Color::Blue, "b".into()));
    // Unions without `default`: an unlisted discriminant is "no member".
    round_trip(&all::ByEnum::None(all::Color::Blue));
    round_trip(&all::ByShort::None(9));
    let none = to_vec(&all::ByEnum::None(all::Color::Blue), ByteOrder::Big).unwrap();
    assert_eq!(none, to_vec(&all::Color::Blue, ByteOrder::Big).unwrap());
    assert_eq!(
        from_slice::<all::ByShort>(&[0, 4], ByteOrder::Big).unwrap(),
        all::ByShort::None(4)
    );
    round_trip(&all::Names(vec!["a".into(); 4]));
    round_trip(&all::Empty {});
    // The enum discriminant travels as the enumerator's ordinal, like the enum itself.
    let bytes = to_vec(&all::ByEnum::Green("g".into()), ByteOrder::Big).unwrap();
    assert_eq!(
        bytes[..4],
        to_vec(&all::Color::Green, ByteOrder::Big).unwrap()[..]
    );
    // Bounds are checked.
    let too_long = all::Short("x".repeat(17));
    let bytes = to_vec(&"x".repeat(17), ByteOrder::Big).unwrap();
    assert!(from_slice::<all::Short>(&bytes, ByteOrder::Big).is_err());
    assert!(to_vec(&too_long, ByteOrder::Big).is_err());
    // flick.idl's types equal the hand-written ones on the wire.
    let shape = flick::Shape::Default(
        5,
        flick::Rect {
            a: flick::Point { x: 1, y: 2 },
            b: flick::Point { x: 3, y: 4 },
        },
    );
    round_trip(&shape);
    round_trip(&flick::Stat {
        ints: [7; 30],
        chars: [1; 16],
    });
}

/// `All::Derived`, with state for its attribute.
#[derive(Default)]
struct Impl {
    counter: std::sync::Mutex<i32>,
}

impl all::derived::Servant for Impl {
    fn fail(&self, code: i32) -> Result<(), all::derived::FailError> {
        match code {
            0 => Ok(()),
            1 => Err(all::derived::FailError::Empty(all::Empty {})),
            _ => Err(all::derived::FailError::Oops(all::Oops {
                code,
                why: format!("failed {code}"),
            })),
        }
    }
    fn mix(&self, a: i32, s: String) -> (i32, i32, String) {
        (a + 1, a * 2, format!("{s}!"))
    }
    fn ping(&self) {}
    fn echo_union(&self, u: all::ByLong) -> all::ByLong {
        u
    }
    fn echo_holder(&self, h: all::Holder) -> all::Holder {
        h
    }
    fn self_ref(&self) -> marshal::giop::Ior {
        marshal::giop::Ior::new(all::base::REPOSITORY_ID, "127.0.0.1", 1, b"k")
    }
    fn r#in(&self, c: all::Color) -> all::Color {
        c
    }
    fn add(&self, a: i32, b: i32) -> i32 {
        a + b
    }
    fn counter(&self) -> i32 {
        *self.counter.lock().unwrap()
    }
    fn set_counter(&self, value: i32) {
        *self.counter.lock().unwrap() = value;
    }
    fn name(&self) -> String {
        "derived".into()
    }
}

#[test]
fn generated_client_calls_generated_skeleton() {
    let mut server = marshal::giop::Server::bind("127.0.0.1:0").unwrap();
    server.add("derived", all::derived::skeleton(Impl::default()));
    let server = server.spawn().unwrap();
    let ior = server.ior(all::derived::REPOSITORY_ID, b"derived");
    let mut c = all::derived::Client::new(marshal::giop::Client::connect(&ior).unwrap());

    assert_eq!(c.add(&2, &3).unwrap(), 5);
    assert_eq!(c.mix(&4, &"s".to_string()).unwrap(), (5, 8, "s!".into()));
    c.fail(&0).unwrap();
    match c.fail(&7) {
        Err(all::derived::FailError::Oops(o)) => {
            assert_eq!((o.code, o.why.as_str()), (7, "failed 7"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        c.fail(&1),
        Err(all::derived::FailError::Empty(all::Empty {}))
    ));
    c.ping().unwrap();
    let u = all::ByLong::Default(-9, holder());
    assert_eq!(c.echo_union(&u).unwrap(), u);
    assert_eq!(c.echo_holder(&holder()).unwrap(), holder());
    assert_eq!(
        c.self_ref().unwrap().type_id(),
        "IDL:marshal.test/All/Base:1.0"
    );
    assert_eq!(c.r#in(&all::Color::Red).unwrap(), all::Color::Red);
    assert_eq!(c.counter().unwrap(), 0);
    c.set_counter(&41).unwrap();
    assert_eq!(c.counter().unwrap(), 41);
    assert_eq!(c.name().unwrap(), "derived");

    assert!(c.is_a(all::derived::REPOSITORY_ID).unwrap());
    assert!(c.is_a(all::base::REPOSITORY_ID).unwrap());
    assert!(!c.is_a("IDL:Other:1.0").unwrap());
    let non_existent: bool = c.inner().invoke("_non_existent", &()).unwrap();
    assert!(!non_existent);
    let e = c.inner().invoke::<_, ()>("nope", &()).unwrap_err();
    assert!(e.to_string().contains("BAD_OPERATION"), "{e}");
    server.shutdown();
}

/// Whether `T` has an XDR encoding: the inherent method (bounded on it) wins over the trait's
/// when the bound holds.
struct Probe<T>(std::marker::PhantomData<T>);

trait NoXdr {
    fn has_xdr(&self) -> bool {
        false
    }
}

impl<T> NoXdr for Probe<T> {}

impl<T: marshal::xdr::Encode> Probe<T> {
    fn has_xdr(&self) -> bool {
        true
    }
}

fn probe<T>() -> Probe<T> {
    Probe(std::marker::PhantomData)
}

#[test]
fn types_holding_object_references_are_cdr_only() {
    let base = marshal::giop::Ior::new(all::base::REPOSITORY_ID, "127.0.0.1", 1, b"b");
    let pair = all::RefPair {
        one: base.clone(),
        many: vec![marshal::giop::Ior::nil(), base],
    };
    let holds = all::HoldsRefs { refs: pair, n: 3 };
    round_trip(&holds);
    round_trip(&all::RefOrLong::True(holds));
    round_trip(&all::RefOrLong::False(4));
    // A reference directly, through a typedef, a struct and a union: CDR only.
    assert!(!probe::<all::RefPair>().has_xdr());
    assert!(!probe::<all::HoldsRefs>().has_xdr());
    assert!(!probe::<all::RefOrLong>().has_xdr());
    let cannot_proceed = probe::<
        marshal_build_tests::omniorb::cos_naming_idl::cos_naming::naming_context::CannotProceed,
    >();
    assert!(!cannot_proceed.has_xdr());
    // Types without one: every format of the crate.
    assert!(probe::<all::NoRefs>().has_xdr());
    assert!(probe::<all::Holder>().has_xdr());
    assert!(probe::<all::ByLong>().has_xdr());
    let not_found = probe::<
        marshal_build_tests::omniorb::cos_naming_idl::cos_naming::naming_context::NotFound,
    >();
    assert!(not_found.has_xdr());
}
