//! A gated proxy: it accepts one connection and forwards it to the server only once its gate
//! opens, counting the bytes it forwards toward the server. Until then it reads nothing (and
//! its socket takes little), so the client's writes back up.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;

/// The proxy's address, its gate and its count.
#[derive(Debug)]
pub struct Gate {
    /// Where clients connect.
    pub addr: SocketAddr,
    open: Option<oneshot::Sender<()>>,
    forwarded: Arc<AtomicU64>,
}

impl Gate {
    /// Starts a proxy to `server`, its gate closed. Must be called within a tokio runtime.
    pub fn new(server: SocketAddr) -> Gate {
        let socket = TcpSocket::new_v4().unwrap();
        // Inherited by the accepted socket: the client's writes stop after a few KiB.
        socket.set_recv_buffer_size(4096).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(1).unwrap();
        let addr = listener.local_addr().unwrap();
        let (open, gate) = oneshot::channel();
        let forwarded = Arc::new(AtomicU64::new(0));
        let count = Arc::clone(&forwarded);
        tokio::spawn(async move {
            let (client, _) = listener.accept().await.unwrap();
            drop(listener);
            if gate.await.is_err() {
                return;
            }
            let upstream = TcpStream::connect(server).await.unwrap();
            let (mut from_client, mut to_client) = client.into_split();
            let (mut from_server, mut to_server) = upstream.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
                let _ = to_client.shutdown().await;
            });
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = from_client.read(&mut buf).await {
                count.fetch_add(n as u64, Ordering::SeqCst);
                if to_server.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
            let _ = to_server.shutdown().await;
        });
        Gate {
            addr,
            open: Some(open),
            forwarded,
        }
    }

    /// Opens the gate: from now on the connection is forwarded both ways.
    pub fn open(&mut self) {
        if let Some(open) = self.open.take() {
            let _ = open.send(());
        }
    }

    /// The bytes forwarded toward the server so far.
    pub fn forwarded(&self) -> u64 {
        self.forwarded.load(Ordering::SeqCst)
    }
}
