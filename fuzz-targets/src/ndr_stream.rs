//! `ndr_stream`: NDR streams (format frames, then records) read by `ndr::NdrReader` (feature
//! `transports`) from a reader that delivers a few bytes at a time.
//!
//! Input: `[flags][stream]`. Flags bits 0–1 choose the frame cap; bits 2–7 seed the reads.
//! Each record the reader returns is decoded into every local NDR type and dynamically; a
//! value that decodes is sent again with `NdrWriter` and must come back the same.

use marshal::ndr::{to_body, Engine, NdrReader, NdrWriter, Receiver, Record};

use crate::types::{NBig, NBigs, NMixed, NNest, NPoint, NSample};
use crate::util::Trickle;
use crate::xdr_derived::same_bytes;

/// At most this many records per input.
const MAX_RECORDS: usize = 256;

/// The target.
pub fn run(data: &[u8]) {
    let Some((&flags, stream)) = data.split_first() else {
        return;
    };
    let mut reader = NdrReader::with_receiver(
        Trickle::new(stream, flags >> 2),
        Receiver::with_engine(Engine::Interpreter),
    );
    match flags & 3 {
        1 => reader.set_max_frame(64),
        2 => reader.set_max_frame(4096),
        _ => {}
    }
    for _ in 0..MAX_RECORDS {
        let msg = match reader.next_message() {
            Ok(Some(m)) => m.to_vec(),
            Ok(None) | Err(_) => return,
        };
        let rx = reader.receiver();
        resend::<NPoint>(rx, &msg);
        resend::<NSample>(rx, &msg);
        resend::<NMixed>(rx, &msg);
        resend::<NNest>(rx, &msg);
        resend::<NBig>(rx, &msg);
        resend::<NBigs>(rx, &msg);
        if let Ok(r) = rx.decode_dynamic(&msg) {
            let _ = r.to_json();
        }
    }
}

/// Decodes `msg` as a `T`; a value that decodes goes through a writer and a reader again.
fn resend<T: Record>(rx: &mut Receiver, msg: &[u8]) {
    let Ok(v) = rx.decode::<T>(msg) else {
        return;
    };
    let mut w = NdrWriter::new(Vec::new());
    w.send(&v).expect("a decoded value is sent");
    w.flush().expect("a Vec takes every byte");
    let bytes = w.into_inner();
    let mut r = NdrReader::with_receiver(&bytes[..], Receiver::with_engine(Engine::Interpreter));
    let back = r
        .recv::<T>()
        .expect("a sent value is received")
        .expect("a record");
    same_bytes(
        "a value through NdrWriter and NdrReader",
        &to_body(&back).expect("a body"),
        &to_body(&v).expect("a body"),
    );
    assert!(
        r.recv::<T>().expect("the stream ends cleanly").is_none(),
        "one record sent, one received"
    );
}
