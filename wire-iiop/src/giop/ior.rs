//! Interoperable Object References (CORBA 3, §13.6, module `IOP`) and the IIOP profile
//! (CORBA 3, §15.7.2).
//!
//! ```idl
//! struct IOR { string type_id; sequence<TaggedProfile> profiles; };
//! struct TaggedProfile { ProfileId tag; sequence<octet> profile_data; };   // ProfileId: ulong
//! struct TaggedComponent { ComponentId tag; sequence<octet> component_data; };
//! // TAG_INTERNET_IOP profile_data: an encapsulation of
//! struct ProfileBody_1_0 { Version iiop_version; string host; unsigned short port;
//!                          sequence<octet> object_key; };
//! struct ProfileBody_1_1 { /* the same, then */ sequence<TaggedComponent> components; };
//! ```
//!
//! An [`Ior`] comes from a stringified reference (`IOR:` and the hex of the CDR encapsulation
//! of the `IOR` struct), from a `corbaloc:` URL (CORBA 3, §13.6.10), or from a GIOP message
//! body through [`Decode`] (a `LOCATION_FORWARD` reply, for one). Parsing keeps the exact
//! bytes of every profile, so a reference this crate did not build is passed on unchanged:
//! [`Ior::parse`] then [`to_string`](ToString::to_string) gives back the input octets. The
//! text forms are parsed and written in `corbaloc.rs`.

use marshal_core::{Error, ErrorKind, Reader, Writer};

use crate::string::{put_len, take_len};
use crate::{ByteOrder, Decode, Encode};

/// Profile tag of an IIOP profile ([`Profile::Iiop`]).
pub const TAG_INTERNET_IOP: u32 = 0;
/// Profile tag of a multiple-components profile (kept as [`Profile::Other`]).
pub const TAG_MULTIPLE_COMPONENTS: u32 = 1;
/// Component tag of the ORB type (omniORB's is `0x41545400`, "AT&T").
pub const TAG_ORB_TYPE: u32 = 0;
/// Component tag of the code sets an ORB supports.
pub const TAG_CODE_SETS: u32 = 1;
/// Component tag of a further address of the same object (an encapsulated host and port).
pub const TAG_ALTERNATE_IIOP_ADDRESS: u32 = 3;

/// A tagged component of an IIOP 1.1+ profile: a tag and its opaque data (usually itself an
/// encapsulation).
///
/// ```
/// use wire_iiop::giop::{TaggedComponent, TAG_CODE_SETS};
/// let c = TaggedComponent { tag: TAG_CODE_SETS, data: vec![0, 0, 0, 0] };
/// assert_eq!(c.tag, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaggedComponent {
    /// The `ComponentId`.
    pub tag: u32,
    /// The `component_data` octets.
    pub data: Vec<u8>,
}

impl Encode for TaggedComponent {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        let pos = self.tag.end(pos, depth)?;
        self.data.end(pos, depth)
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.tag.encode(w, order)?;
        self.data.encode(w, order)
    }
}

impl<'de> Decode<'de> for TaggedComponent {
    const MIN: usize = 8;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let tag = u32::decode(r, order).map_err(|e| e.in_field("tag"))?;
        let data = Vec::<u8>::decode(r, order).map_err(|e| e.in_field("component_data"))?;
        Ok(TaggedComponent { tag, data })
    }
}

/// The body of an IIOP profile: where the object lives and its key there.
///
/// Its CDR encoding ([`Encode`], [`Decode`]) is the `ProfileBody` struct of its version:
/// components are carried from IIOP 1.1 on, so a 1.0 body must have none. In an [`Ior`] it
/// travels as an encapsulation ([`IiopProfile::to_encapsulation`]).
///
/// ```
/// use wire_iiop::giop::IiopProfile;
/// let p = IiopProfile::new("example.com", 2809, b"key".to_vec());
/// assert_eq!((p.version, p.port), ((1, 2), 2809));
/// assert!(p.components.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IiopProfile {
    /// IIOP version `(major, minor)`; the major version is always 1.
    pub version: (u8, u8),
    /// Host name or address (an IPv6 address without brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// The object key, opaque to everyone but the server.
    pub object_key: Vec<u8>,
    /// Tagged components (IIOP 1.1 and later).
    pub components: Vec<TaggedComponent>,
}

impl IiopProfile {
    /// An IIOP 1.2 profile without components.
    ///
    /// ```
    /// use wire_iiop::giop::IiopProfile;
    /// let p = IiopProfile::new("::1", 1234, vec![1, 2]);
    /// assert_eq!(p.object_key, [1, 2]);
    /// ```
    pub fn new(host: impl Into<String>, port: u16, object_key: impl Into<Vec<u8>>) -> Self {
        IiopProfile {
            version: (1, 2),
            host: host.into(),
            port,
            object_key: object_key.into(),
            components: Vec::new(),
        }
    }

    /// The first component with tag `tag`.
    ///
    /// ```
    /// use wire_iiop::giop::{IiopProfile, TaggedComponent, TAG_ORB_TYPE};
    /// let mut p = IiopProfile::new("h", 1, vec![]);
    /// p.components.push(TaggedComponent { tag: TAG_ORB_TYPE, data: vec![0, 0, 0, 0, 1, 2, 3, 4] });
    /// assert_eq!(p.component(TAG_ORB_TYPE).unwrap().data.len(), 8);
    /// assert!(p.component(99).is_none());
    /// ```
    pub fn component(&self, tag: u32) -> Option<&TaggedComponent> {
        self.components.iter().find(|c| c.tag == tag)
    }

