use marshal::Marshal;

#[derive(Marshal)]
#[repr(i32)]
enum Reply {
    #[marshal(tag = 1)]
    A(u32) = 3,
    #[marshal(tag = 2)]
    B,
}

fn main() {}
