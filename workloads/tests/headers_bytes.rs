//! The layout-annotated headers of `workloads::headers`, byte for byte against two
//! implementations that share nothing with the derive:
//!
//! - Python's `struct` module (`tests/py/pack_headers.py`, format `'!…'`, bit-fields by
//!   shifts), packing the same field values and unpacking the same bytes;
//! - Linux/glibc's own structs (`tests/c/linux_headers.c`: `ether_header`, `iphdr`, `udphdr`,
//!   `tcphdr`, `ether_arp`, with their bit-fields, `htons`/`htonl` and `ntohs`/`ntohl`),
//!   compiled with `gcc` during the test.
//!
//! For every kind of header a few hundred values (every field zero and at its maximum, each
//! single bit set and cleared, and random values from a fixed seed) go through `write_to`,
//! `read_from`, the view getters, the `view_mut` setters and `read`/`write`, and each must
//! give the bytes or values the other side gives. Random byte strings are unpacked on both
//! sides too. Also: the Internet checksum against RFC 1071's reference code (in the C
//! program) and over packets built with the headers, and the bundled capture against the
//! script that makes it.
//!
//! A missing `python3` or `gcc` fails the tests (with the package to install): they never skip.

use std::collections::HashMap;
use std::fmt::Debug;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use marshal::layout::Layout;
use workloads::headers::{ArpHeader, BigHeader, EthernetHeader, Ipv4Header, TcpHeader, UdpHeader};
use workloads::pcap::{internet_checksum, pseudo_header_checksum, PcapReader, LINKTYPE_ETHERNET};

// ---- field values, as the foreign programs print them ----

/// A field's value: an integer (bit-fields and `bool` included) or a byte array.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    U(u64),
    B(Vec<u8>),
}

impl Val {
    /// As the programs print it: decimal, or hex.
    fn text(&self) -> String {
        match self {
            Val::U(x) => x.to_string(),
            Val::B(b) => hex(b),
        }
    }

    fn json(&self) -> String {
        match self {
            Val::U(x) => x.to_string(),
            Val::B(b) => format!(
                "[{}]",
                b.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
            ),
        }
    }

    /// Parses `text` as the kind of value `like` is.
    fn parse(text: &str, like: &Val) -> Val {
        match like {
            Val::U(_) => Val::U(text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))),
            Val::B(b) => {
                let v = unhex(text);
                assert_eq!(v.len(), b.len(), "{text:?}: wrong length");
                Val::B(v)
            }
        }
    }
}

trait FieldVal: Sized {
    /// The bits of the Rust type.
    const WIDTH: u32;
    fn to_val(&self) -> Val;
    fn from_val(v: &Val) -> Self;
}

macro_rules! uint_field {
    ($($t:ty),*) => { $(
        impl FieldVal for $t {
            const WIDTH: u32 = <$t>::BITS;
            fn to_val(&self) -> Val {
                Val::U(u64::from(*self))
            }
            fn from_val(v: &Val) -> Self {
                match v {
                    Val::U(x) => <$t>::try_from(*x).expect("value fits the field's type"),
                    Val::B(_) => panic!("bytes for an integer field"),
                }
            }
        }
    )* };
}
uint_field!(u8, u16, u32);

impl FieldVal for bool {
    const WIDTH: u32 = 1;
    fn to_val(&self) -> Val {
        Val::U(u64::from(*self))
    }
    fn from_val(v: &Val) -> Self {
        match v {
            Val::U(0) => false,
            Val::U(1) => true,
            _ => panic!("{v:?} for a bool"),
        }
    }
}

impl<const N: usize> FieldVal for [u8; N] {
    const WIDTH: u32 = 8 * N as u32;
    fn to_val(&self) -> Val {
        Val::B(self.to_vec())
    }
    fn from_val(v: &Val) -> Self {
        match v {
            Val::B(b) => b.as_slice().try_into().expect("right length"),
            Val::U(_) => panic!("an integer for a byte array"),
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("{s:?}: {e}")))
        .collect()
}

// ---- the headers, field by field ----

/// A header type, with its fields listed for the tests: names, widths in bits, and access to
/// each through the struct, the view, the mutable view and its setters.
trait Header: Layout + Copy + Default + PartialEq + Debug {
    /// The kind's name in both foreign programs.
    const KIND: &'static str;
    /// The name of the C struct that holds it.
    const C_STRUCT: &'static str;
    /// The fields, in declaration order.
    const NAMES: &'static [&'static str];
    /// The width of each field in bits (bit-fields: their bits; arrays: 8 per byte).
    const BITS: &'static [u32];
    /// The `set_` method of each field, by name, to check the macro's pairing.
    const SETTERS: &'static [&'static str];

    fn vals(&self) -> Vec<Val>;
    /// The bits of each field's Rust type.
    fn type_widths() -> Vec<u32>;
    fn from_vals(v: &[Val]) -> Self;
    /// Every getter of `view(bytes)`.
    fn view_vals(bytes: &[u8]) -> Vec<Val>;
    /// Every getter of `view_mut(bytes)`.
    fn view_mut_vals(bytes: &mut [u8]) -> Vec<Val>;
    /// `view(bytes).read()`, checking `as_bytes` on the way.
    fn view_read(bytes: &[u8]) -> Self;
    /// `view_mut(bytes).write(h)`, then `read()` and `as_bytes_mut` on the same view.
    fn view_mut_write(bytes: &mut [u8], h: &Self) -> Self;
    /// `view_mut(bytes).write(h)`, as it returns.
    fn try_view_mut_write(bytes: &mut [u8], h: &Self) -> Result<(), marshal::Error>;
    /// `view_mut(bytes).set_<field i>(v)`.
    fn set(bytes: &mut [u8], i: usize, v: &Val);
}

