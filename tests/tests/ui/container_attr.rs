use marshal::Marshal;

#[derive(Marshal)]
#[marshal(max_len = 4)]
struct Header {
    count: i32,
}

fn main() {}
