use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(tag = 1)]
    A(u32),
    #[marshal(tag = 1)]
    B(String),
}

fn main() {}
