//! The C ONC RPC (RFC 5531) peer of `FLICK_PROG`: executables and a client
//! built from the stubs that `rpcgen` generates for the `program` in
//! `xdr/flick.x`, linked against libtirpc.
//!
//! * [`CServer`] runs `flick_server` (rpcgen's dispatch routine
//!   `flick_prog_1` plus the procedures of `src/server.c`) on ephemeral TCP
//!   and UDP ports of all interfaces, without registering with rpcbind.
//! * [`run_c_client`] runs `flick_client` (rpcgen's client stubs,
//!   `src/client.c`) against a server: it calls every procedure and checks
//!   every reply, so it tests a server written in any language.
//! * [`CRpcClient`] is a libtirpc TCP client inside this process, for
//!   benchmarks.
//! * [`c_stub_pfs_write`] marshals and unmarshals one `PFS_WRITE` call with
//!   libtirpc and the generated routines over a memory buffer, for an
//!   instruction-count comparison of stubs.
//!
//! # Procedures
//!
//! | number | name | semantics |
//! |---|---|---|
//! | 0 | [`FLICK_NULL`] | does nothing |
//! | 1 | [`ECHO_INTS`] | returns its `int_array` unchanged |
//! | 2 | [`ECHO_RECTS`] | returns its `rect_array` unchanged |
//! | 3 | [`ECHO_DIRENTS`] | returns its `dirent_array` unchanged |
//! | 4 | [`ECHO_RESULT`] | returns its `result` unchanged |
//! | 5 | [`ECHO_LIST`] | returns its `entry_list` unchanged |
//! | 6 | [`PFS_WRITE`] | returns `pfs_write_res { ret: data.len(), pos: pos + len }` (wrapping) |
//!
//! # UDP
//!
//! libtirpc's `svcudp_create` and `clntudp_create` use buffers of
//! `UDPMSGSIZE` = 8800 bytes for a whole message (RPC header included), so a
//! call or reply larger than that fails over UDP; `flick_client` keeps every
//! argument below 8000 bytes when it runs over UDP.

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::ptr::NonNull;

use crate::{CDirents, CInts, CRects};

/// Path of the `flick_server` executable (`src/server.c` + rpcgen's server
/// stubs). Usually started through [`CServer::spawn`].
///
/// It prints `tcp <port>` and `udp <port>` (one line each) on stdout, serves
/// until its stdin reaches EOF, then exits with status 0.
pub const C_SERVER: &str = concat!(env!("OUT_DIR"), "/flick_server");

/// Path of the `flick_client` executable (`src/client.c` + rpcgen's client
/// stubs). Usually run through [`run_c_client`].
///
/// `flick_client <host> <port> <tcp|udp>` calls every procedure of
/// `FLICK_PROG` version 1 with deterministic data, prints `ok <procname>
/// <detail>` per call and `all <N> calls ok` last, and exits with status 0;
/// on an RPC error or a reply that differs from what it expects it prints
/// the problem to stderr and exits with status 1.
pub const C_CLIENT: &str = concat!(env!("OUT_DIR"), "/flick_client");

/// `program FLICK_PROG` of `flick.x`.
pub const FLICK_PROG: u32 = 0x2046_4C4B;
/// `version FLICK_VERS` of `flick.x`.
pub const FLICK_VERS: u32 = 1;
/// Procedure `void FLICK_NULL(void) = 0`.
pub const FLICK_NULL: u32 = 0;
/// Procedure `int_array ECHO_INTS(int_array) = 1`.
pub const ECHO_INTS: u32 = 1;
/// Procedure `rect_array ECHO_RECTS(rect_array) = 2`.
pub const ECHO_RECTS: u32 = 2;
/// Procedure `dirent_array ECHO_DIRENTS(dirent_array) = 3`.
pub const ECHO_DIRENTS: u32 = 3;
/// Procedure `result ECHO_RESULT(result) = 4`.
pub const ECHO_RESULT: u32 = 4;
/// Procedure `entry_list ECHO_LIST(entry_list) = 5`.
pub const ECHO_LIST: u32 = 5;
/// Procedure `pfs_write_res PFS_WRITE(pfs_write_args) = 6`.
pub const PFS_WRITE: u32 = 6;

