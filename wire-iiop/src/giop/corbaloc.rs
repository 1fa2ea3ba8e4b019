//! Stringified object references: `IOR:` and the hex of the CDR encapsulation of an `IOR`
//! struct (CORBA 3, §13.6.6), and `corbaloc:` URLs (CORBA 3, §13.6.10). [`Ior::parse`] reads
//! both; [`Display`](fmt::Display) writes the first and [`Ior::to_corbaloc`] the second.

use core::fmt;
use core::str::FromStr;

use marshal_core::{Error, ErrorKind};

use super::ior::{IiopProfile, Ior, Profile};

/// The port a `corbaloc:` address without one means (CORBA 3, §13.6.10.3).
const DEFAULT_CORBALOC_PORT: u16 = 2809;

/// Most addresses a `corbaloc:` URL may list: each becomes a profile with its own copy of
/// the object key, so the count bounds what a URL can make the parser allocate.
const MAX_CORBALOC_ADDRESSES: usize = 32;

impl Ior {
    /// Parses a stringified reference (`IOR:` and hex digits of either case) or a
    /// `corbaloc:` URL (`iiop` addresses only), ignoring surrounding whitespace. Scheme names
    /// are case-insensitive.
    ///
    /// A `corbaloc:` URL gives a reference with an empty type id and one IIOP profile (no
    /// components) per address: `corbaloc:` *addr* (`,` *addr*)* [`/` *key*], where *addr* is
    /// `iiop:` or `:`, then an optional version `1.x@` (default 1.0), a host name, IPv4
    /// address or bracketed IPv6 address, and an optional `:port` (default 2809); the key
    /// may hold `%HH` escapes. At most 32 addresses are accepted (each holds a copy of the
    /// key).
    ///
    /// Errors name what is wrong. Their offsets are byte offsets in `s`, except for errors
    /// in the CDR octets of an `IOR:`, which give the octet's offset in the decoded
    /// encapsulation (its hex digits start at character 4 + 2 × offset after the `IOR:`) and
    /// the path of the field that failed.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::parse("corbaloc:iiop:1.2@[::1]:2810,:backup/Name%20Service").unwrap();
    /// assert_eq!(ior.iiop(), Some(("::1", 2810, &b"Name Service"[..])));
    /// let backup = ior.iiop_profiles().nth(1).unwrap();
    /// assert_eq!((backup.version, backup.port), ((1, 0), 2809));
    ///
    /// let e = Ior::parse("IOR:0x").unwrap_err();
    /// assert_eq!(e.to_string(), "invalid hex digit 'x' in stringified IOR at offset 5");
    /// let e = Ior::parse("corbaloc::host:70000/k").unwrap_err();
    /// assert_eq!(e.to_string(), "corbaloc port 70000 is out of range (0 to 65535) at offset 15");
    /// ```
    pub fn parse(s: &str) -> Result<Ior, Error> {
        let trimmed = s.trim_start();
        let lead = s.len() - trimmed.len();
        let t = trimmed.trim_end();
        if t.is_empty() {
            return Err(text_error(
                "empty object reference (expected IOR: or corbaloc:)",
                lead,
            ));
        }
        if let Some(hex) = strip_prefix_ignore_case(t, "IOR:") {
            let bytes = decode_hex(hex, lead + 4)?;
            if bytes.is_empty() {
                return Err(text_error("stringified IOR has no octets", lead + 4));
            }
            return Ior::from_encapsulation(&bytes);
        }
        if let Some(rest) = strip_prefix_ignore_case(t, "corbaloc:") {
            return parse_corbaloc(rest, lead + 9);
        }
        let scheme: String = t.chars().take_while(|&c| c != ':').take(32).collect();
        Err(text_error(
            format!("unknown object reference scheme {scheme:?} (expected IOR: or corbaloc:)"),
            lead,
        ))
    }

