use marshal::Marshal;

#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
enum Status {
    Ok,
    Err,
}

// The default arm holds the discriminant in the discriminant's type.
#[derive(Marshal)]
#[marshal(discriminant = Status)]
enum Res {
    #[marshal(tag = Status::Ok)]
    Ok(u32),
    #[marshal(default)]
    Fail(i32),
}

fn main() {}
