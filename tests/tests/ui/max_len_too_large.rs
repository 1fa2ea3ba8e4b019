use marshal::Marshal;

#[derive(Marshal)]
struct Header {
    #[marshal(max_len = 5000000000)]
    name: String,
}

fn main() {}
