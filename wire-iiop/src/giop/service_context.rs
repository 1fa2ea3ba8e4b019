//! Service contexts (`IOP::ServiceContextList`): tagged octet sequences that ride along with
//! requests and replies. They are passed through untouched; omniORB sends `CodeSets`.

use marshal_core::{Error, Reader, Writer};

use crate::{ByteOrder, Decode, Encode};

/// `IOP::CodeSets`: the char and wchar code sets a client picked (CORBA 3, §13.10.2.5).
pub const CODE_SETS: u32 = 1;

/// The OSF registry id of UTF-8, the char code set this crate's client announces.
pub const UTF8: u32 = 0x0501_0001;

/// The OSF registry id of UTF-16, announced for wchar (which this crate does not use).
pub const UTF16: u32 = 0x0001_0109;

/// One `IOP::ServiceContext`: a context id and its data (usually an encapsulation), borrowed
/// from the message it came in.
///
/// ```
/// use wire_iiop::giop::ServiceContext;
/// let cs = ServiceContext::code_sets_utf8();
/// assert_eq!(cs.id, 1);
/// assert_eq!(&cs.data[..], [0, 0, 0, 0, 5, 1, 0, 1, 0, 1, 1, 9]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceContext<'a> {
    /// The `ServiceId`.
    pub id: u32,
    /// The context data.
    pub data: std::borrow::Cow<'a, [u8]>,
}

impl ServiceContext<'static> {
    /// The `CodeSets` context that says: chars are UTF-8, wchars UTF-16.
    pub fn code_sets_utf8() -> Self {
        let data = crate::to_encapsulation(&(UTF8, UTF16), ByteOrder::Big)
            .expect("two longs always encode");
        ServiceContext {
            id: CODE_SETS,
            data: data.into(),
        }
    }
}

impl Encode for ServiceContext<'_> {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        (self.id, &*self.data).end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        (self.id, &*self.data).encode(w, order)
    }
}

impl<'de: 'a, 'a> Decode<'de> for ServiceContext<'a> {
    const MIN: usize = 8;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let (id, data) = <(u32, &'a [u8])>::decode(r, order)?;
        Ok(ServiceContext {
            id,
            data: data.into(),
        })
    }
}
