use marshal::Marshal;

#[derive(Marshal)]
enum Reply {
    #[marshal(tag = 0)]
    Ok(u32),
    #[marshal(default)]
    Unknown,
}

fn main() {}
