use marshal::Marshal;

#[derive(Marshal)]
struct Header<'a> {
    count: &'a u32,
}

fn main() {}
