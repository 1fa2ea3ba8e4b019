//! What a decoder knows about a type's CDR encoding at compile time: whether it is a fixed
//! segment (one length check, constant offsets inside) and whether decoding it can recurse
//! (a depth level). The derive emits constant expressions over the fields' shapes
//! (`Shape::EMPTY.then(A).then(B)`) and rustc folds them, as for XDR's `SizeClass`.

use marshal_core::size_class::round_up;

/// The shape of a type's CDR encoding.
///
/// ```
/// use wire_iiop::Shape;
/// // struct Stat { long ints[30]; octet chars[16]; }
/// let stat = Shape::EMPTY.then(Shape::fixed(4, 4).repeat(30)).then(Shape::fixed(1, 1).repeat(16));
/// assert_eq!(stat, Shape::fixed(4, 136));
/// // An octet first, a long after it: where the long starts depends on where the struct does.
/// assert_eq!(Shape::EMPTY.then(Shape::fixed(1, 1)).then(Shape::fixed(4, 4)), Shape::Shallow);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Padding to `align` (a power of two), then exactly `size` bytes whose own padding is the
    /// same wherever the value starts (every alignment inside is at most `align`).
    Fixed {
        /// The alignment of the first byte.
        align: usize,
        /// The bytes after the leading padding.
        size: usize,
    },
    /// Not fixed, but holding no sequence, optional value or box: decoding cannot reach a value
    /// of the same type again, so it needs no depth level.
    Shallow,
    /// May hold values of its own type (through a sequence, optional value or box): decoding
    /// takes one depth level.
    Deep,
}

impl Shape {
    /// Nothing at all (`()`, an empty struct, a zero-length array).
    pub const EMPTY: Shape = Shape::fixed(1, 0);

    /// `size` bytes aligned to `align` (a power of two).
    pub const fn fixed(align: usize, size: usize) -> Shape {
        Shape::Fixed { align, size }
    }

    /// `self` followed by `next` (a struct's fields in sequence).
    pub const fn then(self, next: Shape) -> Shape {
        match (self, next) {
            // Aligning to one power of two and then to another aligns to the larger.
            (Shape::Fixed { align: a, size: 0 }, Shape::Fixed { align: b, size }) => {
                Shape::fixed(if a > b { a } else { b }, size)
            }
            // `next` starts at a constant offset and its alignment divides `align`: its
            // padding is constant too.
            (Shape::Fixed { align, size }, Shape::Fixed { align: b, size: n }) if b <= align => {
                match round_up(size, b) {
                    Some(at) => match at.checked_add(n) {
                        Some(end) => Shape::fixed(align, end),
                        None => Shape::Shallow,
                    },
                    None => Shape::Shallow,
                }
            }
            (Shape::Deep, _) | (_, Shape::Deep) => Shape::Deep,
            _ => Shape::Shallow,
        }
    }

    /// `n` consecutive values of this shape (a fixed-length array).
    pub const fn repeat(self, n: usize) -> Shape {
        match self {
            _ if n == 0 => Shape::EMPTY,
            Shape::Fixed { align, size } => {
                // Every element after the first starts `stride` bytes after the one before.
                let stride = match round_up(size, align) {
                    Some(s) => s,
                    None => return Shape::Shallow,
                };
                match stride.checked_mul(n - 1) {
                    Some(before) => match before.checked_add(size) {
                        Some(total) => Shape::fixed(align, total),
                        None => Shape::Shallow,
                    },
                    None => Shape::Shallow,
                }
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Shape;

    #[test]
    fn folds() {
        let long = Shape::fixed(4, 4);
        let octet = Shape::fixed(1, 1);
        // A long then an octet: 5 bytes; in an array each element is padded to 8.
        let lo = Shape::EMPTY.then(long).then(octet);
        assert_eq!(lo, Shape::fixed(4, 5));
        assert_eq!(lo.repeat(3), Shape::fixed(4, 21));
        assert_eq!(lo.repeat(0), Shape::EMPTY);
        // A long after the octet is padded to 8.
        assert_eq!(lo.then(long), Shape::fixed(4, 12));
        // A double after a long depends on where the struct starts.
        assert_eq!(long.then(Shape::fixed(8, 8)), Shape::Shallow);
        assert_eq!(Shape::Shallow.then(long), Shape::Shallow);
        assert_eq!(Shape::Deep.then(long), Shape::Deep);
        assert_eq!(Shape::Shallow.then(Shape::Deep), Shape::Deep);
        assert_eq!(Shape::Deep.repeat(2), Shape::Deep);
        assert_eq!(long.repeat(usize::MAX), Shape::Shallow);
        assert_eq!(Shape::fixed(1, usize::MAX).then(octet), Shape::Shallow);
    }
}
