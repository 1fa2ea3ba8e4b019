//! The committed inputs, made by code so that they can be made again: [`seeds`] (small valid
//! inputs of every target, in `fuzz/seeds/<target>/`) and [`regressions`] (inputs that once
//! crashed a target, in `fuzz/regressions/<target>/`). `tests/write_corpus.rs` writes them
//! (`cargo test -p marshal-fuzz-targets --test write_corpus -- --ignored`); files there that
//! these functions do not name (minimised fuzzer finds, hand-made inputs) are left alone.

use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, CancelRequestHeader, CloseConnection, IiopProfile, Ior, LocateReplyHeader,
    LocateRequestHeader, LocateStatus, MessageError, MessageHeader, MsgType, Profile, ReplyHeader,
    ReplyStatus, RequestHeader, ServiceContext, SystemException, TaggedComponent, TaggedProfile,
    TargetAddress, Version, RESPONSE_EXPECTED,
};
use marshal::ndr::{
    format_frame, message_from_body, to_body, to_message, Format, FormatId, IOField, Kind,
    NdrWriter, Record,
};
use marshal::rpc::{
    record_mark, AcceptStat, Auth, AuthStat, CallHeader, OpaqueAuth, RejectedReply,
    ReplyHeader as RpcReply, LAST_FRAGMENT,
};
use workloads::pcap::{PcapWriter, Precision, LINKTYPE_ETHERNET};

use crate::ndr_message::{extra_first, formats, in_order};
use crate::types::{
    Bounded, Color, Expr, Lists, NBig, NBigs, NMixed, NNest, NPoint, NSample, NTag, Nested, Node,
    Pt, Shape, Small, Tree, Zb, Zbs,
};
use crate::util::{description_of, join_u16};

/// One committed input: its target, its file name, its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The target's name.
    pub target: &'static str,
    /// The file name (descriptive, no directory).
    pub name: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

fn input(target: &'static str, name: impl Into<String>, bytes: Vec<u8>) -> Input {
    Input {
        target,
        name: name.into(),
        bytes,
    }
}

/// The seeds of every target.
pub fn seeds() -> Vec<Input> {
    let mut out = Vec::new();
    out.extend(derived_seeds());
    out.extend(giop_seeds());
    out.extend(ior_seeds());
    out.extend(rpc_seeds());
    out.extend(ndr_seeds());
    out.extend(pcap_seeds());
    out.extend(deep_nesting_seeds());
    out
}

/// The reproducers of the four known defects.
pub fn regressions() -> Vec<Input> {
    let mut out = Vec::new();

    // 1. An array of 0-byte records with dimensions whose product overflows.
    out.push(input(
        "ndr_format",
        "dims_overflow",
        [&[1u8][..], &empty_record_array(&[1 << 32, 1 << 32])].concat(),
    ));
    let description = empty_record_array(&[1, 1 << 32, 1 << 32])[16..].to_vec();
    out.push(input(
        "ndr_dynamic",
        "dims_overflow",
        [&[0u8][..], &join_u16(&description, &[])].concat(),
    ));

    // 2. 100,000 list nodes, then a bad "next" flag: the partial list is dropped.
    let mut list = Vec::with_capacity(8 * 100_001);
    for _ in 0..100_000 {
        list.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1]);
    }
    list.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9]);
    let node = type_index("Node");
    out.push(input(
        "xdr_derived",
        "list_100000_then_bad_next",
        [&[node][..], &list].concat(),
    ));
    out.push(input(
        "cdr_derived",
        "list_100000_then_bad_next",
        [&[node][..], &list].concat(),
    ));
    out.push(input(
        "deep_nesting",
        "list_100000_then_bad_next",
        [&[0u8][..], &list].concat(),
    ));
    out.push(input(
        "deep_nesting",
        "synthesised_100000_bad_last",
        [&[3u8][..], &100_000u32.to_be_bytes()].concat(),
    ));

    // 3. 65,000 one-byte incoming `NBig`s, each converted into a 4 KiB local one.
    let (f, body) = nbigs_one_byte(65_000);
    for t in [
        "ndr_convert_interp",
        "ndr_convert_jit",
        "ndr_convert_tiered",
    ] {
        out.push(input(
            t,
            "nbig_65000_one_byte_elements",
            [&[0u8][..], &join_u16(&description_of(&f), &body)].concat(),
        ));
    }

    // 4. 65,536 wire-empty 8 KiB elements from a 4-byte count.
    let zbs = type_index("Zbs");
    out.push(input(
        "xdr_derived",
        "zb_65536_elements",
        vec![zbs, 0, 1, 0, 0],
    ));
    out.push(input(
        "cdr_derived",
        "zb_65536_elements_be",
        vec![zbs, 0, 1, 0, 0],
    ));
    out.push(input(
        "cdr_derived",
        "zb_65536_elements_le",
        vec![zbs | 0x80, 0, 0, 1, 0],
    ));

    // 5 (found by the fuzz targets). `NMixed.tags` was a `[String; 2]`: the native format said
    // its elements were 8-byte slots 8 bytes apart, the body put them 24 bytes apart
    // (`size_of::<String>()`). From a format that lacks `tags`, the default was copied with the
    // format's stride and read back with the body's. `[String; N]` is no NDR field now; the
    // inputs stay, over `[NTag; 2]`.
    let order = marshal::ndr::ByteOrder::native();
    let only_id = Format::from_fields(
        "NMixed",
        order,
        4,
        &[IOField::new("id", "unsigned integer", 4, 0)],
        &[],
    )
    .expect("an NMixed of one field");
    for t in [
        "ndr_convert_interp",
        "ndr_convert_jit",
        "ndr_convert_tiered",
    ] {
        out.push(input(
            t,
            "nmixed_string_array_from_default",
            [
                &[0u8][..],
                &join_u16(&description_of(&only_id), &7u32.to_ne_bytes()),
            ]
            .concat(),
        ));
    }
    // The same stride read by a dynamic decode of a native message: `tags[1]` read as "".
    let v = NMixed {
        tags: [NTag::new("a"), NTag::new("bc")],
        ..NMixed::default()
    };
    out.push(input(
        "ndr_message",
        "nmixed_string_array_native",
        to_message(&v).expect("a message"),
    ));

    // 6 (found by the fuzz targets). A reference with 33 IIOP profiles: `to_corbaloc` writes
    // a URL of 33 addresses, which `Ior::parse` refuses (at most 32).
    let profiles: Vec<Profile> = (0..33)
        .map(|i| Profile::iiop(IiopProfile::new(format!("h{i}"), 1, b"k".to_vec())))
        .collect::<Result<_, _>>()
        .expect("profiles");
    let ior = Ior::from_profiles("IDL:A:1.0", profiles).expect("an IOR");
    out.push(input(
        "ior",
        "corbaloc_of_33_profiles",
        [&[0u8][..], &ior.to_encapsulation().expect("octets")].concat(),
    ));

    out
}

