//! Size classes (Flick §3.1): how many bytes a type takes on the wire, known at compile time.
//!
//! Every type has a [`SizeClass`] per wire format. The derive cannot see the size of a field's
//! type, so it emits constant expressions over the fields' own classes (`Fixed(0).then(A).then(B)`)
//! and rustc folds them; generated code branches on the result and the branch vanishes.

/// How many bytes a type occupies on the wire.
///
/// ```
/// use marshal_core::SizeClass;
/// const POINT: SizeClass = SizeClass::Fixed(4).then(SizeClass::Fixed(4));
/// assert_eq!(POINT, SizeClass::Fixed(8));
/// assert_eq!(POINT.then(SizeClass::Bounded(260)), SizeClass::Bounded(268));
/// assert_eq!(POINT.or(SizeClass::Fixed(0)), SizeClass::Bounded(8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SizeClass {
    /// Always exactly this many bytes.
    Fixed(usize),
    /// At most this many bytes.
    Bounded(usize),
    /// No bound known at compile time.
    Unbounded,
}

impl SizeClass {
    /// The class of `self` followed by `next` (a struct's fields in sequence).
    pub const fn then(self, next: SizeClass) -> SizeClass {
        match (self, next) {
            (SizeClass::Fixed(a), SizeClass::Fixed(b)) => match a.checked_add(b) {
                Some(n) => SizeClass::Fixed(n),
                None => SizeClass::Unbounded,
            },
            (SizeClass::Unbounded, _) | (_, SizeClass::Unbounded) => SizeClass::Unbounded,
            (a, b) => match a.max_len() {
                Some(x) => match b.max_len() {
                    Some(y) => match x.checked_add(y) {
                        Some(n) => SizeClass::Bounded(n),
                        None => SizeClass::Unbounded,
                    },
                    None => SizeClass::Unbounded,
                },
                None => SizeClass::Unbounded,
            },
        }
    }

    /// The class of "either `self` or `other`" (the arms of a union).
    pub const fn or(self, other: SizeClass) -> SizeClass {
        match (self, other) {
            (SizeClass::Fixed(a), SizeClass::Fixed(b)) if a == b => SizeClass::Fixed(a),
            (SizeClass::Unbounded, _) | (_, SizeClass::Unbounded) => SizeClass::Unbounded,
            (a, b) => {
                let (x, y) = (a.max_len_or_zero(), b.max_len_or_zero());
                SizeClass::Bounded(if x > y { x } else { y })
            }
        }
    }

    /// The class of `n` consecutive values of this class (a fixed-length array).
    pub const fn repeat(self, n: usize) -> SizeClass {
        match self {
            SizeClass::Fixed(a) => match a.checked_mul(n) {
                Some(t) => SizeClass::Fixed(t),
                None => SizeClass::Unbounded,
            },
            SizeClass::Bounded(a) => match a.checked_mul(n) {
                Some(t) => SizeClass::Bounded(t),
                None => SizeClass::Unbounded,
            },
            SizeClass::Unbounded if n == 0 => SizeClass::Fixed(0),
            SizeClass::Unbounded => SizeClass::Unbounded,
        }
    }

    /// Up to `n` values of this class (a variable-length array with a maximum), without the
    /// length prefix.
    pub const fn repeat_up_to(self, n: usize) -> SizeClass {
        match self.repeat(n) {
            SizeClass::Fixed(0) => SizeClass::Fixed(0),
            SizeClass::Fixed(t) | SizeClass::Bounded(t) => SizeClass::Bounded(t),
            SizeClass::Unbounded => SizeClass::Unbounded,
        }
    }

    /// Rounds the size (or the bound) up to a multiple of `align` (a power of two).
    pub const fn pad_to(self, align: usize) -> SizeClass {
        match self {
            SizeClass::Fixed(n) => match round_up(n, align) {
                Some(n) => SizeClass::Fixed(n),
                None => SizeClass::Unbounded,
            },
            SizeClass::Bounded(n) => match round_up(n, align) {
                Some(n) => SizeClass::Bounded(n),
                None => SizeClass::Unbounded,
            },
            SizeClass::Unbounded => SizeClass::Unbounded,
        }
    }

