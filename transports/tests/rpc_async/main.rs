//! The async ONC RPC client and server (`rpc::AsyncClient`, `rpc::AsyncServer`): calls over
//! TCP and UDP against both servers, many calls in flight on one connection, calls dropped
//! at any point, timeouts, retransmission, broken connections, the server's dispatch,
//! bounds and graceful shutdown.

#![cfg(all(feature = "tokio", feature = "xdr"))]

mod cancel;
mod client;
mod concurrency;
mod peers;
mod programs;
mod runtime;
mod server;
mod services;
