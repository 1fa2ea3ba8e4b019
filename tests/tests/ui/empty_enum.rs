use marshal::Marshal;

#[derive(Marshal)]
enum Never {}

fn main() {}
