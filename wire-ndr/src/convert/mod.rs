//! Conversion ("receiver makes right"): plans from an incoming format to a local type, the
//! interpreter that runs them, the JIT back end that compiles them, and records read by field
//! name with no local type.

pub(crate) mod dynamic;
pub mod interp;
#[cfg(feature = "jit")]
pub mod jit;
pub mod limit;
pub mod plan;
pub(crate) mod word;

/// Swaps of at least this many bytes in compiled code call the interpreter's kernel (AVX2 or
/// AVX-512 where the CPU has them: two to four times the width of Cranelift's vectors);
/// shorter ones are inline shuffles. The cost model (`tiering::cost`) prices them so.
pub(crate) const KERNEL_SWAP: usize = 512;

#[cfg(test)]
mod tests {
    use super::limit::output_limit;
    use super::plan::Plan;
    use super::{dynamic::DynRecord, interp};
    use crate::native::{NativeField, NativeRecord, NativeType};
    use crate::{ByteOrder, ErrorKind, Format, IOField};

    /// Fields `v0`…`v63`, each a variable-length array of bytes.
    const K: usize = 64;
    /// Bytes of data after the slots, which every slot may point into.
    const DATA: usize = 2048;
    /// The body's length.
    const LEN: usize = 8 * K + DATA;

    /// A body whose `i`-th slot says `counts[i]` elements, all at the start of the data.
    fn body(counts: &[usize]) -> Vec<u8> {
        let mut b = Vec::with_capacity(LEN);
        for i in 0..K {
            let n = counts.get(i).copied().unwrap_or(0);
            b.extend_from_slice(&((8 * K) as u32).to_be_bytes());
            b.extend_from_slice(&(n as u32).to_be_bytes());
        }
        b.resize(LEN, b'x');
        b
    }

    /// Counts of at most `DATA` elements each, adding up to `total`.
    fn counts(total: usize) -> Vec<usize> {
        let mut c = vec![DATA; total / DATA];
        c.push(total % DATA);
        c
    }

    /// The interpreter and dynamic records refuse a message at the limit `output_limit`
    /// sets, whichever engine converts it: one constant, two paths.
    #[test]
    fn interpreter_and_dynamic_records_share_one_limit() {
        let fields: Vec<IOField> = (0..K)
            .map(|i| IOField::new(&format!("v{i}"), "char[]", 1, 8 * i))
            .collect();
        let incoming = Format::from_fields("many", ByteOrder::Big, 8 * K, &fields, &[]).unwrap();
        let local: &'static NativeRecord = Box::leak(Box::new(NativeRecord {
            name: "many",
            size: 8 * K,
            align: 8,
            fields: Box::leak(
                (0..K)
                    .map(|i| NativeField {
                        name: Box::leak(format!("v{i}").into_boxed_str()),
                        offset: 8 * i,
                        ty: NativeType::Var {
                            elem: &NativeType::UInt(1),
                        },
                    })
                    .collect(),
            ),
            defaults: None,
            zero_copy: false,
        }));
        let plan = Plan::build(&incoming, local).unwrap();
        // The interpreter writes the slots, then each part (a multiple of 8 here).
        let convert = |total: usize| {
            let mut out = Vec::new();
            interp::run_within(&plan, &body(&counts(total)), &mut out, usize::MAX)
        };
        let room = output_limit(8 * K, LEN, usize::MAX) - 8 * K;
        convert(room).unwrap();
        let e = convert(room + 8).unwrap_err();
        let limit = output_limit(8 * K, LEN, usize::MAX) as u64;
        assert!(
            matches!(e.kind(), ErrorKind::TooMuchMemory { limit: l, .. } if *l == limit),
            "{e}"
        );
        // A dynamic record counts one value per field and per element.
        let decode = |total: usize| DynRecord::decode(&incoming, &body(&counts(total)));
        let room = output_limit(0, LEN, usize::MAX) - K;
        decode(room).unwrap();
        let e = decode(room + 1).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::TooManyElements { .. }), "{e}");
        // So one message both accept, and one both refuse.
        let (ok, bad) = (room, room + K + 8);
        assert!(convert(ok).is_ok() && decode(ok).is_ok());
        assert!(convert(bad).is_err() && decode(bad).is_err());
    }
}
