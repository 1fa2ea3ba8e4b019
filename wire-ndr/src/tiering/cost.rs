//! What a plan costs, estimated from the plan alone before anything is compiled: time per
//! conversion in the interpreter and in compiled code (the knapsack's profit is the frequency
//! times their difference), and bytes of machine code (its weight, until the plan has been
//! compiled once and its real size is known).
//!
//! The constants come from the `ndr_jit` benchmark on an x86-64 machine (2 cores, AVX-512):
//! the interpreter pays a dispatch per step (about 2.5 ns: Scalar300's 351 steps take
//! 913 ns interpreted, 58 ns compiled) and per converted element, compiled code a few
//! instructions per element; a long copy costs both the same `memcpy`, and a long swap (512
//! bytes or more, `convert::KERNEL_SWAP`) both the same kernel, which compiled code calls, so
//! a plan of a few long runs gains from compiling only its dispatches. Code sizes are per step
//! (about 15 bytes for a scalar swap), with loops of a fixed size. They only need to rank
//! plans.

use crate::convert::plan::{Op, Plan, Step};
use crate::convert::KERNEL_SWAP;

/// A plan's estimated costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Nanoseconds per conversion in the interpreter.
    pub interp_ns: f64,
    /// Nanoseconds per conversion in compiled code.
    pub jit_ns: f64,
    /// Bytes of machine code.
    pub code_bytes: usize,
}

impl Estimate {
    /// Time saved per conversion by compiling.
    pub fn saving_ns(&self) -> f64 {
        (self.interp_ns - self.jit_ns).max(0.0)
    }
}

/// Elements a variable-length array is assumed to hold (the message decides).
const VAR_ELEMS: f64 = 8.0;

/// Estimates `plan`.
pub fn estimate(plan: &Plan) -> Estimate {
    let mut e = Estimate {
        interp_ns: 3.0,
        jit_ns: 2.0,
        code_bytes: 40,
    };
    steps(&plan.steps, 1.0, &mut e);
    e
}

/// The interpreter's step dispatches in one run of `plan`: what compiled code removes
/// entirely, and Hoschka's measure of interpreter work ("calls to the interpreter"). Each step
/// is one dispatch; a nested record's steps are dispatched once per element, a template's
/// once; a variable-length array dispatches its element conversion once, and that
/// conversion's nested steps once per element (eight elements assumed, as [`estimate`]
/// does; the message decides). Exact for a plan without variable parts.
pub fn dispatches(plan: &Plan) -> f64 {
    step_dispatches(&plan.steps)
}

fn step_dispatches(steps: &[Step]) -> f64 {
    steps.iter().map(|s| 1.0 + nested_dispatches(s)).sum()
}

/// The dispatches `s` makes below itself.
fn nested_dispatches(s: &Step) -> f64 {
    match &s.op {
        Op::Records { steps, .. } => s.count as f64 * step_dispatches(steps),
        Op::Template { steps, .. } => step_dispatches(steps),
        Op::Var { elem, .. } => match &elem.op {
            Op::Records { steps, .. } => 1.0 + VAR_ELEMS * step_dispatches(steps),
            _ => 1.0,
        },
        _ => 0.0,
    }
}

fn steps(steps: &[Step], times: f64, e: &mut Estimate) {
    for s in steps {
        step(s, times, e);
    }
}

/// Per byte of a copy, either engine (`memcpy`).
const COPY_NS: f64 = 0.009;
/// Per byte of a swap: the interpreter's AVX2 kernels, and compiled 16-byte `pshufb`s.
const SWAP_NS: (f64, f64) = (0.012, 0.013);
/// A compiled call of the interpreter's swap kernel: its time beyond the kernel's, and its code.
const KERNEL_CALL: (f64, usize) = (1.0, 50);

