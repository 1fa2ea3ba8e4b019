//! Compiles `peers/rpcgen/xdr/flick.x`, `xdr/unions.x`, `xdr/calc.x`, `xdr/exact.x`, every
//! `.x` file of Debian's `/usr/include/rpcsvc` (packages `rpcsvc-proto` and `libnsl-dev`) and
//! libtirpc's `rpcb_prot.x`, some of them again in borrowed mode, and `xdr/calc.x` and
//! `xdr/kv.x` (borrowed) with their async stubs; for the files of [`EXACT`],
//! writes marshal-build's C and Rust fillers of pseudo-random values to `$OUT_DIR/random/`
//! (for `tests/rpcgen_exact.rs`); and compiles the CORBA IDL of `peers/omniorb/idl/flick.idl`,
//! `idl/all.idl` and the files of Debian's `omniorb-idl` that marshal-build accepts (those
//! using no `any`, `valuetype` or `TypeCode`), and `idl/all.idl`, `idl/store.idl` and
//! omniorb-idl's `echo.idl` with their async stubs.

use std::path::Path;

include!("omniorb_idl.rs");

/// The Debian files, and what each needs defined: the constants some take from C headers
/// through `%#define` lines or `#include <rpc/...h>`, which the `.x` language does not see.
const RPCSVC: &[(&str, &[&str])] = &[
    ("bootparam_prot", &[]),
    // MAXNETNAMELEN comes from <rpc/auth_des.h>.
    ("key_prot", &["MAXNETNAMELEN=255"]),
    ("klm_prot", &[]),
    ("mount", &[]),
    ("nfs_prot", &[]),
    ("nis", &[]),
    ("nis_callback", &[]),
    ("nis_object", &[]),
    // `%#define LM_MAXSTRLEN 1024` and `%#define MAXNAMELEN LM_MAXSTRLEN+1`.
    ("nlm_prot", &["LM_MAXSTRLEN=1024", "MAXNAMELEN=1025"]),
    ("rex", &[]),
    ("rquota", &[]),
    ("rstat", &[]),
    ("rusers", &[]),
    ("sm_inter", &[]),
    ("spray", &[]),
    ("yp", &[]),
    ("yppasswd", &[]),
];

/// The files whose every type `tests/rpcgen_exact.rs` checks against rpcgen's C, byte for byte.
const EXACT: &[&str] = &[
    "mount",
    "nfs_prot",
    "yp",
    "rstat",
    "rex",
    "nis_object",
    "bootparam_prot",
    "sm_inter",
    "rpcb_prot",
    // Ours: what those files do not have (several labels on an arm, default arms on every
    // kind of discriminant, every scalar type, arrays and optional data of them).
    "exact",
];

