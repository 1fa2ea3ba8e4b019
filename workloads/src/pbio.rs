//! PBIO's small benchmark record:
//!
//! ```c
//! struct small { int ivalue; double dvalue; int iarray[5]; };
//! ```
//!
//! 40 bytes as a C compiler lays it out on x86-64; the Rust struct writes the compiler's
//! padding out as `_pad` fields (4 bytes before `dvalue`, 4 at the end), as
//! [`ksdata`](crate::ksdata) does, so it has no implicit padding and goes out with no copy.

use marshal::Marshal;

/// `struct small { int ivalue; double dvalue; int iarray[5]; }`, 40 bytes.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct PbioSmall {
    /// `int ivalue`.
    pub ivalue: i32,
    /// Padding before `dvalue` (always 0).
    pub _pad0: u32,
    /// `double dvalue`.
    pub dvalue: f64,
    /// `int iarray[5]`.
    pub iarray: [i32; 5],
    /// Padding to a multiple of 8 bytes (always 0).
    pub _pad1: u32,
}

impl PbioSmall {
    /// A record with distinct, exactly representable values.
    pub fn sample(seed: i32) -> Box<PbioSmall> {
        Box::new(PbioSmall {
            ivalue: seed,
            _pad0: 0,
            dvalue: f64::from(seed) * 0.5,
            iarray: core::array::from_fn(|i| seed.wrapping_mul(10).wrapping_add(i as i32)),
            _pad1: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use marshal::ndr::Format;

    #[test]
    fn layout_is_pbios() {
        assert_eq!(core::mem::size_of::<PbioSmall>(), 40);
        assert_eq!(core::mem::offset_of!(PbioSmall, dvalue), 8);
        assert_eq!(core::mem::offset_of!(PbioSmall, iarray), 16);
        assert!(Format::of::<PbioSmall>().is_zero_copy());
    }
}
