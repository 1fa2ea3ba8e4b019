use marshal::Marshal;

// An arm with several labels keeps the one it was decoded with, so re-encoding is
// byte-identical: it must hold it as its first field.
#[derive(Marshal)]
#[marshal(discriminant = u32)]
enum Reply {
    #[marshal(tag = 0)]
    Ok(u32),
    #[marshal(tag = 1, tag = 2)]
    Void,
    #[marshal(tag = 3, tag = 3)]
    Twice(u32),
}

fn main() {}
