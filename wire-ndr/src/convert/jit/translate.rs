//! The `FunctionTranslator`: turns the steps of a verified [`Plan`] into Cranelift IR, one
//! step at a time, into a function of the signature
//!
//! ```text
//! fn(ctx: *mut Ctx, src: *const u8, src_len: usize, dst: *mut u8) -> u32
//! ```
//!
//! returning 0 on success and non-zero when the conversion fails (a value that does not fit,
//! a bad variable part, a short body); the caller then runs the interpreter, whose error is
//! the one reported, so both engines fail with the same error by construction.
//!
//! IR idioms used here:
//! - Addresses are a base `Value` plus a constant offset folded into the load or store's
//!   immediate (`load(ty, flags, base, offset)`): a field at a constant offset costs no
//!   address arithmetic.
//! - Loops carry their running offsets as block parameters (`header(i, soff, doff)`), the SSA
//!   form Cranelift wants; the destination base, which a helper may move (a growing output),
//!   is a frontend `Variable`, so `use_var` inserts the block parameters it needs.
//! - A failure is a branch to one shared `fail` block that returns 1.
//! - Byte swaps of arrays load 16 bytes into an `i8x16` vector and `shuffle` it with a
//!   constant lane mask (Cranelift does not vectorize on its own), then finish with scalar
//!   `bswap`s. Swaps of [`KERNEL_SWAP`] bytes or more call the interpreter's kernel instead,
//!   which uses the CPU's widest vectors (Cranelift has only 16-byte ones), as copies of more
//!   than 128 bytes call `memcpy`.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, BlockArg, ConstantData, Immediate, InstBuilder, MemFlagsData, SigRef,
    Signature, Type, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Variable};

use crate::convert::plan::{IntRepr, Op, Plan, Step};
use crate::convert::KERNEL_SWAP;

/// Offset of `Ctx::dst` (the destination base a helper may move): the first field.
pub(crate) const CTX_DST: i32 = 0;

/// Copies up to this many bytes inline; longer copies call the copy helper (`memcpy`).
const INLINE_COPY: usize = 128;
/// Unrolls element loops of at most this many elements.
const UNROLL: usize = 8;
/// 16-byte vectors swapped per loop iteration.
const VECTORS: usize = 8;

/// The helpers generated code calls, as absolute addresses.
pub(crate) struct Helpers {
    /// `extern "C" fn(ctx, step: *const Step, sbase: usize, dbase: usize) -> u32`: runs one
    /// step in the interpreter.
    pub step: usize,
    /// `extern "C" fn(dst, src, n)`: copies `n` bytes.
    pub copy: usize,
    /// `extern "C" fn(dst, src, n)`: copies `n` bytes reversing each 2-, 4- and 8-byte word.
    pub swap: [usize; 3],
}

/// Where a record sits: a run-time offset (in a loop) plus a constant one.
#[derive(Clone, Copy)]
struct At {
    dynamic: Option<Value>,
    konst: usize,
}

impl At {
    fn plus(self, n: usize) -> At {
        At {
            dynamic: self.dynamic,
            konst: self.konst + n,
        }
    }
}

/// Translates one plan into the body of the function being built.
pub(crate) struct FunctionTranslator<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    ctx: Value,
    src: Value,
    /// The destination base: reloaded from `ctx` after every helper call.
    dst: Variable,
    fail: Block,
    step_sig: SigRef,
    copy_sig: SigRef,
    helpers: &'a Helpers,
    masks: [Option<Immediate>; 3],
}

/// Memory flags of every access: in bounds (the plan was verified and the source length
/// checked), so they cannot trap; not necessarily aligned.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn int_type(size: usize) -> Type {
    match size {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        _ => types::I64,
    }
}

/// The signature of compiled conversions and of the step helper: four pointer-sized
/// integers in, a `u32` status out.
pub(crate) fn signature(call_conv: CallConv) -> Signature {
    let mut sig = args(call_conv, 4);
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// `params` pointer-sized integer parameters and no result.
fn args(call_conv: CallConv, params: usize) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params = vec![AbiParam::new(types::I64); params];
    sig
}

