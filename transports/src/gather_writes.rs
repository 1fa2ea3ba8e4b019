//! The writer tasks of async connections: whole messages (or records) in the order they are
//! queued, small ones gathered into one write, large ones written from their own buffers.

use std::io;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;

/// Messages below this size are gathered into one write; larger ones go out from their own
/// buffers.
const GATHER: usize = 64 * 1024;

/// Gathers queued messages into few writes.
#[derive(Debug)]
pub(crate) struct Gather {
    out: Vec<u8>,
    /// How long one write may make no progress.
    idle: Option<Duration>,
}

impl Gather {
    pub(crate) fn new(idle: Option<Duration>) -> Gather {
        Gather {
            out: Vec::new(),
            idle,
        }
    }

    /// Writes `first`, then what `more` hands over without waiting (until it has nothing or
    /// 64 KiB are gathered), in order. Fails if the socket does, or a write makes no
    /// progress within the idle time.
    pub(crate) async fn write<T: AsRef<[u8]>>(
        &mut self,
        w: &mut OwnedWriteHalf,
        first: T,
        mut more: impl FnMut() -> Option<T>,
    ) -> io::Result<()> {
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            let msg = msg.as_ref();
            if msg.len() >= GATHER {
                write_all_within(w, &self.out, self.idle).await?;
                self.out.clear();
                write_all_within(w, msg, self.idle).await?;
            } else {
                self.out.extend_from_slice(msg);
            }
            if self.out.len() < GATHER {
                next = more();
            }
        }
        write_all_within(w, &self.out, self.idle).await?;
        self.out.clear();
        if self.out.capacity() > 4 * GATHER {
            self.out = Vec::new();
        }
        Ok(())
    }
}

/// Sends each reply, gathering those queued into one write, until every sender is gone
/// (then shuts the socket's sending side down). A write that makes no progress for `idle`
/// (a peer that sends calls but reads no replies) ends the writer, and with it the
/// connection.
pub(crate) async fn write_replies(
    mut write: OwnedWriteHalf,
    mut queue: mpsc::Receiver<Vec<u8>>,
    idle: Option<Duration>,
) {
    let mut gather = Gather::new(idle);
    while let Some(reply) = queue.recv().await {
        let wrote = gather.write(&mut write, reply, || queue.try_recv().ok());
        if wrote.await.is_err() {
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// Writes all of `buf`, each write making progress within `idle`.
async fn write_all_within(
    write: &mut OwnedWriteHalf,
    buf: &[u8],
    idle: Option<Duration>,
) -> io::Result<()> {
    let mut pos = 0;
    while pos < buf.len() {
        let wrote = match idle {
            Some(idle) => tokio::time::timeout(idle, write.write(&buf[pos..]))
                .await
                .unwrap_or_else(|_| {
                    Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer read nothing within the idle time",
                    ))
                }),
            None => write.write(&buf[pos..]).await,
        };
        match wrote? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => pos += n,
        }
    }
    Ok(())
}
