//! Authentication (RFC 5531 §8–10 and Appendix A): the `opaque_auth` carried by every call and
//! reply, the AUTH_NONE and AUTH_SYS flavors, and `auth_stat`.

use core::fmt;

use marshal_core::{Error, ErrorKind, Reader, SizeClass, Writer};

use crate::opaque::{put_opaque, take_len, take_opaque};
use crate::{padding, Decode, Encode};

/// Flavor of [`Auth::None`].
pub const AUTH_NONE: u32 = 0;
/// Flavor of [`Auth::Sys`] (formerly AUTH_UNIX).
pub const AUTH_SYS: u32 = 1;
/// The most bytes an `opaque_auth` body may hold.
pub const MAX_AUTH_BYTES: usize = 400;
/// The longest AUTH_SYS machine name.
pub const MAX_MACHINE_NAME: usize = 255;
/// The most supplementary groups AUTH_SYS carries.
pub const MAX_GIDS: usize = 16;

/// `struct opaque_auth { auth_flavor flavor; opaque body<400>; }`, borrowed from a message.
///
/// ```
/// use wire_xdr::rpc::{OpaqueAuth, AUTH_NONE};
/// assert_eq!(wire_xdr::to_vec(&OpaqueAuth::NONE).unwrap(), [0, 0, 0, 0, 0, 0, 0, 0]);
/// let a: OpaqueAuth<'_> = wire_xdr::from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
/// assert_eq!(a.flavor, AUTH_NONE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpaqueAuth<'a> {
    /// The flavor (`AUTH_NONE`, `AUTH_SYS`, …).
    pub flavor: u32,
    /// The flavor's body, at most [`MAX_AUTH_BYTES`].
    pub body: &'a [u8],
}

impl OpaqueAuth<'static> {
    /// AUTH_NONE with an empty body: the verifier of every call and reply here.
    pub const NONE: OpaqueAuth<'static> = OpaqueAuth {
        flavor: AUTH_NONE,
        body: &[],
    };
}

impl Encode for OpaqueAuth<'_> {
    const SIZE: SizeClass = SizeClass::Bounded(8 + MAX_AUTH_BYTES);
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(8 + self.body.len() + padding(self.body.len()))
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        w.chunk(8, |w| self.put_head(w))?;
        self.put_body(w)
    }
}

impl OpaqueAuth<'_> {
    /// Appends the flavor and the body's length (8 bytes: callers write them inside a fixed
    /// segment), after checking the body against [`MAX_AUTH_BYTES`].
    #[inline(always)]
    pub(super) fn put_head(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let n = self.body.len();
        if n > MAX_AUTH_BYTES {
            return Err(body_too_long(w, n));
        }
        w.put(self.flavor.to_be_bytes())?;
        // `n <= MAX_AUTH_BYTES`: it fits a `u32`.
        w.put((n as u32).to_be_bytes())
    }

    /// Appends the body and its padding (nothing for an empty body, AUTH_NONE's).
    #[inline(always)]
    pub(super) fn put_body(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        if self.body.is_empty() {
            return Ok(());
        }
        put_opaque(w, self.body)
    }
}

#[cold]
#[inline(never)]
fn body_too_long(w: &Writer<'_>, n: usize) -> Error {
    w.error(ErrorKind::LengthTooLarge {
        len: n as u64,
        max: MAX_AUTH_BYTES as u64,
    })
}

impl<'de: 'a, 'a> Decode<'de> for OpaqueAuth<'a> {
    const SIZE: SizeClass = SizeClass::Bounded(8 + MAX_AUTH_BYTES);
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let flavor = u32::from_be_bytes(r.array()?);
        let n = take_len(r)?;
        if n > MAX_AUTH_BYTES {
            return Err(r
                .error_back(
                    4,
                    ErrorKind::LengthTooLarge {
                        len: n as u64,
                        max: MAX_AUTH_BYTES as u64,
                    },
                )
                .in_field("body"));
        }
        let body = take_opaque(r, n).map_err(|e| e.in_field("body"))?;
        Ok(OpaqueAuth { flavor, body })
    }
}

/// A credential: what a client sends as `cred`, and what a server reads from a call.
///
/// ```
/// use wire_xdr::rpc::Auth;
/// let sys = Auth::Sys { stamp: 1, machine_name: "host".into(), uid: 1000, gid: 100, gids: vec![100, 27] };
/// let body = sys.body().unwrap();
/// assert_eq!(Auth::from_opaque(sys.flavor(), &body).unwrap(), sys);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Auth {
    /// AUTH_NONE.
    #[default]
    None,
    /// AUTH_SYS: `struct authsys_parms { unsigned int stamp; string machinename<255>;
    /// unsigned int uid; unsigned int gid; unsigned int gids<16>; }`.
    Sys {
        /// An arbitrary id the caller's machine may generate.
        stamp: u32,
        /// The caller's machine name, at most 255 bytes.
        machine_name: String,
        /// Effective user id.
        uid: u32,
        /// Effective group id.
        gid: u32,
        /// Supplementary groups, at most 16.
        gids: Vec<u32>,
    },
    /// Any other flavor, with its body as sent.
    Other {
        /// The flavor number.
        flavor: u32,
        /// Its body, at most [`MAX_AUTH_BYTES`].
        body: Vec<u8>,
    },
}