impl<'a, 'b> FunctionTranslator<'a, 'b> {
    /// Emits the whole function: the entry block with the one bounds check, the steps, and
    /// the success and failure returns.
    pub(crate) fn translate(
        b: &'a mut FunctionBuilder<'b>,
        plan: &'a Plan,
        helpers: &'a Helpers,
        call_conv: CallConv,
    ) {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let (ctx, src, src_len, dst0) = (params[0], params[1], params[2], params[3]);

        let step_sig = b.import_signature(signature(call_conv));
        let copy_sig = b.import_signature(args(call_conv, 3));

        let dst = b.declare_var(types::I64);
        b.def_var(dst, dst0);
        let fail = b.create_block();
        let body = b.create_block();

        // The one bounds check: the body holds the incoming fixed part. Every fixed access
        // below is at a constant offset inside it (see `verify`).
        let short = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, src_len, plan.src_size as i64);
        b.ins().brif(short, fail, &[], body, &[]);
        b.switch_to_block(body);

        let mut t = FunctionTranslator {
            b,
            ctx,
            src,
            dst,
            fail,
            step_sig,
            copy_sig,
            helpers,
            masks: [None; 3],
        };
        let top = At {
            dynamic: None,
            konst: 0,
        };
        t.steps(&plan.steps, top, top);
        let zero = t.b.ins().iconst(types::I32, 0);
        t.b.ins().return_(&[zero]);

