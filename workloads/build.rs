//! Generates `FLICK_PROG` (`peers/rpcgen/xdr/flick.x`) and `Flick::Bench`
//! (`peers/omniorb/idl/flick.idl`) with marshal-build: the types, clients and server traits of
//! `workloads::flick_rpc` and `workloads::bench_object`.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    // Borrowed: the servers hand directory-entry names and data back without copying them.
    if let Err(e) = marshal_build::xdr::Config::new()
        .borrowed(true)
        .out_dir(&out)
        .compile(&["../peers/rpcgen/xdr/flick.x"])
    {
        panic!("\n{e}");
    }
}