fn type_index(name: &str) -> u8 {
    let i = crate::xdr_derived::TYPES
        .iter()
        .position(|t| *t == name)
        .expect("a fuzz type");
    u8::try_from(i).expect("few types")
}

/// `Format::to_bytes` of `struct r { e a<dims>; }` with `struct e {}` (0 bytes): built with
/// small dimensions, which validate, then patched, with the id computed again.
fn empty_record_array(dims: &[u64]) -> Vec<u8> {
    let e = Format::from_fields("e", marshal::ndr::ByteOrder::Big, 0, &[], &[]).expect("e");
    let small: Vec<u64> = (2..).take(dims.len()).collect();
    let ty: String = std::iter::once("e".to_owned())
        .chain(small.iter().map(|d| format!("[{d}]")))
        .collect();
    let r = Format::from_fields(
        "r",
        marshal::ndr::ByteOrder::Big,
        0,
        &[IOField::new("a", &ty, 0, 0)],
        &[e],
    )
    .expect("small dimensions validate");
    let mut d = description_of(&r);
    let old: Vec<u8> = small.iter().flat_map(|x| x.to_be_bytes()).collect();
    let new: Vec<u8> = dims.iter().flat_map(|x| x.to_be_bytes()).collect();
    let at = d
        .windows(old.len())
        .position(|w| w == old)
        .expect("the dimensions in the description");
    d[at..at + old.len()].copy_from_slice(&new);
    let mut bytes = FormatId::of_description(&d).as_bytes().to_vec();
    bytes.extend_from_slice(&d);
    bytes
}

/// A sender's `NBigs` whose `NBig` is one byte (`tag` only), and a body of `n` of them.
fn nbigs_one_byte(n: u32) -> (Format, Vec<u8>) {
    let order = marshal::ndr::ByteOrder::native();
    let nbig = Format::from_fields(
        "NBig",
        order,
        1,
        &[IOField::new("tag", "unsigned integer", 1, 0)],
        &[],
    )
    .expect("a one-byte NBig");
    let f = Format::from_fields(
        "NBigs",
        order,
        8,
        &[IOField::new("items", "NBig[]", 1, 0)],
        &[nbig],
    )
    .expect("NBigs of one-byte elements");
    let word = |v: u32| match order {
        marshal::ndr::ByteOrder::Big => v.to_be_bytes(),
        marshal::ndr::ByteOrder::Little => v.to_le_bytes(),
    };
    let mut body = Vec::with_capacity(8 + n as usize);
    body.extend_from_slice(&word(8));
    body.extend_from_slice(&word(n));
    body.extend((0..n).map(|i| i as u8));
    (f, body)
}

// ---------------------------------------------------------------------------------------------
// XDR and CDR

fn pt(x: i32, y: i32) -> Pt {
    Pt { x, y }
}

fn shapes() -> Vec<(&'static str, Shape)> {
    vec![
        ("empty", Shape::Empty),
        (
            "circle",
            Shape::Circle {
                center: pt(3, -4),
                r: 5,
            },
        ),
        ("label", Shape::Label("héllo".into())),
        ("poly", Shape::Poly(vec![pt(0, 0), pt(1, 2), pt(-3, 4)])),
        ("neg_tag", Shape::Neg(-1 << 40)),
        ("nothing", Shape::Nothing),
        (
            "default_arm_some",
            Shape::Other(42, Some(Box::new(pt(7, 8)))),
        ),
        ("default_arm_none", Shape::Other(-99, None)),
    ]
}

fn list(n: u32) -> Node {
    let mut head = None;
    for id in (0..n).rev() {
        head = Some(Box::new(Node { id, next: head }));
    }
    *head.expect("at least one node")
}

fn nested() -> Nested {
    Nested {
        grid: [[1, -2, 3], [-4, 5, i16::MIN]],
        rows: vec![vec![], vec![1, 2, 3], vec![u32::MAX]],
        shapes: Some(shapes().into_iter().map(|(_, s)| s).collect()),
        note: Some("a note".into()),
        tuple: (9, u64::MAX - 1, true),
        quads: vec![[1, 2, 3, 4], [5, 6, 7, 8]],
        smalls: vec![
            Small::Byte(200),
            Small::Word(70_000),
            Small::Void,
            Small::Rest(77),
        ],
        colors: vec![Color::Red, Color::Green, Color::Blue],
        real: -0.125,
        reals: vec![1.5, f32::INFINITY, -0.0],
        units: vec![(); 5],
    }
}

fn expr_chain(depth: usize) -> Expr {
    let mut e = Expr::Lit(1);
    for _ in 0..depth {
        e = Expr::Neg(Box::new(e));
    }
    e
}

