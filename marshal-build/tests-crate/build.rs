//! Compiles `peers/rpcgen/xdr/flick.x`, `xdr/unions.x`, `xdr/calc.x`, every `.x` file of Debian's `/usr/include/rpcsvc`
//! (packages `rpcsvc-proto` and `libnsl-dev`) and libtirpc's `rpcb_prot.x`.

use std::path::Path;

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
    compile(&marshal_build::xdr::Config::new(), tirpc);
    for (name, defines) in RPCSVC {
        let mut cfg = marshal_build::xdr::Config::new();
        cfg.include_dir(rpcsvc);
        for d in *defines {
            cfg.define(d);
        }
        compile(&cfg, &rpcsvc.join(format!("{name}.x")));
    }

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

    // CORBA IDL: the Flick interop IDL, and one file with every construct.
    // In `$OUT_DIR/idl`: `flick.x` already gives `$OUT_DIR/flick.rs`.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("idl");
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
}

fn compile(cfg: &marshal_build::xdr::Config, file: &Path) {
    if let Err(e) = cfg.compile(&[file]) {
        panic!("\n{e}");
    }
}
