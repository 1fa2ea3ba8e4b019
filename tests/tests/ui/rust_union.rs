use marshal::Marshal;

#[derive(Marshal)]
union Word {
    i: i32,
    u: u32,
}

fn main() {}
