//! The check a plan passes before it is compiled: every access the generated code makes
//! lies inside the incoming fixed part (`plan.src_size` bytes, which the code checks the body
//! holds) or the local one (`plan.dst_size` bytes, the destination's length), whatever the
//! format description said. Arithmetic is checked, so a plan with absurd counts or strides is
//! refused rather than wrapped.

use crate::convert::plan::{Op, Plan, Step};
use crate::native::SLOT;

/// Why a plan cannot be compiled (it then stays in the interpreter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unverified(pub(crate) String);

impl core::fmt::Display for Unverified {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "plan not compiled: {}", self.0)
    }
}

/// Checks every step of `plan` against its source and destination extents.
pub(crate) fn verify(plan: &Plan) -> Result<(), Unverified> {
    if plan.src_size > crate::MAX_RECORD_SIZE || plan.dst_size > crate::MAX_RECORD_SIZE {
        return Err(Unverified(format!(
            "records of {} and {} bytes exceed the limit",
            plan.src_size, plan.dst_size
        )));
    }
    steps(plan, &plan.steps, plan.src_size, plan.dst_size, 0)
}

fn steps(
    plan: &Plan,
    steps: &[Step],
    src_ext: usize,
    dst_ext: usize,
    depth: usize,
) -> Result<(), Unverified> {
    if depth > crate::MAX_DEPTH + 1 {
        return Err(Unverified("records nested too deep".into()));
    }
    for s in steps {
        step(plan, s, src_ext, dst_ext, depth)
            .map_err(|e| Unverified(format!("field `{}`: {}", s.field, e.0)))?;
    }
    Ok(())
}

/// `at + count × width <= ext`, without overflow.
fn fits(at: usize, count: usize, width: usize, ext: usize, side: &str) -> Result<(), Unverified> {
    match count.checked_mul(width).and_then(|n| n.checked_add(at)) {
        Some(end) if end <= ext => Ok(()),
        _ => Err(Unverified(format!(
            "{count} × {width} bytes at {side} offset {at} pass the record's {ext}"
        ))),
    }
}

fn width_ok(w: usize, allowed: &[usize]) -> Result<(), Unverified> {
    if allowed.contains(&w) {
        Ok(())
    } else {
        Err(Unverified(format!(
            "element width {w} is not one of {allowed:?}"
        )))
    }
}

fn step(
    plan: &Plan,
    s: &Step,
    src_ext: usize,
    dst_ext: usize,
    depth: usize,
) -> Result<(), Unverified> {
    let n = s.count;
    let both = |sw: usize, dw: usize| {
        fits(s.src, n, sw, src_ext, "source")?;
        fits(s.dst, n, dw, dst_ext, "destination")
    };
    match &s.op {
        Op::Copy { width } => both(*width, *width),
        Op::Swap { width } => {
            width_ok(*width, &[2, 4, 8])?;
            both(*width, *width)
        }
        Op::Int { from, to } => {
            width_ok(from.size.into(), &[1, 2, 4, 8])?;
            width_ok(to.size.into(), &[1, 2, 4, 8])?;
            both(from.size.into(), to.size.into())
        }
        Op::Float { from, to, .. } => {
            width_ok(*from, &[4, 8])?;
            width_ok(*to, &[4, 8])?;
            both(*from, *to)
        }
        Op::Bool { from } => {
            width_ok(*from, &[1, 2, 4, 8])?;
            both(*from, 1)
        }
        // Run by the interpreter (bounds-checked Rust); the compiled code only computes the
        // enclosing record's offsets, which are inside the record.
        Op::Str { .. } => both(SLOT, SLOT),
        Op::Var { .. } => both(SLOT, SLOT),
        Op::Template { index, .. } => {
            if *index >= plan.templates.len() {
                return Err(Unverified(format!("template {index} does not exist")));
            }
            fits(s.dst, 1, 0, dst_ext, "destination")
        }
        Op::Records {
            src_stride,
            dst_stride,
            steps: inner,
        } => {
            both(*src_stride, *dst_stride)?;
            steps(plan, inner, *src_stride, *dst_stride, depth + 1)
        }
    }
}
