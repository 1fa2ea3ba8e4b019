//! The interpreter: executes a [`Plan`] step by step, from an incoming body into a local one.
//!
//! Bounds: the incoming body is checked once to hold the incoming fixed part, and validated
//! formats keep every field inside its record, so fixed reads need no further check; every
//! variable part's offset and length is checked against the body before it is read
//! (`check_var`), counting at least one byte per element so a count never exceeds the bytes
//! that would hold it. The output may grow to at most [`output_limit`] (the local fixed part
//! plus a fixed multiple of the incoming body, and never past a receiver's `max_output`),
//! checked before each variable part is allocated.

use core::mem::MaybeUninit;

use marshal_core::swap;

use crate::convert::limit::output_limit;
use crate::convert::plan::{IntRepr, Op, Plan, Step};
use crate::convert::word;
use crate::native::check_var;
use crate::native::SLOT;
use crate::{Error, ErrorKind};

/// Converts the body `src` (incoming layout) into `out` (local layout): `out` is resized to the
/// local fixed part, then variable parts are appended. Fixed-part bytes that no field covers
/// (padding) keep whatever `out` held; every field's bytes are written.
pub fn run(plan: &Plan, src: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
    run_within(plan, src, out, usize::MAX)
}

/// [`run`] with the output held to `max_output` bytes (fixed part included) as well as to
/// [`output_limit`]'s multiple of the body: a conversion that would pass it fails before
/// allocating, with [`ErrorKind::TooMuchMemory`] in the field that would have grown it.
pub fn run_within(
    plan: &Plan,
    src: &[u8],
    out: &mut Vec<u8>,
    max_output: usize,
) -> Result<(), Error> {
    check_src(plan, src)?;
    if plan.dst_size > max_output {
        return Err(too_much(plan.dst_size, max_output, 0));
    }
    out.truncate(plan.dst_size);
    out.resize(plan.dst_size, 0);
    Run::new(plan, src, max_output).steps(&plan.steps, src, 0, out, 0)
}

#[cold]
fn too_much(needed: usize, limit: usize, at: usize) -> Error {
    Error::new(
        ErrorKind::TooMuchMemory {
            needed: needed as u64,
            limit: limit as u64,
        },
        at,
    )
}

/// Converts the body `src` into `dst`, the local fixed part, for a plan with no variable parts
/// (so the whole result fits in `dst`): the caller may pass a value's own memory.
///
/// # Panics
/// If `dst.len()` is not the plan's local size.
pub fn run_fixed(plan: &Plan, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
    assert_eq!(
        dst.len(),
        plan.dst_size,
        "run_fixed: output of the wrong size"
    );
    check_src(plan, src)?;
    Run::new(plan, src, usize::MAX).steps(&plan.steps, src, 0, &mut Fixed(dst), 0)
}

/// Runs one step of `plan` with the enclosing record at `sbase` in `src` and `dbase` in `out`,
/// as [`run`] would: compiled code hands the steps it does not compile (strings, variable-length
/// arrays, defaults) to the interpreter through this.
#[cfg(feature = "jit")]
pub(crate) fn run_step(
    plan: &Plan,
    step: &Step,
    src: &[u8],
    sbase: usize,
    out: &mut Vec<u8>,
    dbase: usize,
    max_output: usize,
) -> Result<(), Error> {
    Run::new(plan, src, max_output).steps(core::slice::from_ref(step), src, sbase, out, dbase)
}

/// [`run_step`] into a fixed part only (a plan with no variable parts).
#[cfg(feature = "jit")]
pub(crate) fn run_step_fixed(
    plan: &Plan,
    step: &Step,
    src: &[u8],
    sbase: usize,
    dst: &mut [u8],
    dbase: usize,
) -> Result<(), Error> {
    Run::new(plan, src, usize::MAX).steps(
        core::slice::from_ref(step),
        src,
        sbase,
        &mut Fixed(dst),
        dbase,
    )
}

fn check_src(plan: &Plan, src: &[u8]) -> Result<(), Error> {
    if src.len() < plan.src_size {
        return Err(Error::new(
            ErrorKind::UnexpectedEnd {
                needed: plan.src_size,
                remaining: src.len(),
            },
            0,
        ));
    }
    Ok(())
}

/// Where converted bytes go: a growable body, or a fixed part with no room for variable parts.
trait Out: core::ops::DerefMut<Target = [u8]> {
    /// Pads to a multiple of 8 and makes room for `more` bytes within `limit`; returns where
    /// they go.
    fn grow(&mut self, more: usize, limit: usize, at: usize) -> Result<usize, Error>;
    /// Appends bytes (after a successful `grow`).
    fn append(&mut self, bytes: &[u8]);
    /// Appends `n` zero bytes (after a successful `grow`).
    fn append_zeros(&mut self, n: usize);
}