    /// The `profile_data` of this profile: the body as a CDR encapsulation in `order`.
    ///
    /// Fails if the host contains a NUL byte, if the major version is not 1, or if a 1.0
    /// profile has components.
    ///
    /// ```
    /// use wire_iiop::{ByteOrder, giop::IiopProfile};
    /// let p = IiopProfile { version: (1, 0), ..IiopProfile::new("h", 1, vec![7]) };
    /// let data = p.to_encapsulation(ByteOrder::Big).unwrap();
    /// assert_eq!(data, [0, 1, 0, 0, 0, 0, 0, 2, b'h', 0, 0, 1, 0, 0, 0, 1, 7]);
    /// assert_eq!(IiopProfile::from_encapsulation(&data).unwrap(), p);
    /// ```
    pub fn to_encapsulation(&self, order: ByteOrder) -> Result<Vec<u8>, Error> {
        crate::to_encapsulation(self, order)
    }

    /// Decodes the `profile_data` of a `TAG_INTERNET_IOP` profile, in either byte order.
    ///
    /// Offsets in errors count from the first octet of `data`. Bytes after the body are an
    /// error, except in a profile of a minor version above 2, whose extra fields are skipped
    /// (a receiver ignores what later versions append).
    ///
    /// ```
    /// use wire_iiop::giop::IiopProfile;
    /// let e = IiopProfile::from_encapsulation(&[0, 2, 0]).unwrap_err();
    /// assert_eq!(e.to_string(), "iiop_version: unsupported IIOP version 2.0 at offset 1");
    /// ```
    pub fn from_encapsulation(data: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(data, 0);
        let order = take_byte_order(&mut r)?;
        let body = IiopProfile::decode(&mut r, order)?;
        if body.version.1 <= 2 {
            r.finish()?;
        }
        Ok(body)
    }

    /// Fails (at `pos`) if this body has no encoding.
    fn check(&self, pos: usize) -> Result<(), Error> {
        let (major, minor) = self.version;
        let msg = if major != 1 {
            format!("unsupported IIOP version {major}.{minor}")
        } else if minor == 0 && !self.components.is_empty() {
            "an IIOP 1.0 profile cannot carry components".to_owned()
        } else {
            return Ok(());
        };
        Err(Error::new(ErrorKind::Custom(msg), pos).in_field("iiop_version"))
    }
}

/// The `ProfileBody` struct of the profile's version (no byte-order flag: see
/// [`IiopProfile::to_encapsulation`]).
impl Encode for IiopProfile {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.check(pos)?;
        let pos = self.host.end(pos + 2, depth)?;
        let pos = self.port.end(pos, depth)?;
        let pos = self.object_key.end(pos, depth)?;
        if self.version.1 == 0 {
            return Ok(pos);
        }
        self.components
            .end(pos, depth)
            .map_err(|e| e.in_field("components"))
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.check(w.position())?;
        w.put([self.version.0, self.version.1])?;
        self.host.encode(w, order).map_err(|e| e.in_field("host"))?;
        self.port.encode(w, order)?;
        self.object_key.encode(w, order)?;
        if self.version.1 == 0 {
            return Ok(());
        }
        self.components
            .encode(w, order)
            .map_err(|e| e.in_field("components"))
    }
}

impl<'de> Decode<'de> for IiopProfile {
    const MIN: usize = 2 + 5 + 2 + 4;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let [major, minor] = r.array::<2>().map_err(|e| e.in_field("iiop_version"))?;
        if major != 1 {
            return Err(r
                .error_back(
                    2,
                    ErrorKind::Custom(format!("unsupported IIOP version {major}.{minor}")),
                )
                .in_field("iiop_version"));
        }
        let host = String::decode(r, order).map_err(|e| e.in_field("host"))?;
        let port = u16::decode(r, order).map_err(|e| e.in_field("port"))?;
        let object_key = Vec::<u8>::decode(r, order).map_err(|e| e.in_field("object_key"))?;
        let components = if minor == 0 {
            Vec::new()
        } else {
            Vec::<TaggedComponent>::decode(r, order).map_err(|e| e.in_field("components"))?
        };
        Ok(IiopProfile {
            version: (major, minor),
            host,
            port,
            object_key,
            components,
        })
    }
}

/// One tagged profile of an [`Ior`].
///
/// An IIOP profile keeps its `profile_data` octets (`raw`) beside their decoded `body`, so
/// that a reference passes through byte for byte (byte order and padding included). Inside an
/// [`Ior`], `raw` always decodes to `body`: [`Ior::from_profiles`] re-encodes the bodies whose
/// `raw` does not, so to change a profile, edit its `body` and rebuild the `Ior`.
///
/// ```
/// use wire_iiop::giop::{Ior, Profile, TAG_INTERNET_IOP};
/// let ior = Ior::new("IDL:Echo:1.0", "localhost", 2809, b"echo");
/// let p = &ior.profiles()[0];
/// assert_eq!(p.tag(), TAG_INTERNET_IOP);
/// match p {
///     Profile::Iiop { body, raw } => {
///         assert_eq!(body.host, "localhost");
///         assert_eq!(raw[0], 0); // big-endian encapsulation
///     }
///     Profile::Other { .. } => unreachable!(),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Profile {
    /// A `TAG_INTERNET_IOP` profile.
    Iiop {
        /// The decoded `ProfileBody`.
        body: IiopProfile,
        /// The `profile_data` octets: `body` as an encapsulation.
        raw: Vec<u8>,
    },
    /// Any other profile, kept opaque.
    Other {
        /// The `ProfileId`.
        tag: u32,
        /// The `profile_data` octets.
        data: Vec<u8>,
    },
}

