//! A counting global allocator that charges heap bytes to the role of the thread that
//! allocates or frees them: the server's runtime, the clients' runtime, or anything else.
//!
//! The server and its clients run on runtimes of their own, whose threads take their role as
//! they start (and a thread that drives one of them with `block_on` takes it for that long);
//! the two sides share nothing but sockets, so what one side allocates is freed on that
//! side, and each role's count is that side's heap. Also the process's resident memory, from
//! `/proc/self/status`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

/// Whose heap a thread's allocations are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The test harness and everything not given a role.
    Other = 0,
    /// The server's runtime.
    Server = 1,
    /// The clients' runtime.
    Client = 2,
}

thread_local! {
    /// The current thread's role (a `Role` as `u8`).
    static ROLE: Cell<u8> = const { Cell::new(Role::Other as u8) };
}

/// The role of the current thread (`Other` while its thread-locals are torn down).
fn role() -> usize {
    ROLE.try_with(Cell::get).unwrap_or(Role::Other as u8) as usize
}

/// Gives the current thread `role` from now on.
pub fn set_role(role: Role) {
    ROLE.with(|r| r.set(role as u8));
}

/// Runs `f` with the current thread in `role`, then restores its role.
pub fn as_role<R>(role: Role, f: impl FnOnce() -> R) -> R {
    let before = ROLE.with(Cell::get);
    set_role(role);
    let out = f();
    ROLE.with(|r| r.set(before));
    out
}

/// Live bytes and their peak, for one role.
struct Count {
    live: AtomicIsize,
    peak: AtomicIsize,
}

static COUNTS: [Count; 3] = [const {
    Count {
        live: AtomicIsize::new(0),
        peak: AtomicIsize::new(0),
    }
}; 3];

fn grew(bytes: usize) {
    let c = &COUNTS[role()];
    let now = c.live.fetch_add(bytes as isize, Ordering::Relaxed) + bytes as isize;
    c.peak.fetch_max(now, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    COUNTS[role()]
        .live
        .fetch_sub(bytes as isize, Ordering::Relaxed);
}

/// The bytes `role`'s threads hold now (allocated minus freed).
pub fn live(role: Role) -> isize {
    COUNTS[role as usize].live.load(Ordering::Relaxed)
}

/// The most `role`'s threads held at once since the last [`reset_peak`].
pub fn peak(role: Role) -> isize {
    COUNTS[role as usize].peak.load(Ordering::Relaxed)
}

/// Starts a new peak for `role` from what it holds now.
pub fn reset_peak(role: Role) {
    let c = &COUNTS[role as usize];
    c.peak
        .store(c.live.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Counts every allocation for the role of the thread making it.
pub struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments and returns what
// `System` returned, so `System`'s guarantees are ours; the counters only observe sizes, and
// the thread-local they read is a `const`-initialised `Cell` without a destructor, which
// neither allocates nor re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed` is `System::alloc_zeroed`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is `System::realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// The process's resident memory now and at its highest, in KiB (`VmRSS`, `VmHWM`).
pub fn rss_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/self/status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// `bytes` in MiB, for messages.
pub fn mib(bytes: isize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
