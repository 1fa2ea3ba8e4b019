//! The two runtimes of a load test, the server's (2 workers, the setting) and the
//! clients', each thread counted in its role; one heavy test at a time.

use std::future::Future;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::runtime::{Builder, Runtime};

use crate::counting::{as_role, set_role, Role};

/// Serialises the heavy tests of this binary: each is measured alone on the machine's cores.
static HEAVY: Mutex<()> = Mutex::new(());

/// Holds the machine for one heavy test.
pub fn heavy() -> MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The server's runtime and the clients' runtime.
pub struct Runtimes {
    server: Runtime,
    client: Runtime,
}

fn runtime(workers: usize, role: Role, name: &str) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name(name)
        .on_thread_start(move || set_role(role))
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

impl Runtimes {
    /// A 2-worker server runtime and a client runtime of `client_workers` workers: the
    /// clients get threads of their own, so that the server's workers serve only the server.
    pub fn new(client_workers: usize) -> Runtimes {
        Runtimes {
            server: runtime(2, Role::Server, "server"),
            client: runtime(client_workers, Role::Client, "client"),
        }
    }

    /// Runs `f` on the server's runtime (this thread counted as the server meanwhile).
    pub fn server<F: Future>(&self, f: F) -> F::Output {
        as_role(Role::Server, || self.server.block_on(f))
    }

    /// Runs `f` on the clients' runtime (this thread counted as a client meanwhile).
    pub fn client<F: Future>(&self, f: F) -> F::Output {
        as_role(Role::Client, || self.client.block_on(f))
    }

    /// The tasks alive on the server's runtime.
    pub fn server_tasks(&self) -> usize {
        self.server.metrics().num_alive_tasks()
    }

    /// The tasks alive on the clients' runtime.
    pub fn client_tasks(&self) -> usize {
        self.client.metrics().num_alive_tasks()
    }
}

/// Waits up to `limit` for `count` to stay the same for 300 ms; its value then, if it did.
pub fn settled(limit: Duration, mut count: impl FnMut() -> usize) -> Option<usize> {
    let start = Instant::now();
    let (mut last, mut since) = (count(), Instant::now());
    while start.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(10));
        let now = count();
        if now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() >= Duration::from_millis(300) {
            return Some(now);
        }
    }
    None
}

/// Waits up to `limit` for `done` to hold, checking every 10 ms; whether it held.
pub fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
