use marshal::Marshal;

#[derive(Marshal)]
struct Header {
    #[marshal(max_len = 4, max_len = 8)]
    name: String,
}

fn main() {}
