//! An ONC RPC server: the key/value store of `marshal_examples::kv`, over TCP and UDP on one
//! port. A `Program` matches on the procedure number, decodes the arguments with
//! `call.args()` and answers with `call.reply(..)`.
//!
//! ```sh
//! cargo run -p marshal-examples --bin rpc_server          # an ephemeral port, printed
//! cargo run -p marshal-examples --bin rpc_server -- 4000  # port 4000
//! ```
//!
//! The first line printed is `listening on <address>`; stop the server with Ctrl-C.

use std::collections::BTreeMap;
use std::sync::Mutex;

use marshal::rpc::{Call, Program, Server};
use marshal_examples::kv::{Entry, Lookup, Stored, GET, LIST, NULL, PROG, PUT, VERS};

/// The store. The server calls it from one thread per TCP connection and a few for UDP, so
/// its state is behind a lock.
#[derive(Debug, Default)]
struct KvStore {
    map: Mutex<BTreeMap<String, String>>,
}

impl Program for KvStore {
    fn call(&self, call: &mut Call<'_>) -> Result<(), marshal::Error> {
        match call.procedure() {
            NULL => call.reply(&()),
            PUT => {
                // A decoding error returned with `?` makes the server answer GARBAGE_ARGS.
                let entry: Entry = call.args()?;
                let mut map = self.map.lock().unwrap();
                let replaced = map.insert(entry.key, entry.value).is_some();
                let count = map.len() as u32;
                drop(map);
                call.reply(&Stored { replaced, count })
            }
            GET => {
                // Arguments may borrow from the request: no copy of the key.
                let key: &str = call.args()?;
                let found = self.map.lock().unwrap().get(key).cloned();
                call.reply(&found.map_or(Lookup::Missing, Lookup::Found))
            }
            LIST => {
                let entries: Vec<Entry> = self
                    .map
                    .lock()
                    .unwrap()
                    .iter()
                    .map(|(key, value)| Entry {
                        key: key.clone(),
                        value: value.clone(),
                    })
                    .collect();
                call.reply(&entries)
            }
            _ => call.proc_unavail(),
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::args().nth(1) {
        Some(p) => p.parse()?,
        None => 0, // the system picks a free port
    };
    // One port for both transports: TCP first, then UDP on the same number.
    let mut server = Server::bind(("127.0.0.1", port))?;
    server.add(PROG, VERS, KvStore::default());
    let server = server.spawn()?;
    let addr = server.tcp_addr().expect("bound to TCP");
    println!("listening on {addr} (TCP and UDP), program {PROG:#x} version {VERS}");

    // The server's threads do the work; this one only keeps the process alive.
    loop {
        std::thread::park();
    }
}
