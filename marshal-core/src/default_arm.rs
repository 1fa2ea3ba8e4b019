//! The first field of a union's `default` arm: the discriminant it was decoded with, kept so
//! that re-encoding is byte-identical. Every wire format's derive output names it.

/// The type of a `default` arm's first field: an `i32`.
#[diagnostic::on_unimplemented(
    message = "the first field of a `default` arm holds the discriminant and must be `i32`, not `{Self}`",
    label = "expected `i32`"
)]
pub trait ArmDiscriminant {
    /// The discriminant value.
    fn get(&self) -> i32;
    /// The field from a decoded discriminant.
    fn from_i32(d: i32) -> Self;
}

impl ArmDiscriminant for i32 {
    #[inline(always)]
    fn get(&self) -> i32 {
        *self
    }
    #[inline(always)]
    fn from_i32(d: i32) -> Self {
        d
    }
}