impl Out for Vec<u8> {
    fn grow(&mut self, more: usize, limit: usize, at: usize) -> Result<usize, Error> {
        let start = self.len().next_multiple_of(8);
        match start.checked_add(more) {
            Some(end) if end <= limit && u32::try_from(end).is_ok() => {
                self.resize(start, 0);
                self.reserve(more);
                Ok(start)
            }
            end => Err(too_much(
                end.unwrap_or(usize::MAX),
                limit.min(u32::MAX as usize),
                at,
            )),
        }
    }
    fn append(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn append_zeros(&mut self, n: usize) {
        self.resize(self.len() + n, 0);
    }
}

/// A fixed part only.
struct Fixed<'a>(&'a mut [u8]);

impl core::ops::Deref for Fixed<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0
    }
}
impl core::ops::DerefMut for Fixed<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.0
    }
}

impl Out for Fixed<'_> {
    fn grow(&mut self, _more: usize, _limit: usize, at: usize) -> Result<usize, Error> {
        Err(Error::new(
            ErrorKind::Custom("a variable part where only a fixed part was expected".into()),
            at,
        ))
    }
    fn append(&mut self, _bytes: &[u8]) {}
    fn append_zeros(&mut self, _n: usize) {}
}

struct Run<'p> {
    templates: &'p [Vec<u8>],
    limit: usize,
}