    /// A `corbaloc:` URL for the IIOP profiles: every one's version, host and port, then
    /// the object key with `%HH` escapes.
    ///
    /// `None` when there is no IIOP profile, when their object keys differ (a URL has one
    /// key), when a host cannot be written in a URL, or when there are more than the 32
    /// addresses [`Ior::parse`] accepts (so every URL this writes parses back). Components
    /// and other profiles are not carried.
    ///
    /// ```
    /// use wire_iiop::giop::Ior;
    /// let ior = Ior::new("IDL:A:1.0", "::1", 2809, b"my key");
    /// let url = ior.to_corbaloc().unwrap();
    /// assert_eq!(url, "corbaloc:iiop:1.2@[::1]:2809/my%20key");
    /// assert_eq!(Ior::parse(&url).unwrap().iiop(), ior.iiop());
    /// assert_eq!(Ior::nil().to_corbaloc(), None);
    /// ```
    pub fn to_corbaloc(&self) -> Option<String> {
        use core::fmt::Write;
        let key = &self.iiop_profiles().next()?.object_key;
        if self.iiop_profiles().count() > MAX_CORBALOC_ADDRESSES {
            return None;
        }
        let mut s = String::from("corbaloc:");
        for (i, p) in self.iiop_profiles().enumerate() {
            if p.object_key != *key || !valid_host(&p.host) {
                return None;
            }
            if i > 0 {
                s.push(',');
            }
            let (major, minor) = p.version;
            let _ = write!(s, "iiop:{major}.{minor}@");
            if p.host.contains(':') {
                let _ = write!(s, "[{}]:{}", p.host, p.port);
            } else {
                let _ = write!(s, "{}:{}", p.host, p.port);
            }
        }
        s.push('/');
        for &b in key {
            if b.is_ascii_alphanumeric() || b";/:?@&=+$,-_.!~*'()".contains(&b) {
                s.push(char::from(b));
            } else {
                let _ = write!(s, "%{b:02X}");
            }
        }
        Some(s)
    }
}

/// The stringified form: `IOR:` and the lowercase hex of [`Ior::to_encapsulation`].
///
/// Fails (so `to_string` panics) only for a reference with no encoding, which the
/// constructors do not make.
///
/// ```
/// use wire_iiop::giop::Ior;
/// let s = "IOR:01000000010000000000000000000000";
/// assert_eq!(Ior::parse(s).unwrap().to_string(), s);
/// ```
impl fmt::Display for Ior {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = self.to_encapsulation().map_err(|_| fmt::Error)?;
        let mut s = String::with_capacity(4 + 2 * bytes.len());
        s.push_str("IOR:");
        for b in bytes {
            s.push(char::from(HEX[usize::from(b >> 4)]));
            s.push(char::from(HEX[usize::from(b & 15)]));
        }
        f.write_str(&s)
    }
}

/// [`Ior::parse`].
///
/// ```
/// use wire_iiop::giop::Ior;
/// let ior: Ior = "corbaloc::localhost/NameService".parse().unwrap();
/// assert_eq!(ior.iiop(), Some(("localhost", 2809, &b"NameService"[..])));
/// ```
impl FromStr for Ior {
    type Err = Error;
    fn from_str(s: &str) -> Result<Ior, Error> {
        Ior::parse(s)
    }
}

/// An error about the text of a reference, at byte `at` of it.
#[cold]
fn text_error(msg: impl Into<String>, at: usize) -> Error {
    Error::new(ErrorKind::Custom(msg.into()), at)
}

/// `s` without `prefix`, compared ignoring ASCII case.
fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The value of a hex digit.
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The octets that the hex digits `hex` (at byte `base` of the input) spell.
pub(super) fn decode_hex(hex: &str, base: usize) -> Result<Vec<u8>, Error> {
    let digits = hex.as_bytes();
    if let Some(i) = digits.iter().position(|&b| hex_value(b).is_none()) {
        // Every byte before `i` is an ASCII digit, so `i` is a character boundary.
        let c = hex[i..].chars().next().unwrap_or_default();
        return Err(text_error(
            format!("invalid hex digit {c:?} in stringified IOR"),
            base + i,
        ));
    }
    if !digits.len().is_multiple_of(2) {
        return Err(text_error(
            format!(
                "odd number of hex digits ({}) in stringified IOR",
                digits.len()
            ),
            base + digits.len(),
        ));
    }
    Ok(digits
        .chunks_exact(2)
        .map(|p| (hex_value(p[0]).unwrap_or(0) << 4) | hex_value(p[1]).unwrap_or(0))
        .collect())
}

