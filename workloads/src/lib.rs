//! Flick's benchmark workloads (PLDI '97, §4) as `marshal` types, and generators for them.
//!
//! - arrays of `int`;
//! - arrays of `rect` (`struct rect { point a; point b; }`, `struct point { int x; int y; }`);
//! - arrays of directory entries: a `string<255>` name plus a stat record of 30 `int`s and
//!   `opaque[16]`; every entry encodes to exactly 256 bytes.
//!
//! Also the shapes of the interop tests: a union with a `default` arm and an optional-data list.
//! The XDR definitions are in `peers/rpcgen/xdr/flick.x`.

use marshal::Marshal;

pub mod bench_object;
pub mod flick_rpc;
pub mod headers;
pub mod hoschka;
pub mod ksdata;
pub mod pbio;
pub mod pcap;
pub mod scalar300;

/// `struct point { int x; int y; }`
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// `struct rect { point a; point b; }` — 16 bytes.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub a: Point,
    pub b: Point,
}

/// `struct stat_rec { int ints[30]; opaque chars[16]; }` — 136 bytes.
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    pub ints: [i32; 30],
    pub chars: [u8; 16],
}

/// `struct dirent { string name<255>; stat_rec st; }`
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    #[marshal(max_len = 255)]
    pub name: String,
    pub st: Stat,
}

/// A directory entry decoded in place: the name borrows from the message (Flick's "use the
/// marshal buffer to hold unmarshaled data"), checked to be UTF-8.
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct DirEntryRef<'a> {
    #[marshal(max_len = 255)]
    pub name: &'a str,
    pub st: Stat,
}

/// A directory entry whose name is raw bytes borrowed from the message, as NFS treats file
/// names (the same wire bytes as `string<255>`; no UTF-8 requirement).
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct DirEntryBytes<'a> {
    #[marshal(max_len = 255)]
    pub name: &'a [u8],
    pub st: Stat,
}

/// A directory entry that owns its name without copying it: decoded from a shared buffer
/// (`marshal::xdr::from_bytes`), the name is a slice of it. NDR has no `BytesStr`.
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
#[marshal(formats(xdr, cdr))]
pub struct DirEntryShared {
    #[marshal(max_len = 255)]
    pub name: marshal::BytesStr,
    pub st: Stat,
}

/// `union result switch (int tag) { case 0: int ival; case 1: string sval<>; case 2: void; default: rect other; }`
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub enum XResult {
    #[marshal(tag = 0)]
    Int(i32),
    #[marshal(tag = 1)]
    Str(String),
    #[marshal(tag = 2)]
    Void,
    #[marshal(default)]
    Other(i32, Rect),
}

/// `struct entry { int id; string name<>; entry *next; }`. The derive gives it an iterative
/// `Drop`, so a list of any length drops in constant stack.
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: i32,
    pub name: String,
    pub next: Option<Box<Entry>>,
}

/// `struct entry_list { entry *head; }`
#[derive(Marshal, Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryList {
    pub head: Option<Box<Entry>>,
}

impl EntryList {
    /// Builds a list from `(id, name)` pairs, in order.
    pub fn from_pairs(pairs: &[(i32, String)]) -> Self {
        let mut head = None;
        for (id, name) in pairs.iter().rev() {
            head = Some(Box::new(Entry {
                id: *id,
                name: name.clone(),
                next: head,
            }));
        }
        EntryList { head }
    }

    /// The `(id, name)` pairs, in order.
    pub fn to_pairs(&self) -> Vec<(i32, String)> {
        let mut out = Vec::new();
        let mut cur = self.head.as_deref();
        while let Some(e) = cur {
            out.push((e.id, e.name.clone()));
            cur = e.next.as_deref();
        }
        out
    }
}

/// Name length that makes a directory entry exactly 256 encoded bytes: 4 + 116 + 136.
pub const DIRENT_NAME_LEN: usize = 116;
/// Encoded bytes per directory entry.
pub const DIRENT_BYTES: usize = 256;

/// A small deterministic generator (xorshift), so every run uses the same data.
#[derive(Debug, Clone)]
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen(seed | 1)
    }
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    pub fn next_i32(&mut self) -> i32 {
        self.next_u32() as i32
    }
}

/// `n` ints.
pub fn ints(n: usize) -> Vec<i32> {
    let mut g = Gen::new(1);
    (0..n).map(|_| g.next_i32()).collect()
}

/// `n` rects.
pub fn rects(n: usize) -> Vec<Rect> {
    let mut g = Gen::new(2);
    (0..n)
        .map(|_| Rect {
            a: Point {
                x: g.next_i32(),
                y: g.next_i32(),
            },
            b: Point {
                x: g.next_i32(),
                y: g.next_i32(),
            },
        })
        .collect()
}

/// `n` directory entries, each exactly [`DIRENT_BYTES`] encoded.
pub fn dirents(n: usize) -> Vec<DirEntry> {
    let mut g = Gen::new(3);
    (0..n)
        .map(|i| {
            let mut name = format!("file-{i:08}-");
            while name.len() < DIRENT_NAME_LEN {
                name.push((b'a' + (g.next_u32() % 26) as u8) as char);
            }
            let mut ints = [0i32; 30];
            ints.iter_mut().for_each(|v| *v = g.next_i32());
            let mut chars = [0u8; 16];
            chars.iter_mut().for_each(|c| *c = g.next_u32() as u8);
            DirEntry {
                name,
                st: Stat { ints, chars },
            }
        })
        .collect()
}

/// The message sizes of the benchmarks: 64 B, 1 KiB, 64 KiB, 1 MiB, 4 MiB.
pub const SIZES: [usize; 5] = [64, 1 << 10, 64 << 10, 1 << 20, 4 << 20];

/// Element counts so that an array's payload is `bytes` (length prefix aside).
pub fn count_for(bytes: usize, elem: usize) -> usize {
    (bytes / elem).max(1)
}

/// A human label for a size: `64B`, `1KiB`, `4MiB`.
pub fn size_label(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirent_is_256_bytes_and_sizes_are_as_flick() {
        let d = dirents(3);
        let bytes = marshal::xdr::to_vec(&d).unwrap();
        assert_eq!(bytes.len(), 4 + 3 * DIRENT_BYTES);
        assert_eq!(
            marshal::xdr::from_slice::<Vec<DirEntry>>(&bytes).unwrap(),
            d
        );
        assert_eq!(
            marshal::xdr::size_class::<Rect>(),
            marshal::SizeClass::Fixed(16)
        );
        assert_eq!(
            marshal::xdr::size_class::<Stat>(),
            marshal::SizeClass::Fixed(136)
        );
        assert_eq!(
            marshal::xdr::size_class::<DirEntry>(),
            marshal::SizeClass::Bounded(396)
        );
    }

    #[test]
    fn list_pairs_round_trip() {
        let pairs: Vec<(i32, String)> = (0..5).map(|i| (i, format!("n{i}"))).collect();
        let l = EntryList::from_pairs(&pairs);
        let bytes = marshal::xdr::to_vec(&l).unwrap();
        let back: EntryList = marshal::xdr::from_slice(&bytes).unwrap();
        assert_eq!(back.to_pairs(), pairs);
    }
}
