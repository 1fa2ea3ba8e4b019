//! The async GIOP server: a task accepts connections and a task serves each one, with the
//! blocking server's dispatch.

use std::collections::HashMap;
use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::codec::Decoder;
use wire_iiop::giop::{
    encode_message, CloseConnection, Ior, Message, MessageError, Version, DEFAULT_MAX_FRAGMENTS,
    DEFAULT_MAX_MESSAGE,
};
use wire_iiop::ByteOrder;

use super::server::{handle_message, Handled, Objects, Out, DEFAULT_MAX_CONNECTIONS};
use super::Servant;
use crate::codec::GiopCodec;

/// Spare room a connection keeps in its buffer before each read.
const READ_CHUNK: usize = 8 * 1024;

/// Answers above this size are not kept in a connection's buffer after they went out.
const KEEP_OUT: usize = 1 << 20;

/// An async GIOP server of objects by key: the same [`Servant`]s and dispatch as the
/// blocking [`Server`](super::Server), on a tokio runtime. Each connection is a task that
/// reads whole messages ([`GiopCodec`]: either byte order, fragments reassembled, sizes
/// capped), serves them one at a time, answers `LocateRequest`, answers garbage with
/// `MessageError` (and closes), and sends `CloseConnection` at shutdown.
///
/// A servant runs on the connection's task: it should not block for long (the bench
/// servants of the tests compute and answer at once).
///
/// ```
/// use transports::giop::{AsyncClient, AsyncServer, Call};
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
/// rt.block_on(async {
///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
///     server.add("Adder", |call: &mut Call<'_>| match call.operation() {
///         b"add" => {
///             let (a, b): (i32, i32) = call.args()?;
///             call.reply(&a.wrapping_add(b))
///         }
///         _ => call.bad_operation(),
///     });
///     let server = server.spawn()?;
///     let client = AsyncClient::connect(&server.ior("IDL:Adder:1.0", b"Adder")).await?;
///     assert_eq!(client.invoke::<(i32, i32), i32>("add", &(2, 3)).await?, 5);
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncServer {
    listener: TcpListener,
    objects: Objects,
    max_message: usize,
    max_connections: usize,
}

