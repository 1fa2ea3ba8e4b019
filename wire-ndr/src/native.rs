//! Native layouts: the `'static` description of a Rust type's memory layout that the derive
//! builds at compile time from `size_of`, `align_of` and `offset_of!`, and the [`Native`] trait
//! that writes a value as an NDR record body and reads it back from one in the local layout.
//!
//! A *body* is what follows a message's header: the fixed part (`size_of` the record, fields at
//! their native offsets, every padding byte zero), then the variable parts of strings and
//! vectors, each starting at a multiple of 8 from the body's start. In the fixed part a string
//! or vector is a slot of two `u32`s in the record's byte order: the offset of its data from
//! the body's start, and its length (bytes for a string, elements for a vector).

use marshal_core::{Error, ErrorKind};

/// Bytes a variable part (string or variable-length array) takes in the fixed part: a 4-byte
/// offset and a 4-byte length, in the record's byte order.
pub(crate) const SLOT: usize = 8;

/// The static description of one native type.
#[derive(Debug, Clone, Copy)]
pub enum NativeType {
    /// A signed integer of this many bytes.
    Int(usize),
    /// An unsigned integer of this many bytes.
    UInt(usize),
    /// An IEEE 754 float of this many bytes.
    Float(usize),
    /// A Rust `bool` (one byte, 0 or 1).
    Bool,
    /// A `String`: a slot in the fixed part, UTF-8 bytes in the variable part.
    String,
    /// `[elem; len]`.
    Array {
        /// The element type.
        elem: &'static NativeType,
        /// The number of elements.
        len: usize,
    },
    /// `Vec<elem>`: a slot in the fixed part, the elements in the variable part.
    Var {
        /// The element type.
        elem: &'static NativeType,
    },
    /// A derived record.
    Record(&'static NativeRecord),
}

/// The static description of a derived record: what [`Format::of`](crate::Format::of) turns
/// into a [`Format`](crate::Format).
#[derive(Debug)]
pub struct NativeRecord {
    /// The type's name (without generic arguments).
    pub name: &'static str,
    /// `size_of` the type.
    pub size: usize,
    /// `align_of` the type.
    pub align: usize,
    /// Its fields, in declaration order.
    pub fields: &'static [NativeField],
    /// With `#[marshal(default_missing)]`: the body of `Self::default()`, whose fields stand in
    /// for fields an incoming format lacks.
    pub defaults: Option<DefaultBody>,
    /// Records are sent as their own bytes, with no copy (padding-free and pointer-free).
    pub zero_copy: bool,
}

/// Makes the body of a record type's `Default` value.
pub type DefaultBody = fn() -> Result<Vec<u8>, Error>;

/// One field of a [`NativeRecord`].
#[derive(Debug)]
pub struct NativeField {
    /// The field's name (`"0"`, `"1"`, … for tuple structs).
    pub name: &'static str,
    /// `offset_of!` the field.
    pub offset: usize,
    /// The field's type.
    pub ty: NativeType,
}

/// A type that can be a field of an NDR record: integers, floats, `bool`, `String`, arrays,
/// `Vec`s and derived records.
///
/// Such a type owns its data (it is read back from bytes), so it is `'static`, and receivers
/// key what they keep per type by its `TypeId`.
///
/// # Safety
///
/// The constants are promises that unsafe code relies on:
/// - `ANY_BITS`: `Self` holds no pointers and every bit pattern of `size_of::<Self>()` bytes
///   is a valid `Self`, so a body's bytes may be copied into one.
/// - `AS_BYTES`: every byte of every `Self` value is initialised (no padding) and the bytes
///   are exactly what [`Native::put`] writes, so a value may be sent as its own bytes.
/// - `TYPE` describes `Self`'s real layout: sizes and offsets are `size_of`/`offset_of!`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an NDR record",
    label = "not an NDR field type",
    note = "NDR fields are integers, floats, `bool`, `String`, arrays (not of `String`), `Vec`s and derived structs"
)]
pub unsafe trait Native: Sized + 'static {
    /// The type's description.
    const TYPE: NativeType;
    /// See the trait's safety section.
    const ANY_BITS: bool;
    /// See the trait's safety section.
    const AS_BYTES: bool;

    /// Writes `self` at `buf[at..at + size_of::<Self>()]`, which the caller has zeroed, and
    /// appends variable parts to `buf`, their offsets counted from `buf[base]`.
    fn put(&self, buf: &mut Vec<u8>, base: usize, at: usize) -> Result<(), Error>;

    /// Reads a value at `body[at..]` from a body in the local layout and byte order.
    fn get(body: &[u8], at: usize) -> Result<Self, Error>;
}

