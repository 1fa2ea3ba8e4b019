//! The bodies of the cargo-fuzz targets in `fuzz/`, as plain functions, so that `cargo test`
//! replays every committed seed and regression input without a fuzzer
//! (`tests/replay.rs`) and checks a memory bound per entry point (`tests/memory_bounds.rs`).
//!
//! Each module is one target: `pub fn run(data: &[u8])` decodes the input with one entry
//! point family and must not panic, whatever the input. Decoding errors are fine; a decoded
//! value is re-encoded where there is an encoder and the round trip is asserted where it is a
//! real invariant, so a failed assertion is a finding. [`TARGETS`] lists them with the most
//! each may allocate (peak live heap bytes) for an input of a given length; `docs/FUZZING.md`
//! describes each one.
//!
//! Where an input carries an NDR format description, the targets take the canonical
//! description *without* its 16-byte id and compute the id (the SHA-256 of the description)
//! themselves: a fuzzer cannot forge a hash, so mutated descriptions would otherwise never get
//! past the id check into validation and conversion. `ndr_format` also takes whole `to_bytes`
//! output (id included) to exercise the check itself.

pub mod cdr_derived;
pub mod corpus;
pub mod deep_nesting;
pub mod giop_message;
pub mod ior;
pub mod ndr_dynamic;
pub mod ndr_format;
pub mod ndr_message;
pub mod ndr_stream;
pub mod pcap_layout;
pub mod rpc_message;
pub mod types;
pub mod xdr_derived;

mod convert;
mod util;

/// NDR conversion by the interpreter (`Engine::Interpreter`); see `convert.rs`.
pub mod ndr_convert_interp {
    /// The target: one format description and body, converted into every local type.
    pub fn run(data: &[u8]) {
        crate::convert::run(crate::convert::Which::Interp, data);
    }
}

/// NDR conversion by compiled code (`Engine::Jit`), checked against the interpreter.
pub mod ndr_convert_jit {
    /// The target: one format description and body, converted into every local type.
    pub fn run(data: &[u8]) {
        crate::convert::run(crate::convert::Which::Jit, data);
    }
}

/// NDR conversion by the tiered engine (`Engine::Tiered`), checked against the interpreter.
pub mod ndr_convert_tiered {
    /// The target: one format description and body, converted into every local type twice
    /// (interpreted, then compiled if the knapsack picks the plan).
    pub fn run(data: &[u8]) {
        crate::convert::run(crate::convert::Which::Tiered, data);
    }
}

