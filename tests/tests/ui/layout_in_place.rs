use marshal::Marshal;

// `in_place` needs #[repr(C)], no bit-fields, and fields tiling the record.
#[derive(Marshal)]
#[marshal(layout(size = 4, in_place))]
struct NotReprC {
    #[marshal(at = 0, unit = u8, bits = 0..4)]
    a: u8,
    #[marshal(at = 2, big)]
    b: u16,
}

// The fields tile the layout, but #[repr(C)] puts `b` at 4, not 1: rustc says so.
#[derive(Marshal)]
#[repr(C)]
#[marshal(layout(size = 5, in_place))]
struct Misplaced {
    #[marshal(at = 0)]
    a: u8,
    #[marshal(at = 1, big)]
    b: u32,
}

fn main() {}