/// Types that may be elements of a `Vec` field (a variable-length array): integers, floats,
/// `bool` and records.
pub trait VarElement: Native {}

/// Types that may be elements of an array field: everything but `Vec` and `String` (whose
/// 24 bytes hold an 8-byte slot: an array of them is not laid out as a format says).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of an NDR array field",
    label = "not an NDR array element",
    note = "a `String` is 24 bytes around an 8-byte slot, which no format can describe as \
            array elements: put each string in a derived struct, and make an array of those"
)]
pub trait ArrayElement: Native {}

#[inline]
fn slice(body: &[u8], at: usize, len: usize) -> Result<&[u8], Error> {
    match at.checked_add(len) {
        Some(end) if end <= body.len() => Ok(&body[at..end]),
        _ => Err(Error::new(
            ErrorKind::UnexpectedEnd {
                needed: len,
                remaining: body.len().saturating_sub(at),
            },
            at,
        )),
    }
}

#[inline]
fn array<const N: usize>(body: &[u8], at: usize) -> Result<[u8; N], Error> {
    let s = slice(body, at, N)?;
    let mut a = [0u8; N];
    a.copy_from_slice(s);
    Ok(a)
}

macro_rules! numbers {
    ($($t:ty => $v:ident),*) => {$(
        // SAFETY: a primitive number has no padding and no pointers, every bit pattern is a
        // value, its bytes are its native representation (what `put` writes), and `TYPE`
        // gives its size.
        unsafe impl Native for $t {
            const TYPE: NativeType = NativeType::$v(core::mem::size_of::<$t>());
            const ANY_BITS: bool = true;
            const AS_BYTES: bool = true;
            #[inline]
            fn put(&self, buf: &mut Vec<u8>, _base: usize, at: usize) -> Result<(), Error> {
                buf[at..at + core::mem::size_of::<$t>()].copy_from_slice(&self.to_ne_bytes());
                Ok(())
            }
            #[inline]
            fn get(body: &[u8], at: usize) -> Result<Self, Error> {
                Ok(<$t>::from_ne_bytes(array(body, at)?))
            }
        }
        impl VarElement for $t {}
        impl ArrayElement for $t {}
    )*};
}
numbers!(i8 => Int, i16 => Int, i32 => Int, i64 => Int,
         u8 => UInt, u16 => UInt, u32 => UInt, u64 => UInt,
         f32 => Float, f64 => Float);

// SAFETY: a `bool` is one initialised byte, 0 or 1, which is what `put` writes; not every bit
// pattern is valid, so `ANY_BITS` is false and `get` checks.
unsafe impl Native for bool {
    const TYPE: NativeType = NativeType::Bool;
    const ANY_BITS: bool = false;
    const AS_BYTES: bool = true;
    #[inline]
    fn put(&self, buf: &mut Vec<u8>, _base: usize, at: usize) -> Result<(), Error> {
        buf[at] = u8::from(*self);
        Ok(())
    }
    #[inline]
    fn get(body: &[u8], at: usize) -> Result<Self, Error> {
        match array::<1>(body, at)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::new(ErrorKind::InvalidBool(b.into()), at)),
        }
    }
}
impl VarElement for bool {}
impl ArrayElement for bool {}