impl Profile {
    /// An IIOP profile whose `profile_data` is `body` as a big-endian encapsulation.
    ///
    /// Fails as [`IiopProfile::to_encapsulation`] does.
    ///
    /// ```
    /// use wire_iiop::giop::{IiopProfile, Profile};
    /// let p = Profile::iiop(IiopProfile::new("h", 1, vec![])).unwrap();
    /// assert_eq!(p.data()[..4], [0, 1, 2, 0]); // flag, version 1.2, padding
    /// assert!(Profile::iiop(IiopProfile::new("h\0", 1, vec![])).is_err());
    /// ```
    pub fn iiop(body: IiopProfile) -> Result<Profile, Error> {
        let raw = body.to_encapsulation(ByteOrder::Big)?;
        Ok(Profile::Iiop { body, raw })
    }

    /// Decodes a tagged profile: `TAG_INTERNET_IOP` becomes [`Profile::Iiop`] (and must
    /// decode), anything else [`Profile::Other`].
    ///
    /// ```
    /// use wire_iiop::giop::{Profile, TAG_MULTIPLE_COMPONENTS};
    /// let p = Profile::from_tagged(TAG_MULTIPLE_COMPONENTS, &[1, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    /// assert!(matches!(p, Profile::Other { tag: 1, .. }));
    /// assert!(Profile::from_tagged(0, &[]).is_err());
    /// ```
    pub fn from_tagged(tag: u32, data: &[u8]) -> Result<Profile, Error> {
        if tag == TAG_INTERNET_IOP {
            let body = IiopProfile::from_encapsulation(data)?;
            Ok(Profile::Iiop {
                body,
                raw: data.to_vec(),
            })
        } else {
            Ok(Profile::Other {
                tag,
                data: data.to_vec(),
            })
        }
    }

    /// The `ProfileId`.
    ///
    /// ```
    /// use wire_iiop::giop::Profile;
    /// assert_eq!(Profile::Other { tag: 7, data: vec![] }.tag(), 7);
    /// ```
    pub fn tag(&self) -> u32 {
        match self {
            Profile::Iiop { .. } => TAG_INTERNET_IOP,
            Profile::Other { tag, .. } => *tag,
        }
    }

    /// The `profile_data` octets.
    ///
    /// ```
    /// use wire_iiop::giop::Profile;
    /// assert_eq!(Profile::Other { tag: 7, data: vec![1, 2] }.data(), [1, 2]);
    /// ```
    pub fn data(&self) -> &[u8] {
        match self {
            Profile::Iiop { raw, .. } => raw,
            Profile::Other { data, .. } => data,
        }
    }

    /// The IIOP body, if this is an IIOP profile.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::new("", "h", 9, b"k");
    /// assert_eq!(ior.profiles()[0].as_iiop().unwrap().port, 9);
    /// ```
    pub fn as_iiop(&self) -> Option<&IiopProfile> {
        match self {
            Profile::Iiop { body, .. } => Some(body),
            Profile::Other { .. } => None,
        }
    }
}

/// An Interoperable Object Reference: the repository id of the object's most derived
/// interface and the profiles that say how to reach it.
///
/// Build one with [`Ior::new`] (one IIOP 1.2 profile) or [`Ior::from_profiles`]; read one with
/// [`Ior::parse`] (`IOR:` or `corbaloc:`), [`Ior::from_encapsulation`] or, inside a GIOP
/// message body, [`Decode`]. [`Display`](core::fmt::Display) writes the stringified form.
///
/// An `Ior` remembers the byte order of the encapsulation it was parsed from (big-endian for
/// one built here) and, when it had non-zero padding, its exact octets, so that stringifying a
/// parsed reference reproduces its input. Equality ignores that encoding detail: two `Ior`s
/// are equal when their type ids and profiles (profile octets included) are.
///
/// ```
/// use wire_iiop::giop::Ior;
/// let ior = Ior::new("IDL:Echo:1.0", "localhost", 2809, b"echo");
/// let s = ior.to_string();
/// assert!(s.starts_with("IOR:000000000000000d49444c3a4563686f3a312e3000"));
/// let back: Ior = s.parse().unwrap();
/// assert_eq!(back, ior);
/// assert_eq!(back.iiop(), Some(("localhost", 2809, &b"echo"[..])));
/// ```
#[derive(Debug, Clone)]
pub struct Ior {
    type_id: String,
    /// Invariant: the `raw` of every IIOP profile decodes to its `body`.
    profiles: Vec<Profile>,
    /// Byte order of the stringified form.
    order: ByteOrder,
    /// The encapsulation this was parsed from, when re-encoding would not reproduce it.
    verbatim: Option<Vec<u8>>,
}

impl PartialEq for Ior {
    fn eq(&self, other: &Self) -> bool {
        self.type_id == other.type_id && self.profiles == other.profiles
    }
}