/// Whether `host` can be written in a `corbaloc:` address (bracketed when it holds a `:`).
fn valid_host(host: &str) -> bool {
    if host.contains(':') {
        host.bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
    } else {
        !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
    }
}

/// Parses what follows `corbaloc:` (at byte `base` of the input).
fn parse_corbaloc(s: &str, base: usize) -> Result<Ior, Error> {
    let (addrs, key) = match s.find('/') {
        Some(i) => (&s[..i], Some((&s[i + 1..], base + i + 1))),
        None => (s, None),
    };
    let object_key = match key {
        Some((key, at)) => percent_decode(key, at)?,
        None => Vec::new(),
    };
    let mut profiles = Vec::new();
    let mut at = base;
    for addr in addrs.split(',') {
        if profiles.len() == MAX_CORBALOC_ADDRESSES {
            return Err(text_error(
                format!("corbaloc URL lists more than {MAX_CORBALOC_ADDRESSES} addresses"),
                at,
            ));
        }
        let body = parse_iiop_addr(addr, at, &object_key)?;
        profiles.push(Profile::iiop(body).map_err(|e| e.shifted(at))?);
        at += addr.len() + 1;
    }
    Ior::from_profiles("", profiles)
}

/// Parses one `corbaloc:` address (at byte `at` of the input) into an IIOP profile body.
fn parse_iiop_addr(addr: &str, at: usize, object_key: &[u8]) -> Result<IiopProfile, Error> {
    if addr.is_empty() {
        return Err(text_error("empty corbaloc address", at));
    }
    let (rest, at) = if let Some(rest) = addr.strip_prefix(':') {
        (rest, at + 1)
    } else if let Some(rest) = strip_prefix_ignore_case(addr, "iiop:") {
        (rest, at + 5)
    } else if strip_prefix_ignore_case(addr, "rir:").is_some() {
        return Err(text_error("corbaloc rir: addresses are not supported", at));
    } else {
        let protocol: String = addr.chars().take_while(|&c| c != ':').take(32).collect();
        return Err(text_error(
            format!("unknown corbaloc protocol {protocol:?} (expected iiop: or :)"),
            at,
        ));
    };
    let (version, rest, at) = match rest.find('@') {
        Some(i) => (parse_version(&rest[..i], at)?, &rest[i + 1..], at + i + 1),
        None => ((1, 0), rest, at),
    };
    let (host, port_text) = if let Some(inner) = rest.strip_prefix('[') {
        let Some(close) = inner.find(']') else {
            return Err(text_error("corbaloc IPv6 address has no closing ']'", at));
        };
        let host = &inner[..close];
        if host.is_empty() || !host.contains(':') || !valid_host(host) {
            return Err(text_error(
                format!("invalid IPv6 address {host:?} in corbaloc address"),
                at + 1,
            ));
        }
        let after = &inner[close + 1..];
        let port_text = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => {
                return Err(text_error(
                    format!("unexpected {after:?} after the IPv6 address in corbaloc address"),
                    at + close + 2,
                ))
            }
        };
        (host, port_text)
    } else {
        let (host, port_text) = match rest.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        if host.is_empty() {
            return Err(text_error("corbaloc address has no host", at));
        }
        if !valid_host(host) {
            return Err(text_error(
                format!("invalid host {host:?} in corbaloc address"),
                at,
            ));
        }
        (host, port_text)
    };
    let port = match port_text {
        None => DEFAULT_CORBALOC_PORT,
        Some(p) => parse_port(p, at + rest.len() - p.len())?,
    };
    Ok(IiopProfile {
        version,
        host: host.to_owned(),
        port,
        object_key: object_key.to_vec(),
        components: Vec::new(),
    })
}

