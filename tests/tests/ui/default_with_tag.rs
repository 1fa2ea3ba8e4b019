use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(tag = 0)]
    Ok(u32),
    #[marshal(default, tag = 3)]
    Unknown(i32),
}

fn main() {}
