//! Generates XDR stubs from `xdr/flick.x` with `rpcgen` and compiles them,
//! together with `src/glue.c` and `src/rpc_glue.c`, against libtirpc into the
//! library; also builds two executables into OUT_DIR from rpcgen's client and
//! server stubs: `flick_server` (`src/server.c`) and `flick_client`
//! (`src/client.c`).

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
    let src = manifest_dir.join("src");
    let glue = src.join("glue.c");
    let rpc_glue = src.join("rpc_glue.c");
    let server = src.join("server.c");
    let client = src.join("client.c");

    println!("cargo:rerun-if-changed={}", x_src.display());
    for c in [&glue, &rpc_glue, &server, &client] {
        println!("cargo:rerun-if-changed={}", c.display());
    }
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
    // Client stubs (`echo_ints_1` etc.) and the server dispatch routine
    // `flick_prog_1` (`-m`: no main, server.c has its own).
    run_rpcgen(&out_dir, &["-l", "-o", "flick_clnt.c", "flick.x"]);
    run_rpcgen(&out_dir, &["-m", "-o", "flick_svc.c", "flick.x"]);

    let mut build = cc::Build::new();
    build
        .include(&out_dir)
        .include(TIRPC_INCLUDE)
        .opt_level(2)
        // The generated code declares `register int32_t *buf;` in every routine
        // and only uses it in some; do not edit it, silence it instead.
        .flag_if_supported("-Wno-unused-variable")
        .flag_if_supported("-Wno-unused-but-set-variable")
        // libtirpc declares `bool_t xdr_void(void)`, so every
        // `(xdrproc_t) xdr_void` (rpcgen's stubs, clnt_call for NULL) is a
        // cast between incompatible function types under -Wextra.
        .flag_if_supported("-Wno-cast-function-type");

    // The executables: the same compiler and flags as the library (-O2,
    // includes, warnings), compiled and linked in one step.
    let xdr_c = out_dir.join("flick_xdr.c");
    let svc_c = out_dir.join("flick_svc.c");
    let clnt_c = out_dir.join("flick_clnt.c");
    link_executable(
        &build,
        &out_dir.join("flick_server"),
        &[&server, &svc_c, &xdr_c],
    );
    link_executable(
        &build,
        &out_dir.join("flick_client"),
        &[&client, &clnt_c, &xdr_c],
    );

    build
        .file(&xdr_c)
        .file(&glue)
        .file(&rpc_glue)
        .compile("rpcgen_flick");

    println!("cargo:rustc-link-lib=tirpc");
}

/// Compiles and links `sources` into the executable `out` with `build`'s
/// compiler and flags, against libtirpc and pthreads. Compiler diagnostics are
/// forwarded as cargo warnings; a failure panics with them.
fn link_executable(build: &cc::Build, out: &Path, sources: &[&Path]) {
    let mut cmd = build.get_compiler().to_command();
    cmd.args(sources)
        .arg("-o")
        .arg(out)
        .args(["-ltirpc", "-lpthread"]);
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("rpcgen-peer: could not run the C compiler: {e}"));
    let diagnostics = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        panic!(
            "rpcgen-peer: building {} failed with {}: {cmd:?}\n{diagnostics}",
            out.display(),
            output.status
        );
    }
    for line in diagnostics.lines() {
        println!("cargo:warning={line}");
    }
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
