//! Writes the generated seeds and regression inputs into `fuzz/seeds/` and
//! `fuzz/regressions/` (ignored by default: run it after changing `src/corpus.rs`):
//!
//! ```sh
//! cargo test -p marshal-fuzz-targets --test write_corpus -- --ignored
//! ```
//!
//! Files it does not name are left alone.

mod common;

use std::fs;

use marshal_fuzz_targets::corpus::{regressions, seeds, Input};

fn write(kind: &str, inputs: &[Input]) {
    for i in inputs {
        let dir = common::fuzz_dir().join(kind).join(i.target);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let path = dir.join(&i.name);
        fs::write(&path, &i.bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    println!("{} {kind} written", inputs.len());
}

#[test]
#[ignore = "writes into fuzz/; run by hand after changing the generators"]
fn write_seeds_and_regressions() {
    write("seeds", &seeds());
    write("regressions", &regressions());
}
