//! The format service's async client: asks one server, with the protocol of
//! `format_protocol` (the blocking [`FormatClient`](super::FormatClient)'s), and fills a
//! [`Receiver`] or a [`FormatCache`] with what it answers.

use std::io;
use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wire_ndr::{Format, FormatCache, FormatId, Receiver, FRAME_HEAD_LEN};

use super::format_protocol::{answer_len, answered, request, wrong_format, CLIENT_TIMEOUT};
use super::invalid;

/// Asks one format server for formats by id, at an address the application gives (never one
/// a message names), on a tokio runtime with I/O and time enabled. It answers the
/// [`FormatServer`](super::FormatServer) and the
/// [`AsyncFormatServer`](super::AsyncFormatServer) alike.
///
/// It is not a [`Resolver`](wire_ndr::Resolver): a [`Receiver`] asks its resolver
/// synchronously, in the middle of a decode, which an async client cannot answer without
/// blocking the runtime's thread. Resolve first, then decode:
/// [`resolve_into`](AsyncFormatClient::resolve_into) registers a format with a `Receiver`
/// that does not know it yet, and
/// [`resolve_into_cache`](AsyncFormatClient::resolve_into_cache) inserts it into a
/// [`FormatCache`] (a `Resolver` that never blocks: receivers built with
/// `Receiver::with_resolver(cache.clone())` find it there).
///
/// Requests take `&self`, so one client serves many tasks (share it in an `Arc`). Each request
/// runs on a connection of its own, kept for the next request when it went well: concurrent
/// requests open more connections, and only one is kept. A kept connection that has gone
/// stale is replaced once. Every request is cancel-safe: a request dropped before it returns
/// closes its connection, so no answer meant for it reaches another.
///
/// ```
/// use transports::ndr::{AsyncFormatClient, AsyncNdrReader, FormatServer};
/// use wire_ndr::{message_from_body, parse_message, ByteOrder, Format, FormatCache, IOField, Value};
///
/// let cache = FormatCache::new();
/// let f = Format::from_fields("tick", ByteOrder::Little, 8, &[IOField::new("seq", "unsigned integer", 8, 0)], &[])?;
/// let id = cache.insert(f.clone());
/// let server = FormatServer::bind("127.0.0.1:0", cache)?.spawn()?;
/// // A record without its format: the reader has to ask.
/// let wire = message_from_body(id, &5u64.to_le_bytes())?;
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     let client = AsyncFormatClient::new(server.local_addr());
///     let mut r = AsyncNdrReader::new(&wire[..]);
///     let msg = r.next_message().await?.unwrap();
///     assert!(client.resolve_into(r.receiver(), parse_message(&msg)?.id).await?);
///     assert_eq!(r.receiver().decode_dynamic(&msg)?.get("seq"), Some(&Value::UInt(5)));
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// server.shutdown();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncFormatClient {
    addr: SocketAddr,
    timeout: Duration,
    /// The connection of the last request that went well, for the next one.
    kept: Mutex<Option<TcpStream>>,
}

impl AsyncFormatClient {
    /// A client of the server at `addr`. It connects on first use.
    pub fn new(addr: SocketAddr) -> AsyncFormatClient {
        AsyncFormatClient {
            addr,
            timeout: CLIENT_TIMEOUT,
            kept: Mutex::new(None),
        }
    }

    /// How long one request may take, connecting included (5 s by default).
    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    /// The format with this id: `None` when the server does not know it, an error when
    /// asking failed or the server answered with another format.
    pub async fn resolve(&self, id: FormatId) -> io::Result<Option<Format>> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let asked = match kept {
            Some(conn) => match self.ask(Some(conn), id).await {
                Ok(asked) => Ok(asked),
                // The kept connection may have gone stale: one fresh try.
                Err(_) => self.ask(None, id).await,
            },
            None => self.ask(None, id).await,
        };
        let (conn, answer) = asked
            .map_err(|e| io::Error::new(e.kind(), format!("format server {}: {e}", self.addr)))?;
        if let Some(f) = &answer {
            if f.id() != id {
                return Err(invalid(wrong_format(id, f.id())));
            }
        }
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(conn);
        Ok(answer)
    }

    /// Makes the format `id` known to `receiver`, asking the server when the receiver does
    /// not know it yet: `true` when it is known now, `false` when the server does not know
    /// it either (decoding a record of it then fails with an unknown-format error).
    pub async fn resolve_into(&self, receiver: &mut Receiver, id: FormatId) -> io::Result<bool> {
        if receiver.format(id).is_some() {
            return Ok(true);
        }
        Ok(match self.resolve(id).await? {
            Some(f) => {
                receiver.register(f);
                true
            }
            None => false,
        })
    }

    /// Puts the format `id` into `cache`, asking the server when the cache does not hold it
    /// yet: `true` when it holds it now, `false` when the server does not know it either.
    pub async fn resolve_into_cache(&self, cache: &FormatCache, id: FormatId) -> io::Result<bool> {
        if cache.get(id).is_some() {
            return Ok(true);
        }
        Ok(match self.resolve(id).await? {
            Some(f) => {
                cache.insert(f);
                true
            }
            None => false,
        })
    }

    /// One request on `conn` (or a new connection), within the timeout; the connection comes
    /// back with the answer.
    async fn ask(
        &self,
        conn: Option<TcpStream>,
        id: FormatId,
    ) -> io::Result<(TcpStream, Option<Format>)> {
        let exchange = async {
            let mut conn = match conn {
                Some(c) => c,
                None => {
                    let c = TcpStream::connect(self.addr).await?;
                    c.set_nodelay(true)?;
                    c
                }
            };
            conn.write_all(&request(id)).await?;
            let mut head = [0u8; FRAME_HEAD_LEN];
            conn.read_exact(&mut head).await?;
            let Some(len) = answer_len(&head)? else {
                return Ok((conn, None));
            };
            let mut description = vec![0u8; len];
            conn.read_exact(&mut description).await?;
            Ok((conn, Some(answered(&description)?)))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .unwrap_or_else(|_| {
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no answer within {:?}", self.timeout),
                ))
            })
    }
}
