//! Tokio runtimes for the tests, built by hand (no `macros` feature).

use std::future::Future;

/// Runs `f` on a current-thread runtime with I/O and time.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// Runs `f` on a multi-thread runtime of `workers` workers.
pub fn block_on_workers<F: Future>(workers: usize, f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}
