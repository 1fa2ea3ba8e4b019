//! Generates `FLICK_PROG` (`peers/rpcgen/xdr/flick.x`) and `Flick::Bench`
//! (`peers/omniorb/idl/flick.idl`) with marshal-build, borrowed (strings and octet sequences
//! as `Cow`, so the servers hand names and data back without copying them): the types,
//! clients and server traits of `workloads::flick_rpc` and `workloads::bench_object`; with
//! feature `tokio`, their async server traits and services (and `flick.x`'s async client).

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let tokio = std::env::var_os("CARGO_FEATURE_TOKIO").is_some();
    if let Err(e) = marshal_build::xdr::Config::new()
        .borrowed(true)
        .async_server(tokio)
        .async_client(tokio)
        .out_dir(&out)
        .compile(&["../peers/rpcgen/xdr/flick.x"])
    {
        panic!("\n{e}");
    }
    // `$OUT_DIR/idl/flick.rs`: the stem is flick.x's too.
    let idl = out.join("idl");
    std::fs::create_dir_all(&idl).expect("create $OUT_DIR/idl");
    if let Err(e) = marshal_build::idl::Config::new()
        .borrowed(true)
        .async_server(tokio)
        .out_dir(&idl)
        .compile(&["../peers/omniorb/idl/flick.idl"])
    {
        panic!("\n{e}");
    }
}