/// Appends `bytes` to `buf` at the next multiple of 8 from `base` and writes the slot
/// (offset from `base`, `len`) at `buf[at..at + 8]` in native byte order.
fn append_var(
    buf: &mut Vec<u8>,
    base: usize,
    at: usize,
    len: usize,
    data: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
) -> Result<(), Error> {
    let pad = (8 - (buf.len() - base) % 8) % 8;
    buf.resize(buf.len() + pad, 0);
    let off = buf.len() - base;
    let (Ok(off32), Ok(len32)) = (u32::try_from(off), u32::try_from(len)) else {
        return Err(Error::without_offset(ErrorKind::TooLong {
            len: off.max(len),
        }));
    };
    data(buf)?;
    buf[at..at + 4].copy_from_slice(&off32.to_ne_bytes());
    buf[at + 4..at + 8].copy_from_slice(&len32.to_ne_bytes());
    Ok(())
}

/// Reads a slot at `body[at..]` (native order) and checks that `len` elements of `elem`
/// bytes (at least one byte each, so a count never exceeds the bytes that hold it) lie
/// inside `body`. Returns the data's offset and the length.
pub(crate) fn read_slot(body: &[u8], at: usize, elem: usize) -> Result<(usize, usize), Error> {
    let off = u32::from_ne_bytes(array(body, at)?) as usize;
    let len = u32::from_ne_bytes(array(body, at + 4)?) as usize;
    check_var(body.len(), at, off, len, elem)?;
    Ok((off, len))
}

/// Checks that `len` elements of `elem` bytes (at least one each) at `off` fit a body of
/// `body_len` bytes; `at` is the slot's offset, for the error.
pub(crate) fn check_var(
    body_len: usize,
    at: usize,
    off: usize,
    len: usize,
    elem: usize,
) -> Result<(), Error> {
    let bytes = len.checked_mul(elem.max(1));
    match bytes.and_then(|b| off.checked_add(b)) {
        Some(end) if end <= body_len => Ok(()),
        _ => Err(Error::new(
            ErrorKind::LengthExceedsInput {
                len: len as u64,
                remaining: body_len.saturating_sub(off),
            },
            at,
        )),
    }
}

// SAFETY: a `String` holds a pointer, so neither constant holds; `TYPE` says it is a slot.
unsafe impl Native for String {
    const TYPE: NativeType = NativeType::String;
    const ANY_BITS: bool = false;
    const AS_BYTES: bool = false;
    fn put(&self, buf: &mut Vec<u8>, base: usize, at: usize) -> Result<(), Error> {
        append_var(buf, base, at, self.len(), |buf| {
            buf.extend_from_slice(self.as_bytes());
            Ok(())
        })
    }
    fn get(body: &[u8], at: usize) -> Result<Self, Error> {
        let (off, len) = read_slot(body, at, 1)?;
        match core::str::from_utf8(&body[off..off + len]) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(Error::new(ErrorKind::InvalidUtf8, off + e.valid_up_to())),
        }
    }
}
// No `ArrayElement` for `String`: a string's slot is 8 bytes but a `String` 24, so in a
// `[String; N]` the slots lie 24 bytes apart, which a format (whose elements lie their size
// apart) cannot describe.

