use marshal::Marshal;

#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
enum Status {
    Ok,
    Err,
}

// A label is a value of the discriminant's type.
#[derive(Marshal)]
#[marshal(discriminant = Status)]
enum Res {
    #[marshal(tag = Status::Ok)]
    Ok(u32),
    #[marshal(tag = 1)]
    Err,
}

fn main() {}
