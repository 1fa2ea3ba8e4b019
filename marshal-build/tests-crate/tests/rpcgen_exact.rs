//! Byte-exactness against rpcgen: for every type of `mount.x`, `nfs_prot.x`, `yp.x`, `rstat.x`,
//! `rex.x`, `nis_object.x`, `bootparam_prot.x`, `sm_inter.x` (Debian's `/usr/include/rpcsvc`)
//! and `rpcb_prot.x` (libtirpc), the C that `rpcgen -c` generates and the Rust that
//! marshal-build generates encode the same values to the same bytes, and decode each other's;
//! and for this crate's `xdr/exact.x`, which has what those files do not (several labels on
//! an arm, `default` arms on `int`, `unsigned`, an enum and `bool`, every scalar type, arrays
//! and optional data of them).
//!
//! The values: for each type and seed, marshal-build's fillers (`build.rs` writes them with
//! `marshal_build::xdr::Config::random`) make the same pseudo-random value in C, over
//! rpcgen's types, and in Rust, over marshal-build's: both walk the type and draw from one
//! PRNG by the same rules (`marshal-build/src/xdr/random.rs`).
//!
//! During the run, the test runs `rpcgen -h` and `rpcgen -c` on each file, compiles the
//! output with the C fillers and `c/exact_driver.c` against libtirpc, and runs the driver once
//! over every type and seed. Then, for each:
//!
//! - C → Rust: rpcgen's encoding of C's value decodes in Rust to Rust's value of that seed,
//!   and marshal re-encodes it to the same bytes;
//! - Rust → C: marshal's encoding of Rust's value decodes with rpcgen's routine, which reads
//!   all of it and re-encodes it to the same bytes, which are those of C's own value of that
//!   seed (so C decoded the value it makes itself).
//!
//! It needs rpcgen (`rpcsvc-proto`), a C compiler (`cc`, or `$CC`) and libtirpc's headers
//! and library (`libtirpc-dev`): without them it fails, saying what to install.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use marshal::xdr::{Decode, Encode};

mod support {
    include!(concat!(env!("OUT_DIR"), "/random/support.rs"));
}

mod files {
    include!(concat!(env!("OUT_DIR"), "/random/files.rs"));
}

use support::Rng;

/// marshal's encoding of Rust's value of a seed.
type EncodeFn = Box<dyn Fn(u64) -> Result<Vec<u8>, String>>;

/// Checks rpcgen's encoding of C's value of a seed: it decodes to Rust's value of that seed,
/// which encodes to the same bytes.
type CheckFn = Box<dyn Fn(u64, &[u8]) -> Result<(), String>>;

/// What the test knows of one type: its name and how Rust makes, encodes and checks it.
struct Case {
    name: &'static str,
    encode: EncodeFn,
    check: CheckFn,
}

