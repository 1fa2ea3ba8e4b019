use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(tag = 0)]
    Ok(u32),
    #[marshal(default)]
    Unknown(i32, u32, u32),
}

fn main() {}
