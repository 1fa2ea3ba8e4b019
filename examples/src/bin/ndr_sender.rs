//! An NDR sender: writes records in its own memory layout to `ndr_receiver` over TCP. The
//! record's format (its fields' names, types and offsets) goes on the stream once, before the
//! first record; the receiver converts each record to its own type by field name.
//!
//! ```sh
//! cargo run -p marshal-examples --bin ndr_receiver               # prints: listening on 127.0.0.1:PORT
//! cargo run -p marshal-examples --bin ndr_sender -- 127.0.0.1:PORT
//! ```

use std::net::TcpStream;

use marshal::ndr::{Format, NdrWriter};
use marshal::Marshal;

/// A nested record.
#[derive(Marshal, Debug)]
struct Position {
    lat: f32,
    lon: f32,
}

/// The record sent: 32-bit numbers, a string, a nested record and an array.
#[derive(Marshal, Debug)]
struct Reading {
    seq: u32,
    station: String,
    position: Position,
    temps: [f32; 4],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .ok_or("usage: ndr_sender <host:port>")?;

    // The layout the receiver will be told about: this machine's, as rustc laid it out.
    let format = Format::of::<Reading>();
    println!(
        "format {} ({} bytes, {:?})",
        format.name(),
        format.size(),
        format.byte_order()
    );
    for field in format.fields() {
        println!(
            "  {} {} at {}",
            field.name(),
            field.type_name(),
            field.offset()
        );
    }

    let mut writer = NdrWriter::new(TcpStream::connect(&addr)?);
    for seq in 0..3u32 {
        let reading = Reading {
            seq,
            station: format!("station-{seq}"),
            position: Position {
                lat: 48.5 + seq as f32,
                lon: -3.25,
            },
            temps: [20.0, 20.5, 21.0, 21.5 + seq as f32],
        };
        writer.send(&reading)?;
        println!("sent {reading:?}");
    }
    writer.flush()?;
    // Closing the connection ends the stream.
    Ok(())
}
