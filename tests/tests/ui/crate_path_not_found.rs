use marshal::Marshal;

// The path is what generated code uses: a crate that is not there is not found.
#[derive(Marshal)]
#[marshal(crate = "not_marshal")]
struct Elsewhere {
    a: u32,
}

fn main() {}
