//! Generates C++ stubs from `idl/flick.idl` with `omniidl -bcxx` and builds,
//! against omniORB 4.2:
//!
//! * a static library of the stubs and `src/glue.cpp`, linked into the crate;
//! * two standalone executables in OUT_DIR, `omni-server` and `omni-client`
//!   (from `src/omni_server.cpp` and `src/omni_client.cpp`), whose paths are
//!   exported to the crate as `OMNI_SERVER` and `OMNI_CLIENT`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

const REQUIREMENTS: &str = "omniorb-peer: omniORB 4.2 (omniidl and its C++ headers and libraries) \
     is required: apt-get install -y libomniorb4-dev omniidl omniorb";

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let idl = manifest_dir.join("idl").join("flick.idl");
    let src = manifest_dir.join("src");
    let glue = src.join("glue.cpp");
    let server_src = src.join("omni_server.cpp");
    let client_src = src.join("omni_client.cpp");

    for input in [&idl, &glue, &server_src, &client_src] {
        println!("cargo:rerun-if-changed={}", input.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");

    let omni = OmniOrb::probe();

    let status = Command::new(&omni.omniidl)
        .arg("-bcxx")
        .arg(format!("-C{}", out_dir.display()))
        .arg(&idl)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "{REQUIREMENTS} (could not run {}: {e})",
                omni.omniidl.display()
            )
        });
    assert!(
        status.success(),
        "omniorb-peer: `omniidl -bcxx {}` failed with {status}",
        idl.display()
    );
    let stubs = out_dir.join("flickSK.cc");

    // The stubs are compiled once, position-independent, and shared by the
    // static library and both executables.
    let cxx = Cxx::from_env();
    let stubs_obj = out_dir.join("flickSK.o");
    let mut cmd = cxx.command();
    cmd.args(["-O2", "-Wall", "-fPIC", "-c"])
        .args(&omni.cflags)
        .arg("-I")
        .arg(&out_dir)
        .arg(&stubs)
        .arg("-o")
        .arg(&stubs_obj);
    wait(spawn(cmd), "compiling the omniidl stubs");

    // Link both executables in the background while cc builds the library.
    let exe = |source: &Path, name: &str| {
        let path = out_dir.join(name);
        let mut cmd = cxx.command();
        cmd.args(["-O2", "-Wall"])
            .args(&omni.cflags)
            .arg("-I")
            .arg(&out_dir)
            .arg(source)
            .arg(&stubs_obj)
            .arg("-o")
            .arg(&path)
            .args(&omni.link_args)
            .arg("-lpthread");
        (spawn(cmd), path)
    };
    let (server, server_path) = exe(&server_src, "omni-server");
    let (client, client_path) = exe(&client_src, "omni-client");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file(&glue)
        .object(&stubs_obj)
        .include(&out_dir)
        .opt_level(2)
        .flag("-std=c++17");
    for inc in &omni.include_dirs {
        build.include(inc);
    }
    build.compile("omniorb_flick");

    wait(server, "building omni-server");
    wait(client, "building omni-client");

    for dir in &omni.lib_dirs {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in &omni.libs {
        println!("cargo:rustc-link-lib={lib}");
    }
    println!("cargo:rustc-env=OMNI_SERVER={}", server_path.display());
    println!("cargo:rustc-env=OMNI_CLIENT={}", client_path.display());
}

/// Where omniORB is, from `pkg-config omniORB4` when available, otherwise the
/// Debian defaults.
struct OmniOrb {
    omniidl: PathBuf,
    /// `-I`/`-D` flags for direct compiler invocations.
    cflags: Vec<String>,
    include_dirs: Vec<PathBuf>,
    /// `-L`/`-l` flags for direct compiler invocations.
    link_args: Vec<String>,
    lib_dirs: Vec<PathBuf>,
    libs: Vec<String>,
}

impl OmniOrb {
    fn probe() -> Self {
        let omniidl = pkg_config(&["--variable=omniidl", "omniORB4"])
            .filter(|s| !s.is_empty())
            .map_or_else(|| PathBuf::from("omniidl"), PathBuf::from);
        let cflags: Vec<String> = pkg_config(&["--cflags", "omniORB4"])
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let link_args: Vec<String> = pkg_config(&["--libs", "omniORB4"])
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_else(|| vec!["-lomniORB4".into(), "-lomnithread".into()]);
        let include_dirs: Vec<PathBuf> = cflags
            .iter()
            .filter_map(|f| f.strip_prefix("-I"))
            .map(PathBuf::from)
            .collect();
        let lib_dirs = link_args
            .iter()
            .filter_map(|f| f.strip_prefix("-L"))
            .map(PathBuf::from)
            .collect();
        let libs = link_args
            .iter()
            .filter_map(|f| f.strip_prefix("-l"))
            .map(str::to_owned)
            .collect();

        let header_found = include_dirs
            .iter()
            .map(PathBuf::as_path)
            .chain([Path::new("/usr/include"), Path::new("/usr/local/include")])
            .any(|dir| dir.join("omniORB4").join("CORBA.h").is_file());
        if !header_found {
            panic!("{REQUIREMENTS} (omniORB4/CORBA.h not found)");
        }
        OmniOrb {
            omniidl,
            cflags,
            include_dirs,
            link_args,
            lib_dirs,
            libs,
        }
    }
}

/// `pkg-config <args>`'s trimmed stdout, or `None` if it is missing or fails.
fn pkg_config(args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout)
        .ok()
        .map(|s| s.trim().to_owned())
}

/// The C++ compiler for direct invocations: `$CXX` (split on whitespace, so
/// wrappers like `ccache g++` work), default `c++`.
struct Cxx(Vec<String>);

impl Cxx {
    fn from_env() -> Self {
        let words: Vec<String> = env::var("CXX")
            .ok()
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        Cxx(if words.is_empty() {
            vec!["c++".into()]
        } else {
            words
        })
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.0[0]);
        cmd.args(&self.0[1..]);
        cmd
    }
}

fn spawn(mut cmd: Command) -> (Child, String) {
    let shown = format!("{cmd:?}");
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("omniorb-peer: could not run {shown}: {e}"));
    (child, shown)
}

fn wait((mut child, shown): (Child, String), what: &str) {
    let status = child
        .wait()
        .unwrap_or_else(|e| panic!("omniorb-peer: {what}: waiting for {shown}: {e}"));
    assert!(
        status.success(),
        "omniorb-peer: {what} failed ({status}): {shown}"
    );
}
