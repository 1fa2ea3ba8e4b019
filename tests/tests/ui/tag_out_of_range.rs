use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(tag = 3000000000)]
    A(u32),
    #[marshal(tag = 2)]
    B,
}

fn main() {}
