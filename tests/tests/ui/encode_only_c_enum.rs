use marshal::Marshal;

// A C-like enum always decodes: `encode_only` is for types that borrow what they send.
#[derive(Marshal)]
#[marshal(encode_only)]
enum Colour {
    Red,
}

fn main() {}