impl Case {
    fn new<T>(name: &'static str, fill: fn(&mut Rng, u32) -> T) -> Case
    where
        T: Encode + for<'de> Decode<'de> + PartialEq + Debug + 'static,
    {
        let value = move |seed| fill(&mut Rng::new(seed), 0);
        Case {
            name,
            encode: Box::new(move |seed| {
                marshal::xdr::to_vec(&value(seed))
                    .map_err(|e| format!("marshal cannot encode: {e}"))
            }),
            check: Box::new(move |seed, c_bytes| {
                let expected = value(seed);
                let decoded: T = marshal::xdr::from_slice(c_bytes)
                    .map_err(|e| format!("marshal cannot decode rpcgen's bytes: {e}"))?;
                if decoded != expected {
                    return Err(format!(
                        "marshal decodes rpcgen's bytes to\n  {decoded:?}\nnot\n  {expected:?}"
                    ));
                }
                let again = marshal::xdr::to_vec(&decoded)
                    .map_err(|e| format!("marshal cannot re-encode: {e}"))?;
                same_bytes("marshal re-encodes rpcgen's bytes", c_bytes, &again)
            }),
        }
    }
}

/// `Ok` if `got` is `want`, or where they first differ.
fn same_bytes(what: &str, want: &[u8], got: &[u8]) -> Result<(), String> {
    if want == got {
        return Ok(());
    }
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    Err(format!(
        "{what} differently: first difference at offset {at} (lengths {} and {}):\n  \
         want {:02x?}\n  got  {:02x?}",
        want.len(),
        got.len(),
        &want[at..want.len().min(at + 16)],
        &got[at..got.len().min(at + 16)],
    ))
}

/// What the fillers of each file expand to: the file's types.
macro_rules! marshal_random_types {
    ($($name:literal => $ty:ty, $fill:ident;)*) => {
        /// Every type of the file.
        pub fn cases() -> Vec<crate::Case> {
            vec![$(crate::Case::new::<$ty>($name, $fill)),*]
        }
    };
}

/// A module per file: its generated types, its fillers and the fillers of what it uses from
/// C headers.
macro_rules! exact {
    ($($stem:ident $({ $($prelude:item)* })?),* $(,)?) => {
        $(
            mod $stem {
                #[allow(unused_imports)]
                use marshal_build_tests::$stem::*;
                #[allow(unused_imports)]
                use crate::support::{Rng, MAX_DEPTH};
                $($($prelude)*)?
                include!(concat!(env!("OUT_DIR"), "/random/", stringify!($stem), ".rs"));
            }
        )*
        /// Each file's stem and types.
        const FILES: &[(&str, fn() -> Vec<Case>)] = &[$((stringify!($stem), $stem::cases)),*];
        /// `-DEXACT_FILES=` for the driver.
        const C_FILES: &str = concat!($("X(", stringify!($stem), ") ",)*);
    };
}

exact!(
    mount,
    nfs_prot,
    yp,
    rstat,
    rex,
    nis_object,
    bootparam_prot,
    sm_inter,
    rpcb_prot {
        // libtirpc's `uint32_t` typedefs, as `c/exact_driver.c` fills them.
        pub fn rand_rpcprog_t(rng: &mut Rng, _depth: u32) -> RpcprogT {
            rng.draw() as u32
        }
        pub fn rand_rpcvers_t(rng: &mut Rng, _depth: u32) -> RpcversT {
            rng.draw() as u32
        }
        pub fn rand_rpcproc_t(rng: &mut Rng, _depth: u32) -> RpcprocT {
            rng.draw() as u32
        }
    },
    exact,
);

/// Seeds per type.
const SEEDS: u64 = 16;

/// The seeds of a type: a few fixed ones, then seeds of its own (from its name).
fn seeds(name: &str) -> Vec<u64> {
    // FNV-1a of the name, then splitmix64 from there.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut rng = Rng::new(h);
    let mut seeds = vec![0, 1, u64::MAX];
    while seeds.len() < SEEDS as usize {
        seeds.push(rng.draw());
    }
    seeds
}

const INSTALL: &str =
    "apt-get install rpcsvc-proto libtirpc-dev gcc (scripts/test.sh installs them)";

/// Runs `cmd`, failing with its output (or with what to install when `what` is missing).
fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what} ({e}): {INSTALL}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// rpcgen's C for every file, compiled with the fillers and the driver: the driver's path.
fn build_driver(dir: &Path) -> PathBuf {
    let tirpc = Path::new("/usr/include/tirpc");
    assert!(
        tirpc.join("rpc/rpc.h").is_file(),
        "no libtirpc headers ({}): {INSTALL}",
        tirpc.display()
    );
    let random = Path::new(env!("OUT_DIR")).join("random");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut objects = Vec::new();
    let mut compile = |src: &Path, extra: &[&str]| {
        let obj = dir.join(src.file_name().unwrap()).with_extension("o");
        run(
            Command::new(&cc)
                .args(["-c", "-O1", "-I"])
                .arg(dir)
                .arg("-I")
                .arg(&random)
                .arg("-I")
                .arg(tirpc)
                .args(extra)
                .arg(src)
                .arg("-o")
                .arg(&obj),
            &format!("the C compiler `{cc}`"),
        );
        objects.push(obj);
    };
    // Our C: warnings are errors (rpcgen's headers have `#pragma ident`).
    let strict = [
        "-Wall",
        "-Werror",
        "-Wno-unknown-pragmas",
        "-Werror=implicit-function-declaration",
    ];
    for (stem, x) in files::EXACT {
        let copy = dir.join(format!("{stem}.x"));
        std::fs::copy(x, &copy).unwrap_or_else(|e| panic!("cannot copy {x}: {e}"));
        // rpcgen names the header it includes after its input: run it in `dir`.
        for (flag, out) in [("-h", format!("{stem}.h")), ("-c", format!("{stem}_xdr.c"))] {
            run(
                Command::new("rpcgen").current_dir(dir).args([
                    flag,
                    "-o",
                    &out,
                    &format!("{stem}.x"),
                ]),
                "rpcgen",
            );
        }
        // rpcb_prot.h's guard is that of libtirpc's own <rpc/rpcb_prot.h>, which <rpc/rpc.h>
        // includes through <rpc/rpcb_clnt.h> (whose declarations nothing here needs), and
        // rpcgen calls `xdr_rpcprog_t` and friends, which libtirpc does not have.
        let defines: &[&str] = if *stem == "rpcb_prot" {
            &[
                "-D_RPC_RPCB_CLNT_H",
                "-Dxdr_rpcprog_t=xdr_u_int32_t",
                "-Dxdr_rpcvers_t=xdr_u_int32_t",
                "-Dxdr_rpcproc_t=xdr_u_int32_t",
            ]
        } else {
            &[]
        };
        let mut rpcgen_flags = vec!["-Werror=implicit-function-declaration"];
        rpcgen_flags.extend(defines);
        compile(&dir.join(format!("{stem}_xdr.c")), &rpcgen_flags);
        let mut ours = strict.to_vec();
        ours.extend(defines);
        compile(&random.join(format!("{stem}.c")), &ours);
    }
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("c/exact_driver.c");
    let files_define = format!("-DEXACT_FILES={C_FILES}");
    let mut flags = strict.to_vec();
    flags.push(&files_define);
    compile(&driver, &flags);
    let exe = dir.join("exact_driver");
    run(
        Command::new(&cc)
            .args(&objects)
            .arg("-o")
            .arg(&exe)
            .arg("-ltirpc"),
        &format!("the C compiler `{cc}`"),
    );
    exe
}

