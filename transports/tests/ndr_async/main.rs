//! The async NDR transports of `transports::ndr`: streams written and read on tokio over real
//! loopback sockets, byte for byte what the blocking streams write and read (each side reads
//! the other's), streams cut short or hostile, and the format service answering across the
//! blocking and async sides.
//!
//! Records here are built from format descriptions (`Format::from_fields`) and read with
//! `decode_dynamic`: this crate cannot derive `Record` types in its tests (the derive's NDR
//! code would reach the rpcbind types of feature `xdr` too). The typed `send`/`recv` paths
//! are tested with derived records through the facade in `tests/tests/ndr_async.rs`.

#![cfg(all(feature = "tokio", feature = "ndr"))]

mod alloc_probe;
mod format_service;
mod formats;
mod hostile;
mod runtime;
mod stream;