impl Eq for Ior {}

impl core::hash::Hash for Ior {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.type_id.hash(state);
        self.profiles.hash(state);
    }
}

impl Default for Ior {
    /// The nil reference.
    fn default() -> Self {
        Ior::nil()
    }
}

impl Ior {
    /// A reference with one IIOP 1.2 profile (no components) for `object_key` at
    /// `host:port`.
    ///
    /// # Panics
    ///
    /// If `type_id` or `host` contains a NUL byte (CDR strings cannot carry one); see
    /// [`Ior::try_new`].
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::new("IDL:Echo:1.0", "10.0.0.1", 4000, b"echo");
    /// assert_eq!(ior.type_id(), "IDL:Echo:1.0");
    /// assert_eq!(ior.iiop(), Some(("10.0.0.1", 4000, &b"echo"[..])));
    /// ```
    pub fn new(type_id: &str, host: &str, port: u16, object_key: &[u8]) -> Ior {
        Ior::try_new(type_id, host, port, object_key).unwrap_or_else(|e| panic!("Ior::new: {e}"))
    }

    /// [`Ior::new`], failing instead of panicking.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert!(Ior::try_new("IDL:A:1.0", "h", 1, b"k").is_ok());
    /// assert!(Ior::try_new("IDL:A:1.0", "h\0", 1, b"k").is_err());
    /// ```
    pub fn try_new(type_id: &str, host: &str, port: u16, object_key: &[u8]) -> Result<Ior, Error> {
        let profile = Profile::iiop(IiopProfile::new(host, port, object_key))?;
        Ior::from_profiles(type_id, vec![profile])
    }

    /// The nil reference: no type id and no profiles.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert_eq!(Ior::nil().to_string(), "IOR:00000000000000010000000000000000");
    /// assert!(Ior::parse("IOR:01000000010000000000000000000000").unwrap().is_nil());
    /// ```
    pub fn nil() -> Ior {
        Ior {
            type_id: String::new(),
            profiles: Vec::new(),
            order: ByteOrder::Big,
            verbatim: None,
        }
    }

    /// A reference made of `profiles`, stringified big-endian.
    ///
    /// An IIOP profile whose `raw` octets do not decode to its `body` gets `raw` re-encoded
    /// from `body` (big-endian). Fails if `type_id` contains a NUL byte or a body has no
    /// encoding (see [`IiopProfile::to_encapsulation`]).
    ///
    /// ```
    /// use wire_iiop::giop::{IiopProfile, Ior, Profile};
    /// let body = IiopProfile::new("h", 1, b"k".to_vec());
    /// let ior = Ior::from_profiles(
    ///     "IDL:A:1.0",
    ///     vec![
    ///         Profile::Iiop { body: body.clone(), raw: Vec::new() }, // raw filled in
    ///         Profile::Other { tag: 42, data: vec![1, 2, 3] },
    ///     ],
    /// )
    /// .unwrap();
    /// assert_eq!(ior.profiles()[0], Profile::iiop(body).unwrap());
    /// assert_eq!(ior.profiles()[1].tag(), 42);
    /// ```
    pub fn from_profiles(type_id: &str, mut profiles: Vec<Profile>) -> Result<Ior, Error> {
        if type_id.contains('\0') {
            return Err(Error::without_offset(ErrorKind::InteriorNul).in_field("type_id"));
        }
        for (i, p) in profiles.iter_mut().enumerate() {
            if let Profile::Iiop { body, raw } = p {
                if IiopProfile::from_encapsulation(raw).ok().as_ref() != Some(body) {
                    *raw = body
                        .to_encapsulation(ByteOrder::Big)
                        .map_err(|e| e.at_index(i).in_field("profiles"))?;
                }
            }
        }
        Ok(Ior {
            type_id: type_id.to_owned(),
            profiles,
            order: ByteOrder::Big,
            verbatim: None,
        })
    }

    /// Decodes a reference from the CDR encapsulation of an `IOR` struct (what a stringified
    /// reference holds in hex), in either byte order.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::new("IDL:A:1.0", "h", 1, b"k");
    /// let bytes = ior.to_encapsulation().unwrap();
    /// assert_eq!(Ior::from_encapsulation(&bytes).unwrap(), ior);
    /// let e = Ior::from_encapsulation(&bytes[..12]).unwrap_err();
    /// assert_eq!(e.to_string(), "type_id: length 10 exceeds the 4 bytes that remain at offset 8");
    /// ```
    pub fn from_encapsulation(bytes: &[u8]) -> Result<Ior, Error> {
        let mut r = Reader::new(bytes, 0);
        let order = take_byte_order(&mut r)?;
        let mut ior = Ior::decode(&mut r, order)?;
        r.finish()?;
        // Keep the octets only when they have something re-encoding would lose (padding).
        if crate::to_encapsulation(&ior, order).ok().as_deref() != Some(bytes) {
            ior.verbatim = Some(bytes.to_vec());
        }
        Ok(ior)
    }

