//! A reply the async client keeps whole ([`AsyncClient::invoke_reply`]): its results, or the
//! user exception it carries, decode borrowing from it.
//!
//! [`AsyncClient::invoke_reply`]: super::AsyncClient::invoke_reply

use bytes::Bytes;
use marshal_core::{Error, ErrorKind, Reader};
use wire_iiop::{ByteOrder, Decode};

use super::CallError;

/// A reply kept whole by [`AsyncClient::invoke_reply`](super::AsyncClient::invoke_reply):
/// the results of a call, or the user exception it raised. Either decodes borrowing from the
/// reply (`&str`, `&[u8]` and `Cow` fields point into it; `Bytes` and `BytesStr` fields are
/// slices of it), with the reply's byte order and alignment.
///
/// ```
/// use transports::giop::{AsyncClient, AsyncServer, Call};
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
/// rt.block_on(async {
///     let mut server = AsyncServer::bind("127.0.0.1:0").await?;
///     server.add("Files", |call: &mut Call<'_>| {
///         let name: &str = call.args()?;
///         if name.is_empty() {
///             return call.user_exception("IDL:Files/Empty:1.0", &(7u32, "no name"));
///         }
///         call.reply(&(name, &b"contents"[..]))
///     });
///     let server = server.spawn()?;
///     let client = AsyncClient::connect(&server.ior("IDL:Files:1.0", b"Files")).await?;
///
///     let reply = client.invoke_reply("read", "notes.txt").await?;
///     let (name, data): (&str, &[u8]) = reply.results()?; // both point into `reply`
///     assert_eq!((name, data), ("notes.txt", &b"contents"[..]));
///
///     let reply = client.invoke_reply("read", "").await?;
///     assert_eq!(reply.user_exception(), Some("IDL:Files/Empty:1.0"));
///     let (code, why): (u32, &str) = reply.exception_members()?;
///     assert_eq!((code, why), (7, "no name"));
///     server.shutdown().await;
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reply {
    /// The whole reply message.
    message: Bytes,
    /// The results, or the user exception's members: the rest of the message.
    body: Bytes,
    /// Where `body` begins in the message (CDR aligns relative to the message).
    at: usize,
    order: ByteOrder,
    /// The repository id of the user exception the reply carries, if it does.
    exception: Option<String>,
}

impl Reply {
    /// The reply `message`, in `order`, whose results (or, with `exception`, that user
    /// exception's members) begin at `at`; `None` if `at` is past its end.
    pub(super) fn new(
        message: Bytes,
        at: usize,
        order: ByteOrder,
        exception: Option<String>,
    ) -> Option<Reply> {
        let body = message.get(at..).map(|b| message.slice_ref(b))?;
        Some(Reply {
            message,
            body,
            at,
            order,
            exception,
        })
    }

    /// Decodes the results (the return value, then the `inout` and `out` parameters in IDL
    /// order), which must take the rest of the reply; they may borrow from it. A reply that
    /// carries a user exception is [`CallError::UserException`], as
    /// [`invoke`](super::AsyncClient::invoke) returns it.
    pub fn results<'r, Ret: Decode<'r>>(&'r self) -> Result<Ret, CallError> {
        if let Some(repository_id) = &self.exception {
            return Err(CallError::UserException {
                repository_id: repository_id.clone(),
                body: self.body.to_vec(),
            });
        }
        Ok(self.decode()?)
    }

    /// The repository id of the user exception the reply carries (`None` for results).
    pub fn user_exception(&self) -> Option<&str> {
        self.exception.as_deref()
    }

    /// Decodes the members of the user exception the reply carries, which must take the
    /// rest of the reply; they may borrow from it. Fails if the reply carries results.
    pub fn exception_members<'r, T: Decode<'r>>(&'r self) -> Result<T, Error> {
        if self.exception.is_none() {
            return Err(Error::new(
                ErrorKind::Custom("the reply carries results, not a user exception".into()),
                self.at,
            ));
        }
        self.decode()
    }

    /// The byte order the server replied in.
    pub fn order(&self) -> ByteOrder {
        self.order
    }

    /// The whole GIOP message of the reply.
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// Decodes the rest of the reply as a `T`.
    fn decode<'r, T: Decode<'r>>(&'r self) -> Result<T, Error> {
        let mut r = Reader::with_owner(&self.body, self.at);
        let v = T::decode(&mut r, self.order)?;
        r.finish()?;
        Ok(v)
    }
}