/// Entry points of `src/rpc_glue.c`; see the contracts at the top of that
/// file.
mod ffi {
    use std::ffi::{c_char, c_int, c_uint, c_ushort};
    use std::marker::{PhantomData, PhantomPinned};

    use crate::ffi::{DirentArray, IntArray, RectArray};

    /// libtirpc's `CLIENT`, only ever handled by pointer.
    #[repr(C)]
    pub(crate) struct Client {
        _opaque: [u8; 0],
        _marker: PhantomData<(*mut u8, PhantomPinned)>,
    }

    extern "C" {
        pub(crate) fn rpc_glue_connect(
            port: c_ushort,
            bufsz: c_uint,
            err: *mut c_char,
            cap: usize,
        ) -> *mut Client;
        pub(crate) fn rpc_glue_destroy(clnt: *mut Client);
        pub(crate) fn rpc_glue_null(clnt: *mut Client, err: *mut c_char, cap: usize) -> c_int;
        pub(crate) fn rpc_glue_echo_int_array(
            clnt: *mut Client,
            arg: *const IntArray,
            count: *mut c_uint,
            err: *mut c_char,
            cap: usize,
        ) -> c_int;
        pub(crate) fn rpc_glue_echo_rect_array(
            clnt: *mut Client,
            arg: *const RectArray,
            count: *mut c_uint,
            err: *mut c_char,
            cap: usize,
        ) -> c_int;
        pub(crate) fn rpc_glue_echo_dirent_array(
            clnt: *mut Client,
            arg: *const DirentArray,
            count: *mut c_uint,
            err: *mut c_char,
            cap: usize,
        ) -> c_int;
        pub(crate) fn c_stub_pfs_write(
            data: *const c_int,
            n: c_uint,
            buf: *mut c_char,
            cap: c_uint,
        ) -> c_int;
        #[cfg(test)]
        pub(crate) fn rpc_glue_consts(out: *mut std::ffi::c_ulong, cap: usize) -> usize;
    }
}

// ---------------------------------------------------------------------------
// The C server and client executables
// ---------------------------------------------------------------------------

/// A running `flick_server` child process, killed and reaped on drop.
///
/// Its transports listen on all interfaces; connect to `127.0.0.1`. They are
/// not registered with rpcbind, so any number of servers can run at once.
/// The server also exits by itself when its stdin (a pipe held by this
/// value) is closed, e.g. when the parent process dies.
#[derive(Debug)]
pub struct CServer {
    tcp_port: u16,
    udp_port: u16,
    /// With its stdin pipe still open (`child.stdin` is `Some`): the server
    /// exits at EOF on its stdin.
    child: Child,
}

impl CServer {
    /// Starts [`C_SERVER`] and reads the two ports it prints.
    ///
    /// # Panics
    ///
    /// If the executable cannot be started or does not print `tcp <port>`
    /// then `udp <port>` (the child is then killed and reaped).
    pub fn spawn() -> CServer {
        let mut child = Command::new(C_SERVER)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("rpcgen-peer: cannot start {C_SERVER}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        match read_ports(stdout) {
            Ok((tcp_port, udp_port)) => CServer {
                tcp_port,
                udp_port,
                child,
            },
            Err(e) => {
                let _ = child.kill();
                let status = child.wait();
                panic!("rpcgen-peer: {C_SERVER} did not report its ports ({e}); it ended with {status:?}");
            }
        }
    }

    /// The TCP port.
    pub fn tcp_port(&self) -> u16 {
        self.tcp_port
    }

    /// The UDP port.
    pub fn udp_port(&self) -> u16 {
        self.udp_port
    }
}

