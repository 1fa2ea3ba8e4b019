//! Generates XDR stubs from `xdr/flick.x` with `rpcgen` and compiles them,
//! together with `src/glue.c`, against libtirpc.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const REQUIREMENTS: &str =
    "rpcgen-peer: rpcgen and libtirpc-dev are required: apt-get install rpcsvc-proto libtirpc-dev";
const TIRPC_INCLUDE: &str = "/usr/include/tirpc";

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let x_src = manifest_dir.join("xdr").join("flick.x");
    let glue = manifest_dir.join("src").join("glue.c");

    println!("cargo:rerun-if-changed={}", x_src.display());
    println!("cargo:rerun-if-changed={}", glue.display());
    println!("cargo:rerun-if-changed=build.rs");

    if !Path::new(TIRPC_INCLUDE).join("rpc").join("rpc.h").is_file() {
        panic!("{REQUIREMENTS} (missing {TIRPC_INCLUDE}/rpc/rpc.h)");
    }

    // rpcgen writes `#include "<name>.h"` derived from the input file name it is
    // given, so run it inside OUT_DIR on a local copy and use relative names:
    // the generated flick_xdr.c then includes "flick.h" from the same directory.
    fs::copy(&x_src, out_dir.join("flick.x")).expect("copy flick.x into OUT_DIR");
    run_rpcgen(&out_dir, &["-h", "-o", "flick.h", "flick.x"]);
    run_rpcgen(&out_dir, &["-c", "-o", "flick_xdr.c", "flick.x"]);

    cc::Build::new()
        .file(out_dir.join("flick_xdr.c"))
        .file(&glue)
        .include(&out_dir)
        .include(TIRPC_INCLUDE)
        .opt_level(2)
        // The generated code declares `register int32_t *buf;` in every routine
        // and only uses it in some; do not edit it, silence it instead.
        .flag_if_supported("-Wno-unused-variable")
        .flag_if_supported("-Wno-unused-but-set-variable")
        .compile("rpcgen_flick");

    println!("cargo:rustc-link-lib=tirpc");
}

fn run_rpcgen(dir: &Path, args: &[&str]) {
    // rpcgen refuses to overwrite an existing output file ("file `flick.h'
    // already exists and may be overwritten", exit status 1), so remove stale
    // outputs from a previous build first.
    if let Some(pos) = args.iter().position(|a| *a == "-o") {
        let _ = fs::remove_file(dir.join(args[pos + 1]));
    }
    let status = Command::new("rpcgen")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("{REQUIREMENTS} (could not run rpcgen: {e})"));
    if !status.success() {
        panic!(
            "rpcgen-peer: `rpcgen {}` failed with {status}",
            args.join(" ")
        );
    }
}
