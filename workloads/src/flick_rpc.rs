//! `program FLICK_PROG` of `peers/rpcgen/xdr/flick.x`, served in Rust: the same procedures
//! as the rpcgen-generated C server, so the C client, the Rust client, the tests, the
//! benchmarks and the demo can talk to either.
//!
//! ```
//! use marshal::rpc::{Client, Server};
//! use workloads::flick_rpc::{self, PfsWriteRes};
//!
//! let mut server = Server::bind("127.0.0.1:0")?;
//! server.add(flick_rpc::FLICK_PROG, flick_rpc::FLICK_VERS, flick_rpc::serve);
//! let server = server.spawn()?;
//! let mut c = Client::connect_udp(server.udp_addr().unwrap(), flick_rpc::FLICK_PROG, 1)?;
//! let res: PfsWriteRes = c.call(flick_rpc::PFS_WRITE, &(3, 100, 8, &[1i32, 2][..]))?;
//! assert_eq!(res, PfsWriteRes { ret: 2, pos: 108 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use marshal::rpc::Call;
use marshal::Marshal;

use crate::{DirEntryRef, EntryList, Rect, XResult};

/// The program number.
pub const FLICK_PROG: u32 = 0x2046_4C4B;
/// The program version.
pub const FLICK_VERS: u32 = 1;
/// `void FLICK_NULL(void)`.
pub const FLICK_NULL: u32 = 0;
/// `int_array ECHO_INTS(int_array)`.
pub const ECHO_INTS: u32 = 1;
/// `rect_array ECHO_RECTS(rect_array)`.
pub const ECHO_RECTS: u32 = 2;
/// `dirent_array ECHO_DIRENTS(dirent_array)`.
pub const ECHO_DIRENTS: u32 = 3;
/// `result ECHO_RESULT(result)`.
pub const ECHO_RESULT: u32 = 4;
/// `entry_list ECHO_LIST(entry_list)`.
pub const ECHO_LIST: u32 = 5;
/// `pfs_write_res PFS_WRITE(pfs_write_args)`.
pub const PFS_WRITE: u32 = 6;

/// `struct pfs_write_args { int handle; int pos; int len; int data<>; }`: IDL4's
/// `pfs_write(int handle, inout int pos, int len, int data_size, in int data[data_size])`
/// (the array carries its size). A client may send `(i32, i32, i32, &[i32])` instead, which
/// encodes the same without copying the data into a `Vec`.
#[derive(Marshal, Debug, Clone, PartialEq, Eq)]
pub struct PfsWriteArgs {
    pub handle: i32,
    pub pos: i32,
    pub len: i32,
    pub data: Vec<i32>,
}

/// `struct pfs_write_res { int ret; int pos; }`: the elements written and the new position.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PfsWriteRes {
    pub ret: i32,
    pub pos: i32,
}

impl PfsWriteArgs {
    /// What the server answers.
    pub fn result(&self) -> PfsWriteRes {
        PfsWriteRes {
            ret: self.data.len() as i32,
            pos: self.pos.wrapping_add(self.len),
        }
    }
}

/// The program: procedures 1–5 echo their argument (decoded, then encoded again; directory
/// entry names are borrowed from the request), `PFS_WRITE` answers
/// `{ ret = data.len, pos = pos + len }`.
pub fn serve(call: &mut Call<'_>) -> Result<(), marshal::Error> {
    match call.procedure() {
        FLICK_NULL => {
            call.args::<()>()?;
            call.reply(&())
        }
        ECHO_INTS => {
            let v: Vec<i32> = call.args()?;
            call.reply(&v)
        }
        ECHO_RECTS => {
            let v: Vec<Rect> = call.args()?;
            call.reply(&v)
        }
        ECHO_DIRENTS => {
            let v: Vec<DirEntryRef<'_>> = call.args()?;
            call.reply(&v)
        }
        ECHO_RESULT => {
            let v: XResult = call.args()?;
            call.reply(&v)
        }
        ECHO_LIST => {
            let v: EntryList = call.args()?;
            call.reply(&v)
        }
        PFS_WRITE => {
            let a: PfsWriteArgs = call.args()?;
            call.reply(&a.result())
        }
        _ => call.proc_unavail(),
    }
}
