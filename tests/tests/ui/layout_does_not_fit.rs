use marshal::Marshal;

#[derive(Marshal)]
#[marshal(layout(size = 6, align = 2))]
struct Header {
    #[marshal(at = 0)]
    a: [u8; 4],
    #[marshal(at = 4, big)]
    b: u32,
}

fn main() {}
