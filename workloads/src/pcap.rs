//! Classic libpcap capture files, and the Internet checksum.
//!
//! A file is a 24-byte global header — magic, version, time zone, accuracy, snapshot length,
//! link type — then records, each a 16-byte header (seconds, micro- or nanoseconds, captured
//! length, original length) and the captured bytes. The magic `0xa1b2c3d4` (microsecond
//! timestamps) or `0xa1b23c4d` (nanoseconds), read in either byte order, gives the byte order
//! of every other header field.
//!
//! [`PcapReader`] borrows the file's bytes and yields each packet as a slice of them. It never
//! panics: a truncated header or record, an unknown magic or version, or a record longer than
//! [`MAX_RECORD_LEN`] is a [`PcapError`], after which the iterator ends. [`PcapWriter`] makes
//! files in the microsecond or nanosecond little-endian form.
//!
//! [`internet_checksum`] and [`pseudo_header_checksum`] are the ones'-complement checksum of
//! IPv4, UDP and TCP (RFC 1071).

use std::fmt;
use std::io::{self, Write};
use std::iter::FusedIterator;

/// The link type of Ethernet frames (`LINKTYPE_ETHERNET`, `DLT_EN10MB`).
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The longest record the reader accepts: 256 KiB (libpcap's own limit for most link types).
pub const MAX_RECORD_LEN: u32 = 256 * 1024;
/// Bytes of the global header at the start of a file.
pub const GLOBAL_HEADER_LEN: usize = 24;
/// Bytes of the header before each record's data.
pub const RECORD_HEADER_LEN: usize = 16;

const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;

/// What the fraction of a second in record headers counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// Microseconds (magic `0xa1b2c3d4`).
    Micros,
    /// Nanoseconds (magic `0xa1b23c4d`).
    Nanos,
}

/// The byte order of a file's header fields (that of the machine that wrote it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

/// A file's global header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalHeader {
    /// The byte order of the header fields, as told by the magic.
    pub endian: Endian,
    /// The unit of the timestamps' fractions, as told by the magic.
    pub precision: Precision,
    /// Major version: 2.
    pub version_major: u16,
    /// Minor version: 4.
    pub version_minor: u16,
    /// GMT offset of the timestamps in seconds (in practice 0).
    pub thiszone: i32,
    /// Accuracy of the timestamps (in practice 0).
    pub sigfigs: u32,
    /// The most bytes captured of any packet.
    pub snaplen: u32,
    /// The link type of every packet: [`LINKTYPE_ETHERNET`] for Ethernet frames.
    pub linktype: u32,
}

/// One captured packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Seconds since the Unix epoch.
    pub ts_sec: u32,
    /// The fraction of the second, in nanoseconds (microsecond files' values times 1000).
    pub ts_nanos: u64,
    /// The packet's length on the wire, which `data` may fall short of.
    pub orig_len: u32,
    /// The captured bytes.
    pub data: &'a [u8],
}

/// Why a capture file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PcapError {
    /// The file ends inside `what`, which starts at `offset` and needs `needed` bytes of which
    /// `remaining` are there.
    Truncated {
        /// `"global header"`, `"record header"` or `"packet data"`.
        what: &'static str,
        /// Offset of its first byte in the file.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Bytes the file has from `offset`.
        remaining: usize,
    },
    /// The first four bytes are not a pcap magic in either byte order.
    BadMagic([u8; 4]),
    /// A major version other than 2.
    UnsupportedVersion {
        /// The major version.
        major: u16,
        /// The minor version.
        minor: u16,
    },
    /// A record header at `offset` claims `len` captured bytes, more than [`MAX_RECORD_LEN`].
    RecordTooLong {
        /// Offset of the record header in the file.
        offset: usize,
        /// The captured length it claims.
        len: u32,
    },
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Truncated {
                what,
                offset,
                needed,
                remaining,
            } => write!(
                f,
                "pcap file truncated in the {what} at offset {offset}: needed {needed} bytes, \
                 {remaining} remain"
            ),
            PcapError::BadMagic(m) => write!(
                f,
                "not a pcap file: magic {:02x}{:02x}{:02x}{:02x}",
                m[0], m[1], m[2], m[3]
            ),
            PcapError::UnsupportedVersion { major, minor } => {
                write!(f, "unsupported pcap version {major}.{minor} (expected 2.x)")
            }
            PcapError::RecordTooLong { offset, len } => write!(
                f,
                "pcap record at offset {offset} claims {len} captured bytes, more than the \
                 limit of {MAX_RECORD_LEN}"
            ),
        }
    }
}

