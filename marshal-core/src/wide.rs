//! Loops compiled a second time for the CPU's wider vectors.
//!
//! The workspace builds for the baseline x86-64 target (SSE2), so the short copies and byte
//! swaps inside an encoder (a directory entry's name, its 30 ints) are calls into kernels
//! chosen at run time: a call, a dispatch and a register spill around each, which for an
//! element of a few hundred bytes cost as much as the work. [`run`] runs a loop body through an
//! instance of it compiled with AVX2 enabled when the CPU has AVX2: inside that instance the
//! kernels' AVX2 versions (`#[inline]`, `#[target_feature(enable = "avx2")]`) inline into the
//! loop, which LLVM only allows in a caller compiled with the same features.
//!
//! That instance is told so: the body gets a [`Known`] that says "AVX2", a constant there, and
//! [`encode_each`] hands it to the local copy of the writer its loop runs on
//! (`Writer::local`), so the kernels' own checks of the CPU fold away instead of being asked
//! again for every element.
//!
//! Other architectures, and CPUs without AVX2, run the body as it is.

use crate::cpu::Known;
use crate::{Error, Writer};

/// A loop body worth a second instance compiled for wider vectors: the elements of an array
/// of structured values, say. Implementations mark [`Body::run`] `#[inline(always)]`, so that
/// both instances hold the whole loop rather than a call to one shared copy.
pub trait Body {
    /// What the loop returns.
    type Output;
    /// Runs the loop, in code that `known` tells what the CPU has (a constant in each
    /// instance).
    fn run(self, known: Known) -> Self::Output;
}

/// Runs `body`, compiled with AVX2 when this CPU has it (decided once per call, from the
/// cached CPU features).
///
/// ```
/// struct Sum<'a>(&'a [u32]);
/// impl marshal_core::wide::Body for Sum<'_> {
///     type Output = u32;
///     #[inline(always)]
///     fn run(self, _: marshal_core::cpu::Known) -> u32 {
///         self.0.iter().sum()
///     }
/// }
/// assert_eq!(marshal_core::wide::run(Sum(&[1, 2, 3])), 6);
/// ```
#[inline]
pub fn run<B: Body>(body: B) -> B::Output {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which was detected at run time just above;
        // everything else is enforced by its safe signature.
        return unsafe { run_avx2(body) };
    }
    body.run(Known::NOTHING)
}

/// Encodes the elements of an array with `encode`, through [`run`]: on CPUs where it pays
/// ([`prefetch_output`](crate::cpu::prefetch_output)) the output's cache lines are asked for
/// ahead of each element ([`Writer::prefetch`]), and an element's error gets its index. What
/// every wire format's array of structured elements does.
#[inline]
pub fn encode_each<T>(
    items: &[T],
    w: &mut Writer<'_>,
    encode: impl Fn(&T, &mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    run(EncodeEach { items, w, encode })
}

/// The loop of [`encode_each`].
struct EncodeEach<'i, 'w, 'b, T, F> {
    items: &'i [T],
    w: &'w mut Writer<'b>,
    encode: F,
}