impl Drop for CServer {
    fn drop(&mut self) {
        // Errors mean the child is already gone; nothing else to do.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `tcp <port>\nudp <port>\n` from `flick_server`'s stdout.
///
/// Public for tests that manage the process themselves (e.g. to close its
/// stdin); [`CServer::spawn`] uses it.
pub fn read_ports(stdout: impl std::io::Read) -> Result<(u16, u16), String> {
    let mut lines = BufReader::new(stdout).lines();
    let mut port = |proto: &str| -> Result<u16, String> {
        let line = lines
            .next()
            .ok_or_else(|| format!("no `{proto}` line before EOF"))?
            .map_err(|e| format!("reading the `{proto}` line: {e}"))?;
        line.strip_prefix(proto)
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(|p| p.parse::<u16>().ok())
            .filter(|&p| p != 0)
            .ok_or_else(|| format!("expected `{proto} <port>`, got {line:?}"))
    };
    let tcp = port("tcp")?;
    let udp = port("udp")?;
    Ok((tcp, udp))
}

/// Runs `flick_client 127.0.0.1 <port> <proto>` ([`C_CLIENT`]) to
/// completion and returns its output; `proto` is `"tcp"` or `"udp"`.
/// Success is `status.success()` with stdout ending in `all <N> calls ok`.
///
/// # Panics
///
/// If the executable cannot be started.
pub fn run_c_client(port: u16, proto: &str) -> Output {
    Command::new(C_CLIENT)
        .args(["127.0.0.1", &port.to_string(), proto])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("rpcgen-peer: cannot run {C_CLIENT}: {e}"))
}

// ---------------------------------------------------------------------------
// In-process libtirpc client
// ---------------------------------------------------------------------------

/// Room for a `clnt_sperror` message (libtirpc formats into 256 bytes).
const ERR_CAP: usize = 512;

/// Send and receive buffer size requested from `clnttcp_create`: libtirpc's
/// maximum (larger requests are cut to 256 KiB; 0 would mean 64 KiB). A
/// record larger than the buffer is sent as several record fragments of at
/// most this size, header included.
const TCP_BUFSZ: c_uint = 256 * 1024;

/// A libtirpc `CLIENT` from `clnttcp_create`, connected to
/// `127.0.0.1:<port>` (no rpcbind lookup), for benchmarks against any
/// `FLICK_PROG` server.
///
/// Each call is one `clnt_call` with the generated XDR routines, exactly
/// what rpcgen's client stubs (`echo_ints_1` etc.) do, except that the reply
/// is decoded into a local instead of the stubs' static result (then
/// counted and released with `xdr_free`). The call timeout is 60 s; the send
/// and receive buffers are 256 KiB, libtirpc's maximum, so larger records
/// (e.g. a 4 MiB `ECHO_INTS`) go out as several record fragments.
///
/// # Panics
///
/// Every method panics with libtirpc's `clnt_sperror` text if the call
/// fails (connection lost, timeout, the server rejected the call or its
/// arguments, a reply that does not decode).
pub struct CRpcClient {
    /// Invariant: from `rpc_glue_connect`, destroyed only by `Drop`.
    clnt: NonNull<ffi::Client>,
    port: u16,
}

impl CRpcClient {
    /// Connects to `127.0.0.1:port` over TCP.
    ///
    /// # Panics
    ///
    /// If `port` is 0 (libtirpc would ask the portmapper instead) or the
    /// connection fails (message from `clnt_spcreateerror`).
    pub fn connect(port: u16) -> CRpcClient {
        assert_ne!(port, 0, "rpcgen-peer: CRpcClient::connect needs a port");
        let mut err: [c_char; ERR_CAP] = [0; ERR_CAP];
        // SAFETY: `port != 0` (asserted above); `err` is writable for
        // `ERR_CAP` bytes and the C side keeps no pointer to it.
        let clnt = unsafe { ffi::rpc_glue_connect(port, TCP_BUFSZ, err.as_mut_ptr(), ERR_CAP) };
        match NonNull::new(clnt) {
            Some(clnt) => CRpcClient { clnt, port },
            None => panic!(
                "rpcgen-peer: cannot connect to 127.0.0.1:{port}: {}",
                message(&err)
            ),
        }
    }

    /// Calls `FLICK_NULL`.
    pub fn null(&mut self) {
        let mut err: [c_char; ERR_CAP] = [0; ERR_CAP];
        // SAFETY: `self.clnt` is a live CLIENT (type invariant), used by no
        // other thread during the call since we hold `&mut self`; `err` is
        // writable for `ERR_CAP` bytes. Nothing is retained.
        let ok = unsafe { ffi::rpc_glue_null(self.clnt.as_ptr(), err.as_mut_ptr(), ERR_CAP) };
        self.check(ok, &err);
    }

