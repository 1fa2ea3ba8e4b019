//! Load at scale for the async ONC RPC client and server (issue 23): a thousand connections
//! with hostile clients among them in bounded server memory, and no large buffer kept after
//! a large message. Heap bytes are counted per side by the global allocator of this binary.

#![cfg(all(feature = "tokio", feature = "xdr"))]

mod counting;
mod hostile;
mod load;
#[allow(dead_code)]
#[path = "../rpc_async/programs.rs"]
mod programs;
mod retention;
mod runtimes;

#[global_allocator]
static COUNTING: counting::Counting = counting::Counting;