    /// The CDR encapsulation of the `IOR` struct that [`Display`](core::fmt::Display) writes in
    /// hex: the parsed octets for a parsed reference, else big-endian.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let b = Ior::nil().to_encapsulation().unwrap();
    /// assert_eq!(b, [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn to_encapsulation(&self) -> Result<Vec<u8>, Error> {
        match &self.verbatim {
            Some(v) => Ok(v.clone()),
            None => crate::to_encapsulation(self, self.order),
        }
    }

    /// The repository id of the object's most derived interface (`IDL:Module/Iface:1.0`);
    /// empty for the nil reference and for one from a `corbaloc:` URL.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert_eq!(Ior::new("IDL:A:1.0", "h", 1, b"k").type_id(), "IDL:A:1.0");
    /// ```
    pub fn type_id(&self) -> &str {
        &self.type_id
    }

    /// All profiles, in order.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert_eq!(Ior::new("", "h", 1, b"k").profiles().len(), 1);
    /// ```
    pub fn profiles(&self) -> &[Profile] {
        &self.profiles
    }

    /// The type id and profiles, to rebuild a changed reference with [`Ior::from_profiles`].
    ///
    /// ```
    /// use wire_iiop::giop::{Ior, Profile};
    /// let (type_id, mut profiles) = Ior::new("IDL:A:1.0", "h", 1, b"k").into_parts();
    /// if let Profile::Iiop { body, .. } = &mut profiles[0] {
    ///     body.port = 2;
    /// }
    /// let moved = Ior::from_profiles(&type_id, profiles).unwrap();
    /// assert_eq!(moved.iiop().unwrap().1, 2);
    /// ```
    pub fn into_parts(self) -> (String, Vec<Profile>) {
        (self.type_id, self.profiles)
    }

    /// The bodies of the IIOP profiles, in order.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::parse("corbaloc::a:1,:b:2/k").unwrap();
    /// let hosts: Vec<&str> = ior.iiop_profiles().map(|p| p.host.as_str()).collect();
    /// assert_eq!(hosts, ["a", "b"]);
    /// ```
    pub fn iiop_profiles(&self) -> impl Iterator<Item = &IiopProfile> {
        self.profiles.iter().filter_map(Profile::as_iiop)
    }

    /// Host, port and object key of the first IIOP profile.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert_eq!(Ior::new("", "h", 1, b"k").iiop(), Some(("h", 1, &b"k"[..])));
    /// assert_eq!(Ior::nil().iiop(), None);
    /// ```
    pub fn iiop(&self) -> Option<(&str, u16, &[u8])> {
        self.iiop_profiles()
            .next()
            .map(|p| (p.host.as_str(), p.port, p.object_key.as_slice()))
    }

    /// Whether this is the nil reference (no profiles).
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// assert!(Ior::nil().is_nil());
    /// assert!(!Ior::new("", "h", 1, b"k").is_nil());
    /// ```
    pub fn is_nil(&self) -> bool {
        self.profiles.is_empty()
    }

    /// The byte order of the stringified form: that of the parsed input, big-endian for a
    /// reference built here.
    ///
    /// ```
    /// use wire_iiop::{ByteOrder, giop::Ior};
    /// let ior = Ior::parse("IOR:01000000010000000000000000000000").unwrap();
    /// assert_eq!(ior.byte_order(), ByteOrder::Little);
    /// ```
    pub fn byte_order(&self) -> ByteOrder {
        self.order
    }

    /// The same reference stringified in `order` (with zero padding).
    ///
    /// ```
    /// use wire_iiop::{ByteOrder, giop::Ior};
    /// let le = Ior::nil().with_byte_order(ByteOrder::Little);
    /// assert_eq!(le.to_string(), "IOR:01000000010000000000000000000000");
    /// ```
    #[must_use]
    pub fn with_byte_order(mut self, order: ByteOrder) -> Ior {
        self.order = order;
        self.verbatim = None;
        self
    }
}

/// The `IOR` struct, as it appears in a GIOP message body (a `LOCATION_FORWARD` reply, an
/// object reference parameter): profiles are written from their kept octets.
///
/// ```
/// use wire_iiop::{from_slice, to_vec, ByteOrder, giop::Ior};
/// let ior = Ior::new("IDL:A:1.0", "h", 1, b"k");
/// let body = to_vec(&(7u8, &ior), ByteOrder::Little).unwrap();
/// let (n, back): (u8, Ior) = from_slice(&body, ByteOrder::Little).unwrap();
/// assert_eq!((n, back), (7, ior));
/// ```
impl Encode for Ior {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        let pos = self.type_id.end(pos, depth)?;
        let pos = 0u32.end(pos, depth)?;
        self.profiles.iter().try_fold(pos, |pos, p| {
            let pos = p.tag().end(pos, depth)?;
            p.data().end(pos, depth)
        })
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.type_id
            .encode(w, order)
            .map_err(|e| e.in_field("type_id"))?;
        put_len(w, self.profiles.len(), order).map_err(|e| e.in_field("profiles"))?;
        for (i, p) in self.profiles.iter().enumerate() {
            p.tag().encode(w, order)?;
            p.data()
                .encode(w, order)
                .map_err(|e| e.at_index(i).in_field("profiles"))?;
        }
        Ok(())
    }
}

/// Decodes the `IOR` struct; the reference remembers `order` for its stringified form.
impl<'de> Decode<'de> for Ior {
    const MIN: usize = 5 + 4;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let type_id = String::decode(r, order).map_err(|e| e.in_field("type_id"))?;
        let n = take_len(r, order).map_err(|e| e.in_field("profiles"))?;
        let cap = r
            .check_count(n, 8, core::mem::size_of::<Profile>())
            .map_err(|e| e.in_field("profiles"))?;
        let mut profiles = Vec::with_capacity(cap);
        for i in 0..n {
            let p = decode_profile(r, order).map_err(|e| e.at_index(i).in_field("profiles"))?;
            profiles.push(p);
        }
        Ok(Ior {
            type_id,
            profiles,
            order,
            verbatim: None,
        })
    }
}

