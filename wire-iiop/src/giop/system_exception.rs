//! System exceptions (CORBA 3, §15.4.3.2): a repository id, a minor code and a completion
//! status, the body of a `SYSTEM_EXCEPTION` reply.

use core::fmt;

use marshal_core::{Error, ErrorKind, Reader, Writer};

use crate::{ByteOrder, Decode, Encode};

/// Whether the operation ran before the exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Completion {
    /// It completed.
    Yes,
    /// It did not start: the call may be retried.
    No,
    /// Unknown.
    Maybe,
}

impl Completion {
    fn to_u32(self) -> u32 {
        match self {
            Completion::Yes => 0,
            Completion::No => 1,
            Completion::Maybe => 2,
        }
    }
}

/// A CORBA system exception.
///
/// ```
/// use wire_iiop::giop::{Completion, SystemException};
/// let e = SystemException::new("BAD_OPERATION", 0x4f4d_0001, Completion::No);
/// assert_eq!(e.repository_id, "IDL:omg.org/CORBA/BAD_OPERATION:1.0");
/// assert_eq!(e.name(), Some("BAD_OPERATION"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemException {
    /// E.g. `IDL:omg.org/CORBA/MARSHAL:1.0`.
    pub repository_id: String,
    /// The minor code (vendor-specific unless in the OMG range).
    pub minor: u32,
    /// Whether the operation ran.
    pub completed: Completion,
}

/// Prefix of the repository ids of the standard system exceptions.
const PREFIX: &str = "IDL:omg.org/CORBA/";

impl SystemException {
    /// The standard system exception `name` (such as `"MARSHAL"`).
    pub fn new(name: &str, minor: u32, completed: Completion) -> Self {
        SystemException {
            repository_id: format!("{PREFIX}{name}:1.0"),
            minor,
            completed,
        }
    }

    /// The short name of a standard system exception (`"MARSHAL"`), if the id is one.
    pub fn name(&self) -> Option<&str> {
        self.repository_id
            .strip_prefix(PREFIX)?
            .strip_suffix(":1.0")
    }
}

impl fmt::Display for SystemException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (minor {:#x}, completed {:?})",
            self.repository_id, self.minor, self.completed
        )
    }
}

impl std::error::Error for SystemException {}

impl Encode for SystemException {
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        (&self.repository_id, self.minor, 0u32).end(pos, depth)
    }
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        (&self.repository_id, self.minor, self.completed.to_u32()).encode(w, order)
    }
}

impl<'de> Decode<'de> for SystemException {
    const MIN: usize = 13;
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let repository_id = String::decode(r, order).map_err(|e| e.in_field("repository_id"))?;
        let minor = u32::decode(r, order).map_err(|e| e.in_field("minor"))?;
        let completed = match u32::decode(r, order)? {
            0 => Completion::Yes,
            1 => Completion::No,
            2 => Completion::Maybe,
            v => {
                return Err(r
                    .error_back(
                        4,
                        ErrorKind::UnknownDiscriminant {
                            value: v.into(),
                            type_name: "CompletionStatus",
                        },
                    )
                    .in_field("completed"))
            }
        };
        Ok(SystemException {
            repository_id,
            minor,
            completed,
        })
    }
}