impl Auth {
    /// The flavor number.
    pub fn flavor(&self) -> u32 {
        match self {
            Auth::None => AUTH_NONE,
            Auth::Sys { .. } => AUTH_SYS,
            Auth::Other { flavor, .. } => *flavor,
        }
    }

    /// The encoded body, checked against the flavor's limits.
    pub fn body(&self) -> Result<Vec<u8>, Error> {
        let body = match self {
            Auth::None => Vec::new(),
            Auth::Sys {
                stamp,
                machine_name,
                uid,
                gid,
                gids,
            } => {
                check_len("machine_name", machine_name.len(), MAX_MACHINE_NAME)?;
                check_len("gids", gids.len(), MAX_GIDS)?;
                crate::to_vec(&(*stamp, machine_name.as_str(), *uid, *gid, gids.as_slice()))?
            }
            Auth::Other { body, .. } => body.clone(),
        };
        check_len("body", body.len(), MAX_AUTH_BYTES)?;
        Ok(body)
    }

    /// Reads a credential of `flavor` from its body. AUTH_NONE must have an empty body and
    /// AUTH_SYS must take its whole body and respect its limits; other flavors are kept as
    /// they are.
    #[inline]
    pub fn from_opaque(flavor: u32, body: &[u8]) -> Result<Auth, Error> {
        // AUTH_NONE, what nearly every call carries, is settled here; the rest out of line.
        if flavor == AUTH_NONE && body.is_empty() {
            return Ok(Auth::None);
        }
        Auth::from_other_opaque(flavor, body)
    }

    /// [`Auth::from_opaque`] of anything but an empty AUTH_NONE.
    #[inline(never)]
    fn from_other_opaque(flavor: u32, body: &[u8]) -> Result<Auth, Error> {
        match flavor {
            AUTH_NONE if body.is_empty() => Ok(Auth::None),
            AUTH_NONE => Err(
                Error::new(ErrorKind::TrailingBytes { count: body.len() }, 0)
                    .in_field("AUTH_NONE body"),
            ),
            AUTH_SYS => {
                let mut r = Reader::new(body, 0);
                let stamp = u32::decode(&mut r).map_err(|e| e.in_field("stamp"))?;
                let n = take_len(&mut r)?;
                if n > MAX_MACHINE_NAME {
                    return Err(r
                        .error_back(4, too_long(n, MAX_MACHINE_NAME))
                        .in_field("machine_name"));
                }
                let start = r.position();
                let name = take_opaque(&mut r, n).map_err(|e| e.in_field("machine_name"))?;
                let machine_name = marshal_core::text::to_str(name)
                    .map_err(|k| Error::new(k, start).in_field("machine_name"))?
                    .to_owned();
                let uid = u32::decode(&mut r).map_err(|e| e.in_field("uid"))?;
                let gid = u32::decode(&mut r).map_err(|e| e.in_field("gid"))?;
                let n = take_len(&mut r)?;
                if n > MAX_GIDS {
                    return Err(r.error_back(4, too_long(n, MAX_GIDS)).in_field("gids"));
                }
                let gids = u32::decode_vec(&mut r, n).map_err(|e| e.in_field("gids"))?;
                r.finish()?;
                Ok(Auth::Sys {
                    stamp,
                    machine_name,
                    uid,
                    gid,
                    gids,
                })
            }
            _ => {
                check_len("body", body.len(), MAX_AUTH_BYTES)?;
                Ok(Auth::Other {
                    flavor,
                    body: body.to_vec(),
                })
            }
        }
    }
}

fn too_long(len: usize, max: usize) -> ErrorKind {
    ErrorKind::LengthTooLarge {
        len: len as u64,
        max: max as u64,
    }
}

fn check_len(field: &'static str, len: usize, max: usize) -> Result<(), Error> {
    if len > max {
        return Err(Error::without_offset(too_long(len, max)).in_field(field));
    }
    Ok(())
}

/// `enum auth_stat`: why a server refused a call's credentials (RFC 5531 §9, and RFC 2203
/// for the RPCSEC_GSS values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthStat {
    /// `AUTH_OK` (0): success (never the reason for a rejection).
    Ok,
    /// `AUTH_BADCRED` (1): bad credential (seal broken).
    BadCred,
    /// `AUTH_REJECTEDCRED` (2): the client must begin a new session.
    RejectedCred,
    /// `AUTH_BADVERF` (3): bad verifier (seal broken).
    BadVerf,
    /// `AUTH_REJECTEDVERF` (4): the verifier expired or was replayed.
    RejectedVerf,
    /// `AUTH_TOOWEAK` (5): rejected for security reasons.
    TooWeak,
    /// `AUTH_INVALIDRESP` (6): bogus response verifier.
    InvalidResp,
    /// `AUTH_FAILED` (7): reason unknown.
    Failed,
    /// `AUTH_KERB_GENERIC` (8): Kerberos generic error.
    KerbGeneric,
    /// `AUTH_TIMEEXPIRE` (9): the credential expired.
    TimeExpire,
    /// `AUTH_TKT_FILE` (10): problem with the ticket file.
    TktFile,
    /// `AUTH_DECODE` (11): could not decode the authenticator.
    Decode,
    /// `AUTH_NET_ADDR` (12): wrong network address in the ticket.
    NetAddr,
    /// `RPCSEC_GSS_CREDPROBLEM` (13): no credentials for the user.
    RpcsecGssCredProblem,
    /// `RPCSEC_GSS_CTXPROBLEM` (14): problem with the context.
    RpcsecGssCtxProblem,
    /// A value no RFC defines, kept as received.
    Other(u32),
}

