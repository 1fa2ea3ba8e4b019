//! # marshal-build
//!
//! Compiles IDL files to Rust for [`marshal`](https://docs.rs/marshal) at build time, in the
//! style of `prost-build`: the output is plain `#[derive(marshal::Marshal)]` types and typed
//! RPC stubs, written to `$OUT_DIR/<file stem>.rs` for the crate to `include!`.
//!
//! ```no_run
//! // build.rs
//! marshal_build::xdr::Config::new()
//!     .include_dir("proto")
//!     .define("MY_FEATURE")
//!     .compile(&["proto/nfs3.x"])
//!     .unwrap();
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! mod nfs3 {
//!     include!(concat!(env!("OUT_DIR"), "/nfs3.rs"));
//! }
//! ```
//!
//! Errors ([`Error`]) read like rustc's: `file:line:col: message`, the source line and a caret.

mod config;
mod cursor;
mod error;
pub mod idl;
mod lexer;
mod preprocess;
pub mod xdr;

pub use error::Error;
