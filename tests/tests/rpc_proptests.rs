//! Property tests of the ONC RPC wire: call and reply headers round-trip; arbitrary or
//! mutated bytes never make the message decoder, the credential decoder or the
//! record-marking reader panic; the reader reassembles any fragmentation of any records
//! delivered in any pieces, never holds much more than the input justifies, and refuses
//! headers beyond its caps before allocating for them.

use marshal::rpc::{
    AcceptStat, Auth, AuthStat, CallHeader, Message, OpaqueAuth, Progress, RecordReader,
    RejectedReply, ReplyBody, ReplyHeader, LAST_FRAGMENT,
};
use proptest::collection::vec;
use proptest::prelude::*;

fn call() -> impl Strategy<Value = (u32, u32, u32, u32, u32, u32, Vec<u8>, Vec<u8>)> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        vec(any::<u8>(), 0..=400),
        vec(any::<u8>(), 0..=40),
    )
}

fn reply_body() -> impl Strategy<Value = ReplyBody<'static>> {
    let accepted = prop_oneof![
        Just(AcceptStat::Success),
        Just(AcceptStat::ProgUnavail),
        (any::<u32>(), any::<u32>()).prop_map(|(low, high)| AcceptStat::ProgMismatch { low, high }),
        Just(AcceptStat::ProcUnavail),
        Just(AcceptStat::GarbageArgs),
        Just(AcceptStat::SystemErr),
    ]
    .prop_map(|stat| ReplyBody::Accepted {
        verf: OpaqueAuth::NONE,
        stat,
    });
    let denied = prop_oneof![
        (any::<u32>(), any::<u32>())
            .prop_map(|(low, high)| RejectedReply::RpcMismatch { low, high }),
        any::<u32>().prop_map(|v| RejectedReply::AuthError(AuthStat::from_u32(v))),
    ]
    .prop_map(ReplyBody::Denied);
    prop_oneof![accepted, denied]
}

/// Splits `records` into fragments at the given cut points and serialises them.
fn fragmented(records: &[Vec<u8>], cuts: &[usize]) -> Vec<u8> {
    let mut wire = Vec::new();
    let mut k = 0;
    for r in records {
        let mut at = 0;
        loop {
            let rest = r.len() - at;
            let step = cuts.get(k).map_or(rest, |c| c % (rest + 1));
            k += 1;
            let end = at + step;
            let last = end == r.len() && (step > 0 || k % 3 != 0);
            let mark = if last { LAST_FRAGMENT } else { 0 } | step as u32;
            wire.extend(mark.to_be_bytes());
            wire.extend(&r[at..end]);
            at = end;
            if last {
                break;
            }
        }
    }
    wire
}

/// Feeds `wire` to `rr` in pieces of the given sizes; returns the records (or the error).
fn feed(
    rr: &mut RecordReader,
    wire: &[u8],
    pieces: &[usize],
) -> Result<Vec<Vec<u8>>, marshal::Error> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    loop {
        match rr.advance()? {
            Progress::Ready => out.push(rr.record().to_vec()),
            Progress::Incomplete(_) if at == wire.len() => return Ok(out),
            Progress::Incomplete(want) => {
                let room = rr.read_buf(want);
                let piece = pieces.get(k).copied().unwrap_or(4096).max(1);
                k += 1;
                let n = piece.min(room.len()).min(wire.len() - at);
                room[..n].copy_from_slice(&wire[at..at + n]);
                rr.filled(n);
                at += n;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn calls_round_trip((xid, vers, prog, pvers, procedure, flavor, cred, verf) in call(), args in vec(any::<u8>(), 0..64)) {
        let h = CallHeader {
            xid,
            rpcvers: vers,
            program: prog,
            version: pvers,
            procedure,
            cred: OpaqueAuth { flavor, body: &cred },
            verf: OpaqueAuth { flavor: 0, body: &verf },
        };
        let mut bytes = marshal::xdr::to_vec(&h).unwrap();
        bytes.extend(&args);
        let (m, rest) = Message::parse(&bytes).unwrap();
        prop_assert_eq!(m, Message::Call(h));
        prop_assert_eq!(rest, &args[..]);
    }

    #[test]
    fn replies_round_trip(xid in any::<u32>(), body in reply_body(), results in vec(any::<u8>(), 0..32)) {
        let h = ReplyHeader { xid, body };
        let mut bytes = marshal::xdr::to_vec(&h).unwrap();
        let success = matches!(body, ReplyBody::Accepted { stat: AcceptStat::Success, .. });
        bytes.extend(&results);
        match Message::parse(&bytes) {
            Ok((m, rest)) => {
                prop_assert_eq!(m, Message::Reply(h));
                prop_assert_eq!(rest, &results[..]);
            }
            // Only a non-success reply may refuse trailing bytes.
            Err(e) => prop_assert!(!success && !results.is_empty(), "{}", e),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoders(bytes in vec(any::<u8>(), 0..600), flavor in 0u32..4) {
        let _ = Message::parse(&bytes);
        let _ = Auth::from_opaque(flavor, &bytes);
        let mut rr = RecordReader::with_caps(1 << 16, 64);
        let _ = feed(&mut rr, &bytes, &[1, 7, 3, 100]);
    }

    #[test]
    fn mutated_messages_never_panic(
        (xid, vers, prog, pvers, procedure, _flavor, cred, verf) in call(),
        flips in vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let sys = Auth::Sys { stamp: xid, machine_name: "m".repeat(cred.len() % 200), uid: vers, gid: prog, gids: vec![pvers; procedure as usize % 17] };
        let body = sys.body().unwrap();
        let h = CallHeader {
            xid, rpcvers: 2, program: prog, version: pvers, procedure,
            cred: OpaqueAuth { flavor: 1, body: &body },
            verf: OpaqueAuth { flavor: 0, body: &verf },
        };
        let mut bytes = marshal::xdr::to_vec(&h).unwrap();
        prop_assert_eq!(Auth::from_opaque(1, &body).unwrap(), sys);
        for (i, b) in flips {
            let i = i.index(bytes.len());
            bytes[i] ^= b;
        }
        if let Ok((Message::Call(c), _)) = Message::parse(&bytes) {
            let _ = Auth::from_opaque(c.cred.flavor, c.cred.body);
        }
    }

    #[test]
    fn any_fragmentation_in_any_pieces_reassembles(
        records in vec(vec(any::<u8>(), 0..300), 1..6),
        cuts in vec(any::<usize>(), 0..40),
        pieces in vec(1usize..64, 0..200),
    ) {
        let wire = fragmented(&records, &cuts);
        let mut rr = RecordReader::new();
        let got = feed(&mut rr, &wire, &pieces).unwrap();
        prop_assert_eq!(got, records);
        prop_assert!(rr.is_idle());
        // Never much more than the data: the first 64 KiB of growth, or twice the input.
        prop_assert!(rr.capacity() <= (64 << 10).max(2 * wire.len()), "{}", rr.capacity());
    }

    #[test]
    fn headers_beyond_the_caps_are_refused_before_allocating(len in 0u32..0x8000_0000, last in any::<bool>(), cap in 1usize..1_000_000) {
        let mark = if last { LAST_FRAGMENT } else { 0 } | len;
        let mut rr = RecordReader::with_caps(cap, 16);
        let r = feed(&mut rr, &mark.to_be_bytes(), &[4]);
        if len as usize > cap {
            let e = r.unwrap_err();
            prop_assert!(e.to_string().contains("record"), "{}", e);
        } else {
            prop_assert!(r.unwrap().len() == usize::from(last && len == 0));
        }
        prop_assert!(rr.capacity() <= 64 << 10);
    }
}
