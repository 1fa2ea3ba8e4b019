//! [`VarLen`]: the types a `#[marshal(max_len = N)]` bound applies to, for every wire format.
//! What a bound means on the wire (a size class, a NUL counted in the length) is each wire
//! crate's business; this is only which types have a length and what they hold.

/// Types a `max_len` attribute applies to: strings, opaque data (byte strings) and sequences.
#[diagnostic::on_unimplemented(
    message = "`max_len` applies to strings, opaque data and sequences, not to `{Self}`",
    label = "`max_len` is not allowed on a field of type `{Self}`"
)]
pub trait VarLen {
    /// What the length counts: `u8` for strings and byte strings, `T` for a sequence of `T`.
    type Elem;
    /// Whether the value is text (a string), whose length some formats count with its NUL.
    const TEXT: bool;
    /// Number of elements (bytes for strings and byte strings).
    fn var_len(&self) -> usize;
}

impl VarLen for str {
    type Elem = u8;
    const TEXT: bool = true;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl VarLen for String {
    type Elem = u8;
    const TEXT: bool = true;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl VarLen for bytes::Bytes {
    type Elem = u8;
    const TEXT: bool = false;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl VarLen for crate::BytesStr {
    type Elem = u8;
    const TEXT: bool = true;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl<T> VarLen for [T] {
    type Elem = T;
    const TEXT: bool = false;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl<T> VarLen for Vec<T> {
    type Elem = T;
    const TEXT: bool = false;
    #[inline(always)]
    fn var_len(&self) -> usize {
        self.len()
    }
}
impl<T: VarLen + ?Sized> VarLen for &T {
    type Elem = T::Elem;
    const TEXT: bool = T::TEXT;
    #[inline(always)]
    fn var_len(&self) -> usize {
        (**self).var_len()
    }
}
impl<T: VarLen + ToOwned + ?Sized> VarLen for std::borrow::Cow<'_, T> {
    type Elem = T::Elem;
    const TEXT: bool = T::TEXT;
    #[inline(always)]
    fn var_len(&self) -> usize {
        (**self).var_len()
    }
}
impl<T: VarLen + ?Sized> VarLen for Box<T> {
    type Elem = T::Elem;
    const TEXT: bool = T::TEXT;
    #[inline(always)]
    fn var_len(&self) -> usize {
        (**self).var_len()
    }
}

#[cfg(test)]
mod tests {
    use super::VarLen;

    fn facts<T: VarLen + ?Sized>(v: &T) -> (usize, bool) {
        (v.var_len(), T::TEXT)
    }

    #[test]
    fn lengths_count_elements_and_only_strings_are_text() {
        assert_eq!(facts("héllo"), (6, true));
        assert_eq!(facts(&String::from("ab")), (2, true));
        assert_eq!(facts(&bytes::Bytes::from_static(b"abc")), (3, false));
        assert_eq!(facts(&crate::BytesStr::from("h\u{e9}")), (3, true));
        assert_eq!(facts(&[1u32, 2][..]), (2, false));
        assert_eq!(facts(&vec![0u64; 5]), (5, false));
        assert_eq!(facts(&Box::new(String::from("xyz"))), (3, true));
        assert_eq!(facts(&&vec![1u8]), (1, false));
    }

    #[test]
    fn the_element_type_is_what_the_length_counts() {
        fn same<A: 'static, B: 'static>() -> bool {
            core::any::TypeId::of::<A>() == core::any::TypeId::of::<B>()
        }
        assert!(same::<<str as VarLen>::Elem, u8>());
        assert!(same::<<bytes::Bytes as VarLen>::Elem, u8>());
        assert!(same::<<Vec<i16> as VarLen>::Elem, i16>());
        assert!(same::<<Box<[f64]> as VarLen>::Elem, f64>());
    }
}
