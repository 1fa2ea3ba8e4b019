use marshal::Marshal;

#[derive(Marshal)]
struct Counts {
    id: u32,
    by_key: std::collections::HashMap<u32, u32>,
}

fn main() {}
