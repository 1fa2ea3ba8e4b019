//! # marshal
//!
//! `#[derive(Marshal)]` on your types gives encoders and decoders as fast as hand-written code,
//! for each wire format whose cargo feature is on:
//!
//! - **`xdr`** (default): XDR, RFC 4506, the encoding of ONC RPC and NFS — [`xdr`].
//!
//! ```
//! use marshal::Marshal;
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! struct Point { x: i32, y: i32 }
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! struct Rect { a: Point, b: Point }
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! struct Dirent {
//!     #[marshal(max_len = 255)]
//!     name: String,            // XDR string<255>
//!     rects: Vec<Rect>,        // XDR rect<>
//! }
//!
//! let d = Dirent { name: "a".into(), rects: vec![Rect { a: Point { x: 1, y: 2 }, b: Point { x: 3, y: 4 } }] };
//! let bytes = marshal::xdr::to_vec(&d)?;
//! assert_eq!(bytes.len(), 4 + 4 + 4 + 16);
//! assert_eq!(marshal::xdr::from_slice::<Dirent>(&bytes)?, d);
//!
//! // Size classes are constants, computed by rustc.
//! const RECT: marshal::SizeClass = marshal::xdr::size_class::<Rect>();
//! assert_eq!(RECT, marshal::SizeClass::Fixed(16));
//! # Ok::<(), marshal::Error>(())
//! ```
//!
//! ## Features
//!
//! | feature | adds |
//! |---|---|
//! | `xdr` (default) | [`xdr`]: XDR encode/decode; [`rpc`]: ONC RPC headers and record marking |
//! | `iiop` | `cdr`: CDR and encapsulations; `giop`: GIOP messages, IORs, corbaloc |
//! | `ndr` | `ndr`: native formats, format ids, messages, `Receiver`, dynamic records |
//! | `jit` | Cranelift-compiled NDR conversions and tiering |
//! | `transports` | blocking TCP/UDP clients and servers for ONC RPC and GIOP, NDR streams and the format server |
//! | `tokio` | `tokio_util` codecs for each enabled format's framing: `rpc::{RecordCodec, DatagramCodec}`, `giop::GiopCodec`, `ndr::NdrCodec`, and their `CodecError`; the async ONC RPC `rpc::{AsyncClient, AsyncServer}` (programs as `tower` services of `rpc::Request`s); with `iiop`, `giop::{AsyncClient, AsyncServer}` (objects as `tower` services of `giop::Request`s); with `ndr`, the async NDR streams `ndr::{AsyncNdrWriter, AsyncNdrReader}` and format service `ndr::{AsyncFormatServer, AsyncFormatClient}` |
//!
//! ## The derive
//!
//! - Structs (named, tuple, unit; generic: bounds are added only for type parameters that fields
//!   use) encode their fields in order.
//! - Enums whose variants are all units are XDR `enum`s: the declared value is encoded, an
//!   unknown value is a decode error.
//! - Enums with data are XDR discriminated unions (CDR unions with the `iiop` feature).
//!   - `#[marshal(discriminant = D)]` on the enum names the type it switches on: `i32` by
//!     default (`int` / `long`), `u32`, `bool`, a C-like enum that derives `Marshal`
//!     (`switch (nfsstat3 status)`), or a narrower integer (`i16`, `u16`, `i8`, `u8`: CDR's
//!     `short`, `char`, `octet`; XDR sends them as an `int`).
//!   - `#[marshal(tag = L)]` gives an arm's label, a value of `D`: an integer literal
//!     (negative and hex allowed), `true` / `false`, or a constant's path (`Nfsstat3::Ok`,
//!     a `const`). Without one, an arm's label is its index.
//!   - Several labels on one arm (`case 1: case 2: void;`) repeat `tag`:
//!     `#[marshal(tag = 1, tag = 2)]`. Such an arm keeps the label it was decoded with, so
//!     re-encoding is byte-identical: it is a tuple variant whose first field is the
//!     discriminant (`Void(D)` or `Arm(D, Body)`); encoding one that holds none of its labels
//!     fails (`ErrorKind::NotALabel`).
//!   - A tuple variant marked `#[marshal(default)]` is the `default:` arm: its first field (of
//!     type `D`) keeps the discriminant it was decoded with, and an optional second field is
//!     the arm's body. Encoding it with another arm's label fails.
//!   - CORBA unions without `default`: a tuple variant marked `#[marshal(no_member)]`, holding
//!     only the discriminant (`None(D)`), is what CDR decodes a discriminant no arm lists into
//!     (the union has no member), and re-encodes byte-identical. XDR has no such union: it
//!     never decodes into this arm (an unlisted discriminant stays an error) and fails to
//!     encode it. A union has at most one `default` or `no_member` arm.
//!
//! ```
//! # #[cfg(all(feature = "xdr", feature = "iiop"))] {
//! use marshal::Marshal;
//!
//! #[derive(Marshal, Debug, Clone, Copy, PartialEq)]
//! enum Nfsstat3 { Ok = 0, Perm = 1, Noent = 2, Io = 5 }
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! #[marshal(discriminant = Nfsstat3)]
//! enum Lookup3res {
//!     #[marshal(tag = Nfsstat3::Ok)]
//!     Ok(u64),
//!     #[marshal(tag = Nfsstat3::Perm, tag = Nfsstat3::Io)]
//!     Refused(Nfsstat3),           // several labels: holds the one decoded
//!     #[marshal(default)]
//!     Fail(Nfsstat3, u32),         // default: holds the discriminant, then the body
//! }
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! #[marshal(discriminant = u32)]
//! enum Corba {
//!     #[marshal(tag = 1)]
//!     One(u32),
//!     #[marshal(no_member)]
//!     None(u32),                   // CDR: any other discriminant, no member
//! }
//!
//! let bytes = marshal::xdr::to_vec(&Lookup3res::Fail(Nfsstat3::Noent, 7))?;
//! assert_eq!(bytes, [0, 0, 0, 2, 0, 0, 0, 7]);
//! let o = marshal::cdr::ByteOrder::Big;
//! let none = marshal::cdr::from_slice::<Corba>(&[0, 0, 0, 9], o)?;
//! assert_eq!(none, Corba::None(9));
//! assert_eq!(marshal::cdr::to_vec(&none, o)?, [0, 0, 0, 9]);
//! assert!(marshal::xdr::from_slice::<Corba>(&[0, 0, 0, 9]).is_err());
//! # }
//! # Ok::<(), marshal::Error>(())
//! ```
//!
//! - `#[marshal(max_len = N)]` on a string, opaque or vector field is XDR `string<N>` / `T<N>`:
//!   longer data fails to encode; a longer length fails to decode before anything is allocated.
//! - A struct whose last field is `Option<Box<Self>>` is an optional-data list
//!   (`struct entry { ...; entry *next; }`, a CDR `sequence<entry, 1>` link), encoded and
//!   decoded with a loop, and given an iterative `Drop`: a list of any length is coded, torn
//!   down after a failed decode, and dropped in constant stack (Rust's own drop glue would
//!   recurse once per node and overflow the stack). Other recursion is limited to a nesting
//!   depth of [`DEFAULT_MAX_DEPTH`], past which coding fails with an error.
//! - A list type that needs a `Drop` of its own says `#[marshal(manual_drop)]` and unlinks its
//!   nodes in a loop, as the derived one does:
//!
//! ```
//! # #[cfg(feature = "xdr")] {
//! use marshal::Marshal;
//!
//! #[derive(Marshal)]
//! #[marshal(manual_drop)]
//! struct Entry {
//!     name: String,
//!     next: Option<Box<Entry>>,
//! }
//!
//! impl Drop for Entry {
//!     fn drop(&mut self) {
//!         // ... what this type needs, then:
//!         let mut next = self.next.take();
//!         while let Some(mut node) = next {
//!             next = node.next.take();
//!         }
//!     }
//! }
//! # }
//! ```
//!
//! - Generated code never moves fields out of a value, so types that implement `Drop` work.
//! - `#[marshal(encode_only)]` on a struct or union: only encoders are generated, for a type
//!   that borrows what it sends (`&'a T` fields, `T` any encodable type: an argument struct
//!   holding a file handle by reference). Decoding it does not compile; decode an owned twin
//!   (`T` instead of `&'a T`), which has the same encoding. Fields `&'a str` and `&'a [u8]`
//!   decode (borrowing from the input) and need no attribute.
//!
//! ```
//! # #[cfg(feature = "xdr")] {
//! use marshal::Marshal;
//!
//! #[derive(Marshal)]
//! struct NfsFh3 { #[marshal(max_len = 64)] data: Vec<u8> }
//!
//! #[derive(Marshal)]
//! #[marshal(encode_only)]
//! struct Read3args<'a> { file: &'a NfsFh3, offset: u64, count: u32 }
//!
//! let fh = NfsFh3 { data: vec![1, 2, 3] };
//! let bytes = marshal::xdr::to_vec(&Read3args { file: &fh, offset: 0, count: 512 })?;
//! assert_eq!(bytes.len(), 8 + 8 + 4);
//! # }
//! # Ok::<(), marshal::Error>(())
//! ```
//!
//! - `#[marshal(formats(cdr))]` on the type (any of `xdr`, `cdr`, `ndr`): code is generated
//!   for the listed formats only (those whose features are on), for a type whose fields have
//!   no encoding in the others, such as CORBA's object references
//!   (`marshal::giop::Ior`), which only CDR carries:
//!
//! ```
//! # #[cfg(feature = "iiop")] {
//! use marshal::Marshal;
//!
//! #[derive(Marshal, Debug, PartialEq)]
//! #[marshal(formats(cdr))]
//! struct Binding { name: String, object: marshal::giop::Ior }
//!
//! let b = Binding { name: "x".into(), object: marshal::giop::Ior::nil() };
//! let bytes = marshal::cdr::to_vec(&b, marshal::cdr::ByteOrder::Big)?;
//! assert_eq!(marshal::cdr::from_slice::<Binding>(&bytes, marshal::cdr::ByteOrder::Big)?, b);
//! # }
//! # Ok::<(), marshal::Error>(())
//! ```
//!
//! - `#[marshal(crate = "path")]` on the type: generated code reaches this crate as `path`
//!   (`path::__private::…`) instead of `::marshal`, for a crate that renames the dependency
//!   (`m = { package = "marshal", … }` in `Cargo.toml`) or re-exports it:
//!
//! ```
//! # #[cfg(feature = "xdr")] {
//! use marshal as m; // as a renamed dependency would be
//!
//! #[derive(m::Marshal)]
//! #[marshal(crate = "m")]
//! struct Ping { seq: u32 }
//! # }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub use marshal_core::{BytesStr, Error, ErrorKind, Segment, SizeClass, DEFAULT_MAX_DEPTH};
pub use marshal_derive::Marshal;

/// Decoding a message while it arrives: the GIOP transport decodes large bodies a piece at a
/// time as they come off the socket (`arriving::Arriving`, read through
/// `marshal::giop::Message::parse_arriving`). An implementation detail of the transports,
/// reachable for tests and fuzzing: not a public API.
#[doc(hidden)]
pub use marshal_core::arriving;

/// XDR (RFC 4506): entry points and traits.
///
/// | Rust | XDR |
/// |---|---|
/// | `bool` | `bool` |
/// | `i32`, `u32` | `int`, `unsigned int` |
/// | `i8`, `i16` / `u8`, `u16` | `int` / `unsigned int` (4 bytes; out of range on decode is an error) |
/// | `i64`, `u64` | `hyper`, `unsigned hyper` |
/// | `f32`, `f64` | `float`, `double` |
/// | `String`, `&str`, `Cow<str>`, [`BytesStr`] | `string<>` (UTF-8 checked on decode; `&str` and `Cow` borrow from the input) |
/// | `Vec<u8>`, `&[u8]`, `Cow<[u8]>`, `bytes::Bytes` | `opaque<>` |
/// | `[u8; N]` | `opaque[N]` |
/// | `Vec<T>` | `T<>` |
/// | `[T; N]` | `T[N]` |
/// | `Option<T>` | `T *` (optional-data) |
/// | `Box<T>` | `T` |
/// | `()`, `PhantomData<T>` | `void` |
/// | tuples (up to 12) | `struct` |
/// | `#[marshal(max_len = N)]` field | `string<N>`, `opaque<N>`, `T<N>` |
///
/// [`from_bytes`](xdr::from_bytes) decodes from a shared `bytes::Bytes` input into a value
/// that owns what it holds, its `Bytes` and `BytesStr` fields slices of the input (no copy):
///
/// ```
/// use marshal::{BytesStr, Marshal};
///
/// #[derive(Marshal, Debug, PartialEq)]
/// #[marshal(formats(xdr, cdr))] // NDR has no `Bytes` or `BytesStr`
/// struct Put { #[marshal(max_len = 255)] key: BytesStr, value: bytes::Bytes }
///
/// let put = Put { key: "k".into(), value: bytes::Bytes::from_static(b"payload") };
/// let input = bytes::Bytes::from(marshal::xdr::to_vec(&put)?);
/// let back: Put = marshal::xdr::from_bytes(input.clone())?;
/// assert_eq!(back, put);
/// assert_eq!(back.value.as_ptr(), input[12..].as_ptr()); // in the input's buffer
/// # Ok::<(), marshal::Error>(())
/// ```
#[cfg(feature = "xdr")]
#[cfg_attr(docsrs, doc(cfg(feature = "xdr")))]
pub mod xdr {
    pub use wire_xdr::{encode_into, from_bytes, from_slice, size_class, to_vec, Decode, Encode};
}

/// CDR (CORBA GIOP, as spoken by omniORB): entry points and traits. Primitives are aligned
/// to their size relative to the stream's origin, in the byte order the sender picks.
///
/// | Rust | IDL |
/// |---|---|
/// | `u8` / `i8` / `bool` | `octet` / `char` / `boolean` |
/// | `i16`, `u16` | `short`, `unsigned short` |
/// | `i32`, `u32` | `long`, `unsigned long` |
/// | `i64`, `u64` | `long long`, `unsigned long long` |
/// | `f32`, `f64` | `float`, `double` |
/// | `String`, `&str`, `Cow<str>`, [`BytesStr`] | `string` (UTF-8 checked, no NUL inside; `&str` and `Cow` borrow from the input) |
/// | `Vec<T>`, `&[u8]`, `Cow<[u8]>`, `bytes::Bytes` | `sequence<T>`, `sequence<octet>` |
/// | `[T; N]` | `T[N]` |
/// | `Option<T>` | `sequence<T, 1>` |
/// | `Box<T>` | `T` |
/// | `()`, tuples (up to 12) | nothing, `struct` |
/// | C-like enum | `enum` (encoded as its ordinal, not its value) |
/// | enum with data | `union` switching on `long`, or on `#[marshal(discriminant = T)]` (an integer, `bool` or an enum); `#[marshal(no_member)]` arm: no member |
/// | `#[marshal(max_len = N)]` field | `string<N>`, `sequence<T, N>` |
///
/// ```
/// use marshal::cdr::{to_vec, from_slice, ByteOrder};
/// #[derive(marshal::Marshal, Debug, PartialEq)]
/// struct Sample { id: u16, weight: f64, name: String }
///
/// let s = Sample { id: 7, weight: 0.5, name: "x".into() };
/// let bytes = to_vec(&s, ByteOrder::Big)?;
/// // short, 6 bytes of padding, double, then the string: length 2, "x", NUL.
/// assert_eq!(bytes.len(), 2 + 6 + 8 + 4 + 2);
/// assert_eq!(from_slice::<Sample>(&bytes, ByteOrder::Big)?, s);
///
/// // From a shared buffer: `BytesStr` and `bytes::Bytes` fields are slices of it (no copy).
/// #[derive(marshal::Marshal, Debug, PartialEq)]
/// #[marshal(formats(xdr, cdr))] // NDR has no `BytesStr`
/// struct Named { id: u16, name: marshal::BytesStr }
///
/// let input = bytes::Bytes::from(to_vec(&Named { id: 7, name: "x".into() }, ByteOrder::Big)?);
/// let n: Named = marshal::cdr::from_bytes(input.clone(), ByteOrder::Big)?;
/// assert_eq!((n.id, n.name.as_ptr()), (7, input[8..].as_ptr()));
/// # Ok::<(), marshal::Error>(())
/// ```
#[cfg(feature = "iiop")]
#[cfg_attr(docsrs, doc(cfg(feature = "iiop")))]
pub mod cdr {
    pub use wire_iiop::{
        encode_into, from_bytes, from_encapsulation, from_slice, to_encapsulation, to_vec,
        ByteOrder, Decode, Encode,
    };
}

/// NDR (feature `ndr`), after PBIO: a sender puts its own memory layout on the wire with the id
/// of a format description; the receiver converts, matching fields by name.
///
/// | Rust | NDR field |
/// |---|---|
/// | `i8`…`i64`, `u8`…`u64` | `integer`, `unsigned integer` of that size |
/// | `f32`, `f64` | `float` of that size |
/// | `bool` | `boolean` (1 byte) |
/// | `[u8; N]` | `unsigned integer[N]`; a C `char[N]` converts into it |
/// | `[T; N]`, `[[T; M]; N]` | `T[N]`, `T[N][M]` |
/// | `String` | `string`: an (offset, length) slot, the bytes after the fixed part |
/// | `Vec<T>` | `T[]`: an (offset, count) slot, the elements after the fixed part |
/// | a derived struct | a nested record, by its own format |
///
/// ```
/// use marshal::ndr::{to_message, ByteOrder, Format, IOField, Receiver};
///
/// #[derive(marshal::Marshal, Debug, PartialEq)]
/// #[repr(C)]
/// struct Sample { id: i64, value: f64 }
///
/// // Sending: a padding-free `#[repr(C)]` record goes out as its own bytes.
/// assert!(Format::of::<Sample>().is_zero_copy());
/// let msg = to_message(&Sample { id: 7, value: 2.5 })?;
///
/// // Receiving: the receiver needs the sender's format (registered, or sent on the stream).
/// let mut rx = Receiver::new();
/// rx.register(Format::of::<Sample>());
/// assert_eq!(rx.decode::<Sample>(&msg)?, Sample { id: 7, value: 2.5 });
/// // Or with no Rust type: fields by name, and JSON.
/// assert_eq!(rx.decode_dynamic(&msg)?.to_json(), r#"{"id":7,"value":2.5}"#);
///
/// // A big-endian sender with a 4-byte `id`, fields in the other order: converted by name.
/// let theirs = Format::from_fields("Sample", ByteOrder::Big, 12,
///     &[IOField::new("value", "float", 8, 0), IOField::new("id", "integer", 4, 8)], &[])?;
/// let mut record = 2.5f64.to_be_bytes().to_vec();
/// record.extend_from_slice(&7i32.to_be_bytes());
/// assert_eq!(rx.convert::<Sample>(&theirs, &record)?, Sample { id: 7, value: 2.5 });
/// # Ok::<(), marshal::Error>(())
/// ```
///
/// With feature `transports`, [`NdrWriter`](ndr::NdrWriter) and [`NdrReader`](ndr::NdrReader)
/// carry records over a stream (TCP) with each format sent once before its first record, and
/// a [`FormatServer`](ndr::FormatServer) answers format ids for receivers that resolve with a
/// [`FormatClient`](ndr::FormatClient).
///
/// With feature `tokio`, `NdrCodec` cuts an async stream into whole frames (for
/// `tokio_util::codec::Framed`) to give to [`parse_frame`](ndr::parse_frame);
/// `AsyncNdrWriter` and `AsyncNdrReader` are the streams on tokio (the same bytes as the
/// blocking ones), `AsyncFormatServer` serves a `FormatCache` on tokio, and
/// `AsyncFormatClient` fetches formats for a `Receiver` before it decodes.
///
/// With feature `jit`, conversions are compiled to native code by Cranelift: choose the
/// [`Engine`](ndr::Engine) with [`Receiver::with_engine`](ndr::Receiver::with_engine) (the
/// default is [`Engine::Tiered`](ndr::Engine) under a code budget), and read what it did in
/// [`Receiver::stats`](ndr::Receiver::stats).
#[cfg(feature = "ndr")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndr")))]
pub mod ndr {
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::codec::{CodecError, NdrCodec};
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::ndr::{
        AsyncFormatClient, AsyncFormatServer, AsyncFormatServerHandle, AsyncNdrReader,
        AsyncNdrWriter,
    };
    #[cfg(feature = "transports")]
    #[cfg_attr(docsrs, doc(cfg(feature = "transports")))]
    pub use transports::ndr::{
        FormatClient, FormatServer, FormatServerHandle, NdrReader, NdrWriter,
    };
    // Conversion plans, the interpreter, the JIT back end and the tiering models: for
    // benchmarks, tests and fuzzing, not a public API.
    #[doc(hidden)]
    pub use wire_ndr::{convert, tiering};
    pub use wire_ndr::{
        format_frame, frame_len, message_from_body, parse_frame, parse_message, prepare, to_body,
        to_message, write_message, ByteOrder, DynRecord, Engine, Field, Format, FormatCache,
        FormatId, Frame, IOField, Kind, Message, Native, NativeRecord, NativeType, Outgoing,
        Receiver, Record, Resolver, Stats, Value, HEADER_LEN,
    };
}

/// GIOP (CORBA's General Inter-ORB Protocol, 1.0–1.2): messages, object references
/// ([`Ior`](giop::Ior)), system exceptions, and with feature `transports` a blocking
/// [`Client`](giop::Client) and multi-threaded [`Server`](giop::Server) over TCP (IIOP) that
/// interoperate with omniORB; with feature `tokio`, `GiopCodec`, a `tokio_util` codec of
/// whole (reassembled) messages, an `AsyncClient` that multiplexes concurrent calls over one
/// connection, and an `AsyncServer` of `tower` services of `Request`s (or the same servants).
///
/// ```
/// use marshal::giop::Ior;
/// let ior = Ior::parse("corbaloc::127.0.0.1:2809/Bench")?;
/// assert_eq!(ior.iiop(), Some(("127.0.0.1", 2809, &b"Bench"[..])));
/// assert!(ior.to_string().starts_with("IOR:"));
/// # Ok::<(), marshal::Error>(())
/// ```
#[cfg(feature = "iiop")]
#[cfg_attr(docsrs, doc(cfg(feature = "iiop")))]
pub mod giop {
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::codec::{CodecError, GiopCodec};
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::giop::{
        AsyncClient, AsyncServer, AsyncServerHandle, BoxError, Reply, Request, Response, Service,
        DEFAULT_GRACE, DEFAULT_MAX_IN_FLIGHT,
    };
    #[cfg(feature = "transports")]
    #[cfg_attr(docsrs, doc(cfg(feature = "transports")))]
    pub use transports::giop::{Call, CallError, Client, Servant, Server, ServerHandle};
    pub use wire_iiop::giop::{
        encode_message, Body, CancelRequestHeader, CloseConnection, Completion, IiopProfile, Ior,
        LocateReplyHeader, LocateRequestHeader, LocateStatus, Message, MessageError, MessageHead,
        MessageHeader, MessageKind, MsgType, Profile, Reassembler, ReplyHeader, ReplyStatus,
        RequestHeader, ServiceContext, SystemException, TaggedComponent, TaggedProfile,
        TargetAddress, Version, CODE_SETS, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_MESSAGE, HEADER_LEN,
        MAGIC, RESPONSE_EXPECTED, TAG_ALTERNATE_IIOP_ADDRESS, TAG_CODE_SETS, TAG_INTERNET_IOP,
        TAG_MULTIPLE_COMPONENTS, TAG_ORB_TYPE, UTF16, UTF8,
    };
}

/// ONC RPC (RFC 5531): call and reply headers, credentials ([`Auth`](rpc::Auth)) and record
/// marking; with feature `transports` a blocking [`Client`](rpc::Client) over TCP (calls
/// may be pipelined) or UDP (with retransmission), a multi-threaded [`Server`](rpc::Server)
/// of several programs and versions, and an [`rpcbind`](rpc::rpcbind) client; with feature
/// `tokio`, `tokio_util` codecs of whole records (`RecordCodec`, over TCP) and datagrams
/// (`DatagramCodec`, for `UdpFramed`), an async client (`AsyncClient`: a cloneable handle,
/// many calls in flight on one connection, matched by xid) and an async server
/// (`AsyncServer`, serving `tower` services of `Request`s, or the same `Program`s as
/// `Server`).
///
/// ```
/// # #[cfg(feature = "transports")] {
/// use marshal::rpc::{Call, Client, Server};
///
/// #[derive(marshal::Marshal, Debug, PartialEq)]
/// struct Sum { total: i64, count: u32 }
///
/// let mut server = Server::bind("127.0.0.1:0")?;
/// server.add(0x2000_0002, 1, |call: &mut Call<'_>| match call.procedure() {
///     1 => {
///         let v: Vec<i32> = call.args()?;
///         call.reply(&Sum { total: v.iter().map(|&x| i64::from(x)).sum(), count: v.len() as u32 })
///     }
///     _ => call.proc_unavail(),
/// });
/// let server = server.spawn()?;
/// let mut client = Client::connect_tcp(server.tcp_addr().unwrap(), 0x2000_0002, 1)?;
/// let s: Sum = client.call::<Vec<i32>, Sum>(1, &vec![1, 2, 3])?;
/// assert_eq!(s, Sum { total: 6, count: 3 });
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "xdr")]
#[cfg_attr(docsrs, doc(cfg(feature = "xdr")))]
pub mod rpc {
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::codec::{CodecError, DatagramCodec, RecordCodec};
    #[cfg(feature = "transports")]
    #[cfg_attr(docsrs, doc(cfg(feature = "transports")))]
    pub use transports::rpc::{
        rpcbind, write_record, Call, Client, Program, Protocol, RpcError, Server, ServerHandle,
        DEFAULT_MAX_CONNECTIONS, DEFAULT_RETRY, DEFAULT_TIMEOUT, MAX_DATAGRAM, MAX_RETRY,
    };
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub use transports::rpc::{
        AsyncClient, AsyncServer, AsyncServerHandle, BoxError, GarbageArgs, Reply, Request,
        Response, Service, DEFAULT_GRACE, DEFAULT_MAX_IN_FLIGHT,
    };
    pub use wire_xdr::rpc::{
        record_mark, AcceptStat, Auth, AuthStat, CallHeader, CallTemplate, FragmentHeader, Message,
        OpaqueAuth, Progress, RecordError, RecordReader, RejectedReply, ReplyBody, ReplyHeader,
        TemplateHeader, AUTH_NONE, AUTH_SYS, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD,
        LAST_FRAGMENT, MAX_AUTH_BYTES, MAX_FRAGMENT_LEN, MAX_GIDS, MAX_MACHINE_NAME, RPC_VERSION,
    };
}