impl std::error::Error for PcapError {}

/// Reads the `u32` at the start of `b` in byte order `e`.
fn u32_at(b: &[u8; 4], e: Endian) -> u32 {
    match e {
        Endian::Little => u32::from_le_bytes(*b),
        Endian::Big => u32::from_be_bytes(*b),
    }
}

/// The `W` bytes of `b` from `at`; callers have checked the length.
fn take<const W: usize>(b: &[u8], at: usize) -> [u8; W] {
    let mut out = [0u8; W];
    if let Some(s) = b.get(at..at + W) {
        out.copy_from_slice(s);
    }
    out
}

/// The packets of a capture file held in memory, in file order; an iterator of
/// `Result<Packet, PcapError>` that ends after the last packet or the first error.
///
/// ```
/// use workloads::pcap::{PcapReader, PcapWriter, Precision, LINKTYPE_ETHERNET};
///
/// let mut w = PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET, 65535, Precision::Micros)?;
/// w.write_packet(1_700_000_000, 250_000, &[0xff; 60])?;
/// let file = w.into_inner();
///
/// let mut r = PcapReader::new(&file)?;
/// assert_eq!(r.header().linktype, LINKTYPE_ETHERNET);
/// let p = r.next().unwrap()?;
/// assert_eq!((p.ts_sec, p.ts_nanos, p.data.len()), (1_700_000_000, 250_000_000, 60));
/// assert!(r.next().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct PcapReader<'a> {
    header: GlobalHeader,
    file: &'a [u8],
    /// Offset of the next record header; `None` once an error has been returned.
    next: Option<usize>,
}

impl<'a> PcapReader<'a> {
    /// Reads the global header of `file`.
    pub fn new(file: &'a [u8]) -> Result<Self, PcapError> {
        let Some(h) = file.first_chunk::<GLOBAL_HEADER_LEN>() else {
            return Err(PcapError::Truncated {
                what: "global header",
                offset: 0,
                needed: GLOBAL_HEADER_LEN,
                remaining: file.len(),
            });
        };
        let magic = take::<4>(h, 0);
        let (endian, precision) = match u32::from_le_bytes(magic) {
            MAGIC_MICROS => (Endian::Little, Precision::Micros),
            MAGIC_NANOS => (Endian::Little, Precision::Nanos),
            m if m.swap_bytes() == MAGIC_MICROS => (Endian::Big, Precision::Micros),
            m if m.swap_bytes() == MAGIC_NANOS => (Endian::Big, Precision::Nanos),
            _ => return Err(PcapError::BadMagic(magic)),
        };
        let u16_at = |at| match endian {
            Endian::Little => u16::from_le_bytes(take::<2>(h, at)),
            Endian::Big => u16::from_be_bytes(take::<2>(h, at)),
        };
        let header = GlobalHeader {
            endian,
            precision,
            version_major: u16_at(4),
            version_minor: u16_at(6),
            thiszone: u32_at(&take::<4>(h, 8), endian) as i32,
            sigfigs: u32_at(&take::<4>(h, 12), endian),
            snaplen: u32_at(&take::<4>(h, 16), endian),
            linktype: u32_at(&take::<4>(h, 20), endian),
        };
        if header.version_major != 2 {
            return Err(PcapError::UnsupportedVersion {
                major: header.version_major,
                minor: header.version_minor,
            });
        }
        Ok(PcapReader {
            header,
            file,
            next: Some(GLOBAL_HEADER_LEN),
        })
    }

