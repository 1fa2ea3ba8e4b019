use marshal::Marshal;

// Getters are named as the fields, setters `set_<field>`: these would clash on the views.
#[derive(Marshal)]
#[marshal(layout(size = 4, align = 4))]
struct Register {
    #[marshal(at = 0)]
    read: u8,
    #[marshal(at = 1)]
    as_bytes: u8,
    #[marshal(at = 2)]
    mode: u8,
    #[marshal(at = 3)]
    set_mode: u8,
}

fn main() {}
