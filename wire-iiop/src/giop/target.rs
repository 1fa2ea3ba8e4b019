//! `GIOP::TargetAddress` (1.2): how a request names its object — by object key, by IIOP
//! profile, or by whole IOR with the profile index the client chose. 1.0 and 1.1 only have
//! the object key.

use marshal_core::{Error, ErrorKind, Reader, Writer};

use crate::{ByteOrder, Decode, Encode};

/// `IOP::TaggedProfile`, borrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedProfile<'a> {
    /// `ProfileId` (`TAG_INTERNET_IOP` = 0).
    pub tag: u32,
    /// The profile body (for IIOP, an encapsulation of `IIOP::ProfileBody`).
    pub data: &'a [u8],
}

impl Encode for TaggedProfile<'_> {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        (self.tag, self.data).end(pos, depth)
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        (self.tag, self.data).encode(w, order)
    }
}

impl<'de: 'a, 'a> Decode<'de> for TaggedProfile<'a> {
    const MIN: usize = 8;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let (tag, data) = <(u32, &'a [u8])>::decode(r, order)?;
        Ok(TaggedProfile { tag, data })
    }
}

/// The target of a request or locate request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetAddress<'a> {
    /// `KeyAddr`: the object key.
    Key(&'a [u8]),
    /// `ProfileAddr`: one tagged profile of the object's IOR.
    Profile(TaggedProfile<'a>),
    /// `ReferenceAddr`: the whole IOR and the index of the profile the client used.
    Reference {
        /// Index into `profiles`.
        selected_profile: u32,
        /// The IOR's type id.
        type_id: &'a str,
        /// The IOR's profiles.
        profiles: Vec<TaggedProfile<'a>>,
    },
}

impl TargetAddress<'_> {
    fn disc(&self) -> i16 {
        match self {
            TargetAddress::Key(_) => 0,
            TargetAddress::Profile(_) => 1,
            TargetAddress::Reference { .. } => 2,
        }
    }

    /// The IIOP profile the target names (`Profile`, or the selected one of `Reference`).
    pub fn profile(&self) -> Option<&TaggedProfile<'_>> {
        match self {
            TargetAddress::Key(_) => None,
            TargetAddress::Profile(p) => Some(p),
            TargetAddress::Reference {
                selected_profile,
                profiles,
                ..
            } => profiles.get(*selected_profile as usize),
        }
    }
}

impl Encode for TargetAddress<'_> {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        let pos = self.disc().end(pos, depth)?;
        match self {
            TargetAddress::Key(k) => k.end(pos, depth),
            TargetAddress::Profile(p) => p.end(pos, depth),
            TargetAddress::Reference {
                selected_profile,
                type_id,
                profiles,
            } => (selected_profile, type_id, profiles).end(pos, depth),
        }
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.disc().encode(w, order)?;
        match self {
            TargetAddress::Key(k) => k.encode(w, order),
            TargetAddress::Profile(p) => p.encode(w, order),
            TargetAddress::Reference {
                selected_profile,
                type_id,
                profiles,
            } => (selected_profile, type_id, profiles).encode(w, order),
        }
    }
}

impl<'de: 'a, 'a> Decode<'de> for TargetAddress<'a> {
    const MIN: usize = 6;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        Ok(match i16::decode(r, order)? {
            0 => TargetAddress::Key(<&[u8]>::decode(r, order)?),
            1 => TargetAddress::Profile(TaggedProfile::decode(r, order)?),
            2 => {
                let (selected_profile, type_id, profiles) = Decode::decode(r, order)?;
                TargetAddress::Reference {
                    selected_profile,
                    type_id,
                    profiles,
                }
            }
            d => {
                return Err(r.error_back(
                    2,
                    ErrorKind::UnknownDiscriminant {
                        value: d.into(),
                        type_name: "AddressingDisposition",
                    },
                ))
            }
        })
    }
}
