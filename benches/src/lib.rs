//! Support for the criterion suite in `benches/`: the serde-xdr, rkyv and tonic competitors
//! and the workload inputs shared by every group.

pub mod hand_dirent;
pub mod one_cpu;
pub mod rkyv_peer;
pub mod serde_peer;
pub mod tonic_peer;

use workloads::{DirEntry, Rect};

/// One workload at one size: its values and their XDR encoding.
#[derive(Debug)]
pub struct Case<T> {
    pub label: String,
    pub values: Vec<T>,
    pub encoded: Vec<u8>,
}

impl<T: marshal::xdr::Encode> Case<T> {
    pub fn new(bytes: usize, elem: usize, make: impl Fn(usize) -> Vec<T>) -> Self {
        let values = make(workloads::count_for(bytes, elem));
        let encoded = marshal::xdr::to_vec(&values).expect("workloads encode");
        Case {
            label: workloads::size_label(bytes),
            values,
            encoded,
        }
    }
}

/// serde-xdr's mirror of a rect.
pub fn serde_rect(r: &Rect) -> serde_peer::SRect {
    serde_peer::SRect {
        a: serde_peer::SPoint { x: r.a.x, y: r.a.y },
        b: serde_peer::SPoint { x: r.b.x, y: r.b.y },
    }
}

/// serde-xdr's mirror of a directory entry.
pub fn serde_dirent(d: &DirEntry) -> serde_peer::SDirent {
    serde_peer::SDirent {
        name: d.name.clone(),
        st: serde_peer::SStat {
            ints: d.st.ints,
            chars: d.st.chars,
        },
    }
}

/// The rpcgen peer's mirror of a directory entry.
pub fn c_dirent(d: &DirEntry) -> rpcgen_peer::Dirent {
    rpcgen_peer::Dirent {
        name: d.name.clone(),
        ints: d.st.ints,
        chars: d.st.chars,
    }
}
