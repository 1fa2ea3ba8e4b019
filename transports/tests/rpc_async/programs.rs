//! The test program, served by both servers.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use transports::rpc::{BoxError, Call, Request, Response, Service};

/// The test program's number.
pub const PROG: u32 = 0x2000_0101;
/// Its version.
pub const VERS: u32 = 1;

/// NULL.
pub const NULL: u32 = 0;
/// `(i32, i32) -> i32`: the wrapping sum.
pub const ADD: u32 = 1;
/// `opaque<> -> opaque<>`: the bytes back.
pub const ECHO: u32 = 2;
/// `(u32 ms, u32 tag) -> u32`: sleeps `ms` milliseconds, then answers the tag.
pub const SLEEP: u32 = 3;
/// Panics (answered `SYSTEM_ERR`).
pub const PANIC: u32 = 4;
/// `() -> (u32 flavor, u32 uid)`: the caller's credential.
pub const WHOAMI: u32 = 5;

/// The test program.
pub fn serve(call: &mut Call<'_>) -> Result<(), marshal_core::Error> {
    match call.procedure() {
        NULL => call.reply(&()),
        ADD => {
            let (a, b): (i32, i32) = call.args()?;
            call.reply(&a.wrapping_add(b))
        }
        ECHO => {
            let data: &[u8] = call.args()?;
            call.reply(data)
        }
        SLEEP => {
            let (ms, tag): (u32, u32) = call.args()?;
            std::thread::sleep(Duration::from_millis(u64::from(ms)));
            call.reply(&tag)
        }
        PANIC => panic!("the test program panics on purpose"),
        WHOAMI => {
            let flavor = call.cred().flavor;
            let uid = match call.auth() {
                transports::rpc::Auth::Sys { uid, .. } => *uid,
                _ => u32::MAX,
            };
            call.reply(&(flavor, uid))
        }
        _ => call.proc_unavail(),
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

/// The test program as a `tower` service: SLEEP sleeps on the runtime's timer, not a thread.
#[derive(Clone, Default)]
pub struct TestService {
    /// Calls whose futures were dropped before they completed.
    pub dropped: Arc<AtomicUsize>,
}

/// Counts a future dropped before it completed.
struct DropCount(Arc<AtomicUsize>, bool);

impl Drop for DropCount {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Service<Request> for TestService {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> BoxFuture {
        let dropped = Arc::clone(&self.dropped);
        Box::pin(async move {
            Ok(match req.procedure() {
                NULL => Response::success(&())?,
                ADD => {
                    let (a, b): (i32, i32) = req.args()?;
                    Response::success(&a.wrapping_add(b))?
                }
                ECHO => {
                    let data: Bytes = req.args()?;
                    // The data is a slice of the message, not a copy.
                    let msg = req.message().as_ptr_range();
                    if !data.is_empty() && !msg.contains(&data.as_ptr()) {
                        return Err("the arguments were copied".into());
                    }
                    Response::success(&data[..])?
                }
                SLEEP => {
                    let (ms, tag): (u32, u32) = req.args()?;
                    let mut guard = DropCount(dropped, false);
                    tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
                    guard.1 = true;
                    Response::success(&tag)?
                }
                PANIC => panic!("the test service panics on purpose"),
                WHOAMI => {
                    let uid = match req.auth() {
                        transports::rpc::Auth::Sys { uid, .. } => *uid,
                        _ => u32::MAX,
                    };
                    Response::success(&(req.cred().flavor, uid))?
                }
                _ => Response::proc_unavail(),
            })
        })
    }
}

/// A small deterministic generator (xorshift) for the tests' random choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (never zero inside).
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
