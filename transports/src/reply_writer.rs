//! The writer task of an async server's connection: sends the replies its calls hand over,
//! whole messages (or records) in the order they come, gathering small ones into one write.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;

/// Replies below this size are gathered into one write; larger ones go out from their own
/// buffers.
const GATHER: usize = 64 * 1024;

/// Sends each reply record, gathering those queued into one write (large ones go out from
/// their own buffers). A write that makes no progress for `idle` (a peer that sends calls
/// but reads no replies) ends the writer, and with it the connection.
pub(crate) async fn write_replies(
    mut write: OwnedWriteHalf,
    mut queue: mpsc::Receiver<Vec<u8>>,
    idle: Option<Duration>,
) {
    let mut out = Vec::new();
    while let Some(reply) = queue.recv().await {
        let mut next = Some(reply);
        while let Some(reply) = next.take() {
            if reply.len() >= GATHER {
                if !write_all_within(&mut write, &out, idle).await
                    || !write_all_within(&mut write, &reply, idle).await
                {
                    return;
                }
                out.clear();
            } else {
                out.extend_from_slice(&reply);
            }
            if out.len() < GATHER {
                next = queue.try_recv().ok();
            }
        }
        if !write_all_within(&mut write, &out, idle).await {
            return;
        }
        out.clear();
        if out.capacity() > 4 * GATHER {
            out = Vec::new();
        }
    }
    let _ = write.shutdown().await;
}

/// Writes all of `buf`, each write making progress within `idle`; `false` if one did not
/// or the socket failed.
async fn write_all_within(write: &mut OwnedWriteHalf, buf: &[u8], idle: Option<Duration>) -> bool {
    let mut pos = 0;
    while pos < buf.len() {
        let wrote = match idle {
            Some(idle) => tokio::time::timeout(idle, write.write(&buf[pos..]))
                .await
                .unwrap_or(Ok(0)),
            None => write.write(&buf[pos..]).await,
        };
        match wrote {
            Ok(n) if n > 0 => pos += n,
            _ => return false,
        }
    }
    true
}
