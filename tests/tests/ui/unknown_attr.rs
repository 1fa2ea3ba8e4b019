use marshal::Marshal;

#[derive(Marshal)]
struct Header {
    #[marshal(foo)]
    count: i32,
}

fn main() {}
