use marshal::Marshal;

#[derive(Marshal)]
#[repr(C, packed)]
struct Packed {
    tag: u8,
    value: u64,
}

fn main() {}
