//! RPC messages (RFC 5531 §9): `struct rpc_msg { unsigned int xid; union switch (msg_type
//! mtype) { case CALL: call_body cbody; case REPLY: reply_body rbody; } body; }`.
//!
//! Headers are encoded with [`Encode`], so a whole call is `(&header, &args)` measured and
//! written in one pass; [`Message::parse`] reads a header and hands back the bytes after it
//! (the arguments or the results), borrowed.

use marshal_core::{Error, ErrorKind, Reader, SizeClass, Writer};

use super::auth::{AuthStat, OpaqueAuth, MAX_AUTH_BYTES};
use crate::{padding, Decode, Encode};

/// The RPC protocol version this crate speaks (`rpcvers`).
pub const RPC_VERSION: u32 = 2;

const CALL: u32 = 0;
const REPLY: u32 = 1;
const MSG_ACCEPTED: u32 = 0;
const MSG_DENIED: u32 = 1;
const RPC_MISMATCH: u32 = 0;
const AUTH_ERROR: u32 = 1;

/// The header of a call: `xid`, then `call_body` up to and including the verifier. The
/// procedure's arguments follow it.
///
/// ```
/// use wire_xdr::rpc::{CallHeader, Message};
/// let h = CallHeader::new(7, 100_000, 2, 3);
/// let bytes = wire_xdr::to_vec(&(&h, &(100_003u32, 3u32, 6u32, 0u32))).unwrap();
/// let (msg, args) = Message::parse(&bytes).unwrap();
/// assert_eq!(msg, Message::Call(h));
/// assert_eq!(args.len(), 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallHeader<'a> {
    /// Transaction id: the reply carries it back.
    pub xid: u32,
    /// RPC version: [`RPC_VERSION`].
    pub rpcvers: u32,
    /// Program number.
    pub program: u32,
    /// Program version.
    pub version: u32,
    /// Procedure number.
    pub procedure: u32,
    /// Credential.
    pub cred: OpaqueAuth<'a>,
    /// Verifier.
    pub verf: OpaqueAuth<'a>,
}

impl CallHeader<'static> {
    /// A call with AUTH_NONE credential and verifier.
    pub const fn new(xid: u32, program: u32, version: u32, procedure: u32) -> Self {
        CallHeader {
            xid,
            rpcvers: RPC_VERSION,
            program,
            version,
            procedure,
            cred: OpaqueAuth::NONE,
            verf: OpaqueAuth::NONE,
        }
    }
}

impl Encode for CallHeader<'_> {
    const SIZE: SizeClass = SizeClass::Fixed(24)
        .then(<OpaqueAuth<'_> as Encode>::SIZE)
        .then(<OpaqueAuth<'_> as Encode>::SIZE);
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        if self.cred.body.is_empty() && self.verf.body.is_empty() {
            // AUTH_NONE (or any flavors without a body): ten words, as `encode` writes them.
            return Ok(40);
        }
        Ok(24 + self.cred.encoded_len(depth)? + self.verf.encoded_len(depth)?)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        if self.cred.body.is_empty() && self.verf.body.is_empty() {
            // AUTH_NONE (or any flavors without a body): ten words, one fixed segment.
            return w.chunk(40, |w| {
                w.put(self.xid.to_be_bytes())?;
                w.put(CALL.to_be_bytes())?;
                w.put(self.rpcvers.to_be_bytes())?;
                w.put(self.program.to_be_bytes())?;
                w.put(self.version.to_be_bytes())?;
                w.put(self.procedure.to_be_bytes())?;
                w.put(self.cred.flavor.to_be_bytes())?;
                w.put(0u32.to_be_bytes())?;
                w.put(self.verf.flavor.to_be_bytes())?;
                w.put(0u32.to_be_bytes())
            });
        }
        // Two fixed segments (the six words with the credential's flavor and length, then the
        // verifier's flavor and length), each body after its segment.
        w.chunk(32, |w| {
            w.put(self.xid.to_be_bytes())?;
            w.put(CALL.to_be_bytes())?;
            w.put(self.rpcvers.to_be_bytes())?;
            w.put(self.program.to_be_bytes())?;
            w.put(self.version.to_be_bytes())?;
            w.put(self.procedure.to_be_bytes())?;
            self.cred.put_head(w).map_err(|e| e.in_field("cred"))
        })?;
        self.cred.put_body(w).map_err(|e| e.in_field("cred"))?;
        w.chunk(8, |w| self.verf.put_head(w))
            .map_err(|e| e.in_field("verf"))?;
        self.verf.put_body(w).map_err(|e| e.in_field("verf"))
    }
}