fn step(s: &Step, times: f64, e: &mut Estimate) {
    let n = s.count as f64;
    // Unrolled up to 8 elements, else a loop around one element's code.
    let unrolled = |per: usize| -> usize {
        if s.count <= 8 {
            s.count * per
        } else {
            70 + per
        }
    };
    // The interpreter's dispatch of a step; compiled code has none.
    e.interp_ns += 2.5 * times;
    match &s.op {
        Op::Copy { width } => {
            let bytes = n * *width as f64;
            e.interp_ns += times * bytes * COPY_NS;
            e.jit_ns += times * (bytes * COPY_NS + if bytes > 128.0 { 3.0 } else { 0.0 });
            let b = s.count * width;
            e.code_bytes += if b > 128 {
                40
            } else {
                14 * (b / 16 + (b % 16).count_ones() as usize)
            };
        }
        Op::Swap { width } => {
            let bytes = n * *width as f64;
            e.interp_ns += times * bytes * SWAP_NS.0;
            let b = s.count * width;
            if b >= KERNEL_SWAP {
                // Compiled code calls the interpreter's kernel: the same swap, plus the call.
                e.jit_ns += times * (bytes * SWAP_NS.0 + KERNEL_CALL.0);
                e.code_bytes += KERNEL_CALL.1;
            } else {
                e.jit_ns += times * (bytes * SWAP_NS.1 + 0.15);
                let vectors = b / 16;
                let tail = (b % 16) / width;
                // Sixteen or more vectors loop (eight per iteration); fewer are unrolled.
                let vector_code = if vectors >= 16 {
                    140 + 18 * (vectors % 8)
                } else {
                    18 * vectors
                };
                e.code_bytes += vector_code + 15 * tail;
            }
        }
        Op::Int { .. } => {
            e.interp_ns += times * n * 3.0;
            e.jit_ns += times * n * 0.5;
            e.code_bytes += unrolled(30);
        }
        Op::Float { .. } => {
            e.interp_ns += times * n * 3.0;
            e.jit_ns += times * n * 0.6;
            e.code_bytes += unrolled(40);
        }
        Op::Bool { .. } => {
            e.interp_ns += times * n * 1.5;
            e.jit_ns += times * n * 0.3;
            e.code_bytes += unrolled(14);
        }
        Op::Str { .. } | Op::Var { .. } => {
            // The helper runs the interpreter: the same work, plus the call.
            let per = 20.0 + VAR_ELEMS * 2.0;
            e.interp_ns += times * n * per;
            e.jit_ns += times * n * (per + 2.5);
            e.code_bytes += 50;
        }
        Op::Template { .. } => {
            e.interp_ns += times * 10.0;
            e.jit_ns += times * 12.5;
            e.code_bytes += 50;
        }
        Op::Records { steps: inner, .. } => {
            e.interp_ns += times * n * 1.0;
            let before = e.code_bytes;
            steps(inner, times * n, e);
            let body = e.code_bytes - before;
            e.code_bytes = before
                + if s.count > 8 {
                    50 + body
                } else {
                    body * s.count
                };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(steps: Vec<Step>) -> Plan {
        Plan {
            src_size: 0,
            dst_size: 0,
            steps,
            templates: Vec::new(),
            identical: false,
            var: false,
        }
    }

    fn swap(count: usize) -> Step {
        Step {
            src: 0,
            dst: 0,
            count,
            field: "f",
            op: Op::Swap { width: 8 },
        }
    }

    /// One dispatch per step, nested steps once per element (a variable array's elements
    /// assumed `VAR_ELEMS`), a template's once.
    #[test]
    fn dispatches_count_nested_steps() {
        let records = |count: usize, inner: usize| Step {
            src: 0,
            dst: 0,
            count,
            field: "r",
            op: Op::Records {
                src_stride: 8,
                dst_stride: 8,
                steps: (0..inner).map(|_| swap(1)).collect(),
            },
        };
        assert_eq!(dispatches(&plan(vec![])), 0.0);
        assert_eq!(dispatches(&plan(vec![swap(1), swap(500)])), 2.0);
        // 1 + 3 × 2, and 1 + 2 × (1 + 3 × 2).
        assert_eq!(dispatches(&plan(vec![records(3, 2)])), 7.0);
        let outer = Step {
            op: Op::Records {
                src_stride: 32,
                dst_stride: 32,
                steps: vec![records(3, 2)],
            },
            ..records(2, 0)
        };
        assert_eq!(dispatches(&plan(vec![outer])), 15.0);
        let template = Step {
            op: Op::Template {
                index: 0,
                steps: vec![swap(1), swap(1)],
            },
            ..swap(1)
        };
        assert_eq!(dispatches(&plan(vec![template])), 3.0);
        let var = |elem: Step| Step {
            op: Op::Var {
                swap: false,
                src_elem: 8,
                dst_elem: 8,
                elem: Box::new(elem),
            },
            ..swap(1)
        };
        // The slot, the element conversion, and its nested steps per assumed element.
        assert_eq!(dispatches(&plan(vec![var(swap(0))])), 2.0);
        assert_eq!(
            dispatches(&plan(vec![var(records(0, 2))])),
            2.0 + VAR_ELEMS * 2.0
        );
    }

    /// Many small steps are where compiling pays; one long swap or copy gains only its
    /// dispatch (compiled code calls the same kernel), and code grows with the steps, not with
    /// the bytes moved by a loop or a kernel.
    #[test]
    fn many_steps_pay_and_long_runs_do_not() {
        let scalars = estimate(&plan((0..300).map(|_| swap(1)).collect()));
        let long = estimate(&plan(vec![swap(12_000)]));
        assert!(scalars.saving_ns() > 500.0, "{scalars:?}");
        assert!(long.saving_ns() > 0.0 && long.saving_ns() < 5.0, "{long:?}");
        assert!(long.code_bytes < 400, "{long:?}");
        // From the kernel's threshold on, a swap's code is the call, whatever its length.
        let at = estimate(&plan(vec![swap(KERNEL_SWAP / 8)]));
        assert_eq!(at.code_bytes, 40 + KERNEL_CALL.1);
        assert_eq!(long.code_bytes, at.code_bytes);
        assert!((3000..8000).contains(&scalars.code_bytes), "{scalars:?}");
    }
}
