use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(max_len = 8)]
    A(String),
    #[marshal(tag = 2)]
    B,
}

fn main() {}