macro_rules! header {
    ($t:ident, $kind:literal, $c:literal, { $($f:ident / $set:ident : $bits:literal),* $(,)? }) => {
        impl Header for $t {
            const KIND: &'static str = $kind;
            const C_STRUCT: &'static str = $c;
            const NAMES: &'static [&'static str] = &[$(stringify!($f)),*];
            const BITS: &'static [u32] = &[$($bits),*];
            const SETTERS: &'static [&'static str] = &[$(stringify!($set)),*];

            fn vals(&self) -> Vec<Val> {
                vec![$(self.$f.to_val()),*]
            }
            fn type_widths() -> Vec<u32> {
                fn width<T: FieldVal>(_: &T) -> u32 {
                    T::WIDTH
                }
                let d = $t::default();
                vec![$(width(&d.$f)),*]
            }
            fn from_vals(v: &[Val]) -> Self {
                assert_eq!(v.len(), Self::NAMES.len());
                let mut it = v.iter();
                // A struct literal: a field left out of the list does not compile.
                $t { $($f: FieldVal::from_val(it.next().unwrap())),* }
            }
            fn view_vals(bytes: &[u8]) -> Vec<Val> {
                let v = $t::view(bytes).expect("long enough");
                vec![$(v.$f().to_val()),*]
            }
            fn view_mut_vals(bytes: &mut [u8]) -> Vec<Val> {
                let v = $t::view_mut(bytes).expect("long enough");
                vec![$(v.$f().to_val()),*]
            }
            fn view_read(bytes: &[u8]) -> Self {
                let v = $t::view(bytes).expect("long enough");
                assert_eq!(v.as_bytes()[..], bytes[..<$t as Layout>::SIZE]);
                v.read()
            }
            fn view_mut_write(bytes: &mut [u8], h: &Self) -> Self {
                let mut v = $t::view_mut(bytes).expect("long enough");
                v.write(h).expect("values fit");
                assert_eq!(v.as_bytes_mut().len(), <$t as Layout>::SIZE);
                v.read()
            }
            fn try_view_mut_write(bytes: &mut [u8], h: &Self) -> Result<(), marshal::Error> {
                $t::view_mut(bytes).expect("long enough").write(h)
            }
            fn set(bytes: &mut [u8], i: usize, val: &Val) {
                let mut v = $t::view_mut(bytes).expect("long enough");
                let mut k = 0;
                $(
                    if k == i {
                        v.$set(FieldVal::from_val(val));
                        return;
                    }
                    k += 1;
                )*
                panic!("no field {i} of {k}");
            }
        }
    };
}

header!(EthernetHeader, "eth", "ether_header", {
    dst / set_dst: 48,
    src / set_src: 48,
    ethertype / set_ethertype: 16,
});

header!(Ipv4Header, "ipv4", "iphdr", {
    version / set_version: 4,
    ihl / set_ihl: 4,
    tos / set_tos: 8,
    total_len / set_total_len: 16,
    id / set_id: 16,
    flags / set_flags: 3,
    frag_offset / set_frag_offset: 13,
    ttl / set_ttl: 8,
    protocol / set_protocol: 8,
    checksum / set_checksum: 16,
    src / set_src: 32,
    dst / set_dst: 32,
});

header!(UdpHeader, "udp", "udphdr", {
    src_port / set_src_port: 16,
    dst_port / set_dst_port: 16,
    len / set_len: 16,
    checksum / set_checksum: 16,
});

header!(TcpHeader, "tcp", "tcphdr", {
    src_port / set_src_port: 16,
    dst_port / set_dst_port: 16,
    seq / set_seq: 32,
    ack_seq / set_ack_seq: 32,
    data_offset / set_data_offset: 4,
    reserved / set_reserved: 4,
    cwr / set_cwr: 1,
    ece / set_ece: 1,
    urg / set_urg: 1,
    ack / set_ack: 1,
    psh / set_psh: 1,
    rst / set_rst: 1,
    syn / set_syn: 1,
    fin / set_fin: 1,
    window / set_window: 16,
    checksum / set_checksum: 16,
    urgent_ptr / set_urgent_ptr: 16,
});

header!(ArpHeader, "arp", "ether_arp", {
    htype / set_htype: 16,
    ptype / set_ptype: 16,
    hlen / set_hlen: 8,
    plen / set_plen: 8,
    oper / set_oper: 16,
    sha / set_sha: 48,
    spa / set_spa: 32,
    tha / set_tha: 48,
    tpa / set_tpa: 32,
});

header!(BigHeader, "big", "big", {
    eth_dst / set_eth_dst: 48,
    eth_src / set_eth_src: 48,
    eth_type / set_eth_type: 16,
    ip_version / set_ip_version: 4,
    ip_ihl / set_ip_ihl: 4,
    ip_tos / set_ip_tos: 8,
    ip_total_len / set_ip_total_len: 16,
    ip_id / set_ip_id: 16,
    ip_flags / set_ip_flags: 3,
    ip_frag_offset / set_ip_frag_offset: 13,
    ip_ttl / set_ip_ttl: 8,
    ip_protocol / set_ip_protocol: 8,
    ip_checksum / set_ip_checksum: 16,
    ip_src / set_ip_src: 32,
    ip_dst / set_ip_dst: 32,
    tcp_src_port / set_tcp_src_port: 16,
    tcp_dst_port / set_tcp_dst_port: 16,
    tcp_seq / set_tcp_seq: 32,
    tcp_ack_seq / set_tcp_ack_seq: 32,
    tcp_data_offset / set_tcp_data_offset: 4,
    tcp_reserved / set_tcp_reserved: 4,
    tcp_flags / set_tcp_flags: 8,
    tcp_window / set_tcp_window: 16,
    tcp_checksum / set_tcp_checksum: 16,
    tcp_urgent_ptr / set_tcp_urgent_ptr: 16,
    arp_htype / set_arp_htype: 16,
    arp_ptype / set_arp_ptype: 16,
    arp_hlen / set_arp_hlen: 8,
    arp_plen / set_arp_plen: 8,
    arp_oper / set_arp_oper: 16,
    arp_sha / set_arp_sha: 48,
    arp_spa / set_arp_spa: 32,
    arp_tha / set_arp_tha: 48,
    arp_tpa / set_arp_tpa: 32,
});