// SAFETY: a `Vec` holds a pointer, so neither constant holds; `TYPE` says it is a slot.
unsafe impl<T: VarElement> Native for Vec<T> {
    const TYPE: NativeType = NativeType::Var { elem: &T::TYPE };
    const ANY_BITS: bool = false;
    const AS_BYTES: bool = false;
    fn put(&self, buf: &mut Vec<u8>, base: usize, at: usize) -> Result<(), Error> {
        let size = core::mem::size_of::<T>();
        append_var(buf, base, at, self.len(), |buf| {
            if T::AS_BYTES {
                // SAFETY: `T::AS_BYTES` promises that every byte of every `T` is initialised,
                // so the vector's elements are `len * size_of::<T>()` initialised bytes,
                // borrowed for as long as `self`.
                let bytes = unsafe {
                    core::slice::from_raw_parts(self.as_ptr().cast::<u8>(), self.len() * size)
                };
                buf.extend_from_slice(bytes);
                return Ok(());
            }
            let start = buf.len();
            buf.resize(start + self.len() * size, 0);
            for (i, v) in self.iter().enumerate() {
                v.put(buf, base, start + i * size)
                    .map_err(|e| e.at_index(i))?;
            }
            Ok(())
        })
    }
    fn get(body: &[u8], at: usize) -> Result<Self, Error> {
        let size = core::mem::size_of::<T>();
        let (off, len) = read_slot(body, at, size)?;
        if T::ANY_BITS {
            // `read_slot` checked that these bytes lie inside `body`.
            let bytes = &body[off..off + len * size];
            let mut v = Vec::<T>::with_capacity(len);
            // SAFETY: the vector has room for `len` elements, `len * size` bytes, which do not
            // overlap `bytes` (a shared borrow of the body).
            unsafe {
                core::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    v.as_mut_ptr().cast::<u8>(),
                    bytes.len(),
                )
            };
            // SAFETY: the first `len` elements were just written, and `T::ANY_BITS` promises
            // that any bytes are a valid `T`.
            unsafe { v.set_len(len) };
            return Ok(v);
        }
        let mut v = Vec::with_capacity(len);
        for i in 0..len {
            v.push(T::get(body, off + i * size).map_err(|e| e.at_index(i))?);
        }
        Ok(v)
    }
}

// SAFETY: an array is `N` elements laid out at multiples of `size_of::<T>()` with no padding
// between them, so it has no padding and no pointers, and accepts any bits, exactly when `T`
// does; `put` writes each element where it lives.
unsafe impl<T: ArrayElement, const N: usize> Native for [T; N] {
    const TYPE: NativeType = NativeType::Array {
        elem: &T::TYPE,
        len: N,
    };
    const ANY_BITS: bool = T::ANY_BITS;
    const AS_BYTES: bool = T::AS_BYTES;
    fn put(&self, buf: &mut Vec<u8>, base: usize, at: usize) -> Result<(), Error> {
        if T::AS_BYTES {
            // SAFETY: `T::AS_BYTES` promises every byte of every element is initialised; the
            // array's bytes are borrowed for as long as `self`.
            let bytes = unsafe {
                core::slice::from_raw_parts(
                    self.as_ptr().cast::<u8>(),
                    core::mem::size_of::<Self>(),
                )
            };
            buf[at..at + bytes.len()].copy_from_slice(bytes);
            return Ok(());
        }
        let size = core::mem::size_of::<T>();
        for (i, v) in self.iter().enumerate() {
            v.put(buf, base, at + i * size).map_err(|e| e.at_index(i))?;
        }
        Ok(())
    }
    fn get(body: &[u8], at: usize) -> Result<Self, Error> {
        if T::ANY_BITS {
            return read_at::<Self>(body, at);
        }
        let size = core::mem::size_of::<T>();
        marshal_core::array::try_from_fn(|i| T::get(body, at + i * size).map_err(|e| e.at_index(i)))
    }
}
impl<T: ArrayElement, const N: usize> ArrayElement for [T; N] {}

/// The body of `value`: its fixed part with every padding byte zero, then its variable parts.
pub fn to_body<T: Native>(value: &T) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    write_body(value, &mut buf)?;
    Ok(buf)
}

/// Appends the body of `value` to `buf` (offsets in slots count from where it starts).
pub fn write_body<T: Native>(value: &T, buf: &mut Vec<u8>) -> Result<(), Error> {
    let base = buf.len();
    let size = core::mem::size_of::<T>();
    if T::AS_BYTES {
        buf.extend_from_slice(as_bytes(value));
        return Ok(());
    }
    buf.resize(base + size, 0);
    value.put(buf, base, base)
}

