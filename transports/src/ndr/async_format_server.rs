//! The format server on tokio: a task accepts connections and a task answers each one, with
//! the protocol of `format_protocol` (the blocking [`FormatServer`](super::FormatServer)'s).

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::{JoinHandle, JoinSet};
use wire_ndr::FormatCache;

use super::format_protocol::{answer, requested, IDLE, MAX_CONNECTIONS, REQUEST_LEN};

/// The largest connection cap: a semaphore's permits, all taken at once at shutdown.
const MAX_PERMITS: usize = if Semaphore::MAX_PERMITS < u32::MAX as usize {
    Semaphore::MAX_PERMITS
} else {
    u32::MAX as usize
};

/// Serves the formats of a [`FormatCache`] over TCP on a tokio runtime, answering the same
/// requests as the blocking [`FormatServer`](super::FormatServer): its clients are
/// [`FormatClient`](super::FormatClient)s and [`AsyncFormatClient`](super::AsyncFormatClient)s
/// alike.
///
/// A task accepts connections and a task answers each, one request at a time. Connections
/// beyond a cap (64 at first) are closed at once; a connection that sends no request, or
/// reads no answer, for the idle timeout (30 s at first) is closed; one that sends something
/// other than a request is closed. The runtime needs I/O and time enabled.
///
/// ```
/// use transports::ndr::{AsyncFormatClient, AsyncFormatServer};
/// use wire_ndr::{ByteOrder, Format, FormatCache, IOField};
///
/// let cache = FormatCache::new();
/// let f = Format::from_fields("p", ByteOrder::Big, 4, &[IOField::new("x", "integer", 4, 0)], &[])?;
/// let id = cache.insert(f.clone());
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     let server = AsyncFormatServer::bind("127.0.0.1:0", cache.clone()).await?.spawn()?;
///     let client = AsyncFormatClient::new(server.local_addr());
///     assert_eq!(client.resolve(id).await?, Some(f));
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncFormatServer {
    listener: TcpListener,
    cache: FormatCache,
    max_connections: usize,
    idle: Option<Duration>,
}

impl AsyncFormatServer {
    /// Listens on `addr` (port 0 picks a free one), answering from `cache` (shared: formats
    /// inserted later are served too).
    pub async fn bind(
        addr: impl ToSocketAddrs,
        cache: FormatCache,
    ) -> io::Result<AsyncFormatServer> {
        Ok(AsyncFormatServer {
            listener: TcpListener::bind(addr).await?,
            cache,
            max_connections: MAX_CONNECTIONS,
            idle: Some(IDLE),
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Caps the connections served at once (64 at first, as the blocking server's): a
    /// connection beyond the cap is closed at once.
    pub fn set_max_connections(&mut self, max: usize) {
        self.max_connections = max.clamp(1, MAX_PERMITS);
    }

    /// Closes a connection that sends no request, or reads no answer, for this long (30 s at
    /// first, as the blocking server's; `None`: never).
    pub fn set_idle_timeout(&mut self, idle: Option<Duration>) {
        self.idle = idle;
    }

    /// Starts serving on the current tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn spawn(self) -> io::Result<AsyncFormatServerHandle> {
        let addr = self.listener.local_addr()?;
        let conns = Arc::new(Semaphore::new(self.max_connections));
        let acceptor = tokio::spawn(accept_loop(
            self.listener,
            self.cache,
            Arc::clone(&conns),
            self.idle,
        ));
        Ok(AsyncFormatServerHandle {
            addr,
            acceptor,
            conns,
            max_connections: self.max_connections as u32,
        })
    }
}

/// A running [`AsyncFormatServer`]; [`shutdown`](AsyncFormatServerHandle::shutdown) stops it
/// and waits until it has (dropping the handle stops it too, without waiting).
///
/// ```
/// use transports::ndr::AsyncFormatServer;
/// use wire_ndr::FormatCache;
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     let server = AsyncFormatServer::bind("127.0.0.1:0", FormatCache::new()).await?.spawn()?;
///     let addr = server.local_addr();
///     let open = tokio::net::TcpStream::connect(addr).await?;
///     server.shutdown().await; // the connection above was closed too
///     assert!(tokio::net::TcpStream::connect(addr).await.is_err());
///     drop(open);
///     Ok::<(), std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct AsyncFormatServerHandle {
    addr: SocketAddr,
    acceptor: JoinHandle<()>,
    /// A permit per connection served.
    conns: Arc<Semaphore>,
    max_connections: u32,
}

impl AsyncFormatServerHandle {
    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting (the listening socket is closed when this returns), closes every
    /// connection, and waits until their tasks have ended. An answer being written when the
    /// server stops may be cut short: its client sees the connection fail, as when the server
    /// goes away.
    pub async fn shutdown(mut self) {
        // The acceptor owns the connections' tasks: stopping it aborts them.
        self.acceptor.abort();
        let _ = (&mut self.acceptor).await;
        let _ = self.conns.acquire_many(self.max_connections).await;
    }
}

impl Drop for AsyncFormatServerHandle {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

async fn accept_loop(
    listener: TcpListener,
    cache: FormatCache,
    conns: Arc<Semaphore>,
    idle: Option<Duration>,
) {
    let mut tasks = JoinSet::new();
    loop {
        // Forget the connections that ended.
        while tasks.try_join_next().is_some() {}
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        // Beyond the cap the connection is closed at once (dropped).
        if let Ok(permit) = Arc::clone(&conns).try_acquire_owned() {
            tasks.spawn(serve(stream, cache.clone(), idle, permit));
        }
    }
}

/// Answers requests until the client closes, goes idle, or sends something else.
async fn serve(
    mut conn: TcpStream,
    cache: FormatCache,
    idle: Option<Duration>,
    _permit: OwnedSemaphorePermit,
) {
    let _ = conn.set_nodelay(true);
    loop {
        let mut req = [0u8; REQUEST_LEN];
        if within(idle, conn.read_exact(&mut req)).await.is_err() {
            // Closed (between requests or inside one), idle, or failed.
            return;
        }
        let Ok(id) = requested(&req) else { return };
        if within(idle, conn.write_all(&answer(&cache, id)))
            .await
            .is_err()
        {
            return;
        }
    }
}

/// `io`, failing with `TimedOut` if it takes longer than `limit`.
async fn within<T>(
    limit: Option<Duration>,
    io: impl std::future::Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, io)
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into())),
        None => io.await,
    }
}
