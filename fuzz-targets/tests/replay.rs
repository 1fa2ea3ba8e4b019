//! Replays every committed input of every fuzz target (`fuzz/seeds/<target>/` and
//! `fuzz/regressions/<target>/`) through the target's body: no fuzzer needed, so a plain
//! `cargo test` keeps the seeds valid and the regressions fixed. One test per target, so a
//! failing target names itself; `every_target_is_replayed` keeps the list complete. With
//! `MARSHAL_FUZZ_CORPUS=fuzz/corpus`, a fuzzing corpus is replayed too.

mod common;

use marshal_fuzz_targets::TARGETS;

fn replay(name: &str) {
    let target = TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no target {name}"));
    let inputs = common::all_inputs(name);
    let count = |kind: &str| inputs.iter().filter(|(n, _)| n.starts_with(kind)).count();
    let (regressions, corpus) = (count("regressions/"), count("corpus/"));
    for (file, bytes) in &inputs {
        eprintln!("{file} ({} bytes)", bytes.len());
        (target.run)(bytes);
    }
    println!(
        "{name}: ran {} inputs ({} seeds, {regressions} regressions, {corpus} from MARSHAL_FUZZ_CORPUS)",
        inputs.len(),
        inputs.len() - regressions - corpus
    );
}

macro_rules! replay_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name));
            }
        )*

        #[test]
        fn every_target_is_replayed() {
            let tested = [$(stringify!($name)),*];
            for t in TARGETS {
                assert!(tested.contains(&t.name), "no replay test for {}", t.name);
            }
            assert_eq!(tested.len(), TARGETS.len());
        }
    };
}

replay_tests!(
    xdr_derived,
    cdr_derived,
    giop_message,
    ior,
    rpc_message,
    ndr_format,
    ndr_message,
    ndr_convert_interp,
    ndr_convert_jit,
    ndr_convert_tiered,
    ndr_dynamic,
    ndr_stream,
    pcap_layout,
    deep_nesting,
);
