//! Compiles `peers/rpcgen/xdr/flick.x`, `xdr/unions.x`, every `.x` file of Debian's `/usr/include/rpcsvc`
//! (packages `rpcsvc-proto` and `libnsl-dev`) and libtirpc's `rpcb_prot.x`; and the CORBA IDL
//! of `peers/omniorb/idl/flick.idl`, `idl/all.idl` and the files of Debian's `omniorb-idl` that
//! marshal-build accepts (those using no `any`, `valuetype` or `TypeCode`).

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
    let unions = Path::new(env!("CARGO_MANIFEST_DIR")).join("xdr/unions.x");
    compile(&marshal_build::xdr::Config::new(), &unions);
    compile(&marshal_build::xdr::Config::new(), tirpc);
    for (name, defines) in RPCSVC {
        let mut cfg = marshal_build::xdr::Config::new();
        cfg.include_dir(rpcsvc);
        for d in *defines {
            cfg.define(d);
        }
        compile(&cfg, &rpcsvc.join(format!("{name}.x")));
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
