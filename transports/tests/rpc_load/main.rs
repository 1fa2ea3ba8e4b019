//! Load and cancellation at scale for the async ONC RPC client and server (issue 23): a
//! thousand connections with hostile clients among them in bounded server memory; ten
//! thousand calls dropped at every point of their lives without a task, a pending call or a
//! buffer left behind; no large buffer kept after a large message. Heap bytes are counted per
//! side by the global allocator of this binary.

#![cfg(all(feature = "tokio", feature = "xdr"))]

mod cancel;
mod counting;
mod gate;
mod hostile;
mod load;
#[allow(dead_code)]
#[path = "../rpc_async/programs.rs"]
mod programs;
mod retention;
mod runtimes;

#[global_allocator]
static COUNTING: counting::Counting = counting::Counting;
