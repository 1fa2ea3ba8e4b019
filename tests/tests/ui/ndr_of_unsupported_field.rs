use marshal::Marshal;

// The struct derives (XDR and CDR can carry an `Option`), but it has no NDR format: using it
// with NDR is the error, at the use.
#[derive(Marshal)]
struct Maybe {
    value: Option<u32>,
}

fn main() {
    let _ = marshal::ndr::Format::of::<Maybe>();
}
