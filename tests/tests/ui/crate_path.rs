use marshal::Marshal;

// `crate` is a container attribute, and a path.
#[derive(Marshal)]
struct OnField {
    #[marshal(crate = "marshal")]
    a: u32,
}

#[derive(Marshal)]
#[marshal(crate = "not a path")]
struct NotAPath {
    a: u32,
}

fn main() {}