/// The values of the fuzz types, by type name, each with a name, encoded by `enc`.
fn derived_values(
    enc: &dyn Fn(&dyn Enc) -> Option<Vec<u8>>,
) -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut add = |ty: &'static str, name: &str, bytes: Option<Vec<u8>>| {
        if let Some(b) = bytes {
            out.push((ty, name.to_owned(), b));
        }
    };
    for (name, s) in shapes() {
        add("Shape", name, enc(&s));
    }
    for (name, s) in [
        ("byte", Small::Byte(1)),
        ("word", Small::Word(0xdead_beef)),
        ("void", Small::Void),
        ("default_arm", Small::Rest(250)),
    ] {
        add("Small", name, enc(&s));
    }
    for n in [1, 3, 50] {
        add("Node", &format!("list_{n}"), enc(&list(n)));
    }
    let bounded = Bounded {
        name: "bounded".into(),
        data: vec![1, 2, 3, 4, 5],
        tag: "tag",
        raw: b"raw bytes",
        small: vec![1, 65535],
        fixed: *b"fixed",
        flags: [true, false, true],
        color: Color::Blue,
    };
    add("Bounded", "full", enc(&bounded));
    let empty = Bounded {
        name: String::new(),
        data: vec![],
        tag: "",
        raw: &[],
        small: vec![],
        fixed: [0; 5],
        flags: [false; 3],
        color: Color::Red,
    };
    add("Bounded", "empty", enc(&empty));
    add("Nested", "full", enc(&nested()));
    let sparse = Nested {
        shapes: None,
        note: None,
        ..nested()
    };
    add("Nested", "no_options", enc(&sparse));
    let lists = Lists {
        head: Some(Box::new(list(4))),
        more: vec![list(1), list(2)],
    };
    add("Lists", "head_and_more", enc(&lists));
    add(
        "Lists",
        "empty",
        enc(&Lists {
            head: None,
            more: vec![],
        }),
    );
    add("Zbs", "none", enc(&Zbs { items: vec![] }));
    let one = Zbs {
        items: vec![std::array::from_fn(|_| Zb { a: Box::new(()) })],
    };
    add("Zbs", "one", enc(&one));
    add(
        "Expr",
        "add",
        enc(&Expr::Add(Box::new(Expr::Lit(2)), Box::new(expr_chain(3)))),
    );
    add("Expr", "chain_100", enc(&expr_chain(100)));
    let tree = Tree {
        value: 1,
        children: vec![
            Tree {
                value: 2,
                children: vec![],
            },
            Tree {
                value: 3,
                children: vec![Tree {
                    value: 4,
                    children: vec![],
                }],
            },
        ],
    };
    add("Tree", "small", enc(&tree));
    let all: Vec<Shape> = shapes().into_iter().map(|(_, s)| s).collect();
    add("Vec<Shape>", "every_arm", enc(&all));
    out
}

/// A value of any fuzz type, encodable in both formats.
trait Enc {
    fn xdr(&self) -> Vec<u8>;
    fn cdr(&self, order: ByteOrder) -> Vec<u8>;
    fn encapsulation(&self, order: ByteOrder) -> Vec<u8>;
}

impl<T: marshal::xdr::Encode + marshal::cdr::Encode> Enc for T {
    fn xdr(&self) -> Vec<u8> {
        marshal::xdr::to_vec(self).expect("a seed value encodes in XDR")
    }
    fn cdr(&self, order: ByteOrder) -> Vec<u8> {
        marshal::cdr::to_vec(self, order).expect("a seed value encodes in CDR")
    }
    fn encapsulation(&self, order: ByteOrder) -> Vec<u8> {
        marshal::cdr::to_encapsulation(self, order).expect("a seed value encodes in CDR")
    }
}

