//! `rpc_message`: ONC RPC messages (`rpc::Message::parse`), credentials
//! (`rpc::Auth::from_opaque`) and record marking (`rpc::RecordReader`) over a byte stream.
//!
//! Input: `[flags][bytes]`. The bytes are parsed as one message (a datagram); then read as a
//! record-marked stream, delivered a few bytes at a time (seeded by flags bits 2–7), by a
//! `RecordReader` whose caps flags bits 0–1 choose; each record is parsed as a message.
//!
//! Checks: a parsed header re-encodes to exactly the bytes it was parsed from, a call's
//! credential re-encodes to its body, and the record reader returns exactly the records a
//! plain reference reassembly finds, stops the same way (at the end of the input, or at a
//! header that breaks a cap), and grows its buffer only as data arrives.

use marshal::rpc::{
    Auth, Message, RecordError, RecordReader, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD,
    LAST_FRAGMENT,
};
use marshal::xdr::to_vec;

use crate::util::Trickle;
use crate::xdr_derived::same_bytes;

/// At most this many records per input.
const MAX_RECORDS: usize = 1024;

/// The target.
pub fn run(data: &[u8]) {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    check_message(bytes);

    let (max_record, max_fragments) = match flags & 3 {
        0 => (DEFAULT_MAX_RECORD, DEFAULT_MAX_FRAGMENTS),
        1 => (64, 3),
        2 => (0, 1),
        _ => (1 << 20, 2),
    };
    let (expected, protocol_error) = reference(bytes, max_record, max_fragments.max(1));
    let mut rr = RecordReader::with_caps(max_record, max_fragments);
    let mut input = Trickle::new(bytes, flags >> 2);
    let mut got = 0;
    let end = loop {
        if got == MAX_RECORDS {
            break None;
        }
        match rr.read_record(&mut input) {
            Ok(record) => {
                assert!(
                    got < expected.len() && record == expected[got],
                    "record {got} differs from the reference reassembly"
                );
                let record = record.to_vec();
                check_message(&record);
                got += 1;
            }
            Err(e) => break Some(e),
        }
        assert!(
            rr.capacity() <= 2 * bytes.len() + (64 << 10) + 4096,
            "the record reader holds {} bytes for {} bytes of input",
            rr.capacity(),
            bytes.len()
        );
    };
    if let Some(e) = end {
        assert_eq!(got, expected.len(), "records before the stream stopped");
        match e {
            RecordError::Protocol(_) => assert!(protocol_error, "a cap error the reference misses"),
            RecordError::Io(_) => assert!(!protocol_error, "the reference breaks a cap"),
        }
    }
}

/// The records of `stream` reassembled plainly, and whether it stops at a header that breaks
/// a cap (else it stops at the end of the input).
fn reference(stream: &[u8], max_record: usize, max_fragments: usize) -> (Vec<Vec<u8>>, bool) {
    let mut records = Vec::new();
    let mut pos = 0;
    loop {
        let mut record = Vec::new();
        let mut fragments = 0;
        loop {
            let Some(head) = stream.get(pos..pos + 4) else {
                return (records, false);
            };
            let word = u32::from_be_bytes(head.try_into().expect("four bytes"));
            let len = (word & !LAST_FRAGMENT) as usize;
            fragments += 1;
            if fragments > max_fragments || record.len() + len > max_record {
                return (records, true);
            }
            pos += 4;
            let Some(data) = stream.get(pos..pos + len) else {
                return (records, false);
            };
            record.extend_from_slice(data);
            pos += len;
            if word & LAST_FRAGMENT != 0 {
                break;
            }
        }
        records.push(record);
        if records.len() == MAX_RECORDS {
            return (records, false);
        }
    }
}

/// Parses one message; a header that parses must re-encode to the bytes it came from, and a
/// call's credential to its body.
fn check_message(bytes: &[u8]) {
    let Ok((msg, rest)) = Message::parse(bytes) else {
        return;
    };
    let _ = msg.xid();
    let mut again = match &msg {
        Message::Call(h) => to_vec(h),
        Message::Reply(h) => to_vec(h),
    }
    .expect("a parsed header re-encodes");
    again.extend_from_slice(rest);
    same_bytes("a re-encoded RPC message", &again, bytes);
    let (back, rest2) = Message::parse(&again).expect("a re-encoded message parses");
    assert_eq!(back, msg, "a re-encoded RPC header");
    assert_eq!(
        rest2, rest,
        "the arguments or results after a re-encoded header"
    );

    if let Message::Call(h) = &msg {
        for a in [h.cred, h.verf] {
            if let Ok(auth) = Auth::from_opaque(a.flavor, a.body) {
                assert_eq!(auth.flavor(), a.flavor, "a credential's flavor");
                let body = auth.body().expect("a decoded credential encodes");
                same_bytes("a re-encoded credential body", &body, a.body);
                let back = Auth::from_opaque(auth.flavor(), &body).expect("its body decodes");
                assert_eq!(back, auth, "a credential through its body");
            }
        }
    }
    // The credential decoder on its own, on the bytes after the header.
    for flavor in [0, 1, 6] {
        let _ = Auth::from_opaque(flavor, rest);
    }
}
