use marshal::Marshal;

#[derive(Marshal)]
#[marshal(default_missing)]
enum Mode {
    On,
    Off,
}

fn main() {}
