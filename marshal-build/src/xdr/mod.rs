//! The `.x` front end: the XDR language (RFC 4506 §6) and the RPC language (RFC 5531 §12),
//! with what rpcgen accepts in real files (see [`Config`]).

mod ast;
pub(crate) mod generate;
mod parse;
#[doc(hidden)]
pub mod random;

use std::path::Path;

use crate::config::Common;
use crate::error::Error;
use crate::lexer::{Diag, Token};
use crate::preprocess::Options;

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
///   a union switches on its discriminant's type (`#[marshal(discriminant = D)]`: the enum,
///   through typedefs, for `switch (nfsstat3 status)`, with its enumerators' paths as labels;
///   `u32` for `unsigned`; `bool` with `true`/`false` labels; `i32` otherwise); its variants
///   are named after their labels (`V<n>`/`Neg<n>` for numbers); an arm with several labels
///   (`case A: case B:`) is one variant named after them joined by `Or` (`AOrB(D[, T])`),
///   holding the label it was decoded with; `default:` is the derive's
///   `#[marshal(default)] Default(D[, T])` (`Other` if a label is named `Default`); a union on
///   `bool` with `TRUE: T` and `FALSE: void` is `Option<T>`;
/// - `typedef` → `pub type X = T;`, or a newtype `pub struct X(#[marshal(max_len = N)] pub T)`
///   when the typedef has a bound, so the bound travels with the type;
/// - `program P { version V { R PROC(A) = n; } = v; } = p;` → module `p::v` (snake case)
///   with `PROGRAM`, `VERSION`, a `u32` const per procedure, a `Client` (method `proc(&A) ->
///   Result<R, RpcError>`), a `Server` trait (method `proc(A) -> R`) and `program(impl
///   Server) -> impl marshal::rpc::Program`;
/// - types used but not defined are referred to by their `UpperCamelCase` name (they must
///   be in scope where the file is included), except rpcgen's `netobj` and `des_block`,
///   which are generated.
#[derive(Debug, Clone)]
pub struct Config {
    common: Common,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

impl Config {
    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub fn new() -> Config {
        Config {
            common: Common::new(Options::default(), translate),
        }
    }

    /// Adds a directory where `#include` looks (after the including file's own directory,
    /// for `#include "…"`); several may be given, searched in order.
    pub fn include_dir(&mut self, dir: impl AsRef<Path>) -> &mut Config {
        self.common.include_dir(dir.as_ref());
        self
    }

    /// Defines `NAME` (for `#ifdef`), or `NAME=VALUE` (also substituted where it appears).
    pub fn define(&mut self, name: &str) -> &mut Config {
        self.common.define(name);
        self
    }

    /// Writes the output to `dir` instead of `$OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Config {
        self.common.out_dir(dir.as_ref());
        self
    }

    /// Compiles each file to `<out dir>/<file stem>.rs`, and prints
    /// `cargo:rerun-if-changed` for every file read (includes too).
    pub fn compile(&self, files: &[impl AsRef<Path>]) -> Result<(), Error> {
        self.common.compile(files)
    }

    /// The Rust that [`compile`](Config::compile) would write for `file`.
    pub fn generate(&self, file: impl AsRef<Path>) -> Result<String, Error> {
        self.common.generate(file.as_ref()).map(|(code, _)| code)
    }

    /// Test support, not API (it may change at any time): C and Rust that make the same
    /// pseudo-random value of each type of `file`, over rpcgen's C types and over the Rust
    /// types [`generate`](Config::generate) writes (see `marshal-build/src/xdr/random.rs`),
    /// for tests that compare rpcgen's encoding with marshal's. Prints
    /// `cargo:rerun-if-changed` for every file read, like [`compile`](Config::compile).
    #[doc(hidden)]
    pub fn random(&self, file: impl AsRef<Path>) -> Result<random::Fillers, Error> {
        let (fillers, read) = self.common.with_tokens(file.as_ref(), |tokens, name| {
            random::fillers(&parse::parse(tokens)?, name)
        })?;
        for p in read {
            println!("cargo:rerun-if-changed={}", p.display());
        }
        Ok(fillers)
    }
}

/// This front end's parser and generator.
fn translate(tokens: &[Token], name: &str) -> Result<String, Diag> {
    generate::generate(&parse::parse(tokens)?, name)
}
