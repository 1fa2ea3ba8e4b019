use marshal::Marshal;

// A `String` is 24 bytes around an 8-byte slot: no NDR format describes an array of them.
#[derive(Marshal)]
struct Tags {
    tags: [String; 2],
}

fn main() {
    let _ = marshal::ndr::Format::of::<Tags>();
}
