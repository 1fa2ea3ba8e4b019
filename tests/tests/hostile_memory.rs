//! What a decode allocates for values that take no bytes on the wire: a sequence of elements
//! that are empty on the wire but not in memory (`struct Zb { a: Box<()> }`) cannot turn a
//! 4-byte length into hundreds of megabytes. Measured with a counting allocator, on the
//! failing path too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use marshal::cdr::ByteOrder;
use marshal::{ErrorKind, Marshal};

/// Counts live heap bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees are ours; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc`/`realloc` above, which are `System`'s.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is `System::realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let now = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One measurement at a time: the counters are global.
static ONE: Mutex<()> = Mutex::new(());

/// The most `f` had allocated at once beyond what was live when it started.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed) - base)
}

/// Empty on the wire, 8 bytes in memory.
#[derive(Marshal, Debug, PartialEq, Clone)]
struct Zb {
    a: Box<()>,
}

/// Empty on the wire, 8 KiB in memory.
type Zbs = [Zb; 1024];

const MIB: usize = 1 << 20;

#[test]
fn cdr_empty_elements_are_bounded_by_memory() {
    // A 4-byte sequence length claiming 65,536 elements of 8 KiB: 512 MiB before the fix.
    for (bytes, order) in [
        ([0, 1, 0, 0], ByteOrder::Big),
        ([0, 0, 1, 0], ByteOrder::Little),
    ] {
        let (r, peak) = peak_of(|| marshal::cdr::from_slice::<Vec<Zbs>>(&bytes, order));
        let e = r.unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::TooMuchMemory { .. }),
            "{order:?}: {e}"
        );
        assert!(peak <= MIB, "{order:?}: {peak} bytes allocated");
    }
}

#[test]
fn xdr_empty_elements_are_bounded_by_memory() {
    // 64 KiB of input: a length of 16,383 elements (each supposedly at least 4 bytes), then
    // nothing they need: 134 MB before the fix.
    let mut bytes = vec![0u8; 64 * 1024];
    bytes[..4].copy_from_slice(&16_383u32.to_be_bytes());
    let (r, peak) = peak_of(|| marshal::xdr::from_slice::<Vec<Zbs>>(&bytes));
    let e = r.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TooMuchMemory { .. }), "{e}");
    assert!(peak <= 2 * MIB, "{peak} bytes allocated");
    // Nested: every inner length is paid for by 4 bytes, its elements by nothing.
    let mut nested = vec![0u8; 64 * 1024];
    nested[..4].copy_from_slice(&16_383u32.to_be_bytes());
    for w in nested[4..].chunks_exact_mut(4) {
        w.copy_from_slice(&8_000u32.to_be_bytes());
    }
    let (r, peak) = peak_of(|| marshal::xdr::from_slice::<Vec<Vec<Box<()>>>>(&nested));
    assert!(r.is_err());
    assert!(peak <= 2 * MIB, "{peak} bytes allocated");
}

/// Within the allowance, such values still decode. (CDR only: XDR takes every element that
/// is not of fixed size to need at least 4 bytes, so it refuses more such elements than the
/// remaining input has 4-byte words, as it always has.)
#[test]
fn empty_elements_within_the_allowance_decode() {
    let v: Vec<Zb> = vec![Zb { a: Box::new(()) }; 1000];
    let c = marshal::cdr::to_vec(&v, ByteOrder::Big).unwrap();
    assert_eq!(
        marshal::cdr::from_slice::<Vec<Zb>>(&c, ByteOrder::Big).unwrap(),
        v
    );
}