fn main() {
    let rpcsvc = Path::new("/usr/include/rpcsvc");
    let tirpc = Path::new("/usr/include/tirpc/rpc/rpcb_prot.x");
    assert!(
        rpcsvc.join("mount.x").is_file() && rpcsvc.join("nis.x").is_file(),
        "marshal-build-tests needs Debian's rpcsvc-proto and libnsl-dev (/usr/include/rpcsvc/*.x); \
         scripts/test.sh installs them"
    );
    assert!(
        tirpc.is_file(),
        "marshal-build-tests needs libtirpc-dev ({}); scripts/test.sh installs it",
        tirpc.display()
    );
    let flick = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../peers/rpcgen/xdr/flick.x");
    compile(&marshal_build::xdr::Config::new(), &flick);
    for x in ["xdr/unions.x", "xdr/calc.x"] {
        compile(
            &marshal_build::xdr::Config::new(),
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(x),
        );
    }
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/exact.x");
    compile(&marshal_build::xdr::Config::new(), &ours);
    let mut exact = vec![("exact", marshal_build::xdr::Config::new(), ours)];
    compile(&marshal_build::xdr::Config::new(), tirpc);
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).to_path_buf();
    let random = out.join("random");
    std::fs::create_dir_all(&random).expect("create $OUT_DIR/random");
    for (name, defines) in RPCSVC {
        let mut cfg = marshal_build::xdr::Config::new();
        cfg.include_dir(rpcsvc);
        for d in *defines {
            cfg.define(d);
        }
        let file = rpcsvc.join(format!("{name}.x"));
        compile(&cfg, &file);
        if EXACT.contains(name) {
            exact.push((*name, cfg, file));
        }
    }
    exact.push((
        "rpcb_prot",
        marshal_build::xdr::Config::new(),
        tirpc.to_path_buf(),
    ));
    let mut files = String::new();
    for name in EXACT {
        let (_, cfg, file) = exact
            .iter()
            .find(|(n, ..)| n == name)
            .unwrap_or_else(|| panic!("{name}.x is not compiled"));
        let fillers = cfg.random(file).unwrap_or_else(|e| panic!("\n{e}"));
        write(&random.join(format!("{name}.c")), &fillers.c);
        write(&random.join(format!("{name}.rs")), &fillers.rust);
        files.push_str(&format!(
            "    ({name:?}, {:?}),\n",
            file.display().to_string()
        ));
    }
    write(
        &random.join("marshal_random.h"),
        marshal_build::xdr::random::C_SUPPORT,
    );
    write(
        &random.join("support.rs"),
        marshal_build::xdr::random::RUST_SUPPORT,
    );
    write(
        &random.join("files.rs"),
        &format!(
            "/// Each file of `build.rs`'s `EXACT`: its stem and path.\n\
             pub const EXACT: &[(&str, &str)] = &[\n{files}];\n"
        ),
    );

    // Borrowed mode (`Cow` strings and opaque data), in `$OUT_DIR/borrowed`.
    let borrowed = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("borrowed");
    std::fs::create_dir_all(&borrowed).expect("create $OUT_DIR/borrowed");
    let mut cfg = marshal_build::xdr::Config::new();
    cfg.borrowed(true).out_dir(&borrowed).include_dir(rpcsvc);
    for x in [
        flick.clone(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/calc.x"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/unions.x"),
        rpcsvc.join("nfs_prot.x"),
        rpcsvc.join("mount.x"),
        rpcsvc.join("yp.x"),
        tirpc.to_path_buf(),
    ] {
        compile(&cfg, &x);
    }

    // Async stubs (`async_client` and `async_server`), in `$OUT_DIR/async`: `calc.x`, and
    // `kv.x` in borrowed mode.
    let asynch = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("async");
    std::fs::create_dir_all(&asynch).expect("create $OUT_DIR/async");
    let mut cfg = marshal_build::xdr::Config::new();
    cfg.async_client(true).async_server(true).out_dir(&asynch);
    compile(
        &cfg,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/calc.x"),
    );
    cfg.borrowed(true);
    compile(
        &cfg,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/kv.x"),
    );

    // CORBA IDL: the Flick interop IDL, and one file with every construct.
    // In `$OUT_DIR/idl`: `flick.x` already gives `$OUT_DIR/flick.rs`.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = out.join("idl");
    std::fs::create_dir_all(&out).expect("create $OUT_DIR/idl");
    for idl in [
        here.join("../../peers/omniorb/idl/flick.idl"),
        here.join("idl/all.idl"),
    ] {
        if let Err(e) = marshal_build::idl::Config::new()
            .out_dir(&out)
            .compile(&[&idl])
        {
            panic!("\n{e}");
        }
    }

    // Borrowed mode, into `$OUT_DIR/idl/borrowed`: flick.idl, all.idl and CosNaming (whose
    // exceptions hold names, which therefore stay owned).
    let borrowed = out.join("borrowed");
    std::fs::create_dir_all(&borrowed).expect("create $OUT_DIR/idl/borrowed");
    for idl in [
        here.join("../../peers/omniorb/idl/flick.idl"),
        here.join("idl/all.idl"),
        Path::new("/usr/share/idl/omniORB/COS/CosNaming.idl").to_path_buf(),
    ] {
        if let Err(e) = marshal_build::idl::Config::new()
            .borrowed(true)
            .out_dir(&borrowed)
            .compile(&[&idl])
        {
            panic!("\n{e}");
        }
    }

    // Async stubs (`async_client` and `async_server`), into `$OUT_DIR/idl/async`: all.idl
    // and store.idl, and omniorb-idl's echo.idl for omniORB's C++ client; into
    // `$OUT_DIR/idl/async/borrowed`, all.idl and store.idl in borrowed mode.
    let asynch = out.join("async");
    let asynch_borrowed = asynch.join("borrowed");
    std::fs::create_dir_all(&asynch_borrowed).expect("create $OUT_DIR/idl/async/borrowed");
    for (dir, borrowed, files) in [
        (
            &asynch,
            false,
            vec![
                here.join("idl/all.idl"),
                here.join("idl/store.idl"),
                Path::new("/usr/share/idl/omniORB/echo.idl").to_path_buf(),
            ],
        ),
        (
            &asynch_borrowed,
            true,
            vec![here.join("idl/all.idl"), here.join("idl/store.idl")],
        ),
    ] {
        for idl in files {
            if let Err(e) = marshal_build::idl::Config::new()
                .async_client(true)
                .async_server(true)
                .borrowed(borrowed)
                .out_dir(dir)
                .compile(&[&idl])
            {
                panic!("\n{e}");
            }
        }
    }

    // Debian's omniorb-idl, into `$OUT_DIR/idl/omniorb` (its `Naming.idl` and
    // `COS/CosNaming.idl` are different files with different stems; none clashes).
    let omni = Path::new("/usr/share/idl/omniORB");
    assert!(
        omni.join("echo.idl").is_file() && omni.join("COS/CosNaming.idl").is_file(),
        "marshal-build-tests needs Debian's omniorb-idl ({}/*.idl and COS/*.idl); \
         scripts/test.sh installs it",
        omni.display()
    );
    let out = out.join("omniorb");
    std::fs::create_dir_all(&out).expect("create $OUT_DIR/idl/omniorb");
    for file in OMNIORB_IDL {
        if let Err(e) = marshal_build::idl::Config::new()
            .include_dir(omni)
            .include_dir(omni.join("COS"))
            .out_dir(&out)
            .compile(&[omni.join(file)])
        {
            panic!("\n{e}");
        }
    }
}

fn compile(cfg: &marshal_build::xdr::Config, file: &Path) {
    if let Err(e) = cfg.compile(&[file]) {
        panic!("\n{e}");
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