/// The bytes of a value whose type is `AS_BYTES` (padding-free, pointer-free).
///
/// # Panics
/// If `T::AS_BYTES` is false (callers check it first).
pub fn as_bytes<T: Native>(value: &T) -> &[u8] {
    assert!(T::AS_BYTES, "as_bytes of a type with padding or pointers");
    // SAFETY: `T::AS_BYTES` (asserted) promises every byte of a `T` is initialised; the slice
    // covers exactly the value and borrows it.
    unsafe {
        core::slice::from_raw_parts((value as *const T).cast::<u8>(), core::mem::size_of::<T>())
    }
}

/// The bytes of a value as mutable bytes, when its type has no padding, no pointers and accepts
/// any bits (so whatever is written leaves a valid value); `None` otherwise.
pub fn as_bytes_mut<T: Native>(value: &mut T) -> Option<&mut [u8]> {
    if !(T::AS_BYTES && T::ANY_BITS) {
        return None;
    }
    // SAFETY: `AS_BYTES` promises every byte of a `T` is initialised (no padding) and
    // `ANY_BITS` that any bytes written through the slice leave a valid `T` that owns nothing;
    // the slice covers exactly the value and borrows it exclusively.
    Some(unsafe {
        core::slice::from_raw_parts_mut((value as *mut T).cast::<u8>(), core::mem::size_of::<T>())
    })
}

/// Reads a `T` from a body in the local layout: one copy when `T` accepts any bits, else field
/// by field.
pub fn from_body<T: Native>(body: &[u8]) -> Result<T, Error> {
    read_at(body, 0)
}

/// Reads a `T` at `body[at..]` (a body in the local layout): one copy when `T` accepts any
/// bits, else [`Native::get`].
#[inline]
pub fn read_at<T: Native>(body: &[u8], at: usize) -> Result<T, Error> {
    if T::ANY_BITS {
        let bytes = slice(body, at, core::mem::size_of::<T>())?;
        let mut out = core::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `bytes` is `size_of::<T>()` bytes not overlapping the local `out`.
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                out.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            )
        };
        // SAFETY: every byte of `out` was just written, and `ANY_BITS` promises that any bytes
        // are a valid `T`.
        return Ok(unsafe { out.assume_init() });
    }
    T::get(body, at)
}

/// Reads a `T` into `out` from a body in the local layout (no move of a large `T` through the
/// stack when `T` accepts any bits).
pub fn body_into<T: Native>(body: &[u8], out: &mut T) -> Result<(), Error> {
    if T::ANY_BITS {
        let bytes = slice(body, 0, core::mem::size_of::<T>())?;
        // SAFETY: `out` is a valid, exclusively borrowed `T`; `bytes` has its size and does
        // not overlap it (it is a shared borrow); `ANY_BITS` promises any bytes are a valid
        // `T` and that `T` owns nothing that overwriting would leak.
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (out as *mut T).cast::<u8>(),
                bytes.len(),
            );
        }
        return Ok(());
    }
    *out = T::get(body, 0)?;
    Ok(())
}

/// A view of the body's fixed part as a `&T`, when `T` accepts any bits and the body is
/// aligned for `T` and long enough; `None` otherwise.
pub fn view<T: Native>(body: &[u8]) -> Option<&T> {
    if !T::ANY_BITS
        || body.len() < core::mem::size_of::<T>()
        || body.as_ptr().align_offset(core::mem::align_of::<T>()) != 0
    {
        return None;
    }
    // SAFETY: the pointer is aligned for `T` and `size_of::<T>()` bytes behind it are inside
    // `body` (both checked); `ANY_BITS` promises any bytes are a valid `T` with no pointers,
    // and the reference borrows `body`, which cannot change meanwhile.
    Some(unsafe { &*body.as_ptr().cast::<T>() })
}

const _: () = assert!(SLOT == 8, "a slot is two u32s");
