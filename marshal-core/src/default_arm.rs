//! The first field of a union arm that holds its discriminant: the `default` arm, an arm with
//! several labels, and CDR's `no_member` arm keep the discriminant they were decoded with, so
//! that re-encoding is byte-identical. Every wire format's derive output names it.

/// The type of the first field of an arm that holds the discriminant: the union's
/// discriminant type `D` itself (`i32` unless the union says `#[marshal(discriminant = D)]`).
#[diagnostic::on_unimplemented(
    message = "the first field of this arm holds the union's discriminant and must be `{D}`, not `{Self}`",
    label = "expected `{D}`"
)]
pub trait ArmDiscriminant<D> {
    /// The discriminant held.
    fn get(&self) -> &D;
    /// The field from a decoded discriminant.
    fn from_discriminant(d: D) -> Self;
}

impl<D> ArmDiscriminant<D> for D {
    #[inline(always)]
    fn get(&self) -> &D {
        self
    }
    #[inline(always)]
    fn from_discriminant(d: D) -> Self {
        d
    }
}