/// Reads one `TaggedProfile`.
fn decode_profile(r: &mut Reader<'_>, order: ByteOrder) -> Result<Profile, Error> {
    let tag = u32::decode(r, order).map_err(|e| e.in_field("tag"))?;
    let n = take_len(r, order).map_err(|e| e.in_field("profile_data"))?;
    let start = r.position();
    let data = r.take(n).map_err(|e| e.in_field("profile_data"))?;
    // The encapsulation aligns relative to its own start: decode it on its own, then move
    // error offsets back into the enclosing stream.
    Profile::from_tagged(tag, data).map_err(|e| e.shifted(start).in_field("profile_data"))
}

/// Reads an encapsulation's byte-order flag.
fn take_byte_order(r: &mut Reader<'_>) -> Result<ByteOrder, Error> {
    let [flag] = r.array::<1>()?;
    ByteOrder::from_flag(flag).ok_or_else(|| r.error_back(1, ErrorKind::InvalidByteOrder(flag)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_slice, to_vec};

    /// Printed by `omni-server` (omniORB 4.2, x86-64, default GIOP 1.2): little-endian, one
    /// IIOP 1.2 profile for 127.0.0.1:56645 with components TAG_ORB_TYPE and TAG_CODE_SETS.
    const OMNI_IOR_1_2: &str = "IOR:010000001400000049444c3a466c69636b2f42656e63683a312e3000010000000000000058000000010102000a0000003132372e302e302e310045dd0500000042656e63680000000200000000000000080000000100000000545441010000001c00000001000000010001000100000001000105090101000100000009010100";
    /// Printed by `omni-server --giop 1.0`: an IIOP 1.0 profile (no components).
    const OMNI_IOR_1_0: &str = "IOR:010000001400000049444c3a466c69636b2f42656e63683a312e300001000000000000001d000000010100000a0000003132372e302e302e31003b9c0500000042656e6368";

    fn hex(s: &str) -> Vec<u8> {
        super::super::corbaloc::decode_hex(s, 0).unwrap()
    }

    #[test]
    fn omniorb_ior_1_2() {
        let ior = Ior::parse(OMNI_IOR_1_2).unwrap();
        assert_eq!(ior.type_id(), "IDL:Flick/Bench:1.0");
        assert_eq!(ior.byte_order(), ByteOrder::Little);
        assert_eq!(ior.iiop(), Some(("127.0.0.1", 56645, &b"Bench"[..])));
        assert_eq!(ior.profiles().len(), 1);
        let p = ior.iiop_profiles().next().unwrap();
        assert_eq!(p.version, (1, 2));
        let tags: Vec<u32> = p.components.iter().map(|c| c.tag).collect();
        assert_eq!(tags, [TAG_ORB_TYPE, TAG_CODE_SETS]);
        // The ORB type is an encapsulated ulong: omniORB's "AT&T" id 0x41545400.
        let orb = &p.component(TAG_ORB_TYPE).unwrap().data;
        assert_eq!(crate::from_encapsulation::<u32>(orb).unwrap(), 0x4154_5400);
        assert_eq!(p.component(TAG_CODE_SETS).unwrap().data.len(), 28);
        // The profile's octets are kept as they came.
        let bytes = hex(&OMNI_IOR_1_2[4..]);
        assert_eq!(ior.profiles()[0].data(), &bytes[40..]);
        assert_eq!(ior.to_string(), OMNI_IOR_1_2);
        assert_eq!(ior.to_encapsulation().unwrap(), bytes);
        assert_eq!(
            ior.to_corbaloc().unwrap(),
            "corbaloc:iiop:1.2@127.0.0.1:56645/Bench"
        );
        // Upper case, a lower-case scheme and surrounding whitespace parse to the same.
        let upper = format!("  ior:{}\n", OMNI_IOR_1_2[4..].to_uppercase());
        let again = Ior::parse(&upper).unwrap();
        assert_eq!(again, ior);
        assert_eq!(again.to_string(), OMNI_IOR_1_2);
        // Re-encoded big-endian, the profile octets still travel unchanged.
        let be = ior.clone().with_byte_order(ByteOrder::Big);
        assert!(be.to_string().starts_with("IOR:00000000"));
        let be = Ior::parse(&be.to_string()).unwrap();
        assert_eq!(be, ior);
        assert_eq!(be.profiles()[0].data(), &bytes[40..]);
    }

    #[test]
    fn omniorb_ior_1_0() {
        let ior: Ior = OMNI_IOR_1_0.parse().unwrap();
        assert_eq!(ior.type_id(), "IDL:Flick/Bench:1.0");
        assert_eq!(ior.iiop(), Some(("127.0.0.1", 39995, &b"Bench"[..])));
        let p = ior.iiop_profiles().next().unwrap();
        assert_eq!(p.version, (1, 0));
        assert!(p.components.is_empty());
        assert_eq!(ior.to_string(), OMNI_IOR_1_0);
        // omniORB's own corbaloc line for it means the same address and key.
        let loc = Ior::parse("corbaloc::127.0.0.1:39995/Bench").unwrap();
        assert_eq!(loc.profiles()[0].as_iiop(), Some(p));
    }

    #[test]
    fn built_ior_is_big_endian_byte_exact() {
        let ior = Ior::new("IDL:A:1.0", "h", 1, b"k");
        let expected = [
            "00000000",             // flag, padding
            "0000000a",             // type_id length
            "49444c3a413a312e3000", // "IDL:A:1.0\0"
            "0000",                 // padding
            "00000001",             // one profile
            "00000000",             // TAG_INTERNET_IOP
            "00000018",             // 24 octets of profile_data:
            "00010200",             //   flag, version 1.2, padding
            "000000026800",         //   host "h"
            "0001",                 //   port 1
            "000000016b000000",     //   object key "k", padding
            "00000000",             //   no components
        ]
        .concat();
        assert_eq!(ior.to_string(), format!("IOR:{expected}"));
        let back = Ior::parse(&ior.to_string()).unwrap();
        assert_eq!(back, ior);
        assert_eq!(back.to_string(), ior.to_string());
        assert_eq!(back.profiles()[0], ior.profiles()[0]);
    }

    #[test]
    fn round_trips() {
        let mut body = IiopProfile::new("example.com", 65535, vec![0, 0xff, b'/', b'%']);
        body.components = vec![
            TaggedComponent {
                tag: TAG_ORB_TYPE,
                data: vec![1, 0, 0, 0, 0, 0x54, 0x54, 0x41],
            },
            TaggedComponent {
                tag: 0xdead_beef,
                data: vec![],
            },
        ];
        let v11 = IiopProfile {
            version: (1, 1),
            host: "::1".into(),
            ..body.clone()
        };
        let v10 = IiopProfile {
            version: (1, 0),
            components: Vec::new(),
            ..body.clone()
        };
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let profiles = vec![
                Profile::Iiop {
                    body: body.clone(),
                    raw: body.to_encapsulation(order).unwrap(),
                },
                Profile::Other {
                    tag: TAG_MULTIPLE_COMPONENTS,
                    data: vec![1, 2, 3],
                },
                Profile::iiop(v11.clone()).unwrap(),
                Profile::iiop(v10.clone()).unwrap(),
            ];
            let ior = Ior::from_profiles("IDL:X/Y:1.1", profiles)
                .unwrap()
                .with_byte_order(order);
            let s = ior.to_string();
            let back = Ior::parse(&s).unwrap();
            assert_eq!(back, ior);
            assert_eq!(back.byte_order(), order);
            assert_eq!(back.to_string(), s);
            assert_eq!(back.iiop_profiles().count(), 3);
            assert_eq!(back.profiles()[1].tag(), TAG_MULTIPLE_COMPONENTS);
            // As a struct in a message body, in both orders, after an odd offset.
            for msg_order in [ByteOrder::Big, ByteOrder::Little] {
                let bytes = to_vec(&(1u8, &ior, 2u16), msg_order).unwrap();
                let (a, back, b): (u8, Ior, u16) = from_slice(&bytes, msg_order).unwrap();
                assert_eq!((a, b), (1, 2));
                assert_eq!(back, ior);
                assert_eq!(back.byte_order(), msg_order);
                let v: Vec<Ior> = from_slice(
                    &to_vec(&vec![ior.clone(); 3], msg_order).unwrap(),
                    msg_order,
                )
                .unwrap();
                assert_eq!(v, [ior.clone(), ior.clone(), ior.clone()]);
            }
            // to_corbaloc needs one key: the profiles share it.
            let url = ior.to_corbaloc().unwrap();
            assert_eq!(
                url,
                "corbaloc:iiop:1.2@example.com:65535,iiop:1.1@[::1]:65535,\
                 iiop:1.0@example.com:65535/%00%FF/%25"
            );
            let loc = Ior::parse(&url).unwrap();
            let bodies: Vec<_> = loc.iiop_profiles().cloned().collect();
            let strip = |p: &IiopProfile| IiopProfile {
                components: Vec::new(),
                ..p.clone()
            };
            assert_eq!(bodies, [strip(&body), strip(&v11), v10.clone()]);
        }
        assert_eq!(Ior::parse(&Ior::nil().to_string()).unwrap(), Ior::nil());
        assert_eq!(Ior::default(), Ior::nil());
    }

    #[test]
    fn from_profiles_normalises_and_checks() {
        let body = IiopProfile::new("h", 1, b"k".to_vec());
        let good = Profile::iiop(body.clone()).unwrap();
        // A stale raw is re-encoded from the body.
        let other = Profile::iiop(IiopProfile::new("elsewhere", 2, vec![])).unwrap();
        let stale = Profile::Iiop {
            body: body.clone(),
            raw: other.data().to_vec(),
        };
        let ior = Ior::from_profiles("", vec![stale]).unwrap();
        assert_eq!(ior.profiles(), core::slice::from_ref(&good));
        // A little-endian raw that matches is kept.
        let le = body.to_encapsulation(ByteOrder::Little).unwrap();
        let ior = Ior::from_profiles(
            "",
            vec![Profile::Iiop {
                body: body.clone(),
                raw: le.clone(),
            }],
        )
        .unwrap();
        assert_eq!(ior.profiles()[0].data(), le);
        // Bodies with no encoding.
        let comps = IiopProfile {
            version: (1, 0),
            components: vec![TaggedComponent {
                tag: 1,
                data: vec![],
            }],
            ..body.clone()
        };
        let e = Ior::from_profiles(
            "",
            vec![Profile::Iiop {
                body: comps,
                raw: vec![],
            }],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "profiles[0].iiop_version: an IIOP 1.0 profile cannot carry components at offset 1"
        );
        let v2 = IiopProfile {
            version: (2, 0),
            ..body.clone()
        };
        let e = Profile::iiop(v2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "iiop_version: unsupported IIOP version 2.0 at offset 1"
        );
        let e = Ior::from_profiles("a\0b", vec![good]).unwrap_err();
        assert_eq!(e.to_string(), "type_id: string contains a NUL byte");
        assert!(Ior::try_new("", "h\0", 1, b"").is_err());
        assert!(std::panic::catch_unwind(|| Ior::new("\0", "h", 1, b"")).is_err());
    }

    #[test]
    fn keeps_nonzero_padding_verbatim() {
        let ior = Ior::new("IDL:A:1.0", "h", 1, b"k");
        let clean = ior.to_string();
        // Outer padding (after the flag, and after type_id) and a profile's inner padding.
        let mut dirty = clean.clone().into_bytes();
        for at in [4 + 2, 4 + 2 * 18, 4 + 2 * 35] {
            dirty[at] = b'e';
        }
        let dirty = String::from_utf8(dirty).unwrap();
        let back = Ior::parse(&dirty).unwrap();
        assert_eq!(back.to_string(), dirty);
        assert_eq!(back.iiop(), ior.iiop());
        // The profile octets differ (padding included), so the references do too...
        assert_ne!(back, ior);
        // ...but only the profile: with it rebuilt, they are equal despite outer padding.
        let (t, mut profiles) = back.clone().into_parts();
        profiles[0] = Profile::iiop(profiles[0].as_iiop().unwrap().clone()).unwrap();
        assert_eq!(Ior::from_profiles(&t, profiles).unwrap(), ior);
        // Changing the byte order drops the verbatim octets.
        assert_eq!(
            back.with_byte_order(ByteOrder::Big).to_string().len(),
            clean.len()
        );
    }

    #[test]
    fn newer_minor_versions_skip_trailing_fields() {
        let body = IiopProfile {
            version: (1, 3),
            ..IiopProfile::new("h", 1, b"k".to_vec())
        };
        let mut data = body.to_encapsulation(ByteOrder::Big).unwrap();
        data.extend_from_slice(&[9, 9, 9]);
        assert_eq!(IiopProfile::from_encapsulation(&data).unwrap(), body);
        let ior = Ior::from_profiles(
            "",
            vec![Profile::Iiop {
                body: body.clone(),
                raw: data.clone(),
            }],
        )
        .unwrap();
        assert_eq!(ior.profiles()[0].data(), data);
        assert_eq!(Ior::parse(&ior.to_string()).unwrap(), ior);
        // Up to 1.2, trailing bytes are an error.
        let mut data = IiopProfile::new("h", 1, b"k".to_vec())
            .to_encapsulation(ByteOrder::Big)
            .unwrap();
        data.push(0);
        let e = IiopProfile::from_encapsulation(&data).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 trailing bytes after the value at offset 24"
        );
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Parsing must not panic; whatever parses stringifies back to the same octets.
    fn check_no_panic(s: &str) {
        if let Ok(ior) = Ior::parse(s) {
            if let Some(hex) = s.strip_prefix("IOR:") {
                assert_eq!(ior.to_string(), format!("IOR:{}", hex.to_ascii_lowercase()));
            }
            let _ = ior.to_corbaloc();
        }
    }

    #[test]
    fn hostile_input_never_panics() {
        let seeds = [
            OMNI_IOR_1_2.to_owned(),
            OMNI_IOR_1_0.to_owned(),
            Ior::new("IDL:A:1.0", "h", 1, b"k").to_string(),
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for seed in &seeds {
            for len in 0..=seed.len() {
                check_no_panic(&seed[..len]);
            }
            let octets = hex(&seed[4..]);
            for _ in 0..4000 {
                let mut m = octets.clone();
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(m.len());
                    m[i] = match rng.below(4) {
                        0 => 0,
                        1 => 0xff,
                        2 => m[i].wrapping_add(1),
                        _ => rng.next() as u8,
                    };
                }
                if rng.below(4) == 0 {
                    m.truncate(rng.below(m.len() + 1));
                }
                let s: String = m.iter().map(|b| format!("{b:02x}")).collect();
                check_no_panic(&format!("IOR:{s}"));
                // Also as a struct in a message body.
                let _ = from_slice::<Ior>(&m, ByteOrder::Big);
            }
        }
        // Random corbaloc-ish text.
        let alphabet = b"corbaloc:iiop1.2@[]%/,:hx09 Z";
        for _ in 0..4000 {
            let len = rng.below(24);
            let tail: String = (0..len)
                .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
                .collect();
            if let Ok(ior) = Ior::parse(&format!("corbaloc:{tail}")) {
                // Every address parsed is written back and parses to the same profiles.
                let url = ior.to_corbaloc().unwrap();
                assert_eq!(Ior::parse(&url).unwrap(), ior, "{tail}");
            }
        }
    }
}
