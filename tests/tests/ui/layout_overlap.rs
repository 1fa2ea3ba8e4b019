use marshal::Marshal;

#[derive(Marshal)]
#[marshal(layout(size = 8))]
struct Header {
    #[marshal(at = 0, big)]
    a: u32,
    #[marshal(at = 2, big)]
    b: u16,
    #[marshal(at = 6, unit = u16, bits = 0..4)]
    c: u8,
    #[marshal(at = 6, unit = u16, bits = 3..8)]
    d: u8,
}

fn main() {}
