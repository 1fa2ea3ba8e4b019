//! The `.x` front end: the XDR language (RFC 4506 §6) and the RPC language (RFC 5531 §12),
//! with what rpcgen accepts in real files (see [`Config`]).

mod ast;
pub(crate) mod generate;
mod parse;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::preprocess::{preprocess, Options};

/// Compiles `.x` files to Rust, for a build script:
///
/// ```no_run
/// marshal_build::xdr::Config::new()
///     .include_dir("proto")
///     .define("MY_FEATURE")
///     .compile(&["proto/nfs3.x"])?; // writes $OUT_DIR/nfs3.rs
/// # Ok::<(), marshal_build::Error>(())
/// ```
///
/// What is generated (all paths `::marshal::…`; program modules need marshal's
/// `transports` feature):
///
/// - `const NAME = v;` → `pub const NAME: u32 = v;` (`i32`, `u64`, `i64` for values `u32`
///   does not hold);
/// - `struct`, `enum` and `union` → `#[derive(Marshal, Debug, Clone, PartialEq)]` types named
///   in `UpperCamelCase` (heck), fields in `snake_case`, keywords as raw identifiers;
///   an enumerator with an earlier one's value is an associated const; a struct whose last
///   field points to the struct itself (an optional-data list) ends in `Option<Box<Self>>`;
///   a union's variants are named after their labels (`V<n>`/`Neg<n>` for numbers), and
///   `default:` is the derive's `#[marshal(default)] Default(i32[, T])`; a union on `bool`
///   with `TRUE: T` and `FALSE: void` is `Option<T>`;
/// - `typedef` → `pub type X = T;`, or a newtype `pub struct X(#[marshal(max_len = N)] pub T)`
///   when the typedef has a bound, so the bound travels with the type;
/// - `program P { version V { R PROC(A) = n; } = v; } = p;` → module `p::v` (snake case)
///   with `PROGRAM`, `VERSION`, a `u32` const per procedure, a `Client` (method `proc(&A) ->
///   Result<R, RpcError>`), a `Server` trait (method `proc(A) -> R`) and `program(impl
///   Server) -> impl marshal::rpc::Program`;
/// - types used but not defined are referred to by their `UpperCamelCase` name (they must
///   be in scope where the file is included), except rpcgen's `netobj` and `des_block`,
///   which are generated.
#[derive(Debug, Clone, Default)]
pub struct Config {
    opts: Options,
    out_dir: Option<PathBuf>,
}

impl Config {
    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub fn new() -> Config {
        Config::default()
    }

    /// Adds a directory where `#include` looks (after the including file's own directory,
    /// for `#include "…"`); several may be given, searched in order.
    pub fn include_dir(&mut self, dir: impl AsRef<Path>) -> &mut Config {
        self.opts.include_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// Defines `NAME` (for `#ifdef`), or `NAME=VALUE` (also substituted where it appears).
    pub fn define(&mut self, name: &str) -> &mut Config {
        let (n, v) = name.split_once('=').unwrap_or((name, ""));
        self.opts.defines.push((n.to_string(), v.to_string()));
        self
    }

    /// Writes the output to `dir` instead of `$OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Config {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Compiles each file to `<out dir>/<file stem>.rs`, and prints
    /// `cargo:rerun-if-changed` for every file read (includes too).
    pub fn compile(&self, files: &[impl AsRef<Path>]) -> Result<(), Error> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::file(
                        None,
                        "OUT_DIR is not set: call `compile` from a build script, or set `out_dir`",
                    )
                })?,
        };
        for f in files {
            let f = f.as_ref();
            println!("cargo:rerun-if-changed={}", f.display());
            let (code, read) = self.generate_inner(f)?;
            for p in read.iter().skip(1) {
                println!("cargo:rerun-if-changed={}", p.display());
            }
            let stem = f
                .file_stem()
                .ok_or_else(|| Error::file(Some(f), "has no file name"))?;
            let out = out_dir.join(stem).with_extension("rs");
            std::fs::write(&out, code)
                .map_err(|e| Error::file(Some(&out), format!("cannot write: {e}")))?;
        }
        Ok(())
    }

    /// The Rust that [`compile`](Config::compile) would write for `file`.
    pub fn generate(&self, file: impl AsRef<Path>) -> Result<String, Error> {
        self.generate_inner(file.as_ref()).map(|(code, _)| code)
    }

    /// The Rust for `file`, and every file read.
    fn generate_inner(&self, file: &Path) -> Result<(String, Vec<PathBuf>), Error> {
        let (sources, tokens) = preprocess(file, &self.opts)?;
        let read: Vec<PathBuf> = sources.paths().map(Path::to_path_buf).collect();
        let defs = parse::parse(&tokens).map_err(|d| sources.error(&d))?;
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let code = generate::generate(&defs, &name).map_err(|d| sources.error(&d))?;
        Ok((code, read))
    }
}
