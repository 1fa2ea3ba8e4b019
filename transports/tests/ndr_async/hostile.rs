//! Hostile streams: frame heads that claim gigabytes, refused at the head without the
//! memory they claim, and frames over a lowered cap.

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use transports::ndr::{AsyncNdrReader, DEFAULT_MAX_FRAME};

use crate::alloc_probe::largest_allocation;
use crate::formats::{tick, tick_body};
use crate::runtime::block_on;

/// A peer on another thread that writes `bytes` to its loopback connection, then holds it
/// open until the sender it returns is dropped (so a reader that waited for more would wait).
fn peer_writing(bytes: Vec<u8>) -> (SocketAddr, mpsc::Sender<()>, JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (hold, held) = mpsc::channel::<()>();
    let peer = std::thread::spawn(move || {
        use std::io::Write;
        let (mut conn, _) = listener.accept().unwrap();
        conn.write_all(&bytes).unwrap();
        // Until the test lets go.
        let _ = held.recv();
    });
    (addr, hold, peer)
}

#[test]
fn a_2_gib_frame_head_is_refused_without_its_memory() {
    for head in [*b"NDRr\x80\0\0\0", *b"NDRf\xff\xff\xff\xff"] {
        let (addr, hold, peer) = peer_writing(head.to_vec());
        block_on(async {
            let mut r = AsyncNdrReader::new(TcpStream::connect(addr).await.unwrap());
            let (e, largest) = largest_allocation(async {
                // Refused at the head: no wait for the 2 GiB that would follow.
                tokio::time::timeout(Duration::from_secs(1), r.next_message())
                    .await
                    .expect("refused at once, not waiting for the frame")
                    .unwrap_err()
            })
            .await;
            assert_eq!(e.kind(), ErrorKind::InvalidData, "{e}");
            assert!(e.to_string().contains("frame"), "{e}");
            assert!(
                e.to_string().contains(&DEFAULT_MAX_FRAME.to_string()),
                "{e}"
            );
            assert!(largest < 64 * 1024, "{largest} bytes allocated at once");
        });
        drop(hold);
        peer.join().unwrap();
    }
}

#[test]
fn with_the_cap_lifted_the_buffer_grows_only_with_the_data() {
    // A head claiming 2 GiB, then 200 KiB of it, then the end of the stream.
    let mut wire = b"NDRr\x80\0\0\0".to_vec();
    wire.extend(std::iter::repeat_n(0x5a, 200 << 10));
    let (addr, hold, peer) = peer_writing(wire);
    // Closed once written: the reader gets the end of the stream inside the frame.
    drop(hold);
    block_on(async {
        let mut r = AsyncNdrReader::new(TcpStream::connect(addr).await.unwrap());
        r.set_max_frame(u32::MAX as usize);
        let (e, largest) = largest_allocation(r.next_message()).await;
        let e = e.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnexpectedEof, "{e}");
        // In proportion to what arrived (200 KiB), not to the 2 GiB claimed.
        assert!(largest <= 1 << 20, "{largest} bytes allocated at once");
    });
    peer.join().unwrap();
}

#[test]
fn a_frame_over_a_lowered_cap_is_refused() {
    block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut a = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (b, _) = listener.accept().await.unwrap();
        let f = tick(wire_ndr::ByteOrder::Big);
        let mut w = transports::ndr::NdrWriter::new(Vec::new());
        w.send_body(&f, &tick_body(wire_ndr::ByteOrder::Big, 1, 2.0))
            .unwrap();
        a.write_all(&w.into_inner()).await.unwrap();
        let mut r = AsyncNdrReader::new(b);
        // The format frame is the first, and larger than 40 bytes.
        r.set_max_frame(40);
        let e = r.next_message().await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidData, "{e}");
        assert!(e.to_string().contains("40"), "{e}");
    });
}