const AUTH_STATS: [AuthStat; 15] = [
    AuthStat::Ok,
    AuthStat::BadCred,
    AuthStat::RejectedCred,
    AuthStat::BadVerf,
    AuthStat::RejectedVerf,
    AuthStat::TooWeak,
    AuthStat::InvalidResp,
    AuthStat::Failed,
    AuthStat::KerbGeneric,
    AuthStat::TimeExpire,
    AuthStat::TktFile,
    AuthStat::Decode,
    AuthStat::NetAddr,
    AuthStat::RpcsecGssCredProblem,
    AuthStat::RpcsecGssCtxProblem,
];

impl AuthStat {
    /// The value on the wire.
    pub fn to_u32(self) -> u32 {
        match self {
            AuthStat::Other(v) => v,
            known => AUTH_STATS
                .iter()
                .position(|s| *s == known)
                .expect("every named status is in the table") as u32,
        }
    }

    /// The status a wire value names.
    pub fn from_u32(v: u32) -> AuthStat {
        AUTH_STATS
            .get(v as usize)
            .copied()
            .unwrap_or(AuthStat::Other(v))
    }
}

impl fmt::Display for AuthStat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            AuthStat::Ok => "ok",
            AuthStat::BadCred => "bad credential",
            AuthStat::RejectedCred => "credential rejected (begin a new session)",
            AuthStat::BadVerf => "bad verifier",
            AuthStat::RejectedVerf => "verifier rejected (expired or replayed)",
            AuthStat::TooWeak => "credential too weak",
            AuthStat::InvalidResp => "invalid response verifier",
            AuthStat::Failed => "failed (reason unknown)",
            AuthStat::KerbGeneric => "Kerberos generic error",
            AuthStat::TimeExpire => "credential expired",
            AuthStat::TktFile => "problem with the ticket file",
            AuthStat::Decode => "could not decode the authenticator",
            AuthStat::NetAddr => "wrong network address in the ticket",
            AuthStat::RpcsecGssCredProblem => "RPCSEC_GSS: no credentials for the user",
            AuthStat::RpcsecGssCtxProblem => "RPCSEC_GSS: problem with the context",
            AuthStat::Other(v) => return write!(f, "auth_stat {v}"),
        };
        f.write_str(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_stat_values_round_trip() {
        for v in 0..20 {
            assert_eq!(AuthStat::from_u32(v).to_u32(), v);
        }
        assert_eq!(AuthStat::from_u32(5), AuthStat::TooWeak);
        assert_eq!(AuthStat::RpcsecGssCtxProblem.to_u32(), 14);
    }

    #[test]
    fn auth_sys_limits() {
        let long = Auth::Sys {
            stamp: 0,
            machine_name: "m".repeat(256),
            uid: 0,
            gid: 0,
            gids: vec![],
        };
        assert!(long
            .body()
            .unwrap_err()
            .to_string()
            .contains("machine_name"));
        let many = Auth::Sys {
            stamp: 0,
            machine_name: "m".into(),
            uid: 0,
            gid: 0,
            gids: vec![1; 17],
        };
        assert!(many.body().unwrap_err().to_string().contains("gids"));
        // A body announcing 17 gids is refused on decode too, naming the field.
        let mut body = crate::to_vec(&(0u32, "m", 0u32, 0u32, vec![1u32; 17])).unwrap();
        let e = Auth::from_opaque(AUTH_SYS, &body).unwrap_err();
        assert!(e.to_string().contains("gids"), "{e}");
        body.truncate(12);
        assert!(Auth::from_opaque(AUTH_SYS, &body).is_err());
        assert!(Auth::from_opaque(AUTH_NONE, &[0]).is_err());
    }

    #[test]
    fn opaque_auth_over_400_is_refused() {
        let body = [0u8; 404];
        let a = OpaqueAuth {
            flavor: 9,
            body: &body,
        };
        assert!(crate::to_vec(&a).is_err());
        let mut wire = vec![0, 0, 0, 9];
        wire.extend_from_slice(&404u32.to_be_bytes());
        wire.extend_from_slice(&body);
        let e = crate::from_slice::<OpaqueAuth<'_>>(&wire).unwrap_err();
        assert_eq!(e.offset(), Some(4), "{e}");
    }
}
