use marshal::Marshal;

#[derive(Marshal)]
#[repr(i64)]
enum Wide {
    Big = 1 << 32,
    Zero = 0,
}

fn main() {
    let _ = (Wide::Big, Wide::Zero);
}
