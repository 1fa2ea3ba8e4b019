//! An ONC RPC program from a `.x` file: `build.rs` compiles `proto/calc.x` with marshal-build,
//! this file includes the output, implements the generated `Server` trait, serves it over TCP
//! and calls it through the generated `Client`.
//!
//! Run: `cargo run -p marshal-examples --bin calc`.

mod calc {
    include!(concat!(env!("OUT_DIR"), "/calc.rs"));
}

use calc::calc_prog::calc_vers;

struct Calc;

impl calc_vers::Server for Calc {
    fn calcproc_add(&self, p: calc::Pair) -> i32 {
        p.a.wrapping_add(p.b)
    }

    fn calcproc_greet(&self, who: calc::Name) -> calc::Name {
        calc::Name(format!("hello {}", who.0))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = marshal::rpc::Server::bind("127.0.0.1:0")?;
    server.add(
        calc_vers::PROGRAM,
        calc_vers::VERSION,
        calc_vers::program(Calc),
    );
    let server = server.spawn()?;

    let addr = server.tcp_addr().unwrap();
    let rpc = marshal::rpc::Client::connect_tcp(addr, calc_vers::PROGRAM, calc_vers::VERSION)?;
    let mut client = calc_vers::Client::new(rpc);
    println!(
        "40 + 2 = {}",
        client.calcproc_add(&calc::Pair { a: 40, b: 2 })?
    );
    println!("{}", client.calcproc_greet(&calc::Name("world".into()))?.0);
    // A bound in the .x file is checked on both sides: `name<64>` refuses 65 bytes.
    let long = calc::Name("x".repeat(65));
    println!("65 bytes: {}", client.calcproc_greet(&long).unwrap_err());
    Ok(())
}
