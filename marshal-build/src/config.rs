//! What both front ends' `Config`s share: include directories, defines, the output directory,
//! and the compile loop (one `<stem>.rs` per input file, `cargo:rerun-if-changed` for every
//! file read, includes too).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::lexer::{Diag, Token};
use crate::preprocess::{preprocess, Options};

/// A front end's parser and generator: the Rust for the tokens of the file named `name`.
pub(crate) type Translate =
    fn(tokens: &[Token], name: &str, opts: &GenOptions) -> Result<String, Diag>;

/// What both generators are asked to do beyond the defaults.
#[derive(Debug, Clone, Default)]
pub(crate) struct GenOptions {
    /// Strings and variable-length opaque data (octet sequences) as `Cow<'a, str>` and
    /// `Cow<'a, [u8]>`, borrowed from the message when decoded.
    pub(crate) borrowed: bool,
    /// The path generated code reaches `marshal` by, when not `::marshal`.
    pub(crate) marshal_path: Option<String>,
    /// A typed async client per program version (or interface), over marshal's async
    /// client.
    pub(crate) async_client: bool,
    /// An async server trait per program version (or interface), and the service that
    /// serves it on marshal's async server.
    pub(crate) async_server: bool,
}

/// The settings of a build, and how its front end turns tokens into Rust.
#[derive(Debug, Clone)]
pub(crate) struct Common {
    opts: Options,
    gen: GenOptions,
    out_dir: Option<PathBuf>,
    translate: Translate,
}

impl Common {
    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub(crate) fn new(opts: Options, translate: Translate) -> Common {
        Common {
            opts,
            gen: GenOptions::default(),
            out_dir: None,
            translate,
        }
    }

    pub(crate) fn include_dir(&mut self, dir: &Path) {
        self.opts.include_dirs.push(dir.to_path_buf());
    }

    pub(crate) fn define(&mut self, name: &str) {
        let (n, v) = name.split_once('=').unwrap_or((name, ""));
        self.opts.defines.push((n.to_string(), v.to_string()));
    }

    pub(crate) fn borrowed(&mut self, on: bool) {
        self.gen.borrowed = on;
    }

    pub(crate) fn marshal_path(&mut self, path: &str) {
        self.gen.marshal_path = Some(path.to_string());
    }

    pub(crate) fn async_client(&mut self, on: bool) {
        self.gen.async_client = on;
    }

    pub(crate) fn async_server(&mut self, on: bool) {
        self.gen.async_server = on;
    }

    pub(crate) fn out_dir(&mut self, dir: &Path) {
        self.out_dir = Some(dir.to_path_buf());
    }

    /// Compiles each file to `<out dir>/<file stem>.rs`.
    pub(crate) fn compile(&self, files: &[impl AsRef<Path>]) -> Result<(), Error> {
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
            let (code, read) = self.generate(f)?;
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

    /// The Rust for `file`, and every file read (`file` first).
    pub(crate) fn generate(&self, file: &Path) -> Result<(String, Vec<PathBuf>), Error> {
        self.with_tokens(file, |tokens, name| {
            (self.translate)(tokens, name, &self.gen)
        })
    }

    /// What `f` makes of the preprocessed tokens of `file` (named by its file name), and
    /// every file read (`file` first); `f`'s errors located in the sources.
    pub(crate) fn with_tokens<T>(
        &self,
        file: &Path,
        f: impl FnOnce(&[Token], &str) -> Result<T, Diag>,
    ) -> Result<(T, Vec<PathBuf>), Error> {
        let (sources, tokens) = preprocess(file, &self.opts)?;
        let read: Vec<PathBuf> = sources.paths().map(Path::to_path_buf).collect();
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let out = f(&tokens, &name).map_err(|d| sources.error(&d))?;
        Ok((out, read))
    }
}

/// The builder methods both front ends' `Config`s share: each `Config` wraps a [`Common`] in
/// its `common` field, and this writes the methods that only forward to it, once. The async
/// stubs differ per front end (ONC RPC programs, CORBA interfaces), so the docs of
/// `async_client` and `async_server` are the caller's.
macro_rules! shared_config_methods {
    (
        async_client: $(#[$client_doc:meta])*
        async_server: $(#[$server_doc:meta])*
    ) => {
        $(#[$client_doc])*
        pub fn async_client(&mut self, on: bool) -> &mut Config {
            self.common.async_client(on);
            self
        }

        $(#[$server_doc])*
        pub fn async_server(&mut self, on: bool) -> &mut Config {
            self.common.async_server(on);
            self
        }

        /// Adds a directory where `#include` looks (after the including file's own directory,
        /// for `#include "…"`); several may be given, searched in order.
        pub fn include_dir(&mut self, dir: impl AsRef<std::path::Path>) -> &mut Config {
            self.common.include_dir(dir.as_ref());
            self
        }

        /// Defines `NAME` (for `#ifdef`), or `NAME=VALUE` (also substituted where it appears).
        pub fn define(&mut self, name: &str) -> &mut Config {
            self.common.define(name);
            self
        }

        /// Writes the output to `dir` instead of `$OUT_DIR`.
        pub fn out_dir(&mut self, dir: impl AsRef<std::path::Path>) -> &mut Config {
            self.common.out_dir(dir.as_ref());
            self
        }

        /// Compiles each file to `<out dir>/<file stem>.rs`, and prints
        /// `cargo:rerun-if-changed` for every file read (includes too).
        pub fn compile(
            &self,
            files: &[impl AsRef<std::path::Path>],
        ) -> Result<(), crate::error::Error> {
            self.common.compile(files)
        }

        /// The Rust that [`compile`](Config::compile) would write for `file`.
        pub fn generate(
            &self,
            file: impl AsRef<std::path::Path>,
        ) -> Result<String, crate::error::Error> {
            self.common.generate(file.as_ref()).map(|(code, _)| code)
        }
    };
}
pub(crate) use shared_config_methods;