// ---- values to compare ----

/// splitmix64: a small deterministic generator.
struct SplitMix(u64);

impl SplitMix {
    fn new(seed: &str) -> Self {
        SplitMix(seed.bytes().fold(0x243f_6a88_85a3_08d3, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Random values per kind.
const RANDOM: usize = 300;

/// The value of a field like `like`, `bits` wide, whose bit `k` (0 = least significant; for
/// arrays, of the last byte) is `bit(k)`.
fn from_bits(like: &Val, bits: u32, bit: impl Fn(u32) -> bool) -> Val {
    match like {
        Val::U(_) => Val::U((0..bits).filter(|&k| bit(k)).map(|k| 1u64 << k).sum()),
        Val::B(b) => {
            assert_eq!(bits as usize, 8 * b.len());
            let n = b.len();
            let mut out = vec![0u8; n];
            for k in (0..bits).filter(|&k| bit(k)) {
                out[n - 1 - (k / 8) as usize] |= 1 << (k % 8);
            }
            Val::B(out)
        }
    }
}

/// A random value of the field: 0 or all ones an eighth of the time each, else any.
fn random_val(like: &Val, bits: u32, rng: &mut SplitMix) -> Val {
    let (r, x) = (rng.next() % 8, rng.next());
    match like {
        Val::U(_) => Val::U(match r {
            0 => 0,
            1 => (1u64 << bits) - 1,
            _ => x & ((1u64 << bits) - 1),
        }),
        Val::B(b) => Val::B(match r {
            0 => vec![0; b.len()],
            1 => vec![0xff; b.len()],
            _ => rng.bytes(b.len()),
        }),
    }
}

/// The values of header kind `H` compared with the other implementations: all fields zero;
/// all at their maximum; each field at its maximum with the others zero, and zero with the
/// others at their maximum; each single bit of each field set (the rest zero) and cleared (the
/// rest ones); and [`RANDOM`] random headers.
fn cases<H: Header>() -> Vec<H> {
    let like = H::default().vals();
    let n = like.len();
    assert_eq!((H::NAMES.len(), H::BITS.len()), (n, n), "{}", H::KIND);
    let field = |i: usize, set: &dyn Fn(u32) -> bool| from_bits(&like[i], H::BITS[i], set);
    let all = |set: bool| -> Vec<Val> { (0..n).map(|i| field(i, &|_| set)).collect() };
    let mut out = vec![all(false), all(true)];
    for i in 0..n {
        for set in [true, false] {
            let mut v = all(!set);
            v[i] = field(i, &|_| set);
            out.push(v);
        }
        for k in 0..H::BITS[i] {
            for set in [true, false] {
                let mut v = all(!set);
                v[i] = field(i, &|b| (b == k) == set);
                out.push(v);
            }
        }
    }
    let mut rng = SplitMix::new(H::KIND);
    for _ in 0..RANDOM {
        out.push(
            (0..n)
                .map(|i| random_val(&like[i], H::BITS[i], &mut rng))
                .collect(),
        );
    }
    out.iter().map(|v| H::from_vals(v)).collect()
}

/// Random byte strings of the kind's size, to unpack on both sides.
fn random_bytes<H: Header>() -> Vec<Vec<u8>> {
    let mut rng = SplitMix::new(&format!("{} bytes", H::KIND));
    (0..RANDOM).map(|_| rng.bytes(H::SIZE)).collect()
}

/// `h.write_to` into a buffer longer than the record and full of garbage: checks that the
/// bytes after the record are untouched and returns the record's bytes.
fn written<H: Header>(h: &H) -> Vec<u8> {
    let mut buf = vec![0xa5; H::SIZE + 3];
    h.write_to(&mut buf)
        .unwrap_or_else(|e| panic!("{}: write_to({h:?}): {e}", H::KIND));
    assert_eq!(
        buf[H::SIZE..],
        [0xa5; 3],
        "{}: wrote past the record",
        H::KIND
    );
    buf.truncate(H::SIZE);
    buf
}

/// Checks everything the derive generates for `bytes` (from a foreign program) and `h` (the
/// value they must hold): `read_from`, `write_to`, every getter of both views, `read`,
/// `write`, and every setter (all of them from garbage, and each alone, leaving the others).
fn check_record<H: Header>(what: &str, h: &H, bytes: &[u8], rng: &mut SplitMix) {
    let kind = H::KIND;
    assert_eq!(bytes.len(), H::SIZE, "{what}");
    assert_eq!(written(h), bytes, "{kind} {what}: write_to({h:?})");
    // A longer input: the record is its prefix.
    let mut longer = bytes.to_vec();
    longer.extend([1, 2, 3]);
    assert_eq!(
        H::read_from(&longer).unwrap(),
        *h,
        "{kind} {what}: read_from"
    );
    assert_eq!(H::view_vals(bytes), h.vals(), "{kind} {what}: view getters");
    assert_eq!(H::view_read(bytes), *h, "{kind} {what}: view().read()");
    assert_eq!(
        H::view_mut_vals(&mut longer),
        h.vals(),
        "{kind} {what}: view_mut getters"
    );

    let mut buf = vec![0x5a; H::SIZE];
    assert_eq!(
        H::view_mut_write(&mut buf, h),
        *h,
        "{kind} {what}: view_mut().write()"
    );
    assert_eq!(buf, bytes, "{kind} {what}: view_mut().write() bytes");

    // Every setter, starting from garbage: every bit of these headers belongs to a field.
    let mut buf = rng.bytes(H::SIZE);
    for (i, v) in h.vals().iter().enumerate() {
        H::set(&mut buf, i, v);
    }
    assert_eq!(buf, bytes, "{kind} {what}: all set_ methods");

    // Each setter alone changes its field and nothing else.
    let like = h.vals();
    for i in 0..like.len() {
        let new = random_val(&like[i], H::BITS[i], rng);
        let mut buf = bytes.to_vec();
        H::set(&mut buf, i, &new);
        let mut want = like.clone();
        want[i] = new;
        let want = H::from_vals(&want);
        assert_eq!(
            buf,
            written(&want),
            "{kind} {what}: {}({:?})",
            H::SETTERS[i],
            want.vals()[i]
        );
    }
}

/// The `name=value` words of a foreign program's `unpack` answer, as the fields of `H`.
fn parse_fields<H: Header>(words: &[&str]) -> Vec<Val> {
    let like = H::default().vals();
    let got: Vec<(&str, &str)> = words
        .iter()
        .map(|w| {
            w.split_once('=')
                .unwrap_or_else(|| panic!("{w:?}: not name=value"))
        })
        .collect();
    let names: Vec<&str> = got.iter().map(|g| g.0).collect();
    assert_eq!(names, H::NAMES, "{}: the fields, in order", H::KIND);
    got.iter()
        .zip(&like)
        .map(|((_, text), like)| Val::parse(text, like))
        .collect()
}

// ---- running the foreign programs ----

/// Runs `cmd` with `input` on its stdin and returns its stdout; fails if it cannot start
/// (naming the package that provides it) or does not succeed.
fn run(mut cmd: Command, input: String, package: &str) -> String {
    let name = format!("{:?}", cmd.get_program());
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {name} ({e}): this test needs it and does not skip; \
                 install it (apt-get install {package})"
            )
        });
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("waiting for the child");
    writer
        .join()
        .expect("writer thread")
        .expect("writing the child's stdin");
    assert!(
        out.status.success(),
        "{name} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> Command {
    Command::new("python3")
}

/// `tests/c/linux_headers.c`, compiled once per test run.
fn c_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("linux-headers");
        std::fs::create_dir_all(&dir).expect("temp dir");
        let src = manifest_dir().join("tests/c/linux_headers.c");
        let exe = dir.join("linux_headers");
        let out = Command::new("gcc")
            .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run gcc ({e}): this test compiles {} and does not skip; \
                     install it (apt-get install gcc libc6-dev)",
                    src.display()
                )
            });
        assert!(
            out.status.success(),
            "gcc failed to compile {}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

/// Answers of a foreign program, by command and kind, in order.
type Answers = HashMap<(String, String), Vec<String>>;

fn answers(stdout: &str) -> Answers {
    let mut out = Answers::new();
    for line in stdout.lines() {
        let mut w = line.splitn(3, ' ');
        let (cmd, kind, rest) = (w.next(), w.next(), w.next());
        let (Some(cmd), Some(kind), Some(rest)) = (cmd, kind, rest) else {
            panic!("unexpected answer line {line:?}");
        };
        out.entry((cmd.to_string(), kind.to_string()))
            .or_default()
            .push(rest.to_string());
    }
    out
}

fn take_answers(a: &mut Answers, cmd: &str, kind: &str, count: usize) -> Vec<String> {
    let got = a
        .remove(&(cmd.to_string(), kind.to_string()))
        .unwrap_or_default();
    assert_eq!(got.len(), count, "{cmd} {kind}: answers");
    got
}

// ---- Python ----

/// The kind's part of the request: `"kind":[{...},...]` to pack, `"kind":["hex",...]` to
/// unpack.
fn python_request<H: Header>() -> (String, String) {
    let pack: Vec<String> = cases::<H>()
        .iter()
        .map(|h| {
            let fields: Vec<String> = H::NAMES
                .iter()
                .zip(h.vals())
                .map(|(n, v)| format!("\"{n}\":{}", v.json()))
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    let unpack: Vec<String> = random_bytes::<H>()
        .iter()
        .map(|b| format!("\"{}\"", hex(b)))
        .collect();
    (
        format!("\"{}\":[{}]", H::KIND, pack.join(",")),
        format!("\"{}\":[{}]", H::KIND, unpack.join(",")),
    )
}

fn check_python<H: Header>(a: &mut Answers) -> usize {
    let cases = cases::<H>();
    let mut rng = SplitMix::new(&format!("{} python", H::KIND));
    let packed = take_answers(a, "pack", H::KIND, cases.len());
    for (k, (h, hexbytes)) in cases.iter().zip(&packed).enumerate() {
        check_record(&format!("case {k} (python)"), h, &unhex(hexbytes), &mut rng);
    }
    let randoms = random_bytes::<H>();
    let unpacked = take_answers(a, "unpack", H::KIND, randoms.len());
    for (k, (b, line)) in randoms.iter().zip(&unpacked).enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        let want = H::from_vals(&parse_fields::<H>(&words));
        check_record(&format!("random bytes {k} (python)"), &want, b, &mut rng);
    }
    cases.len()
}

#[test]
fn python_struct_packs_the_same_bytes() {
    let parts = [
        python_request::<EthernetHeader>(),
        python_request::<Ipv4Header>(),
        python_request::<UdpHeader>(),
        python_request::<TcpHeader>(),
        python_request::<ArpHeader>(),
        python_request::<BigHeader>(),
    ];
    let pack: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
    let unpack: Vec<&str> = parts.iter().map(|p| p.1.as_str()).collect();
    let request = format!(
        "{{\"pack\":{{{}}},\"unpack\":{{{}}}}}",
        pack.join(","),
        unpack.join(",")
    );
    let mut cmd = python();
    cmd.arg(manifest_dir().join("tests/py/pack_headers.py"));
    let mut a = answers(&run(cmd, request, "python3"));
    let counts = [
        check_python::<EthernetHeader>(&mut a),
        check_python::<Ipv4Header>(&mut a),
        check_python::<UdpHeader>(&mut a),
        check_python::<TcpHeader>(&mut a),
        check_python::<ArpHeader>(&mut a),
        check_python::<BigHeader>(&mut a),
    ];
    assert!(a.is_empty(), "unexpected answers: {:?}", a.keys());
    assert!(counts.iter().all(|&c| c > RANDOM), "{counts:?}");
}

// ---- Linux's structs, in C ----

fn c_request<H: Header>(req: &mut String) {
    for h in cases::<H>() {
        req.push_str("pack ");
        req.push_str(H::KIND);
        for (n, v) in H::NAMES.iter().zip(h.vals()) {
            req.push_str(&format!(" {n}={}", v.text()));
        }
        req.push('\n');
    }
    for h in cases::<H>() {
        req.push_str(&format!("unpack {} {}\n", H::KIND, hex(&written(&h))));
    }
    for b in random_bytes::<H>() {
        req.push_str(&format!("unpack {} {}\n", H::KIND, hex(&b)));
    }
}

fn check_c<H: Header>(a: &mut Answers, sizes: &HashMap<String, usize>) -> usize {
    let kind = H::KIND;
    assert_eq!(
        sizes.get(H::C_STRUCT),
        Some(&H::SIZE),
        "{kind}: sizeof(struct {}) against the layout's size",
        H::C_STRUCT
    );
    let cases = cases::<H>();
    let randoms = random_bytes::<H>();
    let mut rng = SplitMix::new(&format!("{kind} c"));
    let packed = take_answers(a, "pack", kind, cases.len());
    for (k, (h, hexbytes)) in cases.iter().zip(&packed).enumerate() {
        check_record(&format!("case {k} (C)"), h, &unhex(hexbytes), &mut rng);
    }
    let unpacked = take_answers(a, "unpack", kind, cases.len() + randoms.len());
    let (of_cases, of_randoms) = unpacked.split_at(cases.len());
    for (k, (h, line)) in cases.iter().zip(of_cases).enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            parse_fields::<H>(&words),
            h.vals(),
            "{kind} case {k}: C read the Rust bytes {}",
            hex(&written(h))
        );
    }
    for (k, (b, line)) in randoms.iter().zip(of_randoms).enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        let want = H::from_vals(&parse_fields::<H>(&words));
        check_record(&format!("random bytes {k} (C)"), &want, b, &mut rng);
    }
    cases.len()
}

