//! The test program, served by both servers.

use std::time::Duration;

use transports::rpc::Call;

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
