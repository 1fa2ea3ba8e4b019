use marshal::Marshal;

// A CDR union switches on an integer of at most 32 bits or a `bool`; which ones is the wire
// crate's rule, so the error is its trait bound, at the type.
#[derive(Marshal)]
#[marshal(discriminant = i64)]
enum Wide {
    #[marshal(tag = 1)]
    One(u32),
    #[marshal(tag = 2)]
    Two,
}

fn main() {}