/// `accept_stat` with the data its arms carry: what became of a call whose credentials
/// were accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AcceptStat {
    /// `SUCCESS`: the results follow.
    Success,
    /// `PROG_UNAVAIL`: the program is not served here.
    ProgUnavail,
    /// `PROG_MISMATCH`: the program is served, but only these versions.
    ProgMismatch {
        /// Lowest version served.
        low: u32,
        /// Highest version served.
        high: u32,
    },
    /// `PROC_UNAVAIL`: the program has no such procedure.
    ProcUnavail,
    /// `GARBAGE_ARGS`: the arguments did not decode.
    GarbageArgs,
    /// `SYSTEM_ERR`: the server failed (e.g. out of memory).
    SystemErr,
}

/// `rejected_reply`: why a call was refused before it reached the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectedReply {
    /// `RPC_MISMATCH`: the server speaks only these RPC versions.
    RpcMismatch {
        /// Lowest RPC version.
        low: u32,
        /// Highest RPC version.
        high: u32,
    },
    /// `AUTH_ERROR`: the credentials were refused.
    AuthError(AuthStat),
}

/// `reply_body`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyBody<'a> {
    /// `MSG_ACCEPTED`: the server's verifier and the call's outcome.
    Accepted {
        /// The server's verifier.
        verf: OpaqueAuth<'a>,
        /// The outcome; with [`AcceptStat::Success`] the results follow the header.
        stat: AcceptStat,
    },
    /// `MSG_DENIED`.
    Denied(RejectedReply),
}

/// The header of a reply: `xid` and `reply_body` (the results follow a successful one).
///
/// ```
/// use wire_xdr::rpc::{AcceptStat, Message, ReplyHeader};
/// let h = ReplyHeader::accepted(7, AcceptStat::ProgMismatch { low: 2, high: 4 });
/// let bytes = wire_xdr::to_vec(&h).unwrap();
/// assert_eq!(bytes.len(), 32);
/// assert_eq!(Message::parse(&bytes).unwrap(), (Message::Reply(h), &[][..]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader<'a> {
    /// The call's transaction id.
    pub xid: u32,
    /// The outcome.
    pub body: ReplyBody<'a>,
}

impl ReplyHeader<'static> {
    /// An accepted reply with an AUTH_NONE verifier.
    pub const fn accepted(xid: u32, stat: AcceptStat) -> Self {
        ReplyHeader {
            xid,
            body: ReplyBody::Accepted {
                verf: OpaqueAuth::NONE,
                stat,
            },
        }
    }

    /// A denied reply.
    pub const fn denied(xid: u32, why: RejectedReply) -> Self {
        ReplyHeader {
            xid,
            body: ReplyBody::Denied(why),
        }
    }
}

