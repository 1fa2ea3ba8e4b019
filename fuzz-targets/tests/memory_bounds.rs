//! The memory bound of every fuzz target, checked on its committed inputs: a counting global
//! allocator records the peak of live heap bytes while the target runs on one input, and the
//! peak above what was live before must stay within the target's `bound(input length)`.
//!
//! Everything runs in one test, one input at a time, so that no other thread's allocations
//! mix into a count (the allocator is global). A target that panics on an input is listed as
//! a failure here too (the replay test says why), and the other inputs are still measured. The worst ratio of peak to bound is printed per
//! target (`cargo test -p marshal-fuzz-targets --test memory_bounds -- --nocapture`).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use marshal_fuzz_targets::TARGETS;

/// `System`, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(by: usize) {
        let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
    fn shrank(by: usize) {
        LIVE.fetch_sub(by, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's own arguments, so `System`'s
// guarantees (memory fit for `layout`, or null on failure) are what callers get; the counting
// only touches atomics, never the memory, and counts a block only once `System` has
// returned it (and uncounts it when it is given back).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract (a non-zero size), which
        // is `System.alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller gives back a block this allocator (that is, `System`) returned
        // for `layout`.
        unsafe { System.dealloc(ptr, layout) };
        Counting::shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller gives a block `System` returned for `layout` and a valid new
        // size, as `System.realloc` requires.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the old and the new block both live for a moment: a moving realloc
            // needs both.
            Counting::grew(new_size);
            Counting::shrank(layout.size());
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns the peak of live bytes above those live when it started.
fn peak_of(f: impl FnOnce()) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed).saturating_sub(before)
}

#[test]
fn every_target_stays_within_its_memory_bound() {
    let mut failures = Vec::new();
    println!(
        "{:<20} {:>7} {:>12} {:>12} {:>7} {:>9}  worst input (peak / bound)",
        "target", "inputs", "peak", "bound", "ratio", "per byte"
    );
    for t in TARGETS {
        let inputs = common::all_inputs(t.name);
        // A first run of the first seed makes what a target sets up once per process (its
        // receivers, the JIT's set-up, the local formats, the 100,000-node list of
        // `deep_nesting`). The other inputs then run cold: their formats are new to the
        // receivers, so planning and compiling count.
        let _ = catch_unwind(AssertUnwindSafe(|| (t.run)(&inputs[0].1)));
        let mut worst = (0.0f64, 0usize, 0usize, String::new());
        // The most bytes at peak per input byte, over inputs of 1 KiB or more (where the
        // bound's constant matters less).
        let mut per_byte = 0.0f64;
        for (file, bytes) in &inputs {
            let mut panicked = false;
            let peak = peak_of(|| {
                panicked = catch_unwind(AssertUnwindSafe(|| (t.run)(bytes))).is_err();
            });
            if panicked {
                // A finding of the replay test. Its peak is not the target's: the panic hook
                // allocates (a backtrace is symbolised when RUST_BACKTRACE is set).
                failures.push(format!("{file}: the target panicked"));
                continue;
            }
            let bound = (t.bound)(bytes.len());
            let ratio = peak as f64 / bound as f64;
            if bytes.len() >= 1024 {
                per_byte = per_byte.max(peak as f64 / bytes.len() as f64);
            }
            if ratio > worst.0 {
                worst = (ratio, peak, bound, file.clone());
            }
            if peak > bound {
                failures.push(format!(
                    "{file}: {peak} bytes at peak for {} input bytes, over the bound of {bound} ({})",
                    bytes.len(),
                    t.bound_text
                ));
            }
        }
        println!(
            "{:<20} {:>7} {:>12} {:>12} {:>7.3} {:>9.1}  {}",
            t.name,
            inputs.len(),
            worst.1,
            worst.2,
            worst.0,
            per_byte,
            worst.3
        );
    }
    assert!(
        failures.is_empty(),
        "over their memory bound:\n{}",
        failures.join("\n")
    );
}