/// Layout-annotated records (USC): a struct whose bytes are a contract — protocol headers,
/// device records — with each field's offset, width, byte order and bit range given by
/// `#[marshal(...)]`. Always available, whatever wire features are on.
///
/// ```
/// use marshal::Marshal;
///
/// #[derive(Marshal, Debug, PartialEq, Default)]
/// #[marshal(layout(size = 8, align = 4))]
/// struct UdpHeader {
///     #[marshal(at = 0)] src_port: u16,          // big-endian unless `little`
///     #[marshal(at = 2)] dst_port: u16,
///     #[marshal(at = 4)] len: u16,
///     #[marshal(at = 6)] checksum: u16,
/// }
///
/// let mut packet = [0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'd', b'a', b't', b'a'];
/// let h = UdpHeader::read_from(&packet)?;               // whole record
/// assert_eq!((h.src_port, h.dst_port, h.len), (12345, 53, 12));
///
/// let mut slots: Vec<UdpHeader> = (0..4).map(|_| UdpHeader::default()).collect();
/// slots[0].read_into(&packet)?;                          // into existing memory: fastest
/// assert_eq!(slots[0], h);
///
/// let mut v = UdpHeader::view_mut(&mut packet)?;        // one field, in place
/// v.set_checksum(0xbeef);
/// assert_eq!(v.dst_port(), 53);
/// assert_eq!(packet[6..8], [0xbe, 0xef]);
///
/// let mut out = [0xffu8; 8];
/// h.write_to(&mut out)?;
/// assert_eq!(out, [0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00]);
/// # Ok::<(), marshal::Error>(())
/// ```
///
/// - `#[marshal(layout(size = N, align = A))]` on the struct: the record's bytes, and the
///   alignment (1, 2, 4, 8, 16) buffers holding it are guaranteed to have. Writing groups
///   neighbouring fields into words (up to 8 bytes; within that alignment on targets where
///   unaligned access is slow), puts each together with shifts and masks and stores it once;
///   reading loads each field's unit and stores the field at once.
/// - On each field: `at = N` (byte offset), `big` (default) or `little`, and for a bit-field
///   `unit = u8|u16|u32|u64, bits = lo..hi` (bits of the unit at `at`; bit 0 is the least
///   significant). Fields are integers, `f32`/`f64`, `[u8; N]`, or bit-fields (unsigned or
///   `bool`). Overlaps, fields past the size and widths that do not suit their type are
///   compile errors.
/// - The derive adds `read_from`, `read_into` (into an existing value: the fastest way to
///   fill a slot of an array), `write_to`, `view` (a `FooView` with a getter per field)
///   and `view_mut` (a `FooViewMut` adding `set_<field>`), and implements [`Layout`](layout::Layout).
/// - With `in_place` (a `#[repr(C)]` struct whose fields tile the layout in order), also
///   `Foo::from_wire_in_place(&mut [u8]) -> &mut Foo` and `foo.to_wire_in_place()`, which
///   swap the bytes in the buffer itself ([`InPlace`](layout::InPlace)).
pub mod layout {
    pub use marshal_core::layout::{InPlace, Layout, PlainBytes};
}

/// Items the derive's output uses. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use marshal_core::layout;
    #[cfg(feature = "iiop")]
    pub use wire_iiop::__private as iiop;
    #[cfg(feature = "ndr")]
    pub use wire_ndr::__private as ndr;
    #[cfg(feature = "xdr")]
    pub use wire_xdr::__private as xdr;
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
