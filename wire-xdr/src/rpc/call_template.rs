//! The header every call of one client shares, encoded once: a call's header is the template
//! with its xid and procedure set, written as those two words and two 16-byte runs.

use marshal_core::{Error, SizeClass, Writer};

use super::auth::OpaqueAuth;
use super::msg::CallHeader;
use crate::Encode;

/// The call header of one program version with one credential and an AUTH_NONE verifier,
/// encoded once. [`CallTemplate::header`] makes a call's header from it: the template's
/// bytes with the call's xid and procedure, which encode exactly as the [`CallHeader`] of
/// the same fields, without building one or swapping its words.
///
/// ```
/// use wire_xdr::rpc::{CallHeader, CallTemplate};
/// let t = CallTemplate::none(100_003, 3);
/// let from_template = wire_xdr::to_vec(&t.header(7, 6))?;
/// assert_eq!(from_template, wire_xdr::to_vec(&CallHeader::new(7, 100_003, 3, 6))?);
/// # Ok::<(), wire_xdr::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTemplate {
    /// The header's ten fixed words, xid and procedure zero: xid, `CALL`, rpcvers, program,
    /// version, procedure, the credential's flavor and length, then the verifier (AUTH_NONE,
    /// empty). A credential's body goes between the first 32 bytes and the last 8.
    head: [u8; 40],
    /// The credential's body with its padding (empty for AUTH_NONE).
    cred_body: Vec<u8>,
}

impl CallTemplate {
    /// The template of calls to `program` `version` with an AUTH_NONE credential.
    pub fn none(program: u32, version: u32) -> CallTemplate {
        CallTemplate::new(program, version, OpaqueAuth::NONE)
            .expect("an empty credential body is within MAX_AUTH_BYTES")
    }

    /// The template of calls to `program` `version` with the credential `cred`, whose body
    /// may hold at most [`MAX_AUTH_BYTES`](crate::rpc::MAX_AUTH_BYTES).
    ///
    /// ```
    /// use wire_xdr::rpc::{Auth, CallTemplate, OpaqueAuth};
    /// let body = Auth::Sys { stamp: 1, machine_name: "m".into(), uid: 0, gid: 0, gids: vec![] }
    ///     .body()?;
    /// let t = CallTemplate::new(100_003, 3, OpaqueAuth { flavor: 1, body: &body })?;
    /// assert_eq!(wire_xdr::to_vec(&t.header(1, 0))?.len(), 40 + body.len());
    /// let e = CallTemplate::new(1, 1, OpaqueAuth { flavor: 1, body: &[0; 401] }).unwrap_err();
    /// assert_eq!(e.to_string(), "cred: length 401 exceeds max_len 400 at offset 24");
    /// # Ok::<(), wire_xdr::Error>(())
    /// ```
    pub fn new(program: u32, version: u32, cred: OpaqueAuth<'_>) -> Result<CallTemplate, Error> {
        // The header's own encoding, xid and procedure zero: its checks, errors and padding.
        let header = CallHeader {
            cred,
            ..CallHeader::new(0, program, version, 0)
        };
        let mut bytes = crate::to_vec(&header)?;
        let verf = bytes.split_off(bytes.len() - 8);
        let cred_body = bytes.split_off(32);
        let mut head = [0; 40];
        head[..32].copy_from_slice(&bytes);
        head[32..].copy_from_slice(&verf);
        Ok(CallTemplate { head, cred_body })
    }

    /// The header of the call `xid` of `procedure`.
    #[inline]
    pub fn header(&self, xid: u32, procedure: u32) -> TemplateHeader<'_> {
        TemplateHeader {
            template: self,
            xid,
            procedure,
        }
    }
}

/// A call's header made from a [`CallTemplate`] (by [`CallTemplate::header`]): it encodes as
/// the [`CallHeader`] with the same fields.
#[derive(Debug, Clone, Copy)]
pub struct TemplateHeader<'a> {
    template: &'a CallTemplate,
    xid: u32,
    procedure: u32,
}

