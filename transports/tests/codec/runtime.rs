//! A tokio runtime for the socket tests.

use std::future::Future;

/// Runs `f` to completion on a current-thread runtime with I/O enabled.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}
