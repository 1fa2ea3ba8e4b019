use marshal::Marshal;

// `default_missing` takes missing NDR fields from `Default`, which this type lacks.
#[derive(Marshal)]
#[marshal(default_missing)]
struct Reading {
    sensor: u16,
    value: f64,
}

fn main() {}