#[test]
fn linux_structs_hold_the_same_bytes() {
    let mut req = String::from("sizeof\n");
    c_request::<EthernetHeader>(&mut req);
    c_request::<Ipv4Header>(&mut req);
    c_request::<UdpHeader>(&mut req);
    c_request::<TcpHeader>(&mut req);
    c_request::<ArpHeader>(&mut req);
    c_request::<BigHeader>(&mut req);
    let out = run(Command::new(c_program()), req, "gcc libc6-dev");
    let (first, rest) = out.split_once('\n').expect("a sizeof line");
    let sizes: HashMap<String, usize> = first
        .strip_prefix("sizeof ")
        .expect("sizeof first")
        .split(' ')
        .map(|w| {
            let (n, s) = w.split_once('=').expect("name=size");
            (n.to_string(), s.parse().expect("a size"))
        })
        .collect();
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    let mut a = answers(rest);
    let counts = [
        check_c::<EthernetHeader>(&mut a, &sizes),
        check_c::<Ipv4Header>(&mut a, &sizes),
        check_c::<UdpHeader>(&mut a, &sizes),
        check_c::<TcpHeader>(&mut a, &sizes),
        check_c::<ArpHeader>(&mut a, &sizes),
        check_c::<BigHeader>(&mut a, &sizes),
    ];
    assert!(a.is_empty(), "unexpected answers: {:?}", a.keys());
    assert!(counts.iter().all(|&c| c > RANDOM), "{counts:?}");
}

