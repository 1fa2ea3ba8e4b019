//! What the kernels may assume of the CPU: whether it has AVX2, and whether prefetching an
//! encoder's output pays, each asked once and cached in one byte of this crate; and [`Known`],
//! what a loop compiled for AVX2 knows without asking.
//!
//! `std::is_x86_feature_detected!` reads a cache inside the standard library: through the
//! global offset table, then two tests (initialised? bit set?), each a branch. Inlined once or
//! twice into every element of an encoder's loop (a directory entry's name copy, its ints'
//! swap), those jumps cost a measurable share of an element of a few hundred bytes. [`avx2`]
//! is one comparison of a byte with a constant, and inside the instance of a loop that
//! [`crate::wide`] compiled for AVX2 not even that: the writer the loop runs on carries a
//! [`Known`] that says so, a constant there, and the check folds away.

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Not asked yet.
const UNKNOWN: u8 = 0;
/// The answer was no.
const ABSENT: u8 = 1;
/// The answer was yes: stored only after asking said so.
const PRESENT: u8 = 2;

/// A yes-or-no fact about the CPU, asked once and kept in one byte.
struct Cached(AtomicU8);

impl Cached {
    const fn new() -> Cached {
        Cached(AtomicU8::new(UNKNOWN))
    }

    /// The fact: one comparison once asked; `ask` the first time.
    #[inline(always)]
    fn get(&self, ask: fn() -> bool) -> bool {
        self.0.load(Relaxed) == PRESENT || self.slow(ask)
    }

    /// [`Cached::get`] when the byte does not say "present": asks and records the answer.
    /// Racing threads store the same answer.
    #[cold]
    #[inline(never)]
    fn slow(&self, ask: fn() -> bool) -> bool {
        if self.0.load(Relaxed) == ABSENT {
            return false;
        }
        let has = ask();
        self.0.store(if has { PRESENT } else { ABSENT }, Relaxed);
        has
    }
}

/// What is known of AVX2 on this CPU.
static AVX2: Cached = Cached::new();

/// Whether this CPU has AVX2: the same answer as `std::is_x86_feature_detected!("avx2")`
/// (which it asks once), so it may guard a call of a `#[target_feature(enable = "avx2")]`
/// function. Always `false` off x86-64.
///
/// ```
/// # #[cfg(target_arch = "x86_64")]
/// assert_eq!(marshal_core::cpu::avx2(), std::is_x86_feature_detected!("avx2"));
/// ```
#[inline(always)]
pub fn avx2() -> bool {
    AVX2.get(has_avx2)
}

/// Asks the standard library (which caches its own answer).
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// What is known of prefetching on this CPU.
static PREFETCH: Cached = Cached::new();

/// Whether an encoder writing an array element by element should ask for its output's cache
/// lines ahead of its stores ([`Writer::prefetch`](crate::Writer::prefetch)): on Intel CPUs,
/// whose stores to lines not yet in cache otherwise wait for them, and not elsewhere. On an
/// AMD Zen 4 the hardware already streams the output in, and the prefetches only cost: a
/// 1 MiB directory-entry list encodes 4–11 % faster without them, where on an Intel Xeon they
/// were most of a 1.3–1.5× gain. Always `false` off x86-64, where prefetching does nothing.
///
/// ```
/// // Asked once per array, not per element.
/// let prefetch = marshal_core::cpu::prefetch_output();
/// # let _ = prefetch;
/// ```
#[inline(always)]
pub fn prefetch_output() -> bool {
    PREFETCH.get(is_intel)
}

/// Whether the CPU's vendor string (CPUID leaf 0) is `GenuineIntel`.
fn is_intel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let id = core::arch::x86_64::__cpuid(0);
        vendor_is_intel(id.ebx, id.edx, id.ecx)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether CPUID leaf 0's vendor registers spell `GenuineIntel`: its twelve bytes are in EBX,
/// EDX, ECX, in that order, little-endian.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn vendor_is_intel(ebx: u32, edx: u32, ecx: u32) -> bool {
    let word = |w: &[u8; 4]| u32::from_le_bytes(*w);
    (ebx, edx, ecx) == (word(b"Genu"), word(b"ineI"), word(b"ntel"))
}

/// What code may assume of the CPU without asking: nothing ([`Known::NOTHING`]), or that it
/// has AVX2, which only [`crate::wide`] can say, inside the instance it runs after detecting
/// AVX2. Kernels given one check [`Known::avx2`], which is a constant where the `Known` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// The CPU has AVX2 (never true otherwise).
    avx2: bool,
}

impl Known {
    /// Nothing is known: kernels ask [`avx2`].
    pub const NOTHING: Known = Known { avx2: false };

    /// The CPU has AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2: kernels given this call their AVX2 versions without asking.
    #[inline(always)]
    pub(crate) const unsafe fn with_avx2() -> Known {
        Known { avx2: true }
    }

    /// What either knows.
    #[inline(always)]
    pub(crate) const fn or(self, other: Known) -> Known {
        Known {
            avx2: self.avx2 || other.avx2,
        }
    }

    /// Whether the CPU has AVX2: known, or asked ([`avx2`]).
    #[inline(always)]
    pub fn avx2(self) -> bool {
        self.avx2 || avx2()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn agrees_with_the_standard_library_before_and_after_caching() {
        let std = std::is_x86_feature_detected!("avx2");
        // The first call may fill the cache, the later ones read it.
        for _ in 0..3 {
            assert_eq!(avx2(), std);
            assert_eq!(Known::NOTHING.avx2(), std);
        }
        assert_eq!(AVX2.0.load(Relaxed), if std { PRESENT } else { ABSENT });
    }

    /// The vendor string, as `/proc/cpuinfo` reports it on Linux.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn prefetches_on_intel_only() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let vendor = info
            .lines()
            .find_map(|l| l.strip_prefix("vendor_id"))
            .and_then(|l| l.split(':').nth(1))
            .unwrap()
            .trim();
        for _ in 0..3 {
            assert_eq!(prefetch_output(), vendor == "GenuineIntel", "{vendor}");
        }
        assert_ne!(PREFETCH.0.load(Relaxed), UNKNOWN);
    }

    /// The registers as an Intel and an AMD CPU return them (the AMD VM this was measured on,
    /// and valgrind's emulated CPU, which says Intel).
    #[test]
    fn reads_the_vendor_registers() {
        assert!(vendor_is_intel(0x756e_6547, 0x4965_6e69, 0x6c65_746e));
        assert!(!vendor_is_intel(0x6874_7541, 0x6974_6e65, 0x444d_4163));
        // The same words in another register order are not Intel.
        assert!(!vendor_is_intel(0x756e_6547, 0x6c65_746e, 0x4965_6e69));
    }

    /// The cache asks once and keeps either answer.
    #[test]
    fn a_cached_fact_is_asked_once() {
        use core::sync::atomic::AtomicUsize;
        static ASKED: AtomicUsize = AtomicUsize::new(0);
        fn no() -> bool {
            ASKED.fetch_add(1, Relaxed);
            false
        }
        fn yes() -> bool {
            true
        }
        let c = Cached::new();
        for _ in 0..3 {
            assert!(!c.get(no));
        }
        assert_eq!(ASKED.load(Relaxed), 1);
        let c = Cached::new();
        assert!(c.get(yes) && c.get(no), "a yes is kept");
    }
}
