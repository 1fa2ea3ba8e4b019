use marshal::Marshal;

#[derive(Marshal)]
struct Fh {
    data: Vec<u8>,
}

// An encode-only type has encoders only: decoding it is an error at the call.
#[derive(Marshal)]
#[marshal(encode_only)]
struct Args<'a> {
    fh: &'a Fh,
    n: u32,
}

fn main() {
    let _ = marshal::xdr::from_slice::<Args<'_>>(&[]);
}