fn derived_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let file = |ty: &str, name: &str| {
        format!(
            "{}_{name}",
            ty.replace("Vec<", "vec_of_")
                .replace('>', "")
                .to_lowercase()
        )
    };
    for (ty, name, b) in derived_values(&|v| Some(v.xdr())) {
        out.push(input(
            "xdr_derived",
            file(ty, &name),
            [&[type_index(ty)][..], &b].concat(),
        ));
    }
    for (suffix, sel, f) in [
        (
            "be",
            0u8,
            &(|v: &dyn Enc| Some(v.cdr(ByteOrder::Big))) as &dyn Fn(&dyn Enc) -> Option<Vec<u8>>,
        ),
        ("le", 0x80, &|v: &dyn Enc| Some(v.cdr(ByteOrder::Little))),
        ("encap_le", 0x40, &|v: &dyn Enc| {
            Some(v.encapsulation(ByteOrder::Little))
        }),
    ] {
        for (ty, name, b) in derived_values(f) {
            // Encapsulations of a few types only: the format is the same.
            if suffix == "encap_le" && !matches!(ty, "Shape" | "Nested" | "Small") {
                continue;
            }
            out.push(input(
                "cdr_derived",
                format!("{}_{suffix}", file(ty, &name)),
                [&[type_index(ty) | sel][..], &b].concat(),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// GIOP

fn giop_message<'a, H: marshal::giop::MessageHead<'a>, B: marshal::cdr::Encode + ?Sized>(
    v: Version,
    o: ByteOrder,
    head: &H,
    body: &B,
) -> Vec<u8> {
    let mut out = Vec::new();
    encode_message(&mut out, v, o, head, body).expect("a seed message encodes");
    out
}

/// A raw message of type `t` whose body (after the 12-byte header) is `body`.
fn raw_message(v: Version, o: ByteOrder, t: MsgType, more: bool, body: &[u8]) -> Vec<u8> {
    let mut h = MessageHeader::new(v, o, t, u32::try_from(body.len()).expect("small"));
    h.more_fragments = more;
    let mut m = h.to_bytes().to_vec();
    m.extend_from_slice(body);
    m
}

fn giop_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let ior = Ior::new("IDL:Echo:1.0", "localhost", 2809, b"echo");
    let versions = [
        ("10", Version::V1_0),
        ("11", Version::V1_1),
        ("12", Version::V1_2),
    ];
    let orders = [("be", ByteOrder::Big), ("le", ByteOrder::Little)];
    for (vn, v) in versions {
        for (on, o) in orders {
            let request = RequestHeader {
                request_id: 7,
                response_flags: RESPONSE_EXPECTED,
                target: TargetAddress::Key(b"echo"),
                operation: b"echo_string",
                service_contexts: vec![ServiceContext::code_sets_utf8()],
                principal: &[],
            };
            let reply = |status| ReplyHeader {
                request_id: 7,
                status,
                service_contexts: vec![],
            };
            let stream = [
                giop_message(v, o, &request, &(7u32, "hello".to_owned(), vec![1u8, 2, 3])),
                giop_message(
                    v,
                    o,
                    &reply(ReplyStatus::NoException),
                    &(5i32, "world".to_owned()),
                ),
                giop_message(
                    v,
                    o,
                    &reply(ReplyStatus::SystemException),
                    &SystemException::new("BAD_OPERATION", 3, marshal::giop::Completion::No),
                ),
                giop_message(v, o, &reply(ReplyStatus::LocationForward), &ior),
                giop_message(
                    v,
                    o,
                    &reply(ReplyStatus::UserException),
                    &("IDL:Calc/DivByZero:1.0".to_owned(), 1i32),
                ),
                giop_message(v, o, &CancelRequestHeader { request_id: 7 }, &()),
                giop_message(
                    v,
                    o,
                    &LocateRequestHeader {
                        request_id: 8,
                        target: TargetAddress::Key(b"echo"),
                    },
                    &(),
                ),
                giop_message(
                    v,
                    o,
                    &LocateReplyHeader {
                        request_id: 8,
                        status: LocateStatus::ObjectForward,
                    },
                    &ior,
                ),
                giop_message(v, o, &CloseConnection::default(), &()),
            ]
            .concat();
            out.push(input(
                "giop_message",
                format!("conversation_{vn}_{on}"),
                [&[0u8][..], &stream].concat(),
            ));
        }
    }
    // 1.2 targets by profile and by reference, a oneway, a MessageError, both orders.
    let profile_data = match &ior.profiles()[0] {
        Profile::Iiop { raw, .. } => raw.clone(),
        Profile::Other { data, .. } => data.clone(),
    };
    for (on, o) in orders {
        let by_profile = RequestHeader {
            request_id: 1,
            response_flags: 0,
            target: TargetAddress::Profile(TaggedProfile {
                tag: 0,
                data: &profile_data,
            }),
            operation: b"ping",
            service_contexts: vec![],
            principal: &[],
        };
        let by_reference = LocateRequestHeader {
            request_id: 2,
            target: TargetAddress::Reference {
                selected_profile: 0,
                type_id: "IDL:Echo:1.0",
                profiles: vec![TaggedProfile {
                    tag: 0,
                    data: &profile_data,
                }],
            },
        };
        let stream = [
            giop_message(Version::V1_2, o, &by_profile, &()),
            giop_message(Version::V1_2, o, &by_reference, &()),
            giop_message(
                Version::V1_2,
                o,
                &LocateReplyHeader {
                    request_id: 2,
                    status: LocateStatus::LocSystemException,
                },
                &SystemException::new("OBJECT_NOT_EXIST", 1, marshal::giop::Completion::No),
            ),
            giop_message(
                Version::V1_2,
                o,
                &ReplyHeader {
                    request_id: 1,
                    status: ReplyStatus::NeedsAddressingMode,
                    service_contexts: vec![],
                },
                &1i16,
            ),
            giop_message(Version::V1_2, o, &MessageError::default(), &()),
        ]
        .concat();
        out.push(input(
            "giop_message",
            format!("targets_12_{on}"),
            [&[4u8][..], &stream].concat(),
        ));
    }
    // Fragments: a 1.1 request in three pieces; two interleaved 1.2 replies.
    for (on, o) in orders {
        let v = Version::V1_1;
        let whole = giop_message(
            v,
            o,
            &RequestHeader {
                request_id: 3,
                response_flags: RESPONSE_EXPECTED,
                target: TargetAddress::Key(b"k"),
                operation: b"put",
                service_contexts: vec![],
                principal: &[],
            },
            &vec![0x42u8; 40],
        );
        let body = &whole[12..];
        let stream = [
            raw_message(v, o, MsgType::Request, true, &body[..20]),
            raw_message(v, o, MsgType::Fragment, true, &body[20..40]),
            raw_message(v, o, MsgType::Fragment, false, &body[40..]),
        ]
        .concat();
        for flags in [0u8, 1, 2] {
            out.push(input(
                "giop_message",
                format!("fragments_11_{on}_caps{flags}"),
                [&[flags | 8][..], &stream].concat(),
            ));
        }
        let v = Version::V1_2;
        let id = |n: u32| match o {
            ByteOrder::Big => n.to_be_bytes(),
            ByteOrder::Little => n.to_le_bytes(),
        };
        let reply_head = |n: u32| [&id(n)[..], &id(0)[..], &id(0)[..]].concat();
        let stream = [
            raw_message(
                v,
                o,
                MsgType::Reply,
                true,
                &[&reply_head(1)[..], &[0xa; 4]].concat(),
            ),
            raw_message(
                v,
                o,
                MsgType::Reply,
                true,
                &[&reply_head(2)[..], &[0xb; 4]].concat(),
            ),
            raw_message(
                v,
                o,
                MsgType::Fragment,
                true,
                &[&id(2)[..], &[0xc; 4]].concat(),
            ),
            raw_message(
                v,
                o,
                MsgType::Fragment,
                false,
                &[&id(1)[..], &[0xd; 4]].concat(),
            ),
            raw_message(v, o, MsgType::Fragment, false, &id(2)),
        ]
        .concat();
        out.push(input(
            "giop_message",
            format!("fragments_12_interleaved_{on}"),
            [&[0x30u8][..], &stream].concat(),
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// IOR

fn ior_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let simple = Ior::new("IDL:Echo:1.0", "localhost", 2809, b"echo");
    let mut with_components = IiopProfile::new("10.0.0.1", 4000, b"key with spaces".to_vec());
    with_components.components = vec![
        TaggedComponent {
            tag: 0,
            data: vec![0, 0, 0, 0, 0x41, 0x54, 0x00, 0x00],
        },
        TaggedComponent {
            tag: 1,
            data: marshal::cdr::to_encapsulation(&(0x0501_0001u32, 0x0001_0109u32), ByteOrder::Big)
                .expect("code sets"),
        },
    ];
    let mut old = IiopProfile::new("::1", 1, b"old".to_vec());
    old.version = (1, 0);
    let rich = Ior::from_profiles(
        "IDL:omg.org/CosNaming/NamingContext:1.0",
        vec![
            Profile::iiop(with_components).expect("a profile"),
            Profile::iiop(old).expect("a profile"),
            Profile::Other {
                tag: 1,
                data: vec![1, 0, 0, 0, 0, 0, 0, 0],
            },
        ],
    )
    .expect("an IOR");
    let iors = [
        ("simple", simple),
        ("components_and_other_profiles", rich),
        ("nil", Ior::nil()),
    ];
    for (name, ior) in &iors {
        for (on, o) in [("be", ByteOrder::Big), ("le", ByteOrder::Little)] {
            let flipped = ior.clone().with_byte_order(o);
            let enc = flipped.to_encapsulation().expect("an encapsulation");
            out.push(input(
                "ior",
                format!("encapsulation_{name}_{on}"),
                [&[0u8][..], &enc].concat(),
            ));
            out.push(input(
                "ior",
                format!("hex_{name}_{on}"),
                [&[2u8][..], &enc].concat(),
            ));
            let body = marshal::cdr::to_vec(ior, o).expect("an IOR in a body");
            let sel = if o == ByteOrder::Little { 0x84u8 } else { 4 };
            out.push(input(
                "ior",
                format!("message_body_{name}_{on}"),
                [&[sel][..], &body].concat(),
            ));
        }
        out.push(input(
            "ior",
            format!("string_{name}"),
            [&[1u8][..], ior.to_string().as_bytes()].concat(),
        ));
        if let Some(p) = ior.profiles().first() {
            out.push(input(
                "ior",
                format!("profile_{name}"),
                [&[5u8][..], p.data()].concat(),
            ));
        }
    }
    for (name, url) in [
        ("corbaloc_simple", "::127.0.0.1:2809/Echo"),
        (
            "corbaloc_two_addresses",
            "iiop:1.2@[::1]:2810,:backup/Name%20Service",
        ),
        ("corbaloc_default_port", "iiop:host.example/key"),
        ("corbaloc_no_key", ":a:1,:b:2"),
    ] {
        out.push(input("ior", name, [&[3u8][..], url.as_bytes()].concat()));
    }
    out.push(input(
        "ior",
        "string_corbaloc_mixed_case",
        [&[1u8][..], b"  CorbaLoc:IIOP:1.1@h:99/%41b  ".as_slice()].concat(),
    ));
    out
}

// ---------------------------------------------------------------------------------------------
// ONC RPC

fn rpc_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let sys = Auth::Sys {
        stamp: 1,
        machine_name: "host".into(),
        uid: 1000,
        gid: 100,
        gids: vec![100, 27],
    };
    let sys_body = sys.body().expect("a body");
    let mut call = CallHeader::new(0x1234, 100_003, 3, 6);
    let plain_call = marshal::xdr::to_vec(&(&call, &(7u32, "name"))).expect("a call");
    call.cred = OpaqueAuth {
        flavor: 1,
        body: &sys_body,
    };
    let sys_call = marshal::xdr::to_vec(&(&call, &(1u32, 2u32))).expect("a call");
    call.cred = OpaqueAuth {
        flavor: 6,
        body: b"gss-ish",
    };
    call.verf = OpaqueAuth {
        flavor: 6,
        body: b"verf",
    };
    let other_call = marshal::xdr::to_vec(&call).expect("a call");
    let replies = [
        (
            "reply_success",
            marshal::xdr::to_vec(&(&RpcReply::accepted(0x1234, AcceptStat::Success), &42u64)),
        ),
        (
            "reply_prog_mismatch",
            marshal::xdr::to_vec(&RpcReply::accepted(
                1,
                AcceptStat::ProgMismatch { low: 2, high: 4 },
            )),
        ),
        (
            "reply_rpc_mismatch",
            marshal::xdr::to_vec(&RpcReply::denied(
                2,
                RejectedReply::RpcMismatch { low: 2, high: 2 },
            )),
        ),
        (
            "reply_auth_error",
            marshal::xdr::to_vec(&RpcReply::denied(
                3,
                RejectedReply::AuthError(AuthStat::TooWeak),
            )),
        ),
    ];
    let mut messages = vec![
        ("call_auth_none", plain_call),
        ("call_auth_sys", sys_call),
        ("call_other_flavor", other_call),
    ];
    for (name, r) in replies {
        messages.push((name, r.expect("a reply")));
    }
    for (name, m) in &messages {
        out.push(input(
            "rpc_message",
            format!("datagram_{name}"),
            [&[0u8][..], m].concat(),
        ));
    }
    // Record-marked streams: every message as one record; one in three fragments.
    let mut stream = Vec::new();
    for (_, m) in &messages {
        stream.extend_from_slice(&record_mark(m.len()).expect("a mark"));
        stream.extend_from_slice(m);
    }
    for flags in [0u8, 1, 3, 4 * 5] {
        out.push(input(
            "rpc_message",
            format!("records_all_flags{flags}"),
            [&[flags][..], &stream].concat(),
        ));
    }
    let m = &messages[1].1;
    let (a, rest) = m.split_at(10);
    let (b, c) = rest.split_at(7);
    let mut fragmented = Vec::new();
    for (part, last) in [(a, false), (b, false), (c, true)] {
        let len = u32::try_from(part.len()).expect("small");
        let word = if last { LAST_FRAGMENT | len } else { len };
        fragmented.extend_from_slice(&word.to_be_bytes());
        fragmented.extend_from_slice(part);
    }
    for flags in [0u8, 3, 4 * 9 + 2] {
        out.push(input(
            "rpc_message",
            format!("record_in_three_fragments_flags{flags}"),
            [&[flags][..], &fragmented].concat(),
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// NDR

fn values() -> Vec<(&'static str, Vec<u8>, &'static Format)> {
    fn one<T: Record>(name: &'static str, v: &T) -> (&'static str, Vec<u8>, &'static Format) {
        (name, to_body(v).expect("a body"), T::format())
    }
    let p = NPoint { x: -3, y: 1 << 20 };
    let s = NSample {
        id: -42,
        value: 0.5,
        label: *b"probe\0\0\0",
        small: -2,
        flag: true,
        level: 200,
        ratio: 1.25,
    };
    let m = NMixed {
        id: 7,
        name: "mixed ü".into(),
        pts: vec![p, NPoint { x: 5, y: 6 }],
        grid: [[1, 2, 3], [-4, -5, -6]],
        scores: vec![0.5, -1.0],
        ok: true,
        inner: NPoint { x: 9, y: 10 },
        tags: [NTag::new("a"), NTag::new("bc")],
        wide: u64::MAX,
    };
    let n = NNest {
        head: p,
        corners: [p, NPoint { x: 0, y: 0 }, NPoint { x: 1, y: 1 }],
        path: vec![p; 3],
        label: "nest".into(),
        samples: vec![s, s],
    };
    let mut big = NBig {
        tag: 5,
        ..NBig::default()
    };
    big.blob[0] = 1;
    big.blob[511] = 2;
    let bigs = NBigs {
        items: vec![big.clone(), NBig::default()],
    };
    vec![
        one("npoint", &p),
        one("nsample", &s),
        one("nmixed", &m),
        one("nnest", &n),
        one("nbig", &big),
        one("nbigs", &bigs),
    ]
}

/// The fixed part of `body` (in `native`'s layout) laid out as `target` lays the same fields
/// out (another byte order, other offsets): scalar elements moved (and swapped); strings and
/// vectors left empty (a zero slot).
fn relayout(native: &Format, body: &[u8], target: &Format, out: &mut [u8], base: usize) {
    let swap = native.byte_order() != target.byte_order();
    for f in native.fields() {
        let Some(t) = target.field(f.name()) else {
            continue;
        };
        if f.is_variable() || f.kind() == &Kind::String {
            continue;
        }
        for e in 0..f.elements() {
            let src = f.offset() + e * f.size();
            let dst = base + t.offset() + e * t.size();
            if let Kind::Record(r) = f.kind() {
                let (Some(nn), Some(tn)) = (native.nested_format(r), target.nested_format(r))
                else {
                    continue;
                };
                relayout(nn, &body[src..src + f.size()], tn, out, dst);
                continue;
            }
            let mut v = body[src..src + f.size()].to_vec();
            if swap {
                v.reverse();
            }
            out[dst..dst + v.len()].copy_from_slice(&v);
        }
    }
}

/// (name, format, body) for every format `ndr_message` registers, and hand-made foreign ones.
fn ndr_bodies() -> Vec<(String, Format, Vec<u8>)> {
    let mut out = Vec::new();
    let known = formats();
    for (name, body, native) in values() {
        out.push((format!("{name}_native"), native.clone(), body.clone()));
        let be = in_order(native, marshal::ndr::ByteOrder::Big);
        let mut b = vec![0u8; be.size()];
        relayout(native, &body, &be, &mut b, 0);
        out.push((format!("{name}_big_endian"), be, b));
        let extra = extra_first(native);
        let mut b = vec![0x11u8; extra.size()];
        b[8..].fill(0);
        relayout(native, &body, &extra, &mut b, 0);
        out.push((format!("{name}_extra_first"), extra, b));
    }
    debug_assert!(out.iter().all(|(_, f, _)| known.contains(f)));

    // A big-endian C sender of NMixed's fields, with a string and a vector of records laid
    // out by hand, and some fields missing (they come from Default).
    let bepoint = Format::from_fields(
        "NPoint",
        marshal::ndr::ByteOrder::Big,
        8,
        &[
            IOField::new("x", "integer", 4, 0),
            IOField::new("y", "integer", 4, 4),
        ],
        &[],
    )
    .expect("a point");
    let c_mixed = Format::from_fields(
        "NMixed",
        marshal::ndr::ByteOrder::Big,
        32,
        &[
            IOField::new("id", "integer", 2, 0),
            IOField::new("ok", "boolean", 4, 4),
            IOField::new("name", "string", 8, 8),
            IOField::new("pts", "NPoint[]", 8, 16),
            IOField::new("scores", "float[]", 8, 24),
        ],
        &[bepoint],
    )
    .expect("a C NMixed");
    let mut b = vec![0u8; 32];
    b[0..2].copy_from_slice(&300u16.to_be_bytes());
    b[4..8].copy_from_slice(&1u32.to_be_bytes());
    b[8..12].copy_from_slice(&32u32.to_be_bytes());
    b[12..16].copy_from_slice(&5u32.to_be_bytes());
    b[16..20].copy_from_slice(&40u32.to_be_bytes());
    b[20..24].copy_from_slice(&2u32.to_be_bytes());
    b[24..28].copy_from_slice(&56u32.to_be_bytes());
    b[28..32].copy_from_slice(&1u32.to_be_bytes());
    b.extend_from_slice(b"hello\0\0\0");
    for v in [1i32, -2, 3, -4] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    b.extend_from_slice(&0.25f64.to_be_bytes());
    out.push(("nmixed_c_sender_big_endian".into(), c_mixed, b));

    // A sender with narrower integers and a float where NSample has a double.
    let c_sample = Format::from_fields(
        "NSample",
        marshal::ndr::ByteOrder::Little,
        32,
        &[
            IOField::new("id", "integer", 4, 0),
            IOField::new("value", "float", 4, 4),
            IOField::new("label", "char[8]", 1, 8),
            IOField::new("small", "integer", 1, 16),
            IOField::new("flag", "boolean", 2, 18),
            IOField::new("level", "unsigned integer", 2, 20),
            IOField::new("ratio", "float", 8, 24),
        ],
        &[],
    )
    .expect("a C NSample");
    let mut b = vec![0u8; 32];
    b[0..4].copy_from_slice(&(-7i32).to_le_bytes());
    b[4..8].copy_from_slice(&1.5f32.to_le_bytes());
    b[8..13].copy_from_slice(b"c-id\0");
    b[16] = 0xfe;
    b[18] = 1;
    b[20..22].copy_from_slice(&255u16.to_le_bytes());
    b[24..32].copy_from_slice(&0.75f64.to_le_bytes());
    out.push(("nsample_c_sender_narrow".into(), c_sample, b));

    let (f, body) = nbigs_one_byte(10);
    out.push(("nbigs_one_byte_elements_10".into(), f, body));
    out
}

fn ndr_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let bodies = ndr_bodies();
    let known = formats();
    for (name, f, body) in &bodies {
        let desc = description_of(f);
        for t in [
            "ndr_convert_interp",
            "ndr_convert_jit",
            "ndr_convert_tiered",
        ] {
            out.push(input(
                t,
                name.clone(),
                [&[0u8][..], &join_u16(&desc, body)].concat(),
            ));
        }
        out.push(input(
            "ndr_dynamic",
            format!("record_{name}"),
            [&[0u8][..], &join_u16(&desc, body)].concat(),
        ));
        out.push(input(
            "ndr_format",
            format!("description_{name}"),
            [&[0u8][..], &desc].concat(),
        ));
        out.push(input(
            "ndr_format",
            format!("with_id_{name}"),
            [&[1u8][..], &f.to_bytes()].concat(),
        ));
        if known.contains(f) {
            let msg = message_from_body(f.id(), body).expect("a message");
            out.push(input("ndr_message", name.clone(), msg));
        }
    }
    // Streams: every native value sent by NdrWriter, then the foreign bodies.
    let mut w = NdrWriter::new(Vec::new());
    for (_, body, native) in values() {
        w.send_body(native, &body).expect("a Vec takes it");
    }
    let natives = w.into_inner();
    let mut w = NdrWriter::new(Vec::new());
    for (_, f, body) in &bodies {
        w.send_body(f, body).expect("a Vec takes it");
    }
    let foreign = w.into_inner();
    for (name, s) in [("natives", &natives), ("foreign", &foreign)] {
        out.push(input(
            "ndr_stream",
            format!("stream_{name}"),
            [&[0u8][..], s].concat(),
        ));
        out.push(input(
            "ndr_stream",
            format!("stream_{name}_trickle"),
            [&[4 * 13 + 2][..], s].concat(),
        ));
        out.push(input(
            "ndr_dynamic",
            format!("dump_{name}"),
            [&[1u8][..], s].concat(),
        ));
    }
    // 64 variable-length arrays of bytes, all pointing at one 256-byte region: the dynamic
    // decode's budget (16 values per body byte + 4096) exactly.
    let (f, body) = overlapping_slots();
    out.push(input(
        "ndr_dynamic",
        "record_overlapping_slots_at_budget",
        [&[0u8][..], &join_u16(&description_of(&f), &body)].concat(),
    ));
    let mut w = NdrWriter::new(Vec::new());
    w.send_body(&f, &body).expect("a Vec takes it");
    let s = w.into_inner();
    out.push(input(
        "ndr_stream",
        "stream_overlapping_slots_at_budget",
        [&[0u8][..], &s].concat(),
    ));

    let mut twice = format_frame(NPoint::format());
    twice.extend_from_slice(&to_message(&NPoint { x: 1, y: 2 }).expect("a message"));
    twice.extend_from_slice(&to_message(&NPoint { x: 3, y: 4 }).expect("a message"));
    out.push(input(
        "ndr_stream",
        "stream_small_frame_cap",
        [&[1u8][..], &twice].concat(),
    ));
    out.push(input(
        "ndr_dynamic",
        "dump_one_format_two_records",
        [&[1u8][..], &twice].concat(),
    ));
    out
}

/// A record of 64 `unsigned integer[]` (1-byte elements) whose slots all point at one
/// 256-byte region after the 512-byte fixed part.
fn overlapping_slots() -> (Format, Vec<u8>) {
    let order = marshal::ndr::ByteOrder::native();
    let fields: Vec<IOField> = (0..64)
        .map(|i| IOField::new(&format!("f{i}"), "unsigned integer[]", 1, 8 * i))
        .collect();
    let f = Format::from_fields("overlap", order, 512, &fields, &[]).expect("64 slots");
    let word = |v: u32| match order {
        marshal::ndr::ByteOrder::Big => v.to_be_bytes(),
        marshal::ndr::ByteOrder::Little => v.to_le_bytes(),
    };
    let mut body = Vec::with_capacity(768);
    for _ in 0..64 {
        body.extend_from_slice(&word(512));
        body.extend_from_slice(&word(256));
    }
    body.extend((0..=255u8).map(|b| b.wrapping_mul(7)));
    (f, body)
}

// ---------------------------------------------------------------------------------------------
// pcap and headers

fn ethernet(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn ipv4(protocol: u8, payload: &[u8]) -> Vec<u8> {
    let total = u16::try_from(20 + payload.len()).expect("small");
    let mut h = vec![0x45, 0];
    h.extend_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&[0x12, 0x34, 0x40, 0x00, 64, protocol, 0, 0]);
    h.extend_from_slice(&[192, 168, 1, 10, 8, 8, 4, 4]);
    let c = workloads::pcap::internet_checksum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h.extend_from_slice(payload);
    h
}

fn pcap_seeds() -> Vec<Input> {
    let udp = {
        let mut u = vec![0xc3, 0x50, 0x00, 0x35, 0x00, 0x0b, 0x00, 0x00];
        u.extend_from_slice(b"abc");
        u
    };
    let tcp = {
        let mut t = vec![
            0x01, 0xbb, 0xd4, 0x31, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x12, 0xff, 0xff,
        ];
        t.extend_from_slice(&[0, 0, 0, 0]);
        t.extend_from_slice(b"payload");
        t
    };
    let arp = {
        let mut a = vec![0, 1, 8, 0, 6, 4, 0, 1];
        a.extend_from_slice(&[2, 0, 0, 0, 0, 1, 192, 168, 1, 10]);
        a.extend_from_slice(&[0, 0, 0, 0, 0, 0, 192, 168, 1, 1]);
        a
    };
    let frames = [
        ethernet(0x0800, &ipv4(17, &udp)),
        ethernet(0x0800, &ipv4(6, &tcp)),
        ethernet(0x0806, &arp),
        vec![0; 10],
    ];
    let mut out = Vec::new();
    for (name, precision) in [("micros", Precision::Micros), ("nanos", Precision::Nanos)] {
        let mut w =
            PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET, 65535, precision).expect("a Vec");
        for (i, f) in frames.iter().enumerate() {
            w.write_packet(1_700_000_000 + i as u32, 250 * i as u32, f)
                .expect("a Vec");
        }
        out.push(input(
            "pcap_layout",
            format!("capture_{name}"),
            w.into_inner(),
        ));
    }
    // The same file with big-endian headers.
    let mut w =
        PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET, 65535, Precision::Micros).expect("a Vec");
    w.write_packet(1, 2, &frames[1]).expect("a Vec");
    let le = w.into_inner();
    let mut be = le.clone();
    for (at, width) in [(0, 4), (4, 2), (6, 2), (8, 4), (12, 4), (16, 4), (20, 4)] {
        be[at..at + width].reverse();
    }
    for at in [24, 28, 32, 36] {
        be[at..at + 4].reverse();
    }
    out.push(input("pcap_layout", "capture_big_endian", be));
    // Raw frames, read as headers directly.
    out.push(input(
        "pcap_layout",
        "raw_ethernet_ipv4_tcp",
        frames[1].clone(),
    ));
    out.push(input("pcap_layout", "raw_ethernet_arp", frames[2].clone()));
    let mut big = ethernet(0x0800, &ipv4(6, &tcp));
    big.truncate(54);
    big.extend_from_slice(&arp);
    out.push(input("pcap_layout", "raw_big_header", big));
    out
}

// ---------------------------------------------------------------------------------------------
// Deep nesting

fn deep_nesting_seeds() -> Vec<Input> {
    let mut out = Vec::new();
    for (n, bad) in [
        (1u32, false),
        (2, true),
        (1000, false),
        (1000, true),
        (100_000, false),
    ] {
        let flags = if bad { 3u8 } else { 1 };
        let name = format!("synthesised_{n}{}", if bad { "_bad_last" } else { "" });
        out.push(input(
            "deep_nesting",
            name,
            [&[flags][..], &n.to_be_bytes()].concat(),
        ));
    }
    let l = marshal::xdr::to_vec(&list(20)).expect("a list");
    out.push(input(
        "deep_nesting",
        "as_is_list_20",
        [&[0u8][..], &l].concat(),
    ));
    let e = marshal::xdr::to_vec(&expr_chain(127)).expect("an expression");
    out.push(input(
        "deep_nesting",
        "as_is_expr_chain_127",
        [&[0u8][..], &e].concat(),
    ));
    let mut deep = Vec::new();
    for _ in 0..10_000 {
        deep.extend_from_slice(&1u32.to_be_bytes());
    }
    out.push(input(
        "deep_nesting",
        "as_is_expr_chain_10000",
        [&[0u8][..], &deep].concat(),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_seeds_and_names_are_unique() {
        let seeds = seeds();
        for t in crate::TARGETS {
            assert!(
                seeds.iter().any(|s| s.target == t.name),
                "no seed for {}",
                t.name
            );
        }
        let regressions = regressions();
        let mut names: Vec<(&str, &str)> = seeds
            .iter()
            .chain(&regressions)
            .map(|s| (s.target, s.name.as_str()))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate file names");
    }

    #[test]
    fn the_dimension_reproducers_carry_valid_ids() {
        let b = empty_record_array(&[1 << 32, 1 << 32]);
        assert_eq!(FormatId::of_description(&b[16..]).as_bytes(), &b[..16]);
    }
}