    /// The exact size when the class is `Fixed`.
    pub const fn fixed_len(self) -> Option<usize> {
        match self {
            SizeClass::Fixed(n) => Some(n),
            _ => None,
        }
    }

    /// The largest size a value of this class can take, if there is one.
    pub const fn max_len(self) -> Option<usize> {
        match self {
            SizeClass::Fixed(n) | SizeClass::Bounded(n) => Some(n),
            SizeClass::Unbounded => None,
        }
    }

    /// The leading run of fixed-size classes in a sequence (a struct's fields): how many
    /// classes it holds and how many bytes they take together. A struct that is not fixed as
    /// a whole can still encode and decode its leading fixed fields as one segment (one
    /// capacity or length check for all of them).
    ///
    /// ```
    /// use marshal_core::SizeClass::{self, *};
    /// assert_eq!(SizeClass::fixed_prefix(&[Fixed(4), Fixed(8), Unbounded, Fixed(4)]), (2, 12));
    /// assert_eq!(SizeClass::fixed_prefix(&[Bounded(8), Fixed(4)]), (0, 0));
    /// assert_eq!(SizeClass::fixed_prefix(&[Fixed(4), Fixed(4)]), (2, 8));
    /// ```
    pub const fn fixed_prefix(classes: &[SizeClass]) -> (usize, usize) {
        let (mut i, mut bytes) = (0, 0usize);
        while i < classes.len() {
            let SizeClass::Fixed(n) = classes[i] else {
                break;
            };
            match bytes.checked_add(n) {
                Some(b) => bytes = b,
                None => break,
            }
            i += 1;
        }
        (i, bytes)
    }

    /// `true` for `Fixed`.
    pub const fn is_fixed(self) -> bool {
        matches!(self, SizeClass::Fixed(_))
    }

    const fn max_len_or_zero(self) -> usize {
        match self.max_len() {
            Some(n) => n,
            None => 0,
        }
    }
}

/// `n` rounded up to a multiple of `align` (a power of two), or `None` on overflow.
pub const fn round_up(n: usize, align: usize) -> Option<usize> {
    match n.checked_add(align - 1) {
        Some(t) => Some(t & !(align - 1)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::SizeClass::{self, *};

    #[test]
    fn sequence_and_choice() {
        assert_eq!(Fixed(4).then(Fixed(12)), Fixed(16));
        assert_eq!(Fixed(4).then(Bounded(8)), Bounded(12));
        assert_eq!(Bounded(4).then(Unbounded), Unbounded);
        assert_eq!(Fixed(4).or(Fixed(4)), Fixed(4));
        assert_eq!(Fixed(4).or(Fixed(0)), Bounded(4));
        assert_eq!(Bounded(10).or(Fixed(20)), Bounded(20));
        assert_eq!(Fixed(1).or(Unbounded), Unbounded);
    }

    #[test]
    fn arrays_and_padding() {
        assert_eq!(Fixed(16).repeat(4), Fixed(64));
        assert_eq!(Unbounded.repeat(0), Fixed(0));
        assert_eq!(Fixed(1).repeat_up_to(255).pad_to(4), Bounded(256));
        assert_eq!(Fixed(usize::MAX).repeat(2), Unbounded);
        assert_eq!(Fixed(usize::MAX).then(Fixed(1)), Unbounded);
        assert_eq!(Fixed(usize::MAX).pad_to(4), Unbounded);
    }

    #[test]
    fn usable_in_const() {
        const C: SizeClass = Fixed(4).then(Fixed(1).repeat_up_to(255).pad_to(4));
        assert_eq!(C, Bounded(260));
        const _: () = assert!(C.max_len().is_some());
    }
}
