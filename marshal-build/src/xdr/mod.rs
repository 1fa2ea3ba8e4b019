//! The `.x` front end: the XDR language (RFC 4506 §6) and the RPC language (RFC 5531 §12),
//! with what rpcgen accepts in real files (see [`Config`]).

mod ast;
mod async_stubs;
pub(crate) mod generate;
mod parse;
#[doc(hidden)]
pub mod random;

use std::path::Path;

use crate::config::{Common, GenOptions};
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
///   Result<R, RpcError>`; `&str` and `&[u8]` for a bare `string` or `opaque` argument), a
///   `Server` trait (method `proc(A) -> R`) and `program(impl Server) -> impl
///   marshal::rpc::Program`; with [`borrowed`](Config::borrowed), methods whose types
///   borrow are `proc<'a>(A<'a>) -> R<'a>` on the server, and the client's results borrow
///   from the reply; with [`async_client`](Config::async_client) and
///   [`async_server`](Config::async_server), also an `AsyncClient` and an `AsyncServer`
///   trait with its `service`;
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
    crate::config::shared_config_methods! {
        async_client:
        /// With each program version's module, an `AsyncClient` (off at first): a cheap
        /// `Clone` over `marshal::rpc::AsyncClient` (`new`, `get_ref`, `into_inner`) with one
        /// `async fn proc(&self, args: &A) -> Result<R, RpcError>` per procedure, taking its
        /// arguments as the blocking `Client` does. A result that borrows
        /// ([`borrowed`](Config::borrowed)) cannot be returned by an `async fn` that owns the
        /// reply: such a method is `proc<T>(&self, args: &A, with: impl FnOnce(R<'_>) -> T) ->
        /// Result<T, RpcError>`, which gives the result to `with` and returns what `with`
        /// makes of it. Needs marshal's `tokio` feature.
        ///
        /// ```
        /// let x = std::env::temp_dir().join("marshal_build_async_client_doc.x");
        /// std::fs::write(&x, "program P { version V { int ADD(int, int) = 1; } = 1; } = 0x20000001;")?;
        /// let rust = marshal_build::xdr::Config::new().async_client(true).generate(&x)?;
        /// assert!(rust.contains("pub struct AsyncClient"));
        /// assert!(rust.contains("pub async fn add("));
        /// assert!(rust.contains("self.inner.call::<(&i32, &i32), i32>(ADD, &(arg0, arg1)).await"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        async_server:
        /// With each program version's module, an `AsyncServer` trait (off at first): one
        /// method per procedure, `fn proc(&self, args: A) -> impl Future<Output = R> + Send`
        /// (`fn proc<'a>(&'a self, args: A<'a>) -> impl Future<Output = R<'a>> + Send` where a
        /// type borrows), which an implementation writes as `async fn proc(&self, args: A) ->
        /// R`; and `service(impl AsyncServer) -> AsyncDispatch<_>`, a `tower` service of
        /// `marshal::rpc::Request`s for `marshal::rpc::AsyncServer::add_service(PROGRAM,
        /// VERSION, …)`, which decodes each call's arguments (answering `GARBAGE_ARGS` when
        /// they do not decode, `PROC_UNAVAIL` for an unknown procedure), awaits the method and
        /// encodes its result. Needs marshal's `tokio` feature; the user's crate needs neither
        /// tokio nor tower.
        ///
        /// ```
        /// let x = std::env::temp_dir().join("marshal_build_async_server_doc.x");
        /// std::fs::write(&x, "program P { version V { int NEG(int) = 1; } = 1; } = 0x20000001;")?;
        /// let rust = marshal_build::xdr::Config::new().async_server(true).generate(&x)?;
        /// assert!(rust.contains("pub trait AsyncServer"));
        /// assert!(rust.contains("pub fn service<S: AsyncServer>(imp: S) -> AsyncDispatch<S>"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
    }

    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub fn new() -> Config {
        Config {
            common: Common::new(Options::default(), translate),
        }
    }

    /// Strings and variable-length opaque data (octet sequences) as
    /// `std::borrow::Cow<'a, str>` and `Cow<'a, [u8]>` instead of `String` and `Vec<u8>`
    /// (off at first). Decoding then borrows them from the message: no allocation and no
    /// copy per string, as a hand-written server that decodes `&str` has. Types that hold
    /// them, directly or through others, take a lifetime parameter `'a`; a client's result
    /// that borrows keeps the client borrowed until it is dropped (the next call reuses the
    /// receive buffer); a server's method gets arguments that borrow from the request and
    /// answers with values that may borrow from them, or own their data (`Cow::Owned`).
    ///
    /// ```
    /// let x = std::env::temp_dir().join("marshal_build_borrowed_doc.x");
    /// std::fs::write(&x, "struct file { string name<255>; opaque data<>; int mode; };")?;
    /// let rust = marshal_build::xdr::Config::new().borrowed(true).generate(&x)?;
    /// assert!(rust.contains("pub struct File<'a>"));
    /// assert!(rust.contains("pub name: ::std::borrow::Cow<'a, str>"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn borrowed(&mut self, on: bool) -> &mut Config {
        self.common.borrowed(on);
        self
    }

    /// The path generated code names the `marshal` crate by (`::marshal` at first), for a
    /// crate that renames the dependency or re-exports it: items are reached as
    /// `<path>::rpc::Client`, …, and derived types say `#[marshal(crate = "<path>")]`.
    ///
    /// ```
    /// let x = std::env::temp_dir().join("marshal_build_path_doc.x");
    /// std::fs::write(&x, "struct point { int x; int y; };")?;
    /// let rust = marshal_build::xdr::Config::new().marshal_path("m").generate(&x)?;
    /// assert!(rust.contains("#[derive(m::Marshal"));
    /// assert!(rust.contains(r#"#[marshal(crate = "m")]"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn marshal_path(&mut self, path: &str) -> &mut Config {
        self.common.marshal_path(path);
        self
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
fn translate(tokens: &[Token], name: &str, opts: &GenOptions) -> Result<String, Diag> {
    generate::generate(&parse::parse(tokens)?, name, opts)
}
