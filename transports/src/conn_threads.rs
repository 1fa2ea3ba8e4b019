//! The connection threads of a TCP server (GIOP's and ONC RPC's): an acceptor spawns a
//! thread per connection, up to a cap, and shutdown closes the connections' read sides and
//! joins their threads.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The connections being served, each with a handle on its socket and its thread.
#[derive(Debug)]
pub(crate) struct ConnThreads {
    conns: Mutex<Vec<(TcpStream, JoinHandle<()>)>>,
    max: usize,
}

impl ConnThreads {
    /// At most `max` connections at once: a connection beyond the cap is closed at once, so a
    /// peer opening connections without end cannot exhaust threads.
    pub(crate) fn new(max: usize) -> Self {
        ConnThreads {
            conns: Mutex::new(Vec::new()),
            max,
        }
    }

    /// Accepts until `stopping` is set (then one more connection, the wake-up, arrives),
    /// serving each connection with `serve` in a thread named `name`.
    pub(crate) fn accept_loop(
        &self,
        listener: TcpListener,
        stopping: &AtomicBool,
        name: &str,
        serve: impl Fn(TcpStream) + Send + Sync + 'static,
    ) {
        let serve = Arc::new(serve);
        for stream in listener.incoming() {
            if stopping.load(Ordering::SeqCst) {
                return;
            }
            let Ok(stream) = stream else { continue };
            {
                let mut conns = self.lock();
                // Forget connections that have ended.
                conns.retain(|(_, t)| !t.is_finished());
                if conns.len() >= self.max {
                    // Dropping the stream closes it.
                    continue;
                }
            }
            let Ok(handle) = stream.try_clone() else {
                continue;
            };
            let serve = Arc::clone(&serve);
            let spawned = std::thread::Builder::new()
                .name(name.into())
                .spawn(move || serve(stream));
            if let Ok(thread) = spawned {
                self.lock().push((handle, thread));
            }
        }
    }

    /// Shuts the read side of every connection (its thread sees the end of its input after
    /// the request it is serving) and waits for the threads.
    pub(crate) fn close_all(&self) {
        let conns = std::mem::take(&mut *self.lock());
        for (stream, _) in &conns {
            let _ = stream.shutdown(Shutdown::Read);
        }
        for (_, thread) in conns {
            let _ = thread.join();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(TcpStream, JoinHandle<()>)>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }
}
