//! An ONC RPC client of `rpc_server`: calls each procedure of the key/value store over TCP,
//! then reads one key back over UDP, and prints what it got.
//!
//! ```sh
//! cargo run -p marshal-examples --bin rpc_server               # prints: listening on 127.0.0.1:PORT ...
//! cargo run -p marshal-examples --bin rpc_client -- 127.0.0.1:PORT
//! ```

use std::time::Duration;

use marshal::rpc::{Auth, Client, RpcError};
use marshal_examples::kv::{Entry, Lookup, Stored, GET, LIST, NULL, PROG, PUT, VERS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .ok_or("usage: rpc_client <host:port>")?;

    let mut tcp = Client::connect_tcp(&addr, PROG, VERS)?;
    // Calls carry AUTH_NONE unless told otherwise; this server accepts either.
    tcp.set_auth(Auth::Sys {
        stamp: 0,
        machine_name: "example".into(),
        uid: 1000,
        gid: 1000,
        gids: vec![],
    });

    // `call::<Args, Results>(procedure, &args)`; `()` is XDR's void.
    tcp.call::<(), ()>(NULL, &())?;
    println!("null: ok");

    for (key, value) in [("alpha", "1"), ("beta", "two"), ("alpha", "one")] {
        let entry = Entry {
            key: key.into(),
            value: value.into(),
        };
        let stored: Stored = tcp.call(PUT, &entry)?;
        println!(
            "put {key}={value}: replaced={} count={}",
            stored.replaced, stored.count
        );
    }

    for key in ["alpha", "gamma"] {
        // Arguments may be borrowed: a `&str` encodes as XDR `string<>`.
        match tcp.call::<&str, Lookup>(GET, &key)? {
            Lookup::Found(value) => println!("get {key}: {value}"),
            Lookup::Missing => println!("get {key}: missing"),
        }
    }

    let entries: Vec<Entry> = tcp.call(LIST, &())?;
    let listed: Vec<String> = entries
        .iter()
        .map(|e| format!("{}={}", e.key, e.value))
        .collect();
    println!("list: {}", listed.join(" "));

    // The same program over UDP (the server listens on the same port): the client
    // retransmits until a reply comes or the timeout passes.
    let mut udp = Client::connect_udp(&addr, PROG, VERS)?;
    udp.set_timeout(Duration::from_secs(5));
    match udp.call::<&str, Lookup>(GET, &"beta")? {
        Lookup::Found(value) => println!("udp get beta: {value}"),
        Lookup::Missing => println!("udp get beta: missing"),
    }

    // Errors the server reports are values of `RpcError`.
    match tcp.call::<(), ()>(99, &()) {
        Err(RpcError::ProcUnavail) => println!("procedure 99: unavailable"),
        other => return Err(format!("procedure 99 gave {other:?}").into()),
    }
    Ok(())
}