    /// The file's global header.
    pub fn header(&self) -> &GlobalHeader {
        &self.header
    }

    fn read_record(&self, at: usize) -> Result<(Packet<'a>, usize), PcapError> {
        let rest = self.file.get(at..).unwrap_or_default();
        let Some(h) = rest.first_chunk::<RECORD_HEADER_LEN>() else {
            return Err(PcapError::Truncated {
                what: "record header",
                offset: at,
                needed: RECORD_HEADER_LEN,
                remaining: rest.len(),
            });
        };
        let e = self.header.endian;
        let ts_sec = u32_at(&take::<4>(h, 0), e);
        let frac = u64::from(u32_at(&take::<4>(h, 4), e));
        let incl_len = u32_at(&take::<4>(h, 8), e);
        let orig_len = u32_at(&take::<4>(h, 12), e);
        if incl_len > MAX_RECORD_LEN {
            return Err(PcapError::RecordTooLong {
                offset: at,
                len: incl_len,
            });
        }
        // At most 256 KiB (checked above), so this fits any `usize` of 32 bits or more.
        let len = incl_len as usize;
        let body = &rest[RECORD_HEADER_LEN..];
        let Some(data) = body.get(..len) else {
            return Err(PcapError::Truncated {
                what: "packet data",
                offset: at + RECORD_HEADER_LEN,
                needed: len,
                remaining: body.len(),
            });
        };
        let ts_nanos = match self.header.precision {
            Precision::Micros => frac * 1000,
            Precision::Nanos => frac,
        };
        let packet = Packet {
            ts_sec,
            ts_nanos,
            orig_len,
            data,
        };
        Ok((packet, at + RECORD_HEADER_LEN + len))
    }
}

impl<'a> Iterator for PcapReader<'a> {
    type Item = Result<Packet<'a>, PcapError>;

    fn next(&mut self) -> Option<Self::Item> {
        let at = self.next?;
        if at >= self.file.len() {
            self.next = None;
            return None;
        }
        match self.read_record(at) {
            Ok((packet, next)) => {
                self.next = Some(next);
                Some(Ok(packet))
            }
            Err(e) => {
                self.next = None;
                Some(Err(e))
            }
        }
    }
}

impl FusedIterator for PcapReader<'_> {}

/// Writes a capture file: the global header when made, then a record per
/// [`write_packet`](Self::write_packet), all little-endian.
#[derive(Debug)]
pub struct PcapWriter<W> {
    out: W,
    snaplen: u32,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a file of link type `linktype` (e.g. [`LINKTYPE_ETHERNET`]) whose packets are
    /// captured up to `snaplen` bytes (at most [`MAX_RECORD_LEN`] are kept, so that the file
    /// can be read back), with timestamps in `precision`.
    pub fn new(mut out: W, linktype: u32, snaplen: u32, precision: Precision) -> io::Result<Self> {
        let magic = match precision {
            Precision::Micros => MAGIC_MICROS,
            Precision::Nanos => MAGIC_NANOS,
        };
        let mut h = [0u8; GLOBAL_HEADER_LEN];
        h[0..4].copy_from_slice(&magic.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs: 0.
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&linktype.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen: snaplen.min(MAX_RECORD_LEN),
        })
    }

    /// Writes one packet seen at `ts_sec` seconds and `ts_frac` micro- or nanoseconds (as the
    /// file's precision), keeping its first `snaplen` bytes.
    pub fn write_packet(&mut self, ts_sec: u32, ts_frac: u32, data: &[u8]) -> io::Result<()> {
        let orig_len = u32::try_from(data.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a pcap record holds at most 4 GiB",
            )
        })?;
        let incl_len = orig_len.min(self.snaplen);
        let mut h = [0u8; RECORD_HEADER_LEN];
        h[0..4].copy_from_slice(&ts_sec.to_le_bytes());
        h[4..8].copy_from_slice(&ts_frac.to_le_bytes());
        h[8..12].copy_from_slice(&incl_len.to_le_bytes());
        h[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&data[..incl_len as usize])
    }

    /// The output, after the last packet.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The ones'-complement sum of `data` as big-endian 16-bit words (an odd last byte padded