        t.b.switch_to_block(fail);
        let one = t.b.ins().iconst(types::I32, 1);
        t.b.ins().return_(&[one]);
        t.b.seal_all_blocks();
    }

    fn steps(&mut self, steps: &[Step], s: At, d: At) {
        for step in steps {
            self.step(step, s.plus(step.src), d.plus(step.dst));
        }
    }

    /// One step at source `s` and destination `d`.
    fn step(&mut self, step: &Step, s: At, d: At) {
        let n = step.count;
        match &step.op {
            Op::Copy { width } => self.copy(n * width, s, d),
            Op::Swap { width } => self.swap(n, *width, s, d),
            Op::Int { from, to } => {
                self.each(n, from.size.into(), to.size.into(), s, d, |t, s, d| {
                    t.int(*from, *to, s, d)
                })
            }
            Op::Float { from, to, swap } => self.each(n, *from, *to, s, d, |t, s, d| {
                t.float(*from, *to, *swap, s, d)
            }),
            Op::Bool { from } => self.each(n, *from, 1, s, d, |t, s, d| t.boolean(*from, s, d)),
            Op::Records {
                src_stride,
                dst_stride,
                steps,
            } => self.each(n, *src_stride, *dst_stride, s, d, |t, s, d| {
                t.steps(steps, s, d)
            }),
            Op::Str { .. } | Op::Var { .. } | Op::Template { .. } => self.helper(step, s, d),
        }
    }

    /// `base + at.dynamic`, and the constant part as the access's immediate offset.
    fn addr(&mut self, base: Value, at: At) -> (Value, i32) {
        let mut base = match at.dynamic {
            Some(off) => self.b.ins().iadd(base, off),
            None => base,
        };
        // Offsets are below `MAX_RECORD_SIZE` (2^30) in verified plans; fold larger ones.
        let konst = match i32::try_from(at.konst) {
            Ok(k) => k,
            Err(_) => {
                base = self.b.ins().iadd_imm_s(base, at.konst as i64);
                0
            }
        };
        (base, konst)
    }

    fn src_addr(&mut self, at: At) -> (Value, i32) {
        self.addr(self.src, at)
    }

    fn dst_addr(&mut self, at: At) -> (Value, i32) {
        let base = self.b.use_var(self.dst);
        self.addr(base, at)
    }

    /// The address of `at` in the source, as one value.
    fn src_ptr(&mut self, at: At) -> Value {
        let (p, off) = self.src_addr(at);
        self.b.ins().iadd_imm_s(p, i64::from(off))
    }

    /// The address of `at` in the destination, as one value.
    fn dst_ptr(&mut self, at: At) -> Value {
        let (p, off) = self.dst_addr(at);
        self.b.ins().iadd_imm_s(p, i64::from(off))
    }

    fn load(&mut self, ty: Type, at: At) -> Value {
        let (p, off) = self.src_addr(at);
        self.b.ins().load(ty, flags(), p, off)
    }

    fn store(&mut self, v: Value, at: At) {
        let (p, off) = self.dst_addr(at);
        self.b.ins().store(flags(), v, p, off);
    }

    /// The value of `at` as one offset.
    fn offset(&mut self, at: At) -> Value {
        match at.dynamic {
            Some(v) => self.b.ins().iadd_imm_s(v, at.konst as i64),
            None => self.b.ins().iconst(types::I64, at.konst as i64),
        }
    }

    /// Runs `body` for `count` elements at strides `ss` and `ds`: unrolled when short, else
    /// a loop whose block parameters are the running offsets (one when the strides are equal),
    /// with the constant parts left in the accesses' immediates.
    fn each(
        &mut self,
        count: usize,
        ss: usize,
        ds: usize,
        s: At,
        d: At,
        mut body: impl FnMut(&mut Self, At, At),
    ) {
        if count <= UNROLL || (ss == 0 && ds == 0) {
            for i in 0..count {
                body(self, s.plus(i * ss), d.plus(i * ds));
            }
            return;
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        let header = self.b.create_block();
        let looped = self.b.create_block();
        let exit = self.b.create_block();
        let shared = ss == ds;
        let params = if shared { 1 } else { 2 };
        for _ in 0..params {
            self.b.append_block_param(header, types::I64);
        }
        let init = [BlockArg::Value(zero), BlockArg::Value(zero)];
        self.b.ins().jump(header, &init[..params]);

        self.b.switch_to_block(header);
        let p = self.b.block_params(header).to_vec();
        let (so, doff) = if shared { (p[0], p[0]) } else { (p[0], p[1]) };
        // The loop ends on the offset with a non-zero stride.
        let (bound, stride) = if ss != 0 { (so, ss) } else { (doff, ds) };
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, bound, (count * stride) as i64);
        self.b.ins().brif(more, looped, &[], exit, &[]);

        self.b.switch_to_block(looped);
        let inner = |t: &mut Self, at: At, off: Value| At {
            dynamic: Some(match at.dynamic {
                Some(v) => t.b.ins().iadd(v, off),
                None => off,
            }),
            konst: at.konst,
        };
        let si = inner(self, s, so);
        let di = inner(self, d, doff);
        body(self, si, di);
        let s2 = self.b.ins().iadd_imm_s(so, ss as i64);
        if shared {
            self.b.ins().jump(header, &[BlockArg::Value(s2)]);
        } else {
            let d2 = self.b.ins().iadd_imm_s(doff, ds as i64);
            self.b
                .ins()
                .jump(header, &[BlockArg::Value(s2), BlockArg::Value(d2)]);
        }
        self.b.switch_to_block(exit);
    }

    /// Copies `n` bytes: inline in 16-, 8-, 4-, 2- and 1-byte moves when short, else through
    /// the copy helper (`memcpy`).
    fn copy(&mut self, n: usize, s: At, d: At) {
        if n > INLINE_COPY {
            return self.call_copy(self.helpers.copy, n, s, d);
        }
        let mut at = 0;
        for (w, ty) in [
            (16, types::I8X16),
            (8, types::I64),
            (4, types::I32),
            (2, types::I16),
            (1, types::I8),
        ] {
            while n - at >= w {
                let v = self.load(ty, s.plus(at));
                self.store(v, d.plus(at));
                at += w;
            }
        }
    }

    /// Calls `helper(dst, src, n)` (the copy helper or a swap kernel) on `n` bytes at `s` and
    /// `d`. The destination base stays where it is: these helpers never grow the output.
    fn call_copy(&mut self, helper: usize, n: usize, s: At, d: At) {
        let sp = self.src_ptr(s);
        let dp = self.dst_ptr(d);
        let len = self.b.ins().iconst(types::I64, n as i64);
        let f = self.b.ins().iconst(types::I64, helper as i64);
        self.b.ins().call_indirect(self.copy_sig, f, &[dp, sp, len]);
    }

    /// The lanes of an `i8x16` permutation that reverses each `width`-byte element.
    fn lanes(width: usize) -> Vec<u8> {
        let w = width as u8;
        (0..16u8).map(|i| (i / w) * w + (w - 1 - i % w)).collect()
    }

    /// The mask as a `shuffle` immediate (the portable form, for the few unrolled vectors).
    fn mask(&mut self, width: usize) -> Immediate {
        let slot = width.trailing_zeros() as usize - 1;
        if let Some(m) = self.masks[slot] {
            return m;
        }
        let m = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(Self::lanes(width)));
        self.masks[slot] = Some(m);
        m
    }

    /// Copies `count` elements of `width` bytes, reversing each: 16 bytes at a time through a
    /// vector shuffle, then the remaining elements one `bswap` each.
    fn swap(&mut self, count: usize, width: usize, s: At, d: At) {
        if count * width >= KERNEL_SWAP {
            let kernel = self.helpers.swap[width.trailing_zeros() as usize - 1];
            return self.call_copy(kernel, count * width, s, d);
        }
        let per = 16 / width;
        let vectors = count / per;
        let blocks = vectors / VECTORS;
        let mut done = 0;
        if blocks > 1 {
            self.swap_loop(blocks, width, s, d);
            done = blocks * VECTORS;
        }
        if done < vectors {
            let mask = self.mask(width);
            for k in done..vectors {
                let (sk, dk) = (s.plus(16 * k), d.plus(16 * k));
                let v = self.load(types::I8X16, sk);
                let v = self.b.ins().shuffle(v, v, mask);
                self.store(v, dk);
            }
        }
        let ty = int_type(width);
        for k in vectors * per..count {
            let v = self.load(ty, s.plus(k * width));
            let v = self.b.ins().bswap(v);
            self.store(v, d.plus(k * width));
        }
    }

    /// `blocks` × `VECTORS` vectors of byte-swapped elements, in a loop whose block
    /// parameters are the two pointers (plain `[reg + disp]` addresses, so stores need no
    /// index register) and whose lane mask lives in a register (on x86-64, `pshufb` with the
    /// mask loaded once; elsewhere the portable `shuffle`).
    fn swap_loop(&mut self, blocks: usize, width: usize, s: At, d: At) {
        let sp = self.src_ptr(s);
        let dp = self.dst_ptr(d);
        let step = 16 * VECTORS;
        let end = self.b.ins().iadd_imm_s(sp, (blocks * step) as i64);
        #[cfg(target_arch = "x86_64")]
        let mask = {
            let c = self
                .b
                .func
                .dfg
                .constants
                .insert(ConstantData::from(Self::lanes(width)));
            self.b.ins().vconst(types::I8X16, c)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let mask = self.mask(width);

        let header = self.b.create_block();
        let looped = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        self.b.append_block_param(header, types::I64);
        self.b
            .ins()
            .jump(header, &[BlockArg::Value(sp), BlockArg::Value(dp)]);
        self.b.switch_to_block(header);
        let p = self.b.block_params(header).to_vec();
        let (ps, pd) = (p[0], p[1]);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, ps, end);
        self.b.ins().brif(more, looped, &[], exit, &[]);
        self.b.switch_to_block(looped);
        for k in 0..VECTORS {
            let off = (16 * k) as i32;
            let v = self.b.ins().load(types::I8X16, flags(), ps, off);
            #[cfg(target_arch = "x86_64")]
            let v = self.b.ins().x86_pshufb(v, mask);
            #[cfg(not(target_arch = "x86_64"))]
            let v = self.b.ins().shuffle(v, v, mask);
            self.b.ins().store(flags(), v, pd, off);
        }
        let ps2 = self.b.ins().iadd_imm_s(ps, step as i64);
        let pd2 = self.b.ins().iadd_imm_s(pd, step as i64);
        self.b
            .ins()
            .jump(header, &[BlockArg::Value(ps2), BlockArg::Value(pd2)]);
        self.b.switch_to_block(exit);
    }

    /// An integer: load, swap, extend to 64 bits, check the range the local type holds (the
    /// interpreter's test through `i128`, as 64-bit compares), store the low bytes.
    fn int(&mut self, from: IntRepr, to: IntRepr, s: At, d: At) {
        let (fs, ts) = (usize::from(from.size), usize::from(to.size));
        let mut v = self.load(int_type(fs), s);
        if from.swap && fs > 1 {
            v = self.b.ins().bswap(v);
        }
        if fs < 8 {
            v = if from.signed {
                self.b.ins().sextend(types::I64, v)
            } else {
                self.b.ins().uextend(types::I64, v)
            };
        }
        // The ranges of both types, exactly (as the interpreter's `i128`).
        let range = |r: IntRepr| -> (i128, i128) {
            let bits = 8 * u32::from(r.size);
            if r.signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            }
        };
        let (min_from, max_from) = range(from);
        let (min_to, max_to) = range(to);
        // Too large: the local maximum is below the incoming one. `max_to` < `max_from` <=
        // u64::MAX, and the compare is unsigned for an unsigned source (whose 64-bit value
        // may exceed i64::MAX) and signed for a signed one.
        if max_to < max_from {
            let cond = if from.signed {
                IntCC::SignedGreaterThan
            } else {
                IntCC::UnsignedGreaterThan
            };
            let big = self.b.ins().icmp_imm_s(cond, v, max_to as i64);
            self.fail_if(big);
        }
        // Too small: only a signed source goes below zero; `min_to` fits i64.
        if min_from < min_to {
            let small = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThan, v, min_to as i64);
            self.fail_if(small);
        }
        if ts < 8 {
            v = self.b.ins().ireduce(int_type(ts), v);
        }
        self.store(v, d);
    }

    /// A float: load its bits, swap, reinterpret, widen or narrow; narrowing a finite value
    /// to infinity fails, as in the interpreter.
    fn float(&mut self, from: usize, to: usize, swap: bool, s: At, d: At) {
        let mut bits = self.load(int_type(from), s);
        if swap {
            bits = self.b.ins().bswap(bits);
        }
        let fty = if from == 4 { types::F32 } else { types::F64 };
        let mut v = self.b.ins().bitcast(fty, MemFlagsData::new(), bits);
        if from == 4 {
            v = self.b.ins().fpromote(types::F64, v);
        }
        if to == 4 {
            let n = self.b.ins().fdemote(types::F32, v);
            let inf64 = self.b.ins().f64const(f64::INFINITY);
            let inf32 = self.b.ins().f32const(f32::INFINITY);
            let av = self.b.ins().fabs(v);
            let an = self.b.ins().fabs(n);
            let finite = self.b.ins().fcmp(FloatCC::LessThan, av, inf64);
            let overflow = self.b.ins().fcmp(FloatCC::Equal, an, inf32);
            let bad = self.b.ins().band(finite, overflow);
            self.fail_if(bad);
            v = n;
        }
        self.store(v, d);
    }

    /// A boolean of `from` bytes: non-zero is 1. Byte order does not change zero.
    fn boolean(&mut self, from: usize, s: At, d: At) {
        let v = self.load(int_type(from), s);
        let b = self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0);
        self.store(b, d);
    }

    /// Calls the interpreter for one step (strings, variable-length arrays, defaults), then
    /// reloads the destination base, which a growing output may have moved.
    fn helper(&mut self, step: &Step, s: At, d: At) {
        // The enclosing record's offsets: the step's own are inside `step`.
        let sbase = self.offset(At {
            dynamic: s.dynamic,
            konst: s.konst - step.src,
        });
        let dbase = self.offset(At {
            dynamic: d.dynamic,
            konst: d.konst - step.dst,
        });
        let sp = self
            .b
            .ins()
            .iconst(types::I64, step as *const Step as usize as i64);
        let f = self.b.ins().iconst(types::I64, self.helpers.step as i64);
        let call = self
            .b
            .ins()
            .call_indirect(self.step_sig, f, &[self.ctx, sp, sbase, dbase]);
        let r = self.b.inst_results(call)[0];
        self.fail_if(r);
        let base = self.b.ins().load(types::I64, flags(), self.ctx, CTX_DST);
        self.b.def_var(self.dst, base);
    }

    /// Branches to the failure return when `cond` is non-zero.
    fn fail_if(&mut self, cond: Value) {
        let ok = self.b.create_block();
        self.b.ins().brif(cond, self.fail, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }
}

#[cfg(test)]
mod tests {
    use super::FunctionTranslator;

    #[test]
    fn masks_reverse_each_element() {
        for w in [2u8, 4, 8] {
            let lanes = FunctionTranslator::lanes(w.into());
            for (i, &l) in lanes.iter().enumerate() {
                let i = i as u8;
                assert_eq!(l / w, i / w, "stays in its element");
                assert_eq!(l % w, w - 1 - i % w, "mirrored");
            }
        }
    }
}
