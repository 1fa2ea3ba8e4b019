//! [`BytesStr`]: a UTF-8 string held in [`Bytes`], so that a string decoded from a shared
//! input buffer is a slice of it (a reference count, no copy) and stays valid after the call
//! that decoded it, with no lifetime.

use core::borrow::Borrow;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;
use core::str::Utf8Error;

use bytes::Bytes;

use crate::text;

/// An immutable UTF-8 string backed by [`Bytes`]: cloning it, or decoding it from a shared
/// input (`marshal::xdr::from_bytes`, `marshal::cdr::from_bytes`), takes a reference to the
/// buffer rather than copying the text. UTF-8 is checked once, when the value is made.
///
/// A field of this type is an XDR `string<>` or a CDR `string`, as `String` is, and takes
/// `#[marshal(max_len = N)]`.
///
/// ```
/// use bytes::Bytes;
/// use marshal_core::BytesStr;
///
/// let s = BytesStr::from("héllo");
/// assert_eq!(&*s, "héllo");
/// assert_eq!(s, "héllo");
/// assert_eq!(s.len(), 6);
/// assert_eq!(format!("{s} {s:?}"), "héllo \"héllo\"");
///
/// let b = Bytes::from_static(b"abc");
/// let t = BytesStr::try_from(b.clone()).unwrap();
/// assert_eq!(t.as_bytes().as_ptr(), b.as_ptr()); // the same buffer
/// assert!(BytesStr::try_from(Bytes::from_static(b"\xff")).is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct BytesStr(Bytes);

impl BytesStr {
    /// The empty string.
    ///
    /// ```
    /// assert!(marshal_core::BytesStr::new().is_empty());
    /// ```
    #[inline]
    pub const fn new() -> Self {
        BytesStr(Bytes::new())
    }

    /// A string over static text (no allocation).
    ///
    /// ```
    /// const HELLO: marshal_core::BytesStr = marshal_core::BytesStr::from_static("hello");
    /// assert_eq!(HELLO, "hello");
    /// ```
    #[inline]
    pub const fn from_static(s: &'static str) -> Self {
        BytesStr(Bytes::from_static(s.as_bytes()))
    }

    /// `bytes` as a string if they are UTF-8 (checked here, once), without copying them.
    ///
    /// ```
    /// use bytes::Bytes;
    /// let s = marshal_core::BytesStr::from_utf8(Bytes::from_static(b"ok")).unwrap();
    /// assert_eq!(s, "ok");
    /// ```
    #[inline]
    pub fn from_utf8(bytes: Bytes) -> Result<Self, Utf8Error> {
        if !text::is_ascii(&bytes) {
            core::str::from_utf8(&bytes)?;
        }
        Ok(BytesStr(bytes))
    }

    /// `bytes` as a string, unchecked.
    ///
    /// # Safety
    /// `bytes` must be UTF-8.
    #[inline]
    pub(crate) const unsafe fn from_utf8_unchecked(bytes: Bytes) -> Self {
        BytesStr(bytes)
    }

    /// The text.
    ///
    /// ```
    /// assert_eq!(marshal_core::BytesStr::from("x").as_str(), "x");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        // SAFETY: every constructor makes a `BytesStr` only of UTF-8 bytes (checked, or taken
        // from a `str`), and the bytes of a `Bytes` never change.
        unsafe { core::str::from_utf8_unchecked(&self.0) }
    }

    /// The bytes the text is held in (shared, not copied).
    ///
    /// ```
    /// let s = marshal_core::BytesStr::from("ab");
    /// assert_eq!(&s.as_bytes()[..], b"ab");
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &Bytes {
        &self.0
    }

    /// The bytes the text is held in.
    ///
    /// ```
    /// let b = marshal_core::BytesStr::from("ab").into_bytes();
    /// assert_eq!(&b[..], b"ab");
    /// ```
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        self.0
    }
}

impl Deref for BytesStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for BytesStr {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for BytesStr {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Borrow<str> for BytesStr {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// Hashes as the `str` it holds, so that `Borrow<str>` lookups in hash maps work.
impl Hash for BytesStr {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for BytesStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for BytesStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<&'static str> for BytesStr {
    #[inline]
    fn from(s: &'static str) -> Self {
        BytesStr::from_static(s)
    }
}

impl From<String> for BytesStr {
    #[inline]
    fn from(s: String) -> Self {
        BytesStr(Bytes::from(s.into_bytes()))
    }
}

impl From<BytesStr> for Bytes {
    #[inline]
    fn from(s: BytesStr) -> Self {
        s.0
    }
}

impl TryFrom<Bytes> for BytesStr {
    type Error = Utf8Error;
    #[inline]
    fn try_from(bytes: Bytes) -> Result<Self, Utf8Error> {
        BytesStr::from_utf8(bytes)
    }
}

impl PartialEq<str> for BytesStr {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for BytesStr {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for BytesStr {
    #[inline]
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<BytesStr> for str {
    #[inline]
    fn eq(&self, other: &BytesStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<BytesStr> for &str {
    #[inline]
    fn eq(&self, other: &BytesStr) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<BytesStr> for String {
    #[inline]
    fn eq(&self, other: &BytesStr) -> bool {
        self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn checks_utf8_once_and_shares_the_buffer() {
        let b = Bytes::from(String::from("text, 16 or more bytes: é").into_bytes());
        let s = BytesStr::try_from(b.clone()).unwrap();
        assert_eq!(s.as_bytes().as_ptr(), b.as_ptr());
        assert_eq!(s.clone().as_ptr(), b.as_ptr());
        assert_eq!(s, "text, 16 or more bytes: é");
        // Not UTF-8: short (byte loop) and long (word-wise) inputs, and a cut code point.
        for bad in [&b"\xff"[..], b"0123456789abcdef\x80", b"caf\xc3"] {
            let e = BytesStr::try_from(Bytes::copy_from_slice(bad)).unwrap_err();
            assert_eq!(e, core::str::from_utf8(bad).unwrap_err());
        }
        assert_eq!(BytesStr::from_utf8(Bytes::new()).unwrap(), "");
    }

    #[test]
    fn behaves_as_its_str() {
        let s = BytesStr::from(String::from("abc"));
        assert_eq!(s, BytesStr::from("abc"));
        assert_eq!(s, *"abc");
        assert_eq!("abc", s);
        assert_eq!(*"abc", s);
        assert_eq!(String::from("abc"), s);
        assert_eq!(s, String::from("abc"));
        assert_ne!(s, "abd");
        let next = BytesStr::from("abd");
        assert!(s < next);
        assert_eq!(s.to_uppercase(), "ABC");
        let r: &str = s.as_ref();
        assert_eq!(r, "abc");
        let set: HashSet<BytesStr> = [s.clone()].into();
        assert!(set.contains("abc"));
        assert_eq!(format!("{s}|{s:?}|{:>5}", s), "abc|\"abc\"|  abc");
        assert_eq!(Bytes::from(s), Bytes::from_static(b"abc"));
        assert!(BytesStr::default().is_empty());
    }

    #[test]
    fn can_be_sent_to_other_threads() {
        fn send_sync<T: Send + Sync + 'static>(_: &T) {}
        let s = BytesStr::from("x");
        send_sync(&s);
        assert_eq!(std::thread::spawn(move || s.len()).join().unwrap(), 1);
    }

    #[test]
    fn unchecked_construction_keeps_the_bytes() {
        // SAFETY: ASCII is UTF-8.
        let s = unsafe { BytesStr::from_utf8_unchecked(Bytes::from_static(b"ok")) };
        assert_eq!(s.as_str(), "ok");
    }
}