impl Encode for TemplateHeader<'_> {
    const SIZE: SizeClass = <CallHeader<'_> as Encode>::SIZE;
    #[inline]
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(40 + self.template.cred_body.len())
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let head = &self.template.head;
        // Bytes `at..at + N` of the template (one load each; the ranges are constants).
        fn part<const N: usize>(head: &[u8; 40], at: usize) -> [u8; N] {
            head[at..at + N].try_into().expect("N bytes")
        }
        let (xid, procedure) = (self.xid.to_be_bytes(), self.procedure.to_be_bytes());
        let body = &self.template.cred_body;
        if body.is_empty() {
            // AUTH_NONE (or a flavor without a body): the ten words in one fixed segment,
            // whose writes need no checks: xid, words 1-4 as one run, the procedure, words 6-9.
            return w.chunk(40, |w| {
                w.put(xid)?;
                w.put(part::<16>(head, 4))?;
                w.put(procedure)?;
                w.put(part::<16>(head, 24))
            });
        }
        w.chunk(32, |w| {
            w.put(xid)?;
            w.put(part::<16>(head, 4))?;
            w.put(procedure)?;
            w.put(part::<8>(head, 24))
        })?;
        w.put_slice(body)?;
        w.put(part::<8>(head, 32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::{Auth, Message, AUTH_NONE, MAX_AUTH_BYTES};

    #[test]
    fn encodes_as_the_call_header_of_the_same_fields() {
        let sys = Auth::Sys {
            stamp: 9,
            machine_name: "host".into(),
            uid: 1000,
            gid: 100,
            gids: vec![4, 24, 27],
        };
        let odd = [1, 2, 3, 4, 5];
        for (flavor, body) in [
            (AUTH_NONE, Vec::new()),
            (1, sys.body().unwrap()),
            (7, odd.to_vec()),
        ] {
            let cred = OpaqueAuth {
                flavor,
                body: &body,
            };
            let t = CallTemplate::new(0x2000_0001, 4, cred).unwrap();
            for (xid, procedure) in [(0, 0), (1, 6), (u32::MAX, 0x8765_4321)] {
                let want = CallHeader {
                    cred,
                    ..CallHeader::new(xid, 0x2000_0001, 4, procedure)
                };
                let msg = (&t.header(xid, procedure), &7u32);
                let got = crate::to_vec(&msg).unwrap();
                assert_eq!(got, crate::to_vec(&(&want, &7u32)).unwrap());
                let (parsed, args) = Message::parse(&got).unwrap();
                assert_eq!(parsed, Message::Call(want));
                assert_eq!(args, [0, 0, 0, 7]);
                // Into a buffer with room (one pass) and a short one (measured first).
                for room in [0, got.len() + 8] {
                    let mut buf = bytes::BytesMut::with_capacity(room);
                    crate::encode_into(&msg, &mut buf).unwrap();
                    assert_eq!(buf[..], got[..]);
                }
            }
        }
        let long = OpaqueAuth {
            flavor: 1,
            body: &[0; MAX_AUTH_BYTES + 1],
        };
        let header = CallHeader {
            cred: long,
            ..CallHeader::new(1, 5, 6, 0)
        };
        assert_eq!(
            CallTemplate::new(5, 6, long).unwrap_err().to_string(),
            crate::to_vec(&header).unwrap_err().to_string()
        );
        assert_eq!(
            CallTemplate::none(5, 6),
            CallTemplate::new(5, 6, OpaqueAuth::NONE).unwrap()
        );
    }

    #[test]
    fn a_short_buffer_is_an_error() {
        let t = CallTemplate::none(1, 2);
        for n in [0, 39] {
            let mut buf = vec![0u8; n];
            assert!(crate::encode_into(&t.header(1, 2), &mut &mut buf[..]).is_err());
        }
        let cred = OpaqueAuth {
            flavor: 1,
            body: &[7; MAX_AUTH_BYTES],
        };
        let t = CallTemplate::new(1, 2, cred).unwrap();
        let mut buf = vec![0u8; 40 + MAX_AUTH_BYTES];
        crate::encode_into(&t.header(3, 4), &mut &mut buf[..]).unwrap();
        assert_eq!(buf[32..40], [7; 8]);
        let mut short = vec![0u8; 39 + MAX_AUTH_BYTES];
        assert!(crate::encode_into(&t.header(3, 4), &mut &mut short[..]).is_err());
    }
}
