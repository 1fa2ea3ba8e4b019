//! Compile tests: the errors users see when the derive is misused (`ui/*.rs`), and valid types
//! the derive must accept (`ui/pass/*.rs`).
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p marshal-tests --test ui`
//! and read every `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// Valid types that must compile and round-trip. A failure here is a derive bug (see the
/// comment at the top of each file).
#[test]
fn ui_pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
}
