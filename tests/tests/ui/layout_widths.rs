use marshal::Marshal;

#[derive(Marshal)]
#[marshal(layout(size = 4))]
struct Header {
    // 9 bits do not fit a u8.
    #[marshal(at = 0, big, unit = u16, bits = 0..9)]
    a: u8,
    // A bool is one bit.
    #[marshal(at = 2, unit = u8, bits = 0..2)]
    b: bool,
    // Past the unit's 8 bits.
    #[marshal(at = 3, unit = u8, bits = 6..10)]
    c: u8,
}

fn main() {}
