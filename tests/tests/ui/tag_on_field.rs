use marshal::Marshal;

#[derive(Marshal)]
struct Header {
    #[marshal(tag = 1)]
    count: i32,
}

fn main() {}