#[test]
fn the_macro_pairs_each_field_with_its_setter() {
    fn check<H: Header>() {
        for (n, s) in H::NAMES.iter().zip(H::SETTERS) {
            assert_eq!(format!("set_{n}"), *s, "{}", H::KIND);
        }
        assert_eq!(
            H::BITS.iter().sum::<u32>() as usize,
            8 * H::SIZE,
            "{}: every bit is a field's",
            H::KIND
        );
    }
    check::<EthernetHeader>();
    check::<Ipv4Header>();
    check::<UdpHeader>();
    check::<TcpHeader>();
    check::<ArpHeader>();
    check::<BigHeader>();
    // The case list covers what it claims: one field at its maximum, the others zero.
    let c = cases::<Ipv4Header>();
    assert!(c.contains(&Ipv4Header {
        frag_offset: 0x1fff,
        ..Ipv4Header::default()
    }));
    assert!(c.contains(&Ipv4Header {
        flags: 0b010,
        ..Ipv4Header::default()
    }));
    let t = cases::<TcpHeader>();
    assert!(t.contains(&TcpHeader {
        syn: true,
        ..TcpHeader::default()
    }));
    assert!(t.contains(&TcpHeader {
        reserved: 0b0100,
        ..TcpHeader::default()
    }));
}

