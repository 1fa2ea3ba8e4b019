//! An NDR receiver: accepts one `ndr_sender` over TCP and converts its records into a type of
//! its own, matching fields by name: here in another order, with wider numbers (`u32` into
//! `u64`, `f32` into `f64`) and a field the sender lacks, filled from `Default`.
//!
//! ```sh
//! cargo run -p marshal-examples --bin ndr_receiver               # an ephemeral port, printed
//! cargo run -p marshal-examples --bin ndr_sender -- 127.0.0.1:PORT
//! ```
//!
//! The first line printed is `listening on <address>`; it exits when the sender is done.

use std::net::TcpListener;

use marshal::ndr::NdrReader;
use marshal::Marshal;

/// The sender's `Position`, in double precision.
#[derive(Marshal, Debug, Default)]
struct Position {
    lat: f64,
    lon: f64,
}

/// The sender's `Reading` as this program wants it. Fields a sender lacks come from
/// `Default` (`default_missing`); without it, a missing field is an error naming it.
#[derive(Marshal, Debug, Default)]
#[marshal(default_missing)]
struct Reading {
    station: String,
    seq: u64,
    temps: [f64; 4],
    position: Position,
    /// Not sent by `ndr_sender`: always 0 here.
    quality: u8,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::args().nth(1) {
        Some(p) => p.parse()?,
        None => 0,
    };
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!("listening on {}", listener.local_addr()?);

    let (conn, peer) = listener.accept()?;
    println!("sender {peer} connected");
    // The reader learns each format from the stream; the first record of a format builds a
    // conversion plan from it to `Reading`, which later records reuse.
    let mut reader = NdrReader::new(conn);
    let mut count = 0;
    while let Some(reading) = reader.recv::<Reading>()? {
        println!("got {reading:?}");
        count += 1;
    }
    println!("{count} records");
    Ok(())
}