impl Encode for ReplyHeader<'_> {
    const SIZE: SizeClass = SizeClass::Fixed(12)
        .then(<OpaqueAuth<'_> as Encode>::SIZE)
        .then(SizeClass::Fixed(12))
        .or(SizeClass::Fixed(24));
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        Ok(match &self.body {
            ReplyBody::Accepted { verf, stat } => {
                let data = match stat {
                    AcceptStat::ProgMismatch { .. } => 8,
                    _ => 0,
                };
                16 + verf.encoded_len(depth)? + data
            }
            ReplyBody::Denied(RejectedReply::RpcMismatch { .. }) => 24,
            ReplyBody::Denied(RejectedReply::AuthError(_)) => 20,
        })
    }
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let words =
            |w: &mut Writer<'_>, v: &[u32]| v.iter().try_for_each(|x| w.put(x.to_be_bytes()));
        words(w, &[self.xid, REPLY])?;
        match &self.body {
            ReplyBody::Accepted { verf, stat } => {
                w.put(MSG_ACCEPTED.to_be_bytes())?;
                verf.encode(w).map_err(|e| e.in_field("verf"))?;
                match *stat {
                    AcceptStat::Success => words(w, &[0]),
                    AcceptStat::ProgUnavail => words(w, &[1]),
                    AcceptStat::ProgMismatch { low, high } => words(w, &[2, low, high]),
                    AcceptStat::ProcUnavail => words(w, &[3]),
                    AcceptStat::GarbageArgs => words(w, &[4]),
                    AcceptStat::SystemErr => words(w, &[5]),
                }
            }
            ReplyBody::Denied(RejectedReply::RpcMismatch { low, high }) => {
                words(w, &[MSG_DENIED, RPC_MISMATCH, *low, *high])
            }
            ReplyBody::Denied(RejectedReply::AuthError(stat)) => {
                words(w, &[MSG_DENIED, AUTH_ERROR, stat.to_u32()])
            }
        }
    }
}

