//! What users see when a file is wrong: each file under `tests/ui/xdr` and `tests/ui/idl` is
//! given to the `marshal-build` command, which must fail with exactly the `.stderr` file
//! beside it (`file:line:col: message`, the source line, a caret). `MARSHAL_BLESS=1`
//! rewrites the `.stderr` files from the output.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The inputs of one front end: `tests/ui/<front>/*.<ext>`, sorted.
fn inputs(front: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new("tests/ui").join(front);
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(&dir))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| dir.join(e.unwrap().file_name()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
    files.sort();
    files
}

fn check(front: &str, ext: &str) {
    let files = inputs(front, ext);
    assert!(files.len() >= 10, "too few UI cases for {front}: {files:?}");
    let bless = std::env::var_os("MARSHAL_BLESS").is_some();
    let mut failures = Vec::new();
    for file in &files {
        // Relative paths, run from the crate's directory: the messages do not depend on
        // where the checkout is.
        let out = Command::new(env!("CARGO_BIN_EXE_marshal-build"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg(front)
            .arg(file)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let expected_path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(file.with_extension("stderr"));
        if out.status.success() {
            failures.push(format!("{}: compiled, but should fail", file.display()));
            continue;
        }
        if bless {
            std::fs::write(&expected_path, &stderr).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (MARSHAL_BLESS=1 writes it)",
                expected_path.display()
            )
        });
        if stderr != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- got\n{stderr}",
                file.display()
            ));
        }
        // Every message has a location and a caret under it.
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("tests/ui/{front}/"))
                && first
                    .split(':')
                    .skip(1)
                    .take(2)
                    .all(|n| n.parse::<u32>().is_ok()),
            "{}: no `file:line:col` in {first:?}",
            file.display()
        );
        assert!(
            stderr.trim_end().ends_with('^'),
            "{}: no caret:\n{stderr}",
            file.display()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn xdr_errors() {
    check("xdr", "x");
}

#[test]
fn idl_errors() {
    check("idl", "idl");
}
