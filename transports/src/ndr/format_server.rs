//! Non-connected mode: a format server that answers format ids over TCP, and the resolver
//! that asks it, on threads. The protocol is in `format_protocol`.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use wire_ndr::{Error, Format, FormatCache, FormatId, Resolver, FRAME_HEAD_LEN};

use super::format_protocol::{
    answer, answer_len, answered, request, requested, wrong_format, CLIENT_TIMEOUT, IDLE,
    MAX_CONNECTIONS, REQUEST_LEN,
};

/// Serves the formats of a [`FormatCache`] over TCP.
///
/// ```
/// use transports::ndr::{FormatClient, FormatServer};
/// use wire_ndr::{ByteOrder, Format, FormatCache, IOField, Receiver};
///
/// let cache = FormatCache::new();
/// let f = Format::from_fields("p", ByteOrder::Big, 4, &[IOField::new("x", "integer", 4, 0)], &[])?;
/// let id = cache.insert(f.clone());
/// let server = FormatServer::bind("127.0.0.1:0", cache)?.spawn()?;
///
/// let mut rx = Receiver::with_resolver(FormatClient::new(server.local_addr()));
/// assert_eq!(*rx.lookup(id)?, f);
/// server.shutdown();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FormatServer {
    listener: TcpListener,
    cache: FormatCache,
}

impl FormatServer {
    /// Listens on `addr` (port 0 picks a free one), answering from `cache` (shared: formats
    /// inserted later are served too).
    pub fn bind(addr: impl ToSocketAddrs, cache: FormatCache) -> io::Result<FormatServer> {
        Ok(FormatServer {
            listener: TcpListener::bind(addr)?,
            cache,
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Starts serving on a background thread; each connection gets its own thread, up to 64.
    pub fn spawn(self) -> io::Result<FormatServerHandle> {
        let addr = self.listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopping);
        let thread = std::thread::Builder::new()
            .name("ndr-format-server".into())
            .spawn(move || accept_loop(self.listener, self.cache, stop))?;
        Ok(FormatServerHandle {
            addr,
            stopping,
            thread: Some(thread),
        })
    }
}

/// A running format server; [`shutdown`](FormatServerHandle::shutdown) (or drop) stops
/// accepting connections.
#[derive(Debug)]
pub struct FormatServerHandle {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FormatServerHandle {
    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting and waits for the acceptor to end (open connections end on their own
    /// when their clients close them or go idle).
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the acceptor.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for FormatServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: TcpListener, cache: FormatCache, stopping: Arc<AtomicBool>) {
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(conn) = conn else { continue };
        if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let _ = conn.shutdown(Shutdown::Both);
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let spawned = std::thread::Builder::new()
            .name("ndr-format-conn".into())
            .spawn({
                let (cache, active) = (cache.clone(), Arc::clone(&active));
                move || {
                    let _ = serve(conn, &cache);
                    active.fetch_sub(1, Ordering::SeqCst);
                }
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Answers requests until the client closes, goes idle, or sends something else.
fn serve(mut conn: TcpStream, cache: &FormatCache) -> io::Result<()> {
    conn.set_read_timeout(Some(IDLE))?;
    conn.set_nodelay(true)?;
    loop {
        let mut req = [0u8; REQUEST_LEN];
        match conn.read_exact(&mut req) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        conn.write_all(&answer(cache, requested(&req)?))?;
    }
}

/// A [`Resolver`] that asks one format server, at an address the application gives (never
/// one a message names). It connects on first use and reconnects once if the connection
/// broke.
#[derive(Debug)]
pub struct FormatClient {
    addr: SocketAddr,
    conn: Option<TcpStream>,
    timeout: Duration,
}

impl FormatClient {
    /// A client of the server at `addr`.
    pub fn new(addr: SocketAddr) -> FormatClient {
        FormatClient {
            addr,
            conn: None,
            timeout: CLIENT_TIMEOUT,
        }
    }

    /// How long to wait for a connection or an answer (5 s by default).
    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    fn ask(&mut self, id: FormatId) -> io::Result<Option<Format>> {
        let conn = match &mut self.conn {
            Some(c) => c,
            None => {
                let c = TcpStream::connect_timeout(&self.addr, self.timeout)?;
                c.set_read_timeout(Some(self.timeout))?;
                c.set_write_timeout(Some(self.timeout))?;
                c.set_nodelay(true)?;
                self.conn.insert(c)
            }
        };
        conn.write_all(&request(id))?;
        let mut head = [0u8; FRAME_HEAD_LEN];
        conn.read_exact(&mut head)?;
        let Some(len) = answer_len(&head)? else {
            return Ok(None);
        };
        let mut description = vec![0u8; len];
        conn.read_exact(&mut description)?;
        answered(&description).map(Some)
    }
}

impl Resolver for FormatClient {
    fn resolve(&mut self, id: FormatId) -> Result<Option<Format>, Error> {
        let answer = match self.ask(id) {
            Ok(a) => Ok(a),
            Err(_) => {
                // The connection may have gone stale: one fresh try.
                self.conn = None;
                self.ask(id)
            }
        };
        match answer {
            Ok(Some(f)) if f.id() != id => {
                self.conn = None;
                Err(wrong_format(id, f.id()))
            }
            Ok(a) => Ok(a),
            Err(e) => {
                self.conn = None;
                Err(Error::io(
                    format!("format server {}: {e}", self.addr),
                    e,
                    None,
                ))
            }
        }
    }
}