/// A parsed message header: a call or a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    /// A call; its arguments follow.
    Call(CallHeader<'a>),
    /// A reply; a successful one's results follow.
    Reply(ReplyHeader<'a>),
}

impl<'a> Message<'a> {
    /// Reads the header of one message (a whole record, or a whole datagram) and returns it
    /// with the bytes after it: the arguments of a call, the results of a successful reply
    /// (empty for any other reply, whose trailing bytes are an error). Errors name the field
    /// and its offset.
    ///
    /// ```
    /// let e = wire_xdr::rpc::Message::parse(&[0, 0, 0, 1, 0, 0, 0, 9]).unwrap_err();
    /// assert_eq!(e.to_string(), "mtype: unknown discriminant 9 for msg_type at offset 4");
    /// ```
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Result<(Message<'a>, &'a [u8]), Error> {
        match parse_call(bytes) {
            Some(call) => Ok(call),
            None => Message::parse_checked(bytes),
        }
    }

    /// [`Message::parse`] word by word, each read checked: replies, and calls that
    /// [`parse_call`] leaves (short or malformed ones, whose errors this names).
    #[inline(never)]
    fn parse_checked(bytes: &'a [u8]) -> Result<(Message<'a>, &'a [u8]), Error> {
        let mut r = Reader::new(bytes, 0);
        let xid = word(&mut r, "xid")?;
        match word(&mut r, "mtype")? {
            CALL => {
                let rpcvers = word(&mut r, "rpcvers")?;
                let program = word(&mut r, "prog")?;
                let version = word(&mut r, "vers")?;
                let procedure = word(&mut r, "proc")?;
                let cred = OpaqueAuth::decode(&mut r).map_err(|e| e.in_field("cred"))?;
                let verf = OpaqueAuth::decode(&mut r).map_err(|e| e.in_field("verf"))?;
                let h = CallHeader {
                    xid,
                    rpcvers,
                    program,
                    version,
                    procedure,
                    cred,
                    verf,
                };
                Ok((Message::Call(h), r.rest()))
            }
            REPLY => {
                let body = match word(&mut r, "reply_stat")? {
                    MSG_ACCEPTED => {
                        let verf = OpaqueAuth::decode(&mut r).map_err(|e| e.in_field("verf"))?;
                        let stat = match word(&mut r, "accept_stat")? {
                            0 => AcceptStat::Success,
                            1 => AcceptStat::ProgUnavail,
                            2 => AcceptStat::ProgMismatch {
                                low: word(&mut r, "low")?,
                                high: word(&mut r, "high")?,
                            },
                            3 => AcceptStat::ProcUnavail,
                            4 => AcceptStat::GarbageArgs,
                            5 => AcceptStat::SystemErr,
                            v => return Err(unknown(&r, v, "accept_stat")),
                        };
                        ReplyBody::Accepted { verf, stat }
                    }
                    MSG_DENIED => ReplyBody::Denied(match word(&mut r, "reject_stat")? {
                        RPC_MISMATCH => RejectedReply::RpcMismatch {
                            low: word(&mut r, "low")?,
                            high: word(&mut r, "high")?,
                        },
                        AUTH_ERROR => {
                            RejectedReply::AuthError(AuthStat::from_u32(word(&mut r, "stat")?))
                        }
                        v => return Err(unknown(&r, v, "reject_stat")),
                    }),
                    v => return Err(unknown(&r, v, "reply_stat")),
                };
                let h = ReplyHeader { xid, body };
                let rest = match body {
                    ReplyBody::Accepted {
                        stat: AcceptStat::Success,
                        ..
                    } => r.rest(),
                    _ => {
                        r.finish()?;
                        &[]
                    }
                };
                Ok((Message::Reply(h), rest))
            }
            v => Err(unknown(&r, v, "msg_type").in_field("mtype")),
        }
    }

    /// The transaction id.
    pub fn xid(&self) -> u32 {
        match self {
            Message::Call(h) => h.xid,
            Message::Reply(h) => h.xid,
        }
    }
}

impl<'a> CallHeader<'a> {
    /// Reads the header of a call and returns it with the arguments after it, as
    /// [`Message::parse`] does, but without its errors: `None` for anything but a
    /// well-formed call (a reply, a call that is short or malformed). What a server needs,
    /// which drops what it cannot answer, on its shortest path.
    ///
    /// ```
    /// use wire_xdr::rpc::CallHeader;
    /// let h = CallHeader::new(7, 100_000, 2, 3);
    /// let bytes = wire_xdr::to_vec(&(&h, &9u32)).unwrap();
    /// assert_eq!(CallHeader::parse(&bytes), Some((h, &[0, 0, 0, 9][..])));
    /// assert_eq!(CallHeader::parse(&bytes[..39]), None);
    /// ```
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Option<(CallHeader<'a>, &'a [u8])> {
        match parse_call(bytes)? {
            (Message::Call(h), rest) => Some((h, rest)),
            (Message::Reply(_), _) => None,
        }
    }
}

/// A well-formed call, read as [`Message::parse_checked`] reads it but with one length check
/// for its eight fixed words and one for each `opaque_auth` after them; `None` for anything
/// else (a reply, a call that is short or malformed), which `parse_checked` then reads or
/// explains.
#[inline(always)]
fn parse_call(bytes: &[u8]) -> Option<(Message<'_>, &[u8])> {
    // Credential and verifier without bodies (AUTH_NONE, mostly): ten words, one check.
    if let Some((head, rest)) = bytes.split_first_chunk::<40>() {
        let word = |i: usize| u32::from_be_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        if word(4) == CALL && word(28) == 0 && word(36) == 0 {
            let h = CallHeader {
                xid: word(0),
                rpcvers: word(8),
                program: word(12),
                version: word(16),
                procedure: word(20),
                cred: OpaqueAuth {
                    flavor: word(24),
                    body: &[],
                },
                verf: OpaqueAuth {
                    flavor: word(32),
                    body: &[],
                },
            };
            return Some((Message::Call(h), rest));
        }
    }
    let (head, rest) = bytes.split_first_chunk::<32>()?;
    let word = |i: usize| u32::from_be_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    if word(4) != CALL {
        return None;
    }
    let (cred, rest) = auth_body(word(24), word(28), rest)?;
    let (verf_head, rest) = rest.split_first_chunk::<8>()?;
    let (flavor, len) = verf_head.split_at(4);
    let verf_word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let (verf, rest) = auth_body(verf_word(flavor), verf_word(len), rest)?;
    let h = CallHeader {
        xid: word(0),
        rpcvers: word(8),
        program: word(12),
        version: word(16),
        procedure: word(20),
        cred,
        verf,
    };
    Some((Message::Call(h), rest))
}

/// An `opaque_auth` of `flavor` whose body of `len` bytes (with its padding) starts `bytes`,
/// and the bytes after it; `None` if the body is too long, not all there, or its padding is
/// not zero.
#[inline(always)]
fn auth_body(flavor: u32, len: u32, bytes: &[u8]) -> Option<(OpaqueAuth<'_>, &[u8])> {
    let n = len as usize;
    if n > MAX_AUTH_BYTES {
        return None;
    }
    if n == 0 {
        return Some((OpaqueAuth { flavor, body: &[] }, bytes));
    }
    let padded = n + padding(n);
    if bytes.len() < padded {
        return None;
    }
    let (body, rest) = bytes.split_at(padded);
    let (body, pad) = body.split_at(n);
    if pad.iter().any(|&b| b != 0) {
        return None;
    }
    Some((OpaqueAuth { flavor, body }, rest))
}

fn word(r: &mut Reader<'_>, field: &'static str) -> Result<u32, Error> {
    u32::decode(r).map_err(|e| e.in_field(field))
}

fn unknown(r: &Reader<'_>, value: u32, type_name: &'static str) -> Error {
    r.error_back(
        4,
        ErrorKind::UnknownDiscriminant {
            value: value.into(),
            type_name,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::auth::AUTH_SYS;

    fn round_trip(h: ReplyHeader<'_>) {
        let bytes = crate::to_vec(&h).unwrap();
        assert_eq!(bytes.len(), h.encoded_len(0).unwrap());
        assert_eq!(
            Message::parse(&bytes).unwrap(),
            (Message::Reply(h), &[][..])
        );
    }

    #[test]
    fn every_reply_round_trips() {
        for stat in [
            AcceptStat::Success,
            AcceptStat::ProgUnavail,
            AcceptStat::ProgMismatch { low: 1, high: 3 },
            AcceptStat::ProcUnavail,
            AcceptStat::GarbageArgs,
            AcceptStat::SystemErr,
        ] {
            round_trip(ReplyHeader::accepted(9, stat));
        }
        round_trip(ReplyHeader::denied(
            9,
            RejectedReply::RpcMismatch { low: 2, high: 2 },
        ));
        for v in 0..16 {
            round_trip(ReplyHeader::denied(
                9,
                RejectedReply::AuthError(AuthStat::from_u32(v)),
            ));
        }
    }

    #[test]
    fn known_call_bytes() {
        // The call rpcinfo -t sends for NULL of program 100000 version 2 (AUTH_NONE).
        let h = CallHeader::new(0x01020304, 100_000, 2, 0);
        let bytes = crate::to_vec(&h).unwrap();
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, [0x01020304, 0, 2, 100_000, 2, 0, 0, 0, 0, 0]);
        let body = [1, 2, 3, 4, 5];
        let sys = CallHeader {
            cred: OpaqueAuth {
                flavor: AUTH_SYS,
                body: &body,
            },
            ..h
        };
        let bytes = crate::to_vec(&sys).unwrap();
        assert_eq!(bytes.len(), 40 + 8);
        assert_eq!(Message::parse(&bytes).unwrap().0, Message::Call(sys));
    }

    /// The calls `parse_call` reads alone must come out as `parse_checked` reads them, and
    /// every other input (cut short, or with any one byte changed) must be left to it; and
    /// `CallHeader::parse` must read exactly the calls `parse_checked` reads.
    #[test]
    fn the_fast_call_path_agrees_with_the_checked_one() {
        let sys_body = [1, 2, 3, 4, 5];
        let verf_body = [9u8; 8];
        let calls = [
            CallHeader::new(0x0102_0304, 100_003, 3, 7),
            CallHeader {
                cred: OpaqueAuth {
                    flavor: AUTH_SYS,
                    body: &sys_body,
                },
                verf: OpaqueAuth {
                    flavor: 6,
                    body: &verf_body,
                },
                ..CallHeader::new(5, 6, 7, 8)
            },
        ];
        let mut inputs = Vec::new();
        for h in calls {
            let whole = crate::to_vec(&(&h, &(1u32, 2u32))).unwrap();
            assert_eq!(
                Message::parse(&whole).unwrap(),
                (Message::Call(h), &whole[whole.len() - 8..])
            );
            assert!(parse_call(&whole).is_some());
            for cut in 0..whole.len() {
                inputs.push(whole[..cut].to_vec());
            }
            for at in 0..whole.len() {
                for v in [0, 1, 0x80, 0xff] {
                    let mut b = whole.clone();
                    b[at] = v;
                    inputs.push(b);
                }
            }
        }
        inputs.push(crate::to_vec(&ReplyHeader::accepted(1, AcceptStat::Success)).unwrap());
        let mut fast = 0;
        for b in &inputs {
            let checked = Message::parse_checked(b);
            // `CallHeader::parse` reads every call `parse_checked` reads, and nothing else.
            let call = match checked {
                Ok((Message::Call(h), rest)) => Some((h, rest)),
                _ => None,
            };
            assert_eq!(CallHeader::parse(b), call, "{b:?}");
            if let Some(got) = parse_call(b) {
                fast += 1;
                assert_eq!(Some(got), checked.as_ref().ok().copied(), "{b:?}");
            }
            assert_eq!(
                Message::parse(b).map_err(|e| e.to_string()),
                checked.map_err(|e| e.to_string()),
                "{b:?}"
            );
        }
        // Both paths were taken.
        assert!(
            fast > 0 && fast < inputs.len(),
            "{fast} of {}",
            inputs.len()
        );
    }

    #[test]
    fn a_body_longer_than_allowed_is_refused_where_it_starts() {
        let long = [0u8; MAX_AUTH_BYTES + 1];
        let cred = CallHeader {
            cred: OpaqueAuth {
                flavor: AUTH_SYS,
                body: &long,
            },
            ..CallHeader::new(1, 2, 3, 4)
        };
        let e = crate::to_vec(&cred).unwrap_err();
        assert_eq!(e.offset(), Some(24), "{e}");
        assert!(e.to_string().starts_with("cred: "), "{e}");
        let verf = CallHeader {
            verf: OpaqueAuth {
                flavor: 6,
                body: &long,
            },
            ..CallHeader::new(1, 2, 3, 4)
        };
        let e = crate::to_vec(&verf).unwrap_err();
        assert_eq!(e.offset(), Some(32), "{e}");
        assert!(e.to_string().starts_with("verf: "), "{e}");
    }

    #[test]
    fn errors_say_where() {
        let mut bytes = crate::to_vec(&ReplyHeader::accepted(1, AcceptStat::SystemErr)).unwrap();
        bytes[23] = 9;
        let e = Message::parse(&bytes).unwrap_err();
        assert_eq!(e.offset(), Some(20), "{e}");
        assert!(e.to_string().contains("accept_stat"), "{e}");
        bytes[23] = 5;
        bytes.push(0);
        assert!(matches!(
            Message::parse(&bytes).unwrap_err().kind(),
            ErrorKind::TrailingBytes { count: 1 }
        ));
        let e = Message::parse(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert!(e.to_string().contains("rpcvers"), "{e}");
    }
}
