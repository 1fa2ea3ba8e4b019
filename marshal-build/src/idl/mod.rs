//! The CORBA IDL front end (CORBA 3.0 chapter 3), for GIOP/IIOP peers such as omniORB.

mod ast;
mod generate;
mod parse;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::preprocess::{preprocess, Options};

/// Compiles CORBA `.idl` files to Rust, for a build script:
///
/// ```no_run
/// marshal_build::idl::Config::new()
///     .include_dir("idl")
///     .compile(&["idl/echo.idl"])?; // writes $OUT_DIR/echo.rs
/// # Ok::<(), marshal_build::Error>(())
/// ```
///
/// Accepted: modules, `typedef`, `struct`, `union` (on `short`, `long`, `unsigned …`,
/// `char`, `boolean` or an enum; several labels per arm; with or without `default`), `enum`,
/// `const` with integer, string, boolean and enum expressions (`| ^ & << >> + - * / % ~`,
/// parentheses, scoped names), `sequence<T>`/`sequence<T, N>`, `string`/`string<N>`, arrays,
/// `exception`, `interface` with inheritance and forward declarations, operations (`in`,
/// `out`, `inout`, `oneway`, `raises`, `void`), `attribute`/`readonly attribute`, `Object`,
/// the preprocessor of the `.x` front end, `#pragma prefix`, `#pragma ID`, `#pragma version`,
/// and escaped identifiers (`_foo` is `foo`). `any`, `valuetype`, `local` and `abstract`
/// interfaces, `wchar`, `wstring`, `long double`, `fixed`, `native`, `TypeCode` and
/// floating-point constants are located errors.
///
/// What is generated (all paths `::marshal::…`; interfaces need marshal's `iiop` and
/// `transports` features):
///
/// - a module or interface `CosNaming` → `pub mod cos_naming` (heck's `snake_case`);
/// - `struct`, `exception`, `union`, `enum` → `#[derive(Marshal, Debug, Clone, PartialEq)]`
///   types in `UpperCamelCase` with an associated `REPOSITORY_ID`; a union's variants are
///   named after their labels (`V<n>`/`Neg<n>` for numbers, the enumerator for an enum, `True`
///   and `False`), `default:` is `#[marshal(default)] Default(i32, T)`;
/// - `typedef` → `pub type X = T;`, or a newtype when the typedef has a bound;
/// - `const` → `pub const NAME: T = v;` (the declared name);
/// - an object reference (an interface or `Object` as a type) → `marshal::giop::Ior`;
/// - per interface: `REPOSITORY_ID`, `REPOSITORY_IDS` (with its bases'), a `Client` (`in`
///   parameters by reference, results as the return value then the `inout` and `out`
///   parameters, errors `CallError` or a per-operation `<Op>Error` enum of the exceptions it
///   raises), a `Servant` trait and `skeleton(impl Servant) -> impl marshal::giop::Servant`,
///   which also answers `_is_a` and `_non_existent`.
///
/// Definitions of included files are generated too.
#[derive(Debug, Clone, Default)]
pub struct Config {
    opts: Options,
    out_dir: Option<PathBuf>,
}

impl Config {
    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub fn new() -> Config {
        Config {
            opts: Options {
                idl: true,
                ..Options::default()
            },
            out_dir: None,
        }
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
