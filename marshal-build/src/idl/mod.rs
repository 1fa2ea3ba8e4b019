//! The CORBA IDL front end (CORBA 3.0 chapter 3), for GIOP/IIOP peers such as omniORB.

mod ast;
mod async_stubs;
mod generate;
mod parse;

use crate::config::{Common, GenOptions};
use crate::lexer::{Diag, Token};
use crate::preprocess::Options;

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
///   types in `UpperCamelCase` with an associated `REPOSITORY_ID`; a union switches on its
///   discriminant's type (`#[marshal(discriminant = D)]`: `i16`, `i32`, `u16`, `u32`, `u8`
///   for `char`, `bool`, or the enum, with enumerators' paths as labels); its variants are
///   named after their labels (`V<n>`/`Neg<n>` for numbers, the enumerator for an enum, `True`
///   and `False`); an arm with several labels is one variant named after them joined by `Or`
///   (`V1OrV2(D, T)`), holding the label it was decoded with; `default:` (with any labels on
///   its arm) is `#[marshal(default)] Default(D, T)`; a union without `default` whose labels
///   do not cover every value of `D` also gets `#[marshal(no_member)] None(D)` (`NoMember`
///   if a label is named `None`), CORBA's member-less value;
/// - `typedef` → `pub type X = T;`, or a newtype when the typedef has a bound;
/// - `const` → `pub const NAME: T = v;` (the declared name);
/// - an object reference (an interface or `Object` as a type) → `marshal::giop::Ior`, which
///   only CDR carries: a type holding one (directly or through its members' types) derives
///   with `#[marshal(formats(cdr))]`, so it compiles in a crate that enables marshal's other
///   formats too;
/// - per interface: `REPOSITORY_ID`, `REPOSITORY_IDS` (with its bases'), a `Client` (`in`
///   parameters by reference, results as the return value then the `inout` and `out`
///   parameters, errors `CallError` or a per-operation `<Op>Error` enum of the exceptions it
///   raises), a `Servant` trait and `skeleton(impl Servant) -> impl marshal::giop::Servant`,
///   which also answers `_is_a` and `_non_existent`; methods keep the operations' names
///   (snake case), whatever Clippy's conventions for names such as `from_idl_form`; with
///   [`async_client`](Config::async_client) and [`async_server`](Config::async_server), also
///   an `AsyncClient` and an `AsyncServant` trait with its `service`.
///
/// Definitions of included files are generated too.
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
        /// With each interface's module, an `AsyncClient` (off at first): a cheap `Clone` over
        /// `marshal::giop::AsyncClient` (`new`, `get_ref`, `into_inner`) with one `async fn`
        /// per operation and attribute accessor, taking and returning what the blocking
        /// `Client`'s method does (`in` and `inout` parameters by reference; the result, then
        /// the `inout` and `out` parameters; `CallError`, or the operation's `<Op>Error` enum
        /// of the user exceptions it raises). A result that borrows
        /// ([`borrowed`](Config::borrowed)) cannot be returned by an `async fn` that owns the
        /// reply: such a method takes one more argument, `with: impl FnOnce(R<'_>) -> T`, gives
        /// it the result and returns what it makes of it. Needs marshal's `tokio` feature.
        ///
        /// ```
        /// let idl = std::env::temp_dir().join("marshal_build_async_client_doc.idl");
        /// std::fs::write(&idl, "exception Odd { long n; };
        ///     interface Calc { long half(in long n) raises (Odd); };")?;
        /// let rust = marshal_build::idl::Config::new().async_client(true).generate(&idl)?;
        /// assert!(rust.contains("pub struct AsyncClient"));
        /// assert!(rust.contains("pub async fn half(&self, n: &i32) -> ::core::result::Result<i32, HalfError>"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        async_server:
        /// With each interface's module, an `AsyncServant` trait (off at first): one method per
        /// operation and attribute accessor, `fn op(&self, args…) -> impl Future<Output = R> +
        /// Send` where `R` is what the blocking `Servant`'s method returns (`fn op<'a>(&'a
        /// self, args…) -> impl Future<Output = R<'a>> + Send` where a type borrows), which an
        /// implementation writes as an `async fn`; and `service(impl AsyncServant) ->
        /// AsyncSkeleton<_>`, a `tower` service of `marshal::giop::Request`s for
        /// `marshal::giop::AsyncServer::add_service(key, …)`. It demultiplexes operation names
        /// as the blocking skeleton does, answers `_is_a` and `_non_existent` itself,
        /// decodes the arguments (answering `MARSHAL` when they do not decode,
        /// `BAD_OPERATION` for an unknown operation), awaits the method and encodes its
        /// results or the user exception it raises. Needs marshal's `tokio` feature; the
        /// user's crate needs neither tokio nor tower.
        ///
        /// ```
        /// let idl = std::env::temp_dir().join("marshal_build_async_server_doc.idl");
        /// std::fs::write(&idl, "interface Calc { long neg(in long n); };")?;
        /// let rust = marshal_build::idl::Config::new().async_server(true).generate(&idl)?;
        /// assert!(rust.contains("pub trait AsyncServant"));
        /// assert!(rust.contains("pub fn service<S: AsyncServant>(imp: S) -> AsyncSkeleton<S>"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
    }

    /// No include directories, nothing defined, output to `$OUT_DIR`.
    pub fn new() -> Config {
        Config {
            common: Common::new(
                Options {
                    idl: true,
                    ..Options::default()
                },
                translate,
            ),
        }
    }

    /// Strings and octet sequences as `std::borrow::Cow<'a, str>` and `Cow<'a, [u8]>`
    /// instead of `String` and `Vec<u8>` (off at first), as in
    /// [`xdr::Config::borrowed`](crate::xdr::Config::borrowed): decoding borrows them from
    /// the message; types that hold them take a lifetime `'a`; a client's results borrow
    /// from the reply (the next call reuses the buffer); a servant's method gets arguments
    /// borrowed from the request and answers with borrowed or owned values. Exceptions, and
    /// the types they hold, stay owned: a raised exception is decoded from an error that owns
    /// its bytes.
    ///
    /// ```
    /// let idl = std::env::temp_dir().join("marshal_build_borrowed_doc.idl");
    /// std::fs::write(&idl, "interface Files { string read(in string name, out sequence<octet> data); };")?;
    /// let rust = marshal_build::idl::Config::new().borrowed(true).generate(&idl)?;
    /// assert!(rust.contains("fn read<'a>("));
    /// assert!(rust.contains("name: ::std::borrow::Cow<'a, str>"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn borrowed(&mut self, on: bool) -> &mut Config {
        self.common.borrowed(on);
        self
    }
}

/// This front end's parser and generator.
fn translate(tokens: &[Token], name: &str, opts: &GenOptions) -> Result<String, Diag> {
    generate::generate(&parse::parse(tokens)?, name, opts)
}
