//! What a plan costs, estimated from the plan alone before anything is compiled: time per
//! conversion in the interpreter and in compiled code (the knapsack's profit is the frequency
//! times their difference), and bytes of machine code (its weight, until the plan has been
//! compiled once and its real size is known).
//!
//! The constants were fitted on an x86-64 machine (2 cores) with the `ndr_jit` benchmark:
//! the interpreter pays a dispatch per step and per scalar element, compiled code a few
//! instructions per element, and both the same per byte for copies. They only need to rank
//! plans, not predict times.

use crate::plan::{Op, Plan, Step};

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
        interp_ns: 10.0,
        jit_ns: 3.0,
        code_bytes: 64,
    };
    steps(&plan.steps, 1.0, &mut e);
    e
}

fn steps(steps: &[Step], times: f64, e: &mut Estimate) {
    for s in steps {
        step(s, times, e);
    }
}

fn step(s: &Step, times: f64, e: &mut Estimate) {
    let n = s.count as f64;
    // Unrolled up to 8 elements, else a loop of one element's code.
    let unrolled = |per: usize| -> usize {
        if s.count <= 8 {
            s.count * per
        } else {
            40 + per
        }
    };
    e.interp_ns += 4.0 * times;
    match &s.op {
        Op::Copy { width } => {
            let bytes = n * *width as f64;
            e.interp_ns += times * bytes * 0.03;
            e.jit_ns += times * (bytes * 0.03 + if bytes > 128.0 { 5.0 } else { 0.0 });
            e.code_bytes += if bytes > 128.0 {
                40
            } else {
                8 * (bytes as usize / 8 + 4)
            };
        }
        Op::Swap { width } => {
            let bytes = n * *width as f64;
            e.interp_ns += times * (3.0 + bytes * 0.05);
            e.jit_ns += times * (bytes * 0.04 + 0.5);
            let vectors = (bytes as usize / 16).min(8);
            let tail = (s.count * width % 16) / width;
            e.code_bytes += 100 + 16 * vectors + 12 * tail;
        }
        Op::Int { .. } => {
            e.interp_ns += times * n * 4.0;
            e.jit_ns += times * n * 0.6;
            e.code_bytes += unrolled(28);
        }
        Op::Float { .. } => {
            e.interp_ns += times * n * 4.0;
            e.jit_ns += times * n * 0.8;
            e.code_bytes += unrolled(40);
        }
        Op::Bool { .. } => {
            e.interp_ns += times * n * 2.0;
            e.jit_ns += times * n * 0.4;
            e.code_bytes += unrolled(14);
        }
        Op::Str { .. } | Op::Var { .. } => {
            let per = 25.0 + VAR_ELEMS * 2.0;
            e.interp_ns += times * n * per;
            e.jit_ns += times * n * (per + 2.0);
            e.code_bytes += 60;
        }
        Op::Template { .. } => {
            e.interp_ns += times * 10.0;
            e.jit_ns += times * 12.0;
            e.code_bytes += 60;
        }
        Op::Records { steps: inner, .. } => {
            e.interp_ns += times * n * 2.0;
            let before = e.code_bytes;
            steps(inner, times * n, e);
            let body = e.code_bytes - before;
            if s.count > 8 {
                e.code_bytes = before + 40 + body;
            } else {
                e.code_bytes = before + body * s.count;
            }
        }
    }
}