impl core::fmt::Debug for AsyncServer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncServer")
            .field("listener", &self.listener)
            .field("objects", &self.objects.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl AsyncServer {
    /// Listens on `addr` (port 0 picks a free one).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<AsyncServer> {
        Ok(AsyncServer {
            listener: TcpListener::bind(addr).await?,
            objects: HashMap::new(),
            max_message: DEFAULT_MAX_MESSAGE,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves `servant` under `object_key`.
    pub fn add(&mut self, object_key: impl Into<Vec<u8>>, servant: impl Servant + 'static) {
        self.objects.insert(object_key.into(), Arc::new(servant));
    }

    /// Caps the size of a request (reassembled), 256 MiB by default.
    pub fn set_max_message(&mut self, max: usize) {
        self.max_message = max;
    }

    /// Caps the connections served at once (`DEFAULT_MAX_CONNECTIONS`, 1024, by default):
    /// each holds buffers, so a peer opening connections without end cannot exhaust memory.
    /// A connection beyond the cap is closed at once (clients retry later).
    pub fn set_max_connections(&mut self, max: usize) {
        self.max_connections = max;
    }

    /// Starts serving on the current tokio runtime: a task accepts connections and a task
    /// serves each one.
    pub fn spawn(self) -> io::Result<AsyncServerHandle> {
        let addr = self.listener.local_addr()?;
        let (stop, stopped) = watch::channel(false);
        let objects = Arc::new(self.objects);
        let acceptor = tokio::spawn(accept_loop(
            self.listener,
            objects,
            Caps {
                max_message: self.max_message,
                max_connections: self.max_connections,
            },
            stopped,
        ));
        Ok(AsyncServerHandle {
            addr,
            stop,
            acceptor: Some(acceptor),
        })
    }
}

/// A running [`AsyncServer`]; [`shutdown`](AsyncServerHandle::shutdown) stops it (dropping
/// the handle stops it too, without waiting).
#[derive(Debug)]
pub struct AsyncServerHandle {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    acceptor: Option<JoinHandle<()>>,
}

impl AsyncServerHandle {
    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A reference to the object `object_key` here: one IIOP 1.2 profile.
    pub fn ior(&self, type_id: &str, object_key: &[u8]) -> Ior {
        Ior::new(
            type_id,
            &self.addr.ip().to_string(),
            self.addr.port(),
            object_key,
        )
    }

    /// Stops accepting, tells every connected client `CloseConnection` (after the request
    /// it is serving, if any), and waits for the connections' tasks to end. As with the
    /// blocking server, a connection whose client stopped reading while a reply was going
    /// out holds the shutdown until the client reads or the connection fails.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.await;
        }
    }
}

impl Drop for AsyncServerHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// `f`, unless `stop` says to stop first (`None`).
async fn or_stop<F: Future>(stop: &mut watch::Receiver<bool>, f: F) -> Option<F::Output> {
    if *stop.borrow() {
        return None;
    }
    let mut f = pin!(f);
    let mut changed = pin!(stop.changed());
    poll_fn(|cx| {
        // Set, or the handle is gone: either way, stop.
        if changed.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        f.as_mut().poll(cx).map(Some)
    })
    .await
}

/// A server's caps.
#[derive(Debug, Clone, Copy)]
struct Caps {
    max_message: usize,
    max_connections: usize,
}

async fn accept_loop(
    listener: TcpListener,
    objects: Arc<Objects>,
    caps: Caps,
    mut stop: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    while let Some(accepted) = or_stop(&mut stop, listener.accept()).await {
        // Forget the connections that ended.
        while conns.try_join_next().is_some() {}
        match accepted {
            // Dropping the stream closes it.
            Ok(_) if conns.len() >= caps.max_connections => {}
            Ok((stream, _)) => {
                conns.spawn(serve(
                    stream,
                    Arc::clone(&objects),
                    caps.max_message,
                    stop.clone(),
                ));
            }
            // Out of descriptors, say: let the connections run, then accept again.
            Err(_) => tokio::task::yield_now().await,
        }
    }
    drop(listener);
    while conns.join_next().await.is_some() {}
}

/// Serves one connection until it closes, the peer breaks the protocol, or the server stops.
async fn serve(
    stream: TcpStream,
    objects: Arc<Objects>,
    max_message: usize,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let (mut rd, mut wr) = stream.into_split();
    let mut codec = GiopCodec::with_caps(max_message, DEFAULT_MAX_FRAGMENTS);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    // What a MessageError or CloseConnection goes out in: the peer's last message's.
    let mut version = Version::V1_0;
    let mut order = ByteOrder::Big;
    loop {
        let decoded = codec.decode(&mut buf);
        let handled = match decoded {
            Ok(Some(ref msg)) => match Message::parse(msg) {
                Ok(m) => {
                    version = m.header.version;
                    order = m.header.order;
                    handle_message(&objects, &m, Out::Buffer(&mut out))
                }
                Err(_) => {
                    let _ = encode_message(&mut out, version, order, &MessageError::default(), &());
                    Handled::Stop
                }
            },
            Ok(None) => Handled::Continue,
            Err(_) => {
                let _ = encode_message(&mut out, version, order, &MessageError::default(), &());
                Handled::Stop
            }
        };
        if !out.is_empty() {
            if wr.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
            if out.capacity() > KEEP_OUT {
                out = Vec::new();
            }
        }
        if handled == Handled::Stop {
            break;
        }
        if matches!(decoded, Ok(Some(_))) {
            // The next message may be buffered already.
            continue;
        }
        if buf.capacity() - buf.len() < READ_CHUNK / 2 {
            buf.reserve(READ_CHUNK);
        }
        match or_stop(&mut stop, rd.read_buf(&mut buf)).await {
            Some(Ok(0) | Err(_)) => return,
            Some(Ok(_)) => {}
            None => {
                let _ = encode_message(&mut out, version, order, &CloseConnection::default(), &());
                let _ = wr.write_all(&out).await;
                break;
            }
        }
    }
    let _ = wr.shutdown().await;
}