// ---- checksums ----

/// The Internet checksum against RFC 1071's reference code (in the C program), which sums
/// 16-bit words in host byte order: random data of every length up to 64 bytes (odd ones
/// padded) and a few long ones, and pseudo-header checksums as the pseudo-header's bytes.
#[test]
fn internet_checksum_agrees_with_rfc_1071_reference_code() {
    let mut rng = SplitMix::new("checksum");
    let mut data: Vec<Vec<u8>> = (0..64).map(|n| rng.bytes(n)).collect();
    for n in [1499, 1500, 9000] {
        data.push(rng.bytes(n));
    }
    data.push(vec![0xff; 1500]);
    data.push(vec![0; 21]);
    let mut want: Vec<u16> = data.iter().map(|d| internet_checksum(d)).collect();
    for n in [0, 1, 8, 20, 33, 1480] {
        let seg = rng.bytes(n);
        let (src, dst) = (rng.bytes(4), rng.bytes(4));
        let (src, dst): ([u8; 4], [u8; 4]) = (src.try_into().unwrap(), dst.try_into().unwrap());
        for proto in [6, 17] {
            let mut whole = [&src[..], &dst[..], &[0, proto], &(n as u16).to_be_bytes()].concat();
            whole.extend(&seg);
            want.push(pseudo_header_checksum(src, dst, proto, &seg));
            data.push(whole);
        }
    }
    let req: String = data.iter().map(|d| format!("cksum {}\n", hex(d))).collect();
    let out = run(Command::new(c_program()), req, "gcc libc6-dev");
    let got: Vec<u16> = out
        .lines()
        .map(|l| {
            let h = unhex(l.strip_prefix("cksum ").expect("a cksum answer"));
            u16::from_be_bytes([h[0], h[1]])
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "checksum {k} of {} bytes", data[k].len());
    }
}

const DF: u8 = 0b010;
const MF: u8 = 0b001;

/// Ethernet, IPv4 and a UDP (17) or TCP (6) header around `payload`, built with the layout
/// headers, checksums filled in through `view_mut`.
fn build_packet(ip: Ipv4Header, l4: L4, payload: &[u8]) -> Vec<u8> {
    let eth = EthernetHeader {
        dst: [0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e],
        src: [0x52, 0x54, 0x00, 0x12, 0x34, 0x56],
        ethertype: 0x0800,
    };
    let l4_len = match l4 {
        L4::Udp(_) => 8,
        L4::Tcp(_) => 20,
    };
    let total = 20 + l4_len + payload.len();
    let mut frame = vec![0u8; 14 + total];
    eth.write_to(&mut frame).unwrap();
    let ip = Ipv4Header {
        total_len: total as u16,
        checksum: 0,
        ..ip
    };
    ip.write_to(&mut frame[14..]).unwrap();
    frame[34 + l4_len..].copy_from_slice(payload);
    match l4 {
        L4::Udp(u) => {
            let u = UdpHeader {
                len: (8 + payload.len()) as u16,
                checksum: 0,
                ..u
            };
            u.write_to(&mut frame[34..]).unwrap();
            let c = pseudo_header_checksum(ip.src, ip.dst, 17, &frame[34..]);
            let mut v = UdpHeader::view_mut(&mut frame[34..]).unwrap();
            v.set_checksum(if c == 0 { 0xffff } else { c });
        }
        L4::Tcp(t) => {
            TcpHeader { checksum: 0, ..t }
                .write_to(&mut frame[34..])
                .unwrap();
            let c = pseudo_header_checksum(ip.src, ip.dst, 6, &frame[34..]);
            TcpHeader::view_mut(&mut frame[34..])
                .unwrap()
                .set_checksum(c);
        }
    }
    let mut v = Ipv4Header::view_mut(&mut frame[14..]).unwrap();
    v.set_checksum(0);
    let c = internet_checksum(&v.as_bytes()[..]);
    v.set_checksum(c);
    frame
}

#[derive(Debug, Clone, Copy)]
enum L4 {
    Udp(UdpHeader),
    Tcp(TcpHeader),
}

/// Whether the IPv4 header and the UDP/TCP checksum (over the IP payload `total_len` claims)
/// of `frame` verify.
fn checksums_verify(frame: &[u8]) -> bool {
    let ip = Ipv4Header::view(&frame[14..]).unwrap();
    let end = 14 + usize::from(ip.total_len());
    let header_ok = internet_checksum(&frame[14..34]) == 0;
    match frame.get(34..end) {
        Some(seg) => {
            header_ok && pseudo_header_checksum(ip.src(), ip.dst(), ip.protocol(), seg) == 0
        }
        None => false,
    }
}

