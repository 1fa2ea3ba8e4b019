use marshal::Marshal;

// A type derived for CDR only has no XDR encoding: encoding it in XDR is an error at the call.
#[derive(Marshal)]
#[marshal(formats(cdr))]
struct OnlyCdr {
    x: i32,
}

fn main() {
    let _ = marshal::cdr::to_vec(&OnlyCdr { x: 1 }, marshal::cdr::ByteOrder::Big);
    let _ = marshal::xdr::to_vec(&OnlyCdr { x: 1 });
}