impl<T, F: Fn(&T, &mut Writer<'_>) -> Result<(), Error>> Body for EncodeEach<'_, '_, '_, T, F> {
    type Output = Result<(), Error>;
    #[inline(always)]
    fn run(self, known: Known) -> Result<(), Error> {
        // On a local copy of the writer (see `Writer::local`): its position and what is known
        // of the CPU stay in registers.
        let mut w = self.w.local(known);
        let r = each(self.items, &mut w, &self.encode);
        let end = w.end_local();
        self.w.resume(end);
        r
    }
}

/// The loop of [`EncodeEach`], on the local writer.
#[inline(always)]
fn each<T>(
    items: &[T],
    w: &mut Writer<'_>,
    encode: &impl Fn(&T, &mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    // Asked once per array; where it says no, the branch in the loop is always taken the
    // same way.
    let prefetch = crate::cpu::prefetch_output();
    for (i, it) in items.iter().enumerate() {
        if prefetch {
            w.prefetch();
        }
        encode(it, w).map_err(|e| e.at_index(i))?;
    }
    Ok(())
}

/// `body.run()` compiled with AVX2 enabled, and told so.
///
/// Requires AVX2 (hence `unsafe` to call from code without that feature).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<B: Body>(body: B) -> B::Output {
    // SAFETY: this function's only caller, `run`, calls it after detecting AVX2 (and code
    // compiled for AVX2 cannot run where it is missing).
    body.run(unsafe { Known::with_avx2() })
}

#[cfg(test)]
mod tests {
    use super::{run, Body, Known, Writer};
    use crate::writer::append_to_vec;
    use crate::Flat;

    /// Thirty words, as a directory entry's stat record has.
    type Ints = [u32; 30];

    /// What an encoder's loop does for each element: a short copy (every length from 0 to 300,
    /// so both sides of the short copy's bound), a fixed array swapped by the kernel compiled
    /// for its size, and a padded copy; once on a local copy of the writer that knows what
    /// the instance knows (as `encode_each` does), then again on the writer itself.
    struct Entries<'a> {
        names: &'a [Vec<u8>],
        ints: &'a Ints,
        out: &'a mut Vec<u8>,
    }

    impl Body for Entries<'_> {
        type Output = usize;
        #[inline(always)]
        fn run(self, known: Known) -> usize {
            // SAFETY: `[u32; 30]` is thirty consecutive `u32`s with no padding, the same words
            // in the same order, and valid for every bit pattern.
            let proof = unsafe { Flat::<u32>::PRIMITIVE.cast::<Ints>() };
            for name in self.names {
                let len = 2 * (2 * name.len() + 120 + 3);
                let entry = |w: &mut Writer<'_>| {
                    w.put_slice(name)?;
                    w.put_flat_one(self.ints, proof, true)?;
                    w.put_slice_zeros(name, 3)
                };
                append_to_vec(self.out, len, |w| {
                    let mut local = w.local(known);
                    let r = entry(&mut local);
                    let end = local.end_local();
                    w.resume(end);
                    r?;
                    entry(w)
                })
                .expect("exact length");
            }
            self.names.len()
        }
    }

    #[test]
    fn both_instances_write_what_the_scalar_code_does() {
        let names: Vec<Vec<u8>> = (0..=300u32)
            .map(|n| (0..n).map(|i| (i * 7 + n) as u8).collect())
            .collect();
        let ints: Ints = core::array::from_fn(|i| 0x0102_0304 * (i as u32 + 1));
        let mut want = Vec::new();
        for name in &names {
            want.extend_from_slice(name);
            want.extend(ints.iter().flat_map(|i| i.to_be_bytes()));
            want.extend_from_slice(name);
            want.extend_from_slice(&[0; 3]);
            want.extend_from_within(want.len() - (2 * name.len() + 123)..);
        }
        let (mut wide, mut plain) = (Vec::new(), Vec::new());
        let entries = |out| Entries {
            names: &names,
            ints: &ints,
            out,
        };
        // `run` takes the AVX2 instance on a CPU that has it; `Body::run` is the baseline one.
        assert_eq!(run(entries(&mut wide)), names.len());
        assert_eq!(entries(&mut plain).run(Known::NOTHING), names.len());
        assert!(wide == want, "the AVX2 instance wrote other bytes");
        assert!(plain == want, "the baseline instance wrote other bytes");
    }

    /// Hands over what a spilling writer spills, in order.
    struct Collect(Vec<u8>);
    impl crate::writer::Spill for Collect {
        fn threshold(&self) -> usize {
            8
        }
        fn spill(&mut self, head: &[u8], large: &[u8]) -> Result<(), crate::Error> {
            self.0.extend_from_slice(head);
            self.0.extend_from_slice(large);
            Ok(())
        }
    }

    /// `encode_each` runs on a local copy of the writer: what the copy spills, where it stops
    /// and the offsets of its errors are the writer's.
    #[test]
    fn each_spills_and_reports_through_the_writer() {
        use crate::writer::write_spilling;
        use crate::ErrorKind;
        let items: Vec<Vec<u8>> = (0..20u8).map(|n| vec![n; usize::from(n)]).collect();
        let each = |it: &Vec<u8>, w: &mut Writer<'_>| {
            w.put([it.len() as u8])?;
            w.put_slice(it)
        };
        let len = items.iter().map(|it| 1 + it.len()).sum::<usize>() + 2;
        let mut want = vec![0xaa];
        for it in &items {
            want.push(it.len() as u8);
            want.extend_from_slice(it);
        }
        want.push(0xbb);
        let mut c = Collect(Vec::new());
        write_spilling(&mut Vec::new(), len, &mut c, |w| {
            w.put([0xaa])?;
            super::encode_each(&items, w, each)?;
            // The writer goes on from where the copy stopped.
            assert_eq!(w.position(), len - 1);
            w.put([0xbb])
        })
        .unwrap();
        assert_eq!(c.0, want);
        // An element's error carries its index and the message's offset, after spills.
        let e = write_spilling(&mut Vec::new(), len, &mut Collect(Vec::new()), |w| {
            w.put([0xaa])?;
            super::encode_each(&items, w, |it, w| {
                if it.len() == 12 {
                    return Err(w.error(ErrorKind::InteriorNul));
                }
                each(it, w)
            })
        })
        .unwrap_err();
        let at = 1 + (0..12).map(|n| 1 + n).sum::<usize>();
        assert_eq!(e.offset(), Some(at), "{e}");
        assert_eq!(e.path(), "[12]", "{e}");
    }
}
