//! Compiles `c/ntoh.c`, the BSD-style ntoh/hton baseline of the `layout` benchmark, with `cc`
//! at `-O2` into the static library `layout_ntoh` in `OUT_DIR`. Only that bench links it (its
//! `#[link]` attribute), so `cc` is told not to add it to every target of the package.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=c/ntoh.c");
    println!("cargo:rerun-if-changed=build.rs");
    cc::Build::new()
        .file("c/ntoh.c")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .cargo_metadata(false)
        .compile("layout_ntoh");
    let out_dir = env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rustc-link-search=native={out_dir}");
}
