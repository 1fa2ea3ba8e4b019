use marshal::Marshal;

// `formats(...)` lists known formats, each once, at least one, on the type.
#[derive(Marshal)]
#[marshal(formats(cdr, json))]
struct Unknown {
    x: i32,
}

#[derive(Marshal)]
#[marshal(formats(cdr, cdr))]
struct Twice {
    x: i32,
}

#[derive(Marshal)]
#[marshal(formats())]
struct Empty {
    x: i32,
}

#[derive(Marshal)]
struct OnField {
    #[marshal(formats(cdr))]
    x: i32,
}

fn main() {}