    /// Calls `ECHO_INTS` with `args`; returns the number of ints in the
    /// reply.
    pub fn echo_ints(&mut self, args: &CInts) -> usize {
        // SAFETY: `args.obj` is a valid `int_array` pointing into `args.data`
        // (`CInts::new`), and `echo` is given the glue function for that type.
        unsafe { self.echo(&args.obj, ffi::rpc_glue_echo_int_array) }
    }

    /// Calls `ECHO_RECTS` with `args`; returns the number of rects in the
    /// reply.
    pub fn echo_rects(&mut self, args: &CRects) -> usize {
        // SAFETY: `args.obj` is a valid `rect_array` pointing into `args.data`
        // (`CRects::new`), and the glue function is that type's.
        unsafe { self.echo(&args.obj, ffi::rpc_glue_echo_rect_array) }
    }

    /// Calls `ECHO_DIRENTS` with `args`; returns the number of dirents in the
    /// reply.
    pub fn echo_dirents(&mut self, args: &CDirents) -> usize {
        // SAFETY: `args.obj` is a valid `dirent_array` pointing into
        // `args.items`, whose names are NUL-terminated strings in
        // `args._names` (`CDirents::new`); the glue function is that type's.
        unsafe { self.echo(&args.obj, ffi::rpc_glue_echo_dirent_array) }
    }

    /// One `rpc_glue_echo_T` call; returns the reply's element count.
    ///
    /// # Safety
    ///
    /// `obj` is a valid `T` as the generated encoder reads it (array pointers
    /// valid for their lengths, strings NUL-terminated), and `glue` is the
    /// glue function for `T`.
    unsafe fn echo<T>(
        &mut self,
        obj: &T,
        glue: unsafe extern "C" fn(
            *mut ffi::Client,
            *const T,
            *mut c_uint,
            *mut c_char,
            usize,
        ) -> c_int,
    ) -> usize {
        let mut count: c_uint = 0;
        let mut err: [c_char; ERR_CAP] = [0; ERR_CAP];
        // SAFETY: `self.clnt` is live and exclusively ours for the call (see
        // `null`); `obj` is valid for `glue` (this function's precondition),
        // lives and is not mutated for the call (shared borrow), and
        // XDR_ENCODE only reads it; `count` and `err` are valid for writes.
        // The reply is freed in C.
        let ok = unsafe {
            glue(
                self.clnt.as_ptr(),
                obj,
                &mut count,
                err.as_mut_ptr(),
                ERR_CAP,
            )
        };
        self.check(ok, &err);
        count as usize
    }

