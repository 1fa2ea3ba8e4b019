//! Reading the committed inputs of a target (shared by the replay and memory tests).

// Each test binary uses part of this module.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// `fuzz/` beside this crate.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fuzz")
}

/// The inputs in `fuzz/<kind>/<target>/` (kind `seeds` or `regressions`), sorted by name;
/// `None` when the directory does not exist.
pub fn inputs(kind: &str, target: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let dir = fuzz_dir().join(kind).join(target);
    let entries = fs::read_dir(&dir).ok()?;
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let path = e.path();
            let bytes =
                fs::read(&path).unwrap_or_else(|err| panic!("reading {}: {err}", path.display()));
            (
                format!("{kind}/{target}/{}", e.file_name().to_string_lossy()),
                bytes,
            )
        })
        .collect();
    out.sort();
    Some(out)
}

/// Every committed input of `target`: its seeds (which must exist and not be empty) and its
/// regressions (if any); and, when the environment variable `MARSHAL_FUZZ_CORPUS` names a
/// directory (such as `fuzz/corpus`), the files in its `<target>/` subdirectory too.
pub fn all_inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let seeds =
        inputs("seeds", target).unwrap_or_else(|| panic!("fuzz/seeds/{target}/ is missing"));
    assert!(!seeds.is_empty(), "fuzz/seeds/{target}/ is empty");
    let mut all = seeds;
    all.extend(inputs("regressions", target).unwrap_or_default());
    if let Some(dir) = std::env::var_os("MARSHAL_FUZZ_CORPUS") {
        let dir = PathBuf::from(dir).join(target);
        let mut more: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let bytes = fs::read(e.path()).ok()?;
                let name = format!("corpus/{target}/{}", e.file_name().to_string_lossy());
                Some((name, bytes))
            })
            .collect();
        more.sort();
        all.extend(more);
    }
    all
}
