use marshal::Marshal;

#[derive(Marshal)]
enum WithBody {
    #[marshal(tag = 1)]
    A(u32),
    #[marshal(no_member)]
    None(i32, u32),
}

#[derive(Marshal)]
enum Tagged {
    #[marshal(tag = 1)]
    A(u32),
    #[marshal(no_member, tag = 2)]
    None(i32),
}

#[derive(Marshal)]
enum AndDefault {
    #[marshal(tag = 1)]
    A(u32),
    #[marshal(no_member)]
    None(i32),
    #[marshal(default)]
    Other(i32),
}

fn main() {}
