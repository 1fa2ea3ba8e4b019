//! What the kernels may assume of the CPU: whether it has AVX2, cached in one byte of this
//! crate, and [`Known`], what a loop compiled for AVX2 knows without asking.
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
/// The CPU has no AVX2.
const ABSENT: u8 = 1;
/// The CPU has AVX2: stored only after `std::is_x86_feature_detected!("avx2")` said so.
const PRESENT: u8 = 2;

/// What is known of AVX2 on this CPU.
static AVX2: AtomicU8 = AtomicU8::new(UNKNOWN);

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
    AVX2.load(Relaxed) == PRESENT || avx2_slow()
}

/// [`avx2`] when the byte does not say "present": asks the standard library (which caches its
/// own answer) and records it. Racing threads store the same answer.
#[cold]
#[inline(never)]
fn avx2_slow() -> bool {
    if AVX2.load(Relaxed) == ABSENT {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    let has = std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let has = false;
    AVX2.store(if has { PRESENT } else { ABSENT }, Relaxed);
    has
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
        assert_eq!(AVX2.load(Relaxed), if std { PRESENT } else { ABSENT });
    }
}