impl<'p> Run<'p> {
    fn new(plan: &'p Plan, src: &[u8], max_output: usize) -> Run<'p> {
        Run {
            templates: &plan.templates,
            limit: output_limit(plan.dst_size, src.len(), max_output),
        }
    }

    fn steps<O: Out>(
        &self,
        steps: &[Step],
        src: &[u8],
        sbase: usize,
        out: &mut O,
        dbase: usize,
    ) -> Result<(), Error> {
        for s in steps {
            self.op(
                &s.op,
                s.count,
                src,
                sbase + s.src,
                out,
                dbase + s.dst,
                s.count != 1,
            )
            .map_err(|e| e.in_field(s.field))?;
        }
        Ok(())
    }

    /// Runs `op` on `count` elements from `src[s..]` to `out[d..]`; errors name the element
    /// when `indexed` (an array).
    #[allow(clippy::too_many_arguments)]
    fn op<O: Out>(
        &self,
        op: &Op,
        count: usize,
        src: &[u8],
        s: usize,
        out: &mut O,
        d: usize,
        indexed: bool,
    ) -> Result<(), Error> {
        let ix = |e: Error, i: usize| if indexed { e.at_index(i) } else { e };
        match op {
            Op::Copy { width } => {
                let n = count * width;
                out[d..d + n].copy_from_slice(&src[s..s + n]);
            }
            Op::Swap { width } => {
                let n = count * width;
                let from = &src[s..s + n];
                let to = uninit(&mut out[d..d + n]);
                match width {
                    2 => swap::copy_swap2(to, from),
                    4 => swap::copy_swap4(to, from),
                    _ => swap::copy_swap8(to, from),
                }
            }
            Op::Int { from, to } => {
                let (fs, ts) = (from.size as usize, to.size as usize);
                for i in 0..count {
                    let v = read_int(&src[s + i * fs..s + (i + 1) * fs], *from);
                    write_int(&mut out[d + i * ts..d + (i + 1) * ts], *to, v)
                        .map_err(|e| ix(Error::new(e, s + i * fs), i))?;
                }
            }
            Op::Float { from, to, swap } => {
                for i in 0..count {
                    let b = &src[s + i * from..s + (i + 1) * from];
                    let v = word::float(b, big(*swap));
                    let at = d + i * to;
                    if *to == 4 {
                        let n = v as f32;
                        if v.is_finite() && n.is_infinite() {
                            return Err(ix(
                                Error::new(
                                    ErrorKind::DoesNotFit {
                                        value: v.to_string(),
                                        target: "f32",
                                    },
                                    s + i * from,
                                ),
                                i,
                            ));
                        }
                        out[at..at + 4].copy_from_slice(&n.to_ne_bytes());
                    } else {
                        out[at..at + 8].copy_from_slice(&v.to_ne_bytes());
                    }
                }
            }
            Op::Bool { from } => {
                for i in 0..count {
                    let b = &src[s + i * from..s + (i + 1) * from];
                    out[d + i] = u8::from(b.iter().any(|&x| x != 0));
                }
            }
            Op::Str { swap } => {
                for i in 0..count {
                    let at = s + i * SLOT;
                    let (off, len) = read_slot(src, at, *swap);
                    check_var(src.len(), at, off, len, 1).map_err(|e| ix(e, i))?;
                    let doff = out.grow(len, self.limit, at)?;
                    out.append(&src[off..off + len]);
                    write_slot(out, d + i * SLOT, doff, len);
                }
            }
            Op::Var {
                swap,
                src_elem,
                dst_elem,
                elem,
            } => {
                let (off, n) = read_slot(src, s, *swap);
                check_var(src.len(), s, off, n, *src_elem)?;
                let doff = out.grow(n.saturating_mul(*dst_elem), self.limit, s)?;
                out.append_zeros(n * dst_elem);
                self.op(&elem.op, n, src, off, out, doff, true)?;
                write_slot(out, d, doff, n);
            }
            Op::Records {
                src_stride,
                dst_stride,
                steps,
            } => {
                for i in 0..count {
                    self.steps(steps, src, s + i * src_stride, out, d + i * dst_stride)
                        .map_err(|e| ix(e, i))?;
                }
            }
            Op::Template { index, steps } => {
                self.steps(steps, &self.templates[*index], 0, out, d)?;
            }
        }
        Ok(())
    }
}

/// `&mut [u8]` as `&mut [MaybeUninit<u8>]` for the swap kernels.
fn uninit(b: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`. The callers pass the result only to
    // `marshal_core::swap::copy_swap*`, which write initialised bytes to every element and
    // never write an uninitialised one, so `b` stays initialised.
    unsafe { &mut *(b as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// Whether bytes stored swapped (`swap`) relative to this machine are big-endian.
fn big(swap: bool) -> bool {
    swap != cfg!(target_endian = "big")
}

/// Reads an integer of `r.size` bytes (the slice's length) as `i128`, sign- or zero-extended.
fn read_int(b: &[u8], r: IntRepr) -> i128 {
    if r.signed {
        i128::from(word::int(b, big(r.swap)))
    } else {
        i128::from(word::uint(b, big(r.swap)))
    }
}

/// Writes `v` as the native integer `r`, or says it does not fit.
fn write_int(b: &mut [u8], r: IntRepr, v: i128) -> Result<(), ErrorKind> {
    let bits = 8 * u32::from(r.size);
    let (min, max) = if r.signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    if v < min || v > max {
        return Err(ErrorKind::DoesNotFit {
            value: v.to_string(),
            target: r.type_name(),
        });
    }
    let le = (v as i64).to_le_bytes();
    let n = r.size as usize;
    if cfg!(target_endian = "big") {
        let mut be = [0u8; 8];
        be[..n].copy_from_slice(&le[..n]);
        be[..n].reverse();
        b.copy_from_slice(&be[..n]);
    } else {
        b.copy_from_slice(&le[..n]);
    }
    Ok(())
}

/// A slot at `src[at..at + 8]` (inside the checked fixed part or a checked element).
fn read_slot(src: &[u8], at: usize, swap: bool) -> (usize, usize) {
    word::slot(&src[at..at + 8], big(swap))
}

/// Writes a native slot. `off` and `len` fit `u32`: `grow` keeps the output below 4 GiB and
/// `len` came from a `u32`.
fn write_slot(out: &mut [u8], at: usize, off: usize, len: usize) {
    out[at..at + 4].copy_from_slice(&(off as u32).to_ne_bytes());
    out[at + 4..at + 8].copy_from_slice(&(len as u32).to_ne_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip_through_i128() {
        let r = |size, signed, swap| IntRepr { size, signed, swap };
        assert_eq!(read_int(&(-5i16).to_ne_bytes(), r(2, true, false)), -5);
        assert_eq!(
            read_int(
                &(-5i16).to_be_bytes(),
                r(2, true, cfg!(target_endian = "little"))
            ),
            -5
        );
        assert_eq!(
            read_int(&u64::MAX.to_ne_bytes(), r(8, false, false)),
            i128::from(u64::MAX)
        );
        assert_eq!(read_int(&[0xff], r(1, true, false)), -1);
        assert_eq!(read_int(&[0xff], r(1, false, true)), 255);
        let mut b = [0u8; 2];
        write_int(&mut b, r(2, true, false), -300).unwrap();
        assert_eq!(i16::from_ne_bytes(b), -300);
        assert_eq!(
            write_int(&mut b, r(2, false, false), -1)
                .unwrap_err()
                .to_string(),
            "value -1 does not fit u16"
        );
        assert!(write_int(&mut [0u8; 1], r(1, true, false), 128).is_err());
        assert!(write_int(&mut [0u8; 1], r(1, true, false), -128).is_ok());
    }
}