/// One fuzz target.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Its name: the module, the `fuzz/fuzz_targets/<name>.rs` file and the
    /// `fuzz/seeds/<name>/` and `fuzz/regressions/<name>/` directories.
    pub name: &'static str,
    /// The body: never panics on any input (a panic or a failed assertion is a finding).
    pub run: fn(&[u8]),
    /// The most the target may allocate (peak live heap bytes above what was live before it
    /// started) for an input of this many bytes.
    pub bound: fn(usize) -> usize,
    /// The bound in words, for `docs/FUZZING.md`.
    pub bound_text: &'static str,
}

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// Every target, in the order `docs/FUZZING.md` describes them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "xdr_derived",
        run: xdr_derived::run,
        bound: |n| 16 * n + 256 * KIB,
        bound_text: "16 × input + 256 KiB. The bound depends on the types: it holds because \
                     every fuzz type keeps the in-memory size of an element at most 16 times \
                     its smallest XDR encoding (a test in `types.rs` checks the ratios), and \
                     because elements that take no wire bytes (`Vec<[Zb; 1024]>`) are capped \
                     at 64 KiB of memory per decode, of which the target holds up to three \
                     (the decoded value, the value decoded again, and one being built). It \
                     covers the values and the re-encodings.",
    },
    Target {
        name: "cdr_derived",
        run: cdr_derived::run,
        bound: |n| 16 * n + 256 * KIB,
        bound_text: "16 × input + 256 KiB: the same fuzz types as `xdr_derived`, whose \
                     in-memory size per element is at most 16 times its smallest CDR encoding \
                     (one byte for an octet, a boolean or a union switching on an octet), \
                     with wire-empty elements capped at 64 KiB per decode (the target holds \
                     up to three decoded values); plus the re-encodings in both byte orders.",
    },
    Target {
        name: "giop_message",
        run: giop_message::run,
        bound: |n| 16 * n + 64 * KIB,
        bound_text: "16 × input + 64 KiB: each message copied for the reassembler and for \
                     the arriving-message buffer, the partial and reassembled messages (never \
                     more than the input), the decoded headers and bodies, and the \
                     re-encoded headers.",
    },
    Target {
        name: "ior",
        run: ior::run,
        bound: |n| 64 * n + 64 * KIB,
        bound_text: "64 × input + 64 KiB: hex text (2 characters per octet), profiles and \
                     components (a profile takes 8 octets and 104 bytes of memory), the \
                     octets a parsed reference keeps, the stringified forms in both byte orders \
                     and the `corbaloc:` URL (at most 32 addresses, each with a copy of the \
                     key).",
    },
    Target {
        name: "rpc_message",
        run: rpc_message::run,
        bound: |n| 8 * n + 256 * KIB,
        bound_text: "8 × input + 256 KiB: the record reader's buffer (a first 64 KiB before \
                     data justifies more, then at most twice what has arrived), the reference \
                     reassembly, and the re-encoded headers and credentials.",
    },
    Target {
        name: "ndr_format",
        run: ndr_format::run,
        bound: |n| 64 * n + 256 * KIB,
        bound_text: "64 × input + 256 KiB: a field of a canonical description takes at least \
                     18 bytes and about 110 in memory; the sorted copies made while \
                     validating, the rebuilt format, the re-encoded description, the format \
                     frame and the plans for the local types.",
    },
    Target {
        name: "ndr_message",
        run: ndr_message::run,
        bound: |n| 128 * n + 512 * KIB,
        bound_text: "128 × input + 512 KiB: per local type, the conversion output (at most 16 \
                     × the body + the local fixed size + 4 KiB), the value, its own message and \
                     the values compared with it; the dynamic record of a registered format \
                     (a few values per body byte, 32 bytes each); and the plans the receiver \
                     caches for the formats it was given.",
    },
    Target {
        name: "ndr_convert_interp",
        run: ndr_convert_interp::run,
        bound: |n| 128 * n + 256 * KIB,
        bound_text: "128 × input + 256 KiB: one local type at a time, the conversion output \
                     (at most 16 × the body + the local fixed size + 4 KiB, kept by the \
                     receiver as its scratch buffer), the value, its body converted back and \
                     compared; plus the plan and its default templates (the largest local \
                     type, `NBig`, is 4 KiB) for the new format.",
    },
    Target {
        name: "ndr_convert_jit",
        run: ndr_convert_jit::run,
        bound: |n| 160 * n + 4 * MIB,
        bound_text: "160 × input + 4 MiB: what `ndr_convert_interp` allocates, plus the \
                     compiled engine's own output and scratch buffer, and Cranelift compiling \
                     the new format's plans (machine code is mapped, not allocated).",
    },
    Target {
        name: "ndr_convert_tiered",
        run: ndr_convert_tiered::run,
        bound: |n| 160 * n + 4 * MIB,
        bound_text: "160 × input + 4 MiB: as `ndr_convert_jit` (the tiered engine solves its \
                     knapsack and compiles at most one plan between two conversions).",
    },
    Target {
        name: "ndr_dynamic",
        run: ndr_dynamic::run,
        bound: |n| 1024 * n + 512 * KIB,
        bound_text: "1024 × input + 512 KiB: a dynamic record decodes to at most 16 values \
                     and string bytes per body byte (+ 4096), each value 32 bytes in memory, \
                     so up to 512 bytes per body byte when slots overlap, and its JSON text; \
                     the `ndr-dump` mode holds the formats seen and one frame and one line at \
                     a time.",
    },
    Target {
        name: "ndr_stream",
        run: ndr_stream::run,
        bound: |n| 1024 * n + 512 * KIB,
        bound_text: "1024 × input + 512 KiB: the reader's frame buffer (it grows only as bytes \
                     arrive), the formats the stream carried and their plans, each record \
                     converted into the local types (at most 16 × its body + the local fixed \
                     size + 4 KiB each) and sent and received again, and its dynamic record \
                     (as in `ndr_dynamic`: the stream chooses the formats).",
    },
    Target {
        name: "pcap_layout",
        run: pcap_layout::run,
        bound: |n| 16 * n + 16 * KIB,
        bound_text: "16 × input + 16 KiB: the reader borrows the file; the packets kept for \
                     the comparison (32 bytes each, for at least 16 bytes of file, in a growing \
                     vector), the file written again, a copy of the input for the checksum, \
                     and an aligned copy of each UDP header.",
    },
    Target {
        name: "deep_nesting",
        run: deep_nesting::run,
        bound: |n| 64 * n + 16 * MIB,
        bound_text: "64 × input + 16 MiB: a decoded list node is 16 bytes of memory per 8 wire \
                     bytes; a synthesised list (up to 100,000 nodes: 1.6 MB of nodes and 800 \
                     KB of encoding in each format and order, and their re-encodings) and the \
                     list built in memory. The worker threads' stacks are mapped, not \
                     allocated.",
    },
];

#[cfg(test)]
mod tests {
    use super::TARGETS;

    /// `docs/FUZZING.md` states every target's bound as `TARGETS` does.
    #[test]
    fn the_docs_state_every_bound() {
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = include_str!("../../docs/FUZZING.md");
        let doc = words(text);
        for t in TARGETS {
            let name = format!("`{}`", t.name);
            assert!(
                text.lines()
                    .any(|l| l.starts_with("### ") && l.contains(&name)),
                "docs/FUZZING.md has no section for {}",
                t.name
            );
            assert!(
                doc.contains(&words(t.bound_text)),
                "docs/FUZZING.md does not state the bound of {}: {}",
                t.name,
                t.bound_text
            );
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TARGETS.len());
    }
}
