//! Compiles `proto/calc.x` to `$OUT_DIR/calc.rs` for the `calc` and `calc_async` examples:
//! the blocking client and server trait, and the async ones.

fn main() {
    let compiled = marshal_build::xdr::Config::new()
        .async_client(true)
        .async_server(true)
        .compile(&["proto/calc.x"]);
    if let Err(e) = compiled {
        panic!("\n{e}");
    }
}