#[test]
fn checksums_of_packets_built_with_the_headers_verify() {
    let mut rng = SplitMix::new("packets");
    let mut verified = 0;
    for k in 0..400 {
        let r = |rng: &mut SplitMix| rng.next();
        let ip = Ipv4Header {
            version: 4,
            ihl: 5,
            tos: r(&mut rng) as u8,
            id: r(&mut rng) as u16,
            flags: if k % 2 == 0 { DF } else { 0 },
            ttl: r(&mut rng) as u8,
            protocol: if k % 3 == 0 { 6 } else { 17 },
            src: (r(&mut rng) as u32).to_be_bytes(),
            dst: (r(&mut rng) as u32).to_be_bytes(),
            ..Ipv4Header::default()
        };
        let l4 = if ip.protocol == 6 {
            let f = r(&mut rng) as u8;
            L4::Tcp(TcpHeader {
                src_port: r(&mut rng) as u16,
                dst_port: r(&mut rng) as u16,
                seq: r(&mut rng) as u32,
                ack_seq: r(&mut rng) as u32,
                data_offset: 5,
                syn: f & 2 != 0,
                ack: f & 0x10 != 0,
                fin: f & 1 != 0,
                psh: f & 8 != 0,
                window: r(&mut rng) as u16,
                ..TcpHeader::default()
            })
        } else {
            L4::Udp(UdpHeader {
                src_port: r(&mut rng) as u16,
                dst_port: 53,
                ..UdpHeader::default()
            })
        };
        let len = (r(&mut rng) % 120) as usize;
        let payload = rng.bytes(len);
        let frame = build_packet(ip, l4, &payload);
        assert!(checksums_verify(&frame), "packet {k}: {}", hex(&frame));
        verified += 1;

        // The headers read back as built, with their checksums.
        let back = Ipv4Header::read_from(&frame[14..]).unwrap();
        assert_eq!(back.total_len as usize, frame.len() - 14);
        assert_eq!(
            Ipv4Header {
                checksum: ip.checksum,
                total_len: ip.total_len,
                ..back
            },
            ip
        );

        // Any single flipped bit of the IP header or segment is caught.
        let bit = (r(&mut rng) as usize) % (8 * (frame.len() - 14));
        let mut bad = frame.clone();
        bad[14 + bit / 8] ^= 1 << (bit % 8);
        assert!(
            !checksums_verify(&bad),
            "packet {k}: flipped bit {bit} not caught"
        );
    }
    assert_eq!(verified, 400);

    // Wikipedia's header, built field by field: the known checksum 0xb861.
    let ip = Ipv4Header {
        version: 4,
        ihl: 5,
        total_len: 0x73,
        flags: DF,
        ttl: 64,
        protocol: 17,
        src: [192, 168, 0, 1],
        dst: [192, 168, 0, 199],
        ..Ipv4Header::default()
    };
    let mut b = [0u8; 20];
    ip.write_to(&mut b).unwrap();
    assert_eq!(internet_checksum(&b), 0xb861);
}

// ---- the bundled capture ----

fn sample_path() -> PathBuf {
    manifest_dir().join("examples/data/sample.pcap")
}

#[test]
fn sample_pcap_is_what_its_script_writes() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-regenerated.pcap");
    let script = manifest_dir().join("../scripts/make_sample_pcap.py");
    let mut cmd = python();
    cmd.arg(&script).arg(&out);
    run(cmd, String::new(), "python3");
    let fresh = std::fs::read(&out).expect("the script's output");
    let committed = std::fs::read(sample_path()).expect("the committed sample");
    assert!(
        fresh == committed,
        "{} differs from what {} writes: run it to regenerate",
        sample_path().display(),
        script.display()
    );
}

/// The frame rebuilt from its headers, read with `read_from` and written again with
/// `write_to`, checksums zeroed and recomputed in Rust; payload and padding copied.
fn rebuild(frame: &[u8]) -> Vec<u8> {
    let mut out = frame.to_vec();
    out[..14].fill(0);
    let eth = EthernetHeader::read_from(frame).unwrap();
    eth.write_to(&mut out).unwrap();
    match eth.ethertype {
        0x0800 => {
            let ip = Ipv4Header::read_from(&frame[14..]).unwrap();
            assert_eq!((ip.version, ip.ihl), (4, 5), "no options in the sample");
            let end = 14 + usize::from(ip.total_len);
            let whole = ip.flags & MF == 0 && ip.frag_offset == 0;
            match ip.protocol {
                17 if whole => {
                    let u = UdpHeader::read_from(&frame[34..]).unwrap();
                    out[34..42].fill(0);
                    UdpHeader { checksum: 0, ..u }
                        .write_to(&mut out[34..])
                        .unwrap();
                    let c = pseudo_header_checksum(ip.src, ip.dst, 17, &out[34..end]);
                    let c = if c == 0 { 0xffff } else { c };
                    UdpHeader::view_mut(&mut out[34..]).unwrap().set_checksum(c);
                }
                6 if whole => {
                    let t = TcpHeader::read_from(&frame[34..]).unwrap();
                    out[34..54].fill(0);
                    TcpHeader { checksum: 0, ..t }
                        .write_to(&mut out[34..])
                        .unwrap();
                    let c = pseudo_header_checksum(ip.src, ip.dst, 6, &out[34..end]);
                    TcpHeader::view_mut(&mut out[34..]).unwrap().set_checksum(c);
                }
                _ => {}
            }
            out[14..34].fill(0xee);
            Ipv4Header { checksum: 0, ..ip }
                .write_to(&mut out[14..])
                .unwrap();
            let c = internet_checksum(&out[14..34]);
            Ipv4Header::view_mut(&mut out[14..])
                .unwrap()
                .set_checksum(c);
        }
        0x0806 => {
            out[14..42].fill(0xee);
            ArpHeader::read_from(&frame[14..])
                .unwrap()
                .write_to(&mut out[14..])
                .unwrap();
        }
        t => panic!("unexpected ethertype {t:#06x}"),
    }
    out
}