    fn check(&self, ok: c_int, err: &[c_char]) {
        if ok == 0 {
            panic!(
                "rpcgen-peer: RPC to 127.0.0.1:{} failed: {}",
                self.port,
                message(err)
            );
        }
    }
}

impl Drop for CRpcClient {
    fn drop(&mut self) {
        // SAFETY: `self.clnt` came from `rpc_glue_connect` and is destroyed
        // only here, once; no call is in progress (`&mut self`).
        unsafe { ffi::rpc_glue_destroy(self.clnt.as_ptr()) }
    }
}

impl fmt::Debug for CRpcClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CRpcClient")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

// SAFETY: a CLIENT from clnttcp_create (libtirpc's clnt_vc) is heap state
// plus a socket owned by the handle; it has no thread affinity (no
// thread-local state; calls on it are serialised by libtirpc's per-fd locks
// under a process-wide mutex), so it may be used and destroyed from another
// thread. `CRpcClient` is not `Sync`, and every call takes `&mut self`.
unsafe impl Send for CRpcClient {}

/// The C side's NUL-terminated message in `err` (lossy UTF-8).
fn message(err: &[c_char]) -> String {
    match CStr::from_bytes_until_nul(c_chars_as_bytes(err)) {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => String::from("(unterminated message)"),
    }
}

/// `c_char` is `i8` or `u8` depending on the target; view it as bytes.
fn c_chars_as_bytes(s: &[c_char]) -> &[u8] {
    // SAFETY: `c_char` and `u8` have the same size and alignment and every
    // bit pattern is valid for both; the length in elements is unchanged and
    // the borrow is carried over.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), s.len()) }
}

// ---------------------------------------------------------------------------
// Stub cost
// ---------------------------------------------------------------------------

/// Bytes that [`c_stub_pfs_write`] writes into its buffer for `n` ints: the
/// call header with AUTH_NONE (40) plus `pfs_write_args` (16 + 4n).
pub fn pfs_write_call_size(n: usize) -> usize {
    40 + 16 + 4 * n
}

/// One `PFS_WRITE` call marshalled by the client stub and unmarshalled by
/// the server stub, as libtirpc does it but over `buf` instead of a socket,
/// in the C function **`c_stub_pfs_write`** (an exported, non-inlined symbol
/// of that exact name, for `valgrind --tool=callgrind
/// --toggle-collect=c_stub_pfs_write`).
///
/// Client: `xdr_callmsg` (xid 1, [`FLICK_PROG`], [`FLICK_VERS`],
/// [`PFS_WRITE`], AUTH_NONE) and `xdr_pfs_write_args { handle: 3, pos: 100,
/// len: 4 * data.len(), data }` into an `XDR_ENCODE` xdrmem stream over `buf`.
/// Server: `xdr_callmsg` from those bytes (credential bodies in local
/// `MAX_AUTH_BYTES` areas, as `svc` sets up), a check of prog/vers/proc,
/// `xdr_pfs_write_args` into a zeroed struct (allocating the data, as
/// `svc_getargs` does), and `xdr_free` of it.
///
/// Returns `pos + len + data[n - 1]` as decoded (wrapping), i.e.
/// `100 + 4 * n + data[n - 1]`, or `100` for empty data; `-1` if anything
/// failed, in particular if `buf` is shorter than
/// [`pfs_write_call_size`]`(data.len())`.
///
/// # Panics
///
/// If `data.len() * 4` does not fit in an `i32` (the `len` field).
pub fn c_stub_pfs_write(data: &[i32], buf: &mut [u8]) -> i32 {
    let n = c_uint::try_from(data.len())
        .ok()
        .filter(|&n| n <= i32::MAX as c_uint / 4)
        .unwrap_or_else(|| panic!("rpcgen-peer: {} ints do not fit PFS_WRITE", data.len()));
    // A shorter view of a buffer over 4 GiB is fine.
    let cap = c_uint::try_from(buf.len()).unwrap_or(c_uint::MAX);
    // SAFETY: `data` is valid for reads of `n` ints (only read); `n * 4`
    // fits in an int (checked above); `buf` is valid for writes of `cap <=
    // buf.len()` bytes and exclusively borrowed. The C function frees what it
    // allocates and keeps no pointer after returning.
    unsafe { ffi::c_stub_pfs_write(data.as_ptr(), n, buf.as_mut_ptr().cast(), cap) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consts_match_flick_h() {
        let rust = [
            FLICK_PROG,
            FLICK_VERS,
            FLICK_NULL,
            ECHO_INTS,
            ECHO_RECTS,
            ECHO_DIRENTS,
            ECHO_RESULT,
            ECHO_LIST,
            PFS_WRITE,
        ];
        let mut c: [std::ffi::c_ulong; 16] = [0; 16];
        // SAFETY: `c` is valid for writes of `c.len()` values; the C side
        // writes at most that many and keeps no pointer.
        let n = unsafe { ffi::rpc_glue_consts(c.as_mut_ptr(), c.len()) };
        assert_eq!(n, rust.len());
        let c: Vec<u32> = c[..n].iter().map(|&v| v as u32).collect();
        assert_eq!(c, rust);
    }

    #[test]
    fn read_ports_parses_and_rejects() {
        assert_eq!(read_ports(&b"tcp 1234\nudp 5678\n"[..]), Ok((1234, 5678)));
        assert!(read_ports(&b"tcp 1234\n"[..]).is_err());
        assert!(read_ports(&b"udp 1\ntcp 2\n"[..]).is_err());
        assert!(read_ports(&b"tcp 0\nudp 2\n"[..]).is_err());
        assert!(read_ports(&b"tcp 70000\nudp 2\n"[..]).is_err());
    }
}
