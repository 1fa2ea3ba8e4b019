//! Generated code checked into the repository is what marshal-build generates today: the
//! rpcbind protocol inside `transports` (from libtirpc's `rpcb_prot.x`). Regenerate with the
//! command in `transports/src/rpc/rpcb_prot.rs` when this fails.

use std::path::Path;

#[test]
fn transports_rpcb_prot_is_up_to_date() {
    let x = Path::new("/usr/include/tirpc/rpc/rpcb_prot.x");
    assert!(
        x.is_file(),
        "{} is missing: apt-get install libtirpc-dev",
        x.display()
    );
    let now = marshal_build::xdr::Config::new()
        .marshal_path("crate::rpc::rpcb_prot::rt")
        .generate(x)
        .unwrap();
    let checked_in = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../transports/src/rpc/rpcb_prot.generated.rs");
    let file = std::fs::read_to_string(&checked_in).unwrap();
    assert!(
        file == now,
        "{} differs from what marshal-build generates now; regenerate it (see transports/src/rpc/rpcb_prot.rs)",
        checked_in.display()
    );
}
