//! What a codec knows about a type's CDR encoding at compile time: whether it is a fixed
//! segment (one length or capacity check, constant offsets inside) and whether decoding it can
//! recurse (a depth level). The derive emits constant expressions over the fields' shapes
//! (`Shape::EMPTY.then(A).then(B)`) and rustc folds them, as for XDR's `SizeClass`.
//!
//! CDR aligns every primitive to its size relative to the origin, so where a struct's fields
//! land depends on where the struct starts, modulo 8. A struct whose alignments inside never
//! exceed that of its first byte has one layout ([`Shape::Fixed`]); any other struct of
//! primitives and arrays has one layout per start position modulo 8 ([`Shape::Phased`]): the
//! derive emits the code for each and selects one per value at run time, by `position % 8`.

use marshal_core::size_class::round_up;

/// The shape of a type's CDR encoding.
///
/// ```
/// use wire_iiop::Shape;
/// // struct Stat { long ints[30]; octet chars[16]; }
/// let stat = Shape::EMPTY.then(Shape::fixed(4, 4).repeat(30)).then(Shape::fixed(1, 1).repeat(16));
/// assert_eq!(stat, Shape::fixed(4, 136));
/// // An octet first, a long after it: where the long starts depends on where the struct does,
/// // so there is one layout per start phase (8 bytes from an aligned start, 7 from one past).
/// let ol = Shape::EMPTY.then(Shape::fixed(1, 1)).then(Shape::fixed(4, 4));
/// assert_eq!(ol, Shape::Phased { sizes: [8, 7, 6, 5, 8, 7, 6, 5] });
/// // A string has no fixed layout.
/// assert_eq!(ol.then(Shape::Shallow), Shape::Shallow);
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
    /// A fixed layout for each start position modulo 8: starting at `p`, the value takes
    /// exactly `sizes[p % 8]` bytes, its leading padding included. `{ octet a; long b; }` is 8
    /// bytes from an aligned start and 7 from one byte past it.
    Phased {
        /// Bytes taken, leading padding included, by start position modulo 8.
        sizes: [usize; 8],
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
            // Fixed per start phase: follow each phase through both.
            (a, b) => match (a.phase_sizes(), b.phase_sizes()) {
                (Some(sa), Some(sb)) => {
                    let mut sizes = [0; 8];
                    let mut k = 0;
                    while k < 8 {
                        let next = (k + sa[k]) % 8;
                        sizes[k] = match sa[k].checked_add(sb[next]) {
                            Some(n) => n,
                            None => return Shape::Shallow,
                        };
                        k += 1;
                    }
                    Shape::Phased { sizes }
                }
                _ => Shape::Shallow,
            },
        }
    }

    /// The bytes taken, leading padding included, by start position modulo 8, when the layout
    /// is fixed for each phase (`Fixed` or `Phased`).
    ///
    /// ```
    /// use wire_iiop::Shape;
    /// assert_eq!(Shape::fixed(4, 4).phase_sizes(), Some([4, 7, 6, 5, 4, 7, 6, 5]));
    /// assert_eq!(Shape::Shallow.phase_sizes(), None);
    /// ```
    pub const fn phase_sizes(self) -> Option<[usize; 8]> {
        match self {
            Shape::Fixed { align, size } => {
                let mut sizes = [0; 8];
                let mut k = 0;
                while k < 8 {
                    // `align` is at most 8 for CDR values; a larger one is not phased.
                    if align > 8 {
                        return None;
                    }
                    sizes[k] = match size.checked_add(crate::pad(k, align)) {
                        Some(n) => n,
                        None => return None,
                    };
                    k += 1;
                }
                Some(sizes)
            }
            Shape::Phased { sizes } => Some(sizes),
            _ => None,
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
            // `n` copies by doubling: O(log n) steps of `then`, each over 8 phases.
            Shape::Phased { .. } => {
                let mut out = Shape::EMPTY;
                let mut square = self;
                let mut n = n;
                loop {
                    if n & 1 == 1 {
                        out = out.then(square);
                    }
                    n >>= 1;
                    if n == 0 {
                        break out;
                    }
                    square = square.then(square);
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
        assert_eq!(
            long.then(Shape::fixed(8, 8)),
            Shape::Phased {
                sizes: [16, 15, 14, 13, 12, 19, 18, 17]
            }
        );
        assert_eq!(Shape::Shallow.then(long), Shape::Shallow);
        assert_eq!(Shape::Deep.then(long), Shape::Deep);
        assert_eq!(Shape::Shallow.then(Shape::Deep), Shape::Deep);
        assert_eq!(Shape::Deep.repeat(2), Shape::Deep);
        assert_eq!(long.repeat(usize::MAX), Shape::Shallow);
        assert_eq!(Shape::fixed(1, usize::MAX).then(octet), Shape::Shallow);
    }

    /// Walks a list of primitive sizes from `start`, aligning each to its size: the reference
    /// the phase algebra must agree with.
    fn walk(start: usize, prims: &[usize]) -> usize {
        let mut p = start;
        for &n in prims {
            p = p.next_multiple_of(n) + n;
        }
        p - start
    }

    #[test]
    fn phases_agree_with_walking_the_fields() {
        let octet = Shape::fixed(1, 1);
        let short = Shape::fixed(2, 2);
        let long = Shape::fixed(4, 4);
        let double = Shape::fixed(8, 8);
        // { octet; long; } { short; double; octet; } and arrays of them.
        let cases: [(&[usize], Shape); 3] = [
            (&[1, 4], Shape::EMPTY.then(octet).then(long)),
            (
                &[2, 8, 1],
                Shape::EMPTY.then(short).then(double).then(octet),
            ),
            (
                &[1, 2, 4, 8],
                Shape::EMPTY.then(octet).then(short).then(long).then(double),
            ),
        ];
        for (prims, shape) in cases {
            for n in [0usize, 1, 2, 3, 5, 8, 13] {
                let all: Vec<usize> = prims
                    .iter()
                    .copied()
                    .cycle()
                    .take(prims.len() * n)
                    .collect();
                let sizes = shape.repeat(n).phase_sizes().expect("phased");
                for (k, &size) in sizes.iter().enumerate() {
                    assert_eq!(size, walk(k, &all), "{prims:?} x{n} from {k}");
                }
            }
        }
        // Phases stop at overflow and at anything not fixed.
        let p = Shape::EMPTY.then(octet).then(long);
        assert_eq!(p.repeat(usize::MAX), Shape::Shallow);
        assert_eq!(p.then(Shape::Deep), Shape::Deep);
        assert_eq!(p.then(Shape::Shallow), Shape::Shallow);
        assert_eq!(Shape::fixed(16, 1).phase_sizes(), None);
    }
}