/// Parses the `major.minor` of a `corbaloc:` address (at byte `at`).
fn parse_version(v: &str, at: usize) -> Result<(u8, u8), Error> {
    let bad = || {
        text_error(
            format!("invalid IIOP version {v:?} in corbaloc address (expected 1.0, 1.1 or 1.2)"),
            at,
        )
    };
    let (major, minor) = v.split_once('.').ok_or_else(bad)?;
    let number = |n: &str| {
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        n.parse::<u8>().ok()
    };
    match (number(major), number(minor)) {
        (Some(1), Some(minor)) => Ok((1, minor)),
        _ => Err(bad()),
    }
}

/// Parses a `corbaloc:` port (at byte `at`).
fn parse_port(p: &str, at: usize) -> Result<u16, Error> {
    if p.is_empty() {
        return Err(text_error("corbaloc address has an empty port", at));
    }
    if !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(text_error(
            format!("invalid corbaloc port {p:?} (expected decimal digits)"),
            at,
        ));
    }
    p.parse::<u16>().map_err(|_| {
        text_error(
            format!("corbaloc port {p} is out of range (0 to 65535)"),
            at,
        )
    })
}

/// Undoes the `%HH` escapes of a `corbaloc:` object key (at byte `at`); other characters
/// stand for their UTF-8 bytes.
fn percent_decode(key: &str, at: usize) -> Result<Vec<u8>, Error> {
    let b = key.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hi = b.get(i + 1).copied().and_then(hex_value);
            let lo = b.get(i + 2).copied().and_then(hex_value);
            let (Some(hi), Some(lo)) = (hi, lo) else {
                let seen: String = key[i..].chars().take(3).collect();
                return Err(text_error(
                    format!("invalid escape {seen:?} in corbaloc object key (expected %HH)"),
                    at + i,
                ));
            };
            out.push((hi << 4) | lo);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corbaloc_forms() {
        let ior = Ior::parse("corbaloc:iiop:1.2@example.com:1234/Bench").unwrap();
        assert_eq!(ior.type_id(), "");
        assert_eq!(ior.iiop(), Some(("example.com", 1234, &b"Bench"[..])));
        let p = ior.iiop_profiles().next().unwrap();
        assert_eq!(p.version, (1, 2));
        assert!(p.components.is_empty());

        // Empty protocol means iiop; version 1.0 and port 2809 by default.
        let ior = Ior::parse("corbaloc::127.0.0.1/NameService").unwrap();
        let p = ior.iiop_profiles().next().unwrap();
        assert_eq!((p.version, p.port), ((1, 0), 2809));
        assert_eq!(p.host, "127.0.0.1");
        assert_eq!(p.object_key, b"NameService");
        assert_eq!(
            ior.to_corbaloc().unwrap(),
            "corbaloc:iiop:1.0@127.0.0.1:2809/NameService"
        );

        // Several addresses, one profile each, all with the key; escapes and a '/' in the key.
        let ior = Ior::parse("CORBALOC::a:1,iiop:b,IIOP:1.1@c:3/x/y%2fz%20%41%e9%").err();
        assert!(ior.is_some()); // a lone '%' at the end
        let ior = Ior::parse("CORBALOC::a:1,iiop:b,IIOP:1.1@c:3/x/y%2fz%20%41%e9").unwrap();
        let got: Vec<_> = ior
            .iiop_profiles()
            .map(|p| (p.version, p.host.as_str(), p.port, p.object_key.as_slice()))
            .collect();
        let key = &b"x/y/z A\xe9"[..];
        assert_eq!(
            got,
            [
                ((1, 0), "a", 1, key),
                ((1, 0), "b", 2809, key),
                ((1, 1), "c", 3, key)
            ]
        );
        // Unescaped non-ASCII characters stand for their UTF-8 bytes.
        let ior = Ior::parse("corbaloc::h/é").unwrap();
        assert_eq!(ior.iiop().unwrap().2, "é".as_bytes());

        // IPv6, with and without a port.
        let ior = Ior::parse("corbaloc:iiop:1.2@[::1]:2810,:[fe80::1:2]/k").unwrap();
        let hosts: Vec<_> = ior
            .iiop_profiles()
            .map(|p| (p.host.as_str(), p.port))
            .collect();
        assert_eq!(hosts, [("::1", 2810), ("fe80::1:2", 2809)]);
        assert_eq!(
            ior.to_corbaloc().unwrap(),
            "corbaloc:iiop:1.2@[::1]:2810,iiop:1.0@[fe80::1:2]:2809/k"
        );

        // No key at all, an empty key, and port 0.
        assert_eq!(
            Ior::parse("corbaloc::h").unwrap().iiop(),
            Some(("h", 2809, &[][..]))
        );
        assert_eq!(
            Ior::parse("corbaloc::h:0/").unwrap().iiop(),
            Some(("h", 0, &[][..]))
        );

        // Keys that differ between profiles, or unwritable hosts, have no corbaloc.
        let a = Profile::iiop(IiopProfile::new("a", 1, b"k1".to_vec())).unwrap();
        let b = Profile::iiop(IiopProfile::new("b", 1, b"k2".to_vec())).unwrap();
        assert_eq!(
            Ior::from_profiles("", vec![a, b]).unwrap().to_corbaloc(),
            None
        );
        assert_eq!(Ior::new("", "a b", 1, b"k").to_corbaloc(), None);
        assert_eq!(Ior::new("", "", 1, b"k").to_corbaloc(), None);
    }

    /// Found by fuzzing: a URL of 33 addresses was written, and `parse` refuses it.
    #[test]
    fn corbaloc_is_written_only_when_it_parses_back() {
        let ior = |n: usize| {
            let profiles: Vec<Profile> = (0..n)
                .map(|i| Profile::iiop(IiopProfile::new(format!("h{i}"), 1, b"k".to_vec())))
                .collect::<Result<_, _>>()
                .unwrap();
            Ior::from_profiles("IDL:A:1.0", profiles).unwrap()
        };
        let url = ior(32).to_corbaloc().unwrap();
        assert_eq!(Ior::parse(&url).unwrap().iiop_profiles().count(), 32);
        assert_eq!(ior(33).to_corbaloc(), None);
    }

    #[test]
    fn corbaloc_errors() {
        let many = format!("corbaloc:{}/k", vec![":h"; 33].join(","));
        assert_eq!(
            Ior::parse(&many[..many.len() - 5])
                .unwrap()
                .profiles()
                .len(),
            32
        );
        let cases = [
            ("corbaloc:rir:/NameService", "corbaloc rir: addresses are not supported at offset 9"),
            ("corbaloc:uiop:/tmp/x", "unknown corbaloc protocol \"uiop\" (expected iiop: or :) at offset 9"),
            ("corbaloc:host:1/k", "unknown corbaloc protocol \"host\" (expected iiop: or :) at offset 9"),
            ("corbaloc:/k", "empty corbaloc address at offset 9"),
            ("corbaloc::a,/k", "empty corbaloc address at offset 12"),
            ("corbaloc::/k", "corbaloc address has no host at offset 10"),
            ("corbaloc::h:/k", "corbaloc address has an empty port at offset 12"),
            ("corbaloc::h:99999/k", "corbaloc port 99999 is out of range (0 to 65535) at offset 12"),
            ("corbaloc::h:-1/k", "invalid corbaloc port \"-1\" (expected decimal digits) at offset 12"),
            ("corbaloc::h:1:2/k", "invalid corbaloc port \"1:2\" (expected decimal digits) at offset 12"),
            ("corbaloc::a:1,:b:x/k", "invalid corbaloc port \"x\" (expected decimal digits) at offset 17"),
            ("corbaloc::h st/k", "invalid host \"h st\" in corbaloc address at offset 10"),
            ("corbaloc::1.2@/k", "corbaloc address has no host at offset 14"),
            ("corbaloc:iiop:2.0@h/k", "invalid IIOP version \"2.0\" in corbaloc address (expected 1.0, 1.1 or 1.2) at offset 14"),
            ("corbaloc:iiop:1@h/k", "invalid IIOP version \"1\" in corbaloc address (expected 1.0, 1.1 or 1.2) at offset 14"),
            ("corbaloc:iiop:1.+2@h/k", "invalid IIOP version \"1.+2\" in corbaloc address (expected 1.0, 1.1 or 1.2) at offset 14"),
            ("corbaloc::[::1/k", "corbaloc IPv6 address has no closing ']' at offset 10"),
            ("corbaloc::[]/k", "invalid IPv6 address \"\" in corbaloc address at offset 11"),
            ("corbaloc::[a.b]/k", "invalid IPv6 address \"a.b\" in corbaloc address at offset 11"),
            ("corbaloc::[::1]x/k", "unexpected \"x\" after the IPv6 address in corbaloc address at offset 15"),
            ("corbaloc::[::1]:/k", "corbaloc address has an empty port at offset 16"),
            ("corbaloc::h/a%4", "invalid escape \"%4\" in corbaloc object key (expected %HH) at offset 13"),
            ("corbaloc::h/%zz", "invalid escape \"%zz\" in corbaloc object key (expected %HH) at offset 12"),
            ("corbaloc::h/%é", "invalid escape \"%é\" in corbaloc object key (expected %HH) at offset 12"),
            (&many, "corbaloc URL lists more than 32 addresses at offset 105"),
            (" corbaloc::h:x", "invalid corbaloc port \"x\" (expected decimal digits) at offset 13"),
        ];
        for (input, message) in cases {
            let e = Ior::parse(input).unwrap_err();
            assert_eq!(e.to_string(), message, "{input}");
        }
    }

    #[test]
    fn stringified_errors() {
        let cases = [
            ("", "empty object reference (expected IOR: or corbaloc:) at offset 0"),
            ("  \t", "empty object reference (expected IOR: or corbaloc:) at offset 3"),
            ("IOR:", "stringified IOR has no octets at offset 4"),
            ("IOR:0", "odd number of hex digits (1) in stringified IOR at offset 5"),
            ("IOR:0g", "invalid hex digit 'g' in stringified IOR at offset 5"),
            (" IOR:00 00", "invalid hex digit ' ' in stringified IOR at offset 7"),
            ("IOR:é0", "invalid hex digit 'é' in stringified IOR at offset 4"),
            ("corbaname::h#x", "unknown object reference scheme \"corbaname\" (expected IOR: or corbaloc:) at offset 0"),
            ("http://x", "unknown object reference scheme \"http\" (expected IOR: or corbaloc:) at offset 0"),
            ("IOR:02", "invalid byte-order flag 2 (expected 0 or 1) at offset 0"),
            ("IOR:00", "type_id: unexpected end of input: needed 7 bytes, 0 remain at offset 1"),
            // Huge profile count: refused before allocating.
            ("IOR:0000000000000001000000000fffffff", "profiles: length 268435455 exceeds the 0 bytes that remain at offset 16"),
            ("IOR:00000000000000010000000000000000ff", "1 trailing bytes after the value at offset 16"),
            // A profile_data length beyond the input.
            ("IOR:000000000000000100000000000000010000000000ffffff00", "profiles[0].profile_data: unexpected end of input: needed 16777215 bytes, 1 remain at offset 24"),
            // An IIOP profile with a non-UTF-8 host.
            ("IOR:000000000000000100000000000000010000000000000014000100000000000368ff00000000000000000000", "profiles[0].profile_data.host: string is not valid UTF-8 at offset 32"),
            // A component count beyond the input.
            ("IOR:00000000000000010000000000000001000000000000001800010200000000026800000100000001410000007fffffff", "profiles[0].profile_data.components: length 2147483647 exceeds the 0 bytes that remain at offset 48"),
        ];
        for (input, message) in cases {
            let e = Ior::parse(input).unwrap_err();
            assert_eq!(e.to_string(), message, "{input}");
        }
    }
}