#[test]
fn sample_pcap_rebuilt_with_the_headers_is_the_same() {
    let file = std::fs::read(sample_path()).expect("the bundled sample");
    let r = PcapReader::new(&file).unwrap();
    assert_eq!(r.header().linktype, LINKTYPE_ETHERNET);
    let frames: Vec<&[u8]> = r.map(|p| p.unwrap().data).collect();
    assert_eq!(frames.len(), 9);

    let mut seen = Vec::new();
    let mut fragments: Vec<(u16, Vec<u8>)> = Vec::new();
    let mut datagram = None;
    for (k, frame) in frames.iter().enumerate() {
        assert_eq!(rebuild(frame), *frame, "frame {k}");
        let eth = EthernetHeader::view(frame).unwrap();
        if eth.ethertype() == 0x0806 {
            let arp = ArpHeader::view(&frame[14..]).unwrap();
            seen.push(format!("arp {}", arp.oper()));
            continue;
        }
        let ip = Ipv4Header::view(&frame[14..]).unwrap();
        assert_eq!(internet_checksum(&frame[14..34]), 0, "frame {k}");
        let payload = &frame[34..14 + usize::from(ip.total_len())];
        if ip.flags() & MF != 0 || ip.frag_offset() != 0 {
            seen.push(format!(
                "fragment mf={} off={}",
                ip.flags() & MF,
                ip.frag_offset()
            ));
            assert_eq!(
                usize::from(ip.frag_offset()) * 8,
                fragments.iter().map(|f| f.1.len()).sum::<usize>()
            );
            fragments.push((ip.id(), payload.to_vec()));
            if ip.flags() & MF == 0 {
                let whole: Vec<u8> = fragments.iter().flat_map(|f| f.1.clone()).collect();
                assert!(
                    fragments.iter().all(|f| f.0 == fragments[0].0),
                    "one datagram"
                );
                datagram = Some((ip.src(), ip.dst(), ip.protocol(), whole));
            }
            continue;
        }
        assert!(checksums_verify(frame), "frame {k}");
        let df = if ip.flags() & DF != 0 { " df" } else { "" };
        match ip.protocol() {
            17 => {
                let u = UdpHeader::view(payload).unwrap();
                seen.push(format!("udp {}>{}{df}", u.src_port(), u.dst_port()));
            }
            6 => {
                let t = TcpHeader::view(payload).unwrap();
                let flags = [
                    (t.syn(), "S"),
                    (t.ack(), "A"),
                    (t.fin(), "F"),
                    (t.rst(), "R"),
                ];
                let f: String = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
                seen.push(format!(
                    "tcp {}>{} {f} off={}{df}",
                    t.src_port(),
                    t.dst_port(),
                    t.data_offset()
                ));
            }
            p => panic!("unexpected protocol {p}"),
        }
    }
    assert_eq!(
        seen,
        [
            "udp 53211>53",
            "udp 53>53211",
            "tcp 51514>80 S off=5 df",
            "tcp 80>51514 SA off=5 df",
            "fragment mf=1 off=0",
            "fragment mf=1 off=3",
            "fragment mf=0 off=6",
            "arp 1",
            "arp 2",
        ]
    );
    // The reassembled datagram's UDP checksum verifies.
    let (src, dst, proto, whole) = datagram.expect("a reassembled datagram");
    assert_eq!(
        UdpHeader::read_from(&whole).unwrap().len as usize,
        whole.len()
    );
    assert_eq!(pseudo_header_checksum(src, dst, proto, &whole), 0);
}

/// Bit-field values wider than their bits: `write_to` and `view_mut().write()` refuse them,
/// writing nothing, and name the field; a setter keeps the low bits, as a C bit-field does,
/// and leaves the neighbouring fields alone. For each bit-field of each kind, over a few
/// hundred values.
#[test]
fn bit_fields_refuse_or_truncate_values_wider_than_their_bits() {
    fn check<H: Header>() -> usize {
        let widths = H::type_widths();
        let mut rng = SplitMix::new(&format!("{} wide", H::KIND));
        let mut checked = 0;
        for h in cases::<H>().iter().step_by(7) {
            let bytes = written(h);
            for (i, &bits) in H::BITS.iter().enumerate() {
                if bits >= widths[i] {
                    continue;
                }
                let over = 1u64 << bits | rng.next() & ((1u64 << widths[i]) - 1);
                let mut vals = h.vals();
                vals[i] = Val::U(over);
                let wide = H::from_vals(&vals);
                let mut buf = vec![0x77; H::SIZE];
                let e = wide.write_to(&mut buf).unwrap_err();
                let name = H::NAMES[i];
                assert_eq!(buf, vec![0x77; H::SIZE], "{}: {name} written", H::KIND);
                assert!(
                    e.to_string()
                        .contains(&format!("{name}: value {over} does not fit {bits} bits")),
                    "{e}"
                );
                let mut buf = bytes.clone();
                let mut v = buf.clone();
                assert!(H::try_view_mut_write(&mut v, &wide).is_err());
                assert_eq!(
                    v,
                    bytes,
                    "{}: view_mut().write() of a too wide {name}",
                    H::KIND
                );

                H::set(&mut buf, i, &Val::U(over));
                vals[i] = Val::U(over & ((1 << bits) - 1));
                assert_eq!(
                    buf,
                    written(&H::from_vals(&vals)),
                    "{}: {}({over})",
                    H::KIND,
                    H::SETTERS[i]
                );
                checked += 1;
            }
        }
        checked
    }
    assert_eq!(check::<EthernetHeader>(), 0);
    assert!(check::<Ipv4Header>() > 300);
    assert_eq!(check::<UdpHeader>(), 0);
    assert!(check::<TcpHeader>() > 150);
    assert_eq!(check::<ArpHeader>(), 0);
    assert!(check::<BigHeader>() > 1000);
}
