use marshal::Marshal;

#[derive(Marshal)]
#[marshal(manual_drop)]
struct Pair {
    a: u32,
    b: Option<Box<u32>>,
}

fn main() {}