/// with a zero byte), added to `sum` (a sum of earlier words, not yet folded).
fn sum_words(mut sum: u64, data: &[u8]) -> u64 {
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    sum
}

/// Folds the carries of a 64-bit sum back into 16 bits (end-around carry).
fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The Internet checksum of `data` (RFC 1071): the ones'-complement of the ones'-complement
/// sum of its big-endian 16-bit words, an odd last byte padded with zero.
///
/// To fill a header's checksum, compute it with the checksum field zero and store the result
/// big-endian; a header whose stored checksum is right sums to zero:
/// `internet_checksum(header) == 0`.
///
/// ```
/// use workloads::pcap::internet_checksum;
/// // RFC 1071's example: the words sum to 0xddf2.
/// assert_eq!(internet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), !0xddf2);
/// ```
pub fn internet_checksum(data: &[u8]) -> u16 {
    !fold(sum_words(0, data))
}

/// The checksum of a UDP or TCP `segment` (header and payload) carried in IPv4 from `src` to
/// `dst` with `protocol` (17 or 6): [`internet_checksum`] over the pseudo-header (addresses,
/// zero, protocol, segment length) followed by the segment.
///
/// As with [`internet_checksum`], compute it with the segment's checksum field zero, or verify
/// a received segment by checking for zero. UDP sends a computed checksum of 0 as `0xffff`
/// (0 on the wire means "no checksum").
pub fn pseudo_header_checksum(src: [u8; 4], dst: [u8; 4], protocol: u8, segment: &[u8]) -> u16 {
    let mut sum = sum_words(0, &src);
    sum = sum_words(sum, &dst);
    sum += u64::from(protocol);
    // The length is 16 bits in IPv4's pseudo-header; adding the whole value is the same
    // ones'-complement sum as adding its 16-bit halves.
    sum += segment.len() as u64;
    !fold(sum_words(sum, segment))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET, 65535, Precision::Micros)
            .expect("writing to a Vec");
        w.write_packet(10, 20, &[1, 2, 3]).unwrap();
        w.write_packet(11, 999_999, &[]).unwrap();
        w.write_packet(12, 0, &[9; 70]).unwrap();
        w.into_inner()
    }

    #[test]
    fn writes_and_reads_back() {
        let file = sample();
        assert_eq!(file.len(), 24 + 16 + 3 + 16 + 16 + 70);
        assert_eq!(file[..4], [0xd4, 0xc3, 0xb2, 0xa1]);
        let r = PcapReader::new(&file).unwrap();
        assert_eq!(
            *r.header(),
            GlobalHeader {
                endian: Endian::Little,
                precision: Precision::Micros,
                version_major: 2,
                version_minor: 4,
                thiszone: 0,
                sigfigs: 0,
                snaplen: 65535,
                linktype: 1,
            }
        );
        let packets: Vec<Packet<'_>> = r.map(Result::unwrap).collect();
        assert_eq!(packets.len(), 3);
        assert_eq!(
            packets[0],
            Packet {
                ts_sec: 10,
                ts_nanos: 20_000,
                orig_len: 3,
                data: &[1, 2, 3]
            }
        );
        assert_eq!(
            (packets[1].ts_nanos, packets[1].data.len()),
            (999_999_000, 0)
        );
        assert_eq!(packets[2].data, &[9; 70][..]);
    }

    #[test]
    fn snaplen_truncates_and_keeps_the_original_length() {
        let mut w = PcapWriter::new(Vec::new(), 1, 4, Precision::Nanos).unwrap();
        w.write_packet(1, 999_999_999, &[1, 2, 3, 4, 5, 6]).unwrap();
        let file = w.into_inner();
        let mut r = PcapReader::new(&file).unwrap();
        assert_eq!(r.header().precision, Precision::Nanos);
        let p = r.next().unwrap().unwrap();
        assert_eq!(
            (p.data, p.orig_len, p.ts_nanos),
            (&[1, 2, 3, 4][..], 6, 999_999_999)
        );
        assert!(r.next().is_none());
    }

    /// The same file with every header field byte-swapped: a big-endian writer's.
    fn to_big_endian(file: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for f in file[..24].chunks(4) {
            if out.len() == 4 {
                // major and minor version: two u16.
                out.extend([f[1], f[0], f[3], f[2]]);
            } else {
                out.extend(f.iter().rev());
            }
        }
        let mut at = 24;
        while at < file.len() {
            let h = &file[at..at + 16];
            for f in h.chunks(4) {
                out.extend(f.iter().rev());
            }
            let len = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as usize;
            out.extend(&file[at + 16..at + 16 + len]);
            at += 16 + len;
        }
        out
    }

    #[test]
    fn big_endian_and_nanosecond_magics() {
        let le = sample();
        let be = to_big_endian(&le);
        assert_eq!(be[..4], [0xa1, 0xb2, 0xc3, 0xd4]);
        let r = PcapReader::new(&be).unwrap();
        assert_eq!(r.header().endian, Endian::Big);
        assert_eq!((r.header().version_major, r.header().version_minor), (2, 4));
        assert_eq!(r.header().snaplen, 65535);
        let a: Vec<_> = r.map(Result::unwrap).collect();
        let b: Vec<_> = PcapReader::new(&le).unwrap().map(Result::unwrap).collect();
        assert_eq!(a, b);

        let mut nano = be.clone();
        nano[..4].copy_from_slice(&[0xa1, 0xb2, 0x3c, 0x4d]);
        let r = PcapReader::new(&nano).unwrap();
        assert_eq!(
            (r.header().endian, r.header().precision),
            (Endian::Big, Precision::Nanos)
        );
        assert_eq!(
            r.map(|p| p.unwrap().ts_nanos).collect::<Vec<_>>(),
            [20, 999_999, 0]
        );
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let file = sample();
        for cut in 0..file.len() {
            let short = &file[..cut];
            let r = match PcapReader::new(short) {
                Ok(r) => r,
                Err(e) => {
                    assert!(cut < 24, "cut {cut}: {e}");
                    assert!(matches!(
                        e,
                        PcapError::Truncated {
                            what: "global header",
                            ..
                        }
                    ));
                    continue;
                }
            };
            let results: Vec<_> = r.collect();
            let ends = [24, 24 + 19, 24 + 35];
            if ends.contains(&cut) {
                assert!(results.iter().all(Result::is_ok), "cut {cut}");
            } else {
                let last = results.last().expect("an error");
                let e = last.as_ref().unwrap_err();
                assert!(matches!(e, PcapError::Truncated { .. }), "cut {cut}: {e}");
                assert!(
                    e.to_string().starts_with("pcap file truncated in the "),
                    "{e}"
                );
            }
        }
        let e = PcapReader::new(&file[..43 + 10]).unwrap().nth(1).unwrap();
        assert_eq!(
            e.unwrap_err().to_string(),
            "pcap file truncated in the record header at offset 43: needed 16 bytes, 10 remain"
        );
        let e = PcapReader::new(&file[..24 + 16 + 2])
            .unwrap()
            .next()
            .unwrap();
        assert_eq!(
            e.unwrap_err(),
            PcapError::Truncated {
                what: "packet data",
                offset: 40,
                needed: 3,
                remaining: 2
            }
        );
    }

    #[test]
    fn hostile_lengths_and_magics_are_refused() {
        let mut file = sample();
        // The first record claims 4 GiB − 1 bytes.
        file[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut r = PcapReader::new(&file).unwrap();
        let e = r.next().unwrap().unwrap_err();
        assert_eq!(
            e,
            PcapError::RecordTooLong {
                offset: 24,
                len: u32::MAX
            }
        );
        assert!(e.to_string().contains("4294967295 captured bytes"), "{e}");
        assert!(r.next().is_none(), "the reader stops after an error");

        // Just over the limit, though the bytes are all there, and just at the limit.
        let mut w = PcapWriter::new(Vec::new(), 1, u32::MAX, Precision::Micros).unwrap();
        w.write_packet(0, 0, &vec![0; MAX_RECORD_LEN as usize])
            .unwrap();
        let mut big = w.into_inner();
        assert_eq!(PcapReader::new(&big).unwrap().count(), 1);
        big[24 + 8..24 + 12].copy_from_slice(&(MAX_RECORD_LEN + 1).to_le_bytes());
        big.push(0);
        assert!(matches!(
            PcapReader::new(&big).unwrap().next(),
            Some(Err(PcapError::RecordTooLong { .. }))
        ));

        for magic in [[0u8; 4], [0xa1, 0xb2, 0xc3, 0xd5], *b"\x0a\x0d\x0d\x0a"] {
            let mut f = sample();
            f[..4].copy_from_slice(&magic);
            let e = PcapReader::new(&f).unwrap_err();
            assert_eq!(e, PcapError::BadMagic(magic));
        }
        let mut f = sample();
        f[4] = 1;
        assert_eq!(
            PcapReader::new(&f).unwrap_err().to_string(),
            "unsupported pcap version 1.4 (expected 2.x)"
        );
    }

    #[test]
    fn garbage_never_panics() {
        // Deterministic garbage after a valid global header, and garbage headers.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let head = sample()[..24].to_vec();
        for round in 0..2000 {
            let len = (next() % 200) as usize;
            let mut f = if round % 2 == 0 {
                head.clone()
            } else {
                Vec::new()
            };
            f.extend((0..len).map(|_| next() as u8));
            if let Ok(r) = PcapReader::new(&f) {
                let mut total = 0;
                for p in r {
                    match p {
                        Ok(p) => total += p.data.len(),
                        Err(_) => break,
                    }
                }
                assert!(total <= f.len());
            }
        }
    }

    #[test]
    fn checksums() {
        // RFC 1071 §3's example, and an odd length (the last byte padded with zero).
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(internet_checksum(&d), 0x220d);
        assert_eq!(
            internet_checksum(&d[..7]),
            !fold(0x0001 + 0xf203 + 0xf4f5 + 0xf600)
        );
        assert_eq!(internet_checksum(&[]), 0xffff);
        assert_eq!(internet_checksum(&[0xff; 4]), 0);
        // Wikipedia's IPv4 header: 0xb861 with the field zero, and zero with it filled in.
        let mut ip = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&ip), 0xb861);
        ip[10..12].copy_from_slice(&[0xb8, 0x61]);
        assert_eq!(internet_checksum(&ip), 0);
        // Many carries: a long run of 0xffff words.
        assert_eq!(internet_checksum(&vec![0xff; 1 << 20]), 0);
        assert_eq!(
            internet_checksum(&[0x12, 0x34, 0xff, 0xff, 0xff, 0xff]),
            !0x1234
        );
    }

    #[test]
    fn pseudo_header_checksum_is_the_checksum_of_the_pseudo_header_and_segment() {
        let (src, dst) = ([192, 168, 1, 10], [8, 8, 4, 4]);
        let seg = [
            0xc3, 0x50, 0x00, 0x35, 0x00, 0x0b, 0x00, 0x00, b'a', b'b', b'c',
        ];
        let mut whole = Vec::new();
        whole.extend(src);
        whole.extend(dst);
        whole.extend([0, 17, 0, seg.len() as u8]);
        whole.extend(seg);
        let c = pseudo_header_checksum(src, dst, 17, &seg);
        assert_eq!(c, internet_checksum(&whole));
        let mut filled = seg;
        filled[6..8].copy_from_slice(&c.to_be_bytes());
        assert_eq!(pseudo_header_checksum(src, dst, 17, &filled), 0);
    }
}
