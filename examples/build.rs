//! Compiles `proto/calc.x` to `$OUT_DIR/calc.rs` for the `calc` example.

fn main() {
    if let Err(e) = marshal_build::xdr::Config::new().compile(&["proto/calc.x"]) {
        panic!("\n{e}");
    }
}
