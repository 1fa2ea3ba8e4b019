//! The largest allocation made on one thread while a future runs: a global allocator that
//! forwards to `System` and, while a probe is on for the thread, notes the largest size asked
//! for there. A reader that reserved what a hostile frame head claims would ask for gigabytes
//! here, whether or not the system ever backed them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;

thread_local! {
    /// `Some(largest so far)` while a probe is on for this thread.
    static LARGEST: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Notes an allocation of `size` bytes on this thread.
fn note(size: usize) {
    // A const-initialised `Cell` without a destructor: reaching it allocates nothing.
    // `try_with`, because during the thread's teardown there is nothing to note.
    let _ = LARGEST.try_with(|l| {
        if let Some(m) = l.get() {
            l.set(Some(m.max(size)));
        }
    });
}

struct Probe;

// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees are ours; `note` only reads and writes a thread-local `Cell`, which allocates
// nothing and never calls back into the allocator.
unsafe impl GlobalAlloc for Probe {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed` is `System::alloc_zeroed`'s.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with `layout`, so from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` came from this allocator with `layout`, so from `System`, and the
        // caller's contract for `new_size` is `System::realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static PROBE: Probe = Probe;

/// What `f` comes to, and the largest allocation made on this thread while it ran (on a
/// current-thread runtime whose other work runs elsewhere, `f`'s own).
pub async fn largest_allocation<F: Future>(f: F) -> (F::Output, usize) {
    LARGEST.with(|l| l.set(Some(0)));
    let out = f.await;
    (out, LARGEST.with(|l| l.replace(None)).unwrap_or(0))
}

#[test]
fn the_probe_sees_what_is_allocated_and_nothing_else() {
    let ((), big) = crate::runtime::block_on(largest_allocation(async {
        let v = vec![1u8; 3 << 20];
        assert_eq!(v.iter().map(|&b| b as usize).sum::<usize>(), 3 << 20);
    }));
    assert!(big >= 3 << 20, "{big}");
    let ((), small) = crate::runtime::block_on(largest_allocation(async {
        let v = Box::new([1u8; 100]);
        assert_eq!(v.len(), 100);
    }));
    assert!(small < 4096, "{small}");
}
