use marshal::Marshal;

#[derive(Marshal)]
struct Header {
    #[marshal(max_len = 4)]
    count: i32,
}

fn main() {}