/// A request to the driver.
enum Request<'a> {
    /// Encode C's value of `seed`.
    Encode { name: &'a str, seed: u64 },
    /// Decode `bytes`, then encode what was decoded.
    Decode {
        name: &'a str,
        seed: u64,
        bytes: &'a [u8],
    },
}

/// A reply of the driver.
#[derive(Debug)]
enum Reply {
    /// Done: how many bytes the decoder read, and the encoding.
    Done { consumed: u32, bytes: Vec<u8> },
    /// rpcgen's routine failed.
    Failed,
    /// Decoded, but encoding what was decoded failed.
    ReencodeFailed,
}

fn put_request(out: &mut Vec<u8>, r: &Request<'_>) {
    let (op, name, seed, bytes) = match *r {
        Request::Encode { name, seed } => (b'E', name, seed, None),
        Request::Decode { name, seed, bytes } => (b'D', name, seed, Some(bytes)),
    };
    out.push(op);
    out.extend_from_slice(&(name.len() as u32).to_be_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&seed.to_be_bytes());
    if let Some(b) = bytes {
        out.extend_from_slice(&(b.len() as u32).to_be_bytes());
        out.extend_from_slice(b);
    }
}

fn take_reply(input: &mut &[u8]) -> Reply {
    fn take<'a>(input: &mut &'a [u8], n: usize) -> &'a [u8] {
        assert!(input.len() >= n, "the driver's output ends early");
        let (a, b) = input.split_at(n);
        *input = b;
        a
    }
    let word = |input: &mut &[u8]| u32::from_be_bytes(take(input, 4).try_into().unwrap());
    let status = take(input, 1)[0];
    let consumed = word(input);
    let len = word(input) as usize;
    let bytes = take(input, len).to_vec();
    match status {
        1 => Reply::Done { consumed, bytes },
        0 => Reply::Failed,
        2 => Reply::ReencodeFailed,
        s => panic!("the driver replied status {s}"),
    }
}

/// Runs the driver over `requests`: its replies, in order.
fn run_driver(exe: &Path, requests: Vec<u8>) -> Vec<u8> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&requests));
    let mut replies = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut replies)
        .unwrap();
    writer.join().unwrap().expect("write the driver's input");
    let status = child.wait().unwrap();
    assert!(status.success(), "the driver failed: {status}");
    replies
}

