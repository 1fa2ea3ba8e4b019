use marshal::Marshal;

#[derive(Marshal)]
#[marshal(layout(size = 8))]
struct Header {
    // No offset.
    a: u16,
    // Not a layout type.
    #[marshal(at = 2)]
    b: String,
    // Bits need their unit, and a unit needs bits.
    #[marshal(at = 4, bits = 0..3)]
    c: u8,
    #[marshal(at = 5, unit = u8)]
    d: u8,
    // A bool is a bit-field.
    #[marshal(at = 6)]
    e: bool,
    // Units are unsigned integers.
    #[marshal(at = 7, unit = i8, bits = 0..1)]
    f: u8,
}

fn main() {}
