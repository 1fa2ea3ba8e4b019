use marshal::Marshal;

// `at` without `layout(...)` on the struct.
#[derive(Marshal)]
struct Plain {
    #[marshal(at = 0)]
    a: u32,
}

// `layout` needs named fields, and a size.
#[derive(Marshal)]
#[marshal(layout(size = 4))]
struct Tuple(#[marshal(at = 0)] u32);

#[derive(Marshal)]
#[marshal(layout(align = 3))]
struct NoSize {
    #[marshal(at = 0)]
    a: u32,
}

fn main() {}