#[test]
fn rpcgen_and_marshal_encode_the_same_values_to_the_same_bytes() {
    let stems: Vec<&str> = files::EXACT.iter().map(|(s, _)| *s).collect();
    let ours: Vec<&str> = FILES.iter().map(|(s, _)| *s).collect();
    assert_eq!(stems, ours, "build.rs's EXACT and this test's files differ");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rpcgen_exact");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = build_driver(&dir);

    // Every type of every file, and marshal's encoding of each value.
    struct Value {
        file: &'static str,
        case: usize,
        seed: u64,
        qualified: String,
        rust: Result<Vec<u8>, String>,
    }
    let cases: Vec<(&str, Vec<Case>)> = FILES.iter().map(|(s, f)| (*s, f())).collect();
    let mut values = Vec::new();
    for (file, cs) in &cases {
        for (i, c) in cs.iter().enumerate() {
            let qualified = format!("{file}/{}", c.name);
            for seed in seeds(&qualified) {
                values.push(Value {
                    file,
                    case: i,
                    seed,
                    qualified: qualified.clone(),
                    rust: (c.encode)(seed),
                });
            }
        }
    }

    // One run of the driver: per value, C's encoding, then C's decoding of marshal's.
    let mut requests = Vec::new();
    for v in &values {
        put_request(
            &mut requests,
            &Request::Encode {
                name: &v.qualified,
                seed: v.seed,
            },
        );
        if let Ok(bytes) = &v.rust {
            put_request(
                &mut requests,
                &Request::Decode {
                    name: &v.qualified,
                    seed: v.seed,
                    bytes,
                },
            );
        }
    }
    let replies = run_driver(&exe, requests);
    let mut input = replies.as_slice();

    let mut failures = Vec::new();
    let mut failed_values = 0;
    // Per file: types, values checked C → Rust, values checked Rust → C.
    let mut summary: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for (file, cs) in &cases {
        summary.insert(file, (cs.len(), 0, 0));
    }
    for v in &values {
        let case = &cases.iter().find(|(f, _)| *f == v.file).unwrap().1[v.case];
        let before = failures.len();
        let mut fail =
            |what: String| failures.push(format!("{} seed {:#x}: {what}", v.qualified, v.seed));
        let c_bytes = match take_reply(&mut input) {
            Reply::Done { bytes, .. } => Some(bytes),
            r => {
                fail(format!("rpcgen cannot encode C's value ({r:?})"));
                None
            }
        };
        if let Some(c) = &c_bytes {
            match (case.check)(v.seed, c) {
                Ok(()) => summary.get_mut(v.file).unwrap().1 += 1,
                Err(e) => fail(format!("C → Rust: {e}")),
            }
        }
        let rust = match &v.rust {
            Ok(b) => b,
            Err(e) => {
                fail(e.clone());
                failed_values += 1;
                continue;
            }
        };
        match take_reply(&mut input) {
            Reply::Done { consumed, bytes } => {
                let checked = if consumed as usize != rust.len() {
                    Err(format!(
                        "rpcgen decodes {consumed} of marshal's {} bytes",
                        rust.len()
                    ))
                } else {
                    same_bytes("rpcgen re-encodes marshal's bytes", rust, &bytes).and_then(|()| {
                        match &c_bytes {
                            Some(c) => {
                                same_bytes("marshal and rpcgen encode the seed's value", c, rust)
                            }
                            None => Err("no C encoding to compare with".to_string()),
                        }
                    })
                };
                match checked {
                    Ok(()) => summary.get_mut(v.file).unwrap().2 += 1,
                    Err(e) => fail(format!("Rust → C: {e}")),
                }
            }
            Reply::Failed => fail("Rust → C: rpcgen cannot decode marshal's bytes".to_string()),
            Reply::ReencodeFailed => {
                fail("Rust → C: rpcgen decodes marshal's bytes but cannot re-encode them".into())
            }
        }
        if failures.len() > before {
            failed_values += 1;
        }
    }
    assert!(input.is_empty(), "the driver replied more than asked");

    for (file, (types, c_to_rust, rust_to_c)) in &summary {
        println!(
            "{file}.x: {types} types, {c_to_rust} values C → Rust, {rust_to_c} values Rust → C"
        );
    }
    assert!(
        failures.is_empty(),
        "{failed_values} of {} values fail ({} failures; the first 20):\n{}",
        values.len(),
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Every type of every file was checked, both ways, with every seed.
    for (file, (types, c_to_rust, rust_to_c)) in &summary {
        assert!(*types > 0, "{file}.x has no types");
        assert_eq!(*c_to_rust, types * SEEDS as usize);
        assert_eq!(*rust_to_c, types * SEEDS as usize);
    }
}
