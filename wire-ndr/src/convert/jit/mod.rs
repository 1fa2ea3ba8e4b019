//! Compiled conversions: a Cranelift back end for [`Plan`]s (feature `jit`), after PBIO's
//! dynamic code generation (§4.3.2), and the tiering that decides which plans to compile under
//! a code-size budget, after Hoschka.
//!
//! A [`Jit`] owns the target description and Cranelift's reusable contexts; [`Jit::compile`]
//! turns one plan into a [`Compiled`] conversion. Each compiled plan has its own `JITModule`
//! (Cranelift frees a module's code only as a whole), so evicting one plan frees exactly its
//! code, and dropping a [`Compiled`] unmaps it.
//!
//! The generated function does, for the fixed part, what the [interpreter](crate::convert::interp)
//! does: one bounds check of the body's length up front, then loads at constant offsets,
//! `bswap` where byte orders differ, integer widening and narrowing with the interpreter's
//! range checks, `f32`↔`f64`, stores at the local constant offsets, loops for arrays and
//! nested records, and `i8x16` shuffles for byte-swapped arrays. Strings, variable-length
//! arrays and defaults are handed to the interpreter through a helper the code calls. When
//! anything fails the function returns non-zero and the interpreter runs the conversion again
//! to produce the error, so both engines report identical errors.
//!
//! # Safety argument
//!
//! Generated code is trusted by the process, so nothing in a format description may steer it
//! outside its buffers. The argument:
//!
//! 1. Only plans built by [`Plan::build`] from validated formats reach the compiler, and the
//!    compiler checks each again (`verify`): with checked arithmetic, every
//!    step's `offset + count × width` lies within its record's extent, nested records within
//!    their strides, element widths are 1, 2, 4 or 8, the top-level extents are the plan's
//!    `src_size` and `dst_size`, and both are at most [`MAX_RECORD_SIZE`](crate::MAX_RECORD_SIZE).
//!    A plan that fails is not compiled.
//! 2. The code's first instruction compares the body's length with `src_size` and returns
//!    before any load when it is shorter. Every load is then at a constant offset (or a loop
//!    offset bounded by a constant trip count) inside `[src, src + src_size)`.
//! 3. [`Compiled::run_fixed`] asserts that the destination is exactly `dst_size` bytes, and
//!    [`Compiled::run`] sizes the output to `dst_size` before the call; every store lies in
//!    `[dst, dst + dst_size)` by (1).
//! 4. Variable parts are read and written only by the interpreter (safe, bounds-checked Rust)
//!    inside the helper. The helper may reallocate the output; it writes the new base to the
//!    context, and the code reloads it before its next store.
//! 5. The helper receives the address of a `Step` inside the plan; the plan is held by the
//!    [`Compiled`] (an `Arc`), so it outlives the code.
//!
//! Tests exercise the edges: formats whose fields end exactly at the record's end, bodies one
//! byte short, truncated messages, and a differential comparison with the interpreter over
//! generated formats (`tests/conversion_proptests.rs`).

mod translate;
mod verify;

use core::mem::MaybeUninit;
use std::sync::Arc;
use std::time::Instant;

use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use marshal_core::swap;

use crate::convert::interp;
use crate::convert::plan::{Plan, Step};
use crate::{Error, ErrorKind};

/// The compiler: the host's target description and Cranelift's contexts, reused across
/// compilations.
pub struct Jit {
    isa: OwnedTargetIsa,
    ctx: Context,
    fctx: FunctionBuilderContext,
}

impl core::fmt::Debug for Jit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Jit")
            .field("isa", &self.isa.name())
            .finish_non_exhaustive()
    }
}

fn jit_error(what: &str, e: impl core::fmt::Display) -> Error {
    Error::without_offset(ErrorKind::Custom(format!("jit: {what}: {e}")))
}

impl Jit {
    /// A compiler for this machine.
    pub fn new() -> Result<Jit, Error> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v).map_err(|e| jit_error("setting", e))
        };
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        // Plans are already straight-line loads and stores at constant offsets: Cranelift's
        // e-graph optimizations find little to improve and cost half the compile time.
        set(&mut flags, "opt_level", "none")?;
        // The IR verifier checks the translator's output; tests and debug builds keep it.
        set(
            &mut flags,
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        )?;
        let isa = cranelift_native::builder()
            .map_err(|e| jit_error("host", e))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| jit_error("target", e))?;
        Ok(Jit {
            isa,
            ctx: Context::new(),
            fctx: FunctionBuilderContext::new(),
        })
    }

    /// Compiles `plan` into native code, after checking it (see the module's safety
    /// argument). Errors when the plan fails the check or Cranelift fails.
    pub fn compile(&mut self, plan: Arc<Plan>) -> Result<Compiled, Error> {
        let start = Instant::now();
        verify::verify(&plan)
            .map_err(|e| Error::without_offset(ErrorKind::Custom(e.to_string())))?;
        let mut module = JITModule::new(JITBuilder::with_isa(
            self.isa.clone(),
            default_libcall_names(),
        ));
        let call_conv = self.isa.default_call_conv();
        let sig = translate::signature(call_conv);
        let id = module
            .declare_function("convert", Linkage::Local, &sig)
            .map_err(|e| jit_error("declare", e))?;
        self.ctx.clear();
        self.ctx.func.signature = sig;
        self.ctx.func.name = UserFuncName::user(0, id.as_u32());
        let helpers = translate::Helpers {
            step: step_helper as *const () as usize,
            copy: copy_helper as *const () as usize,
            swap: [
                swap_helper::<2> as *const () as usize,
                swap_helper::<4> as *const () as usize,
                swap_helper::<8> as *const () as usize,
            ],
        };
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            translate::FunctionTranslator::translate(&mut b, &plan, &helpers, call_conv);
            b.finalize(module.target_config());
        }
        let defined = module.define_function(id, &mut self.ctx);
        let code_bytes = self
            .ctx
            .compiled_code()
            .map_or(0, |c| c.code_info().total_size as usize);
        module.clear_context(&mut self.ctx);
        if let Err(e) = defined {
            // SAFETY: nothing from this module was finalized or called.
            unsafe { module.free_memory() };
            return Err(jit_error("compile", e));
        }
        if let Err(e) = module.finalize_definitions() {
            // SAFETY: as above: no function pointer was taken.
            unsafe { module.free_memory() };
            return Err(jit_error("finalize", e));
        }
        let code = module.get_finalized_function(id);
        // SAFETY: `code` is the finalized function just defined with `translate::signature`:
        // four pointer-sized integer parameters and a 32-bit result in the ISA's default
        // calling convention, which is `extern "C"` on this host.
        let func = unsafe { core::mem::transmute::<*const u8, ConvertFn>(code) };
        Ok(Compiled {
            module: Some(module),
            func,
            plan,
            code_bytes,
            compile_nanos: start.elapsed().as_nanos() as u64,
        })
    }
}

type ConvertFn = unsafe extern "C" fn(*mut Ctx<'_>, *const u8, usize, *mut u8) -> u32;

/// What the generated code and its helper share during one call.
#[repr(C)]
struct Ctx<'a> {
    /// The destination base; the helper updates it when the output moves. The code reads it
    /// at offset [`translate::CTX_DST`].
    dst: *mut u8,
    plan: &'a Plan,
    src: &'a [u8],
    /// The growable output, or null for a fixed destination of `plan.dst_size` bytes at `dst`.
    out: *mut Vec<u8>,
    /// The caller's cap on the output's size (see [`output_limit`](crate::convert::limit::output_limit)).
    max_output: usize,
}

/// A compiled conversion: native code for one plan, freed when dropped.
pub struct Compiled {
    /// Only kept to free the code.
    module: Option<JITModule>,
    func: ConvertFn,
    plan: Arc<Plan>,
    code_bytes: usize,
    compile_nanos: u64,
}

// SAFETY: after `finalize_definitions`, a `Compiled` only calls its function pointer (code
// that is immutable, executable memory, with no thread affinity) and reads plain numbers; the
// `JITModule` (not `Send` because it holds raw pointers to that memory) is touched again only
// by `Drop`, which needs `&mut self` and so cannot race with a call. The plan is an `Arc`.
unsafe impl Send for Compiled {}
// SAFETY: as above; `&Compiled` allows calling the code concurrently, which only reads the
// plan and writes the caller's own buffers.
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `&mut self` means no call of `self.func` is running, and the pointer
            // dies with `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl core::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Compiled")
            .field("code_bytes", &self.code_bytes)
            .field("compile_nanos", &self.compile_nanos)
            .finish_non_exhaustive()
    }
}

impl Compiled {
    /// Bytes of machine code.
    pub fn code_bytes(&self) -> usize {
        self.code_bytes
    }
    /// How long compiling took, verification and linking included.
    pub fn compile_nanos(&self) -> u64 {
        self.compile_nanos
    }
    /// The plan this code runs.
    pub fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }

    /// Converts like [`interp::run`]: the same bytes, or the same error.
    pub fn run(&self, src: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        self.run_within(src, out, usize::MAX)
    }

    /// Converts like [`interp::run_within`]: the output held to `max_output` bytes.
    pub fn run_within(
        &self,
        src: &[u8],
        out: &mut Vec<u8>,
        max_output: usize,
    ) -> Result<(), Error> {
        let plan = &*self.plan;
        if plan.dst_size > max_output {
            return interp::run_within(plan, src, out, max_output);
        }
        out.truncate(plan.dst_size);
        out.resize(plan.dst_size, 0);
        let dst = out.as_mut_ptr();
        let out_ptr: *mut Vec<u8> = out;
        let mut ctx = Ctx {
            dst,
            plan,
            src,
            out: out_ptr,
            max_output,
        };
        // SAFETY: see the module's safety argument: `self.func` was compiled from this
        // verified plan; `src` is a live slice of `src.len()` bytes, which the code checks
        // against `src_size` before reading; the output holds `dst_size` bytes at `ctx.dst`;
        // `ctx` outlives the call and `out` is reached only through it meanwhile.
        let r = unsafe { (self.func)(&mut ctx, src.as_ptr(), src.len(), dst) };
        if r == 0 {
            Ok(())
        } else {
            // SAFETY: the call has returned; `out_ptr` is the `&mut` we were given, and
            // nothing else refers to it now.
            interp::run_within(plan, src, unsafe { &mut *out_ptr }, max_output)
        }
    }

    /// Converts like [`interp::run_fixed`] into a fixed part of exactly the plan's local size.
    ///
    /// # Panics
    /// If `dst.len()` is not the plan's local size.
    pub fn run_fixed(&self, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        let plan = &*self.plan;
        assert_eq!(
            dst.len(),
            plan.dst_size,
            "run_fixed: output of the wrong size"
        );
        let base = dst.as_mut_ptr();
        let mut ctx = Ctx {
            dst: base,
            plan,
            src,
            out: core::ptr::null_mut(),
            max_output: usize::MAX,
        };
        // SAFETY: as in `run`, with the destination `dst` of exactly `dst_size` bytes, reached
        // only through `base` until the call returns.
        let r = unsafe { (self.func)(&mut ctx, src.as_ptr(), src.len(), base) };
        if r == 0 {
            Ok(())
        } else {
            interp::run_fixed(plan, src, dst)
        }
    }
}

/// Runs one step in the interpreter for generated code: returns 0, or 1 on any error (the
/// caller then reruns the interpreter for the error itself).
///
/// # Safety
/// `ctx` points to the live `Ctx` of the running conversion and `step` into its plan, as the
/// generated code passes them.
unsafe extern "C" fn step_helper(
    ctx: *mut Ctx<'_>,
    step: *const Step,
    sbase: usize,
    dbase: usize,
) -> u32 {
    // SAFETY: the caller's contract: `ctx` is valid for the call, and nothing else uses the
    // context meanwhile (the generated code waits for us).
    let ctx = unsafe { &mut *ctx };
    // SAFETY: the caller's contract: `step` points into `ctx.plan`, alive for the call.
    let step = unsafe { &*step };
    let run = || {
        if ctx.out.is_null() {
            // SAFETY: a fixed destination: `ctx.dst` is the caller's `&mut [u8]` of
            // `dst_size` bytes, not otherwise used during the call.
            let dst = unsafe { core::slice::from_raw_parts_mut(ctx.dst, ctx.plan.dst_size) };
            interp::run_step_fixed(ctx.plan, step, ctx.src, sbase, dst, dbase)
        } else {
            // SAFETY: `ctx.out` is the caller's `&mut Vec<u8>`, reached only through the
            // context during the call.
            let out = unsafe { &mut *ctx.out };
            let r = interp::run_step(ctx.plan, step, ctx.src, sbase, out, dbase, ctx.max_output);
            ctx.dst = out.as_mut_ptr();
            r
        }
    };
    // A panic must not unwind into generated code: report a failure instead, and the
    // interpreter's rerun reports (or raises) it in ordinary Rust.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(())) => 0,
        _ => 1,
    }
}

/// `memcpy` for generated code.
///
/// # Safety
/// `dst` and `src` are valid for `n` bytes and do not overlap.
unsafe extern "C" fn copy_helper(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract; the generated code passes ranges inside the verified
    // source and destination (distinct buffers).
    unsafe { core::ptr::copy_nonoverlapping(src, dst, n) }
}

/// The interpreter's byte-swap kernel for `W`-byte words (`marshal_core::swap::copy_swap*`:
/// AVX2 where the CPU has it, wider than Cranelift's 16-byte vectors), for generated code's
/// long swaps.
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `n` bytes, the two ranges do not overlap,
/// and `n` is a multiple of `W` (2, 4 or 8).
unsafe extern "C" fn swap_helper<const W: usize>(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract: `src` is readable for `n` bytes. The generated code
    // passes a range inside the verified source's fixed part (`verify` bounds it by
    // `src_size`, and the code checked the body holds that many bytes before any access);
    // the body is the caller's `&[u8]`, alive for the call and not written meanwhile.
    let from = unsafe { core::slice::from_raw_parts(src, n) };
    // SAFETY: the caller's contract: `dst` is writable for `n` bytes, inside the destination's
    // fixed part (bounded by `dst_size`, the length `Compiled::run*` guarantee), which is a
    // buffer distinct from the source (the caller holds `&[u8]` and `&mut` to them at once)
    // and reached only through this pointer while the kernel runs. `MaybeUninit<u8>` has the
    // layout of `u8`, and the kernel writes every byte it is given.
    let to = unsafe { core::slice::from_raw_parts_mut(dst.cast::<MaybeUninit<u8>>(), n) };
    // The lengths are equal and `n` is a multiple of `W` (a constant count of whole words),
    // so the kernels' length checks hold and they cannot panic.
    match W {
        2 => swap::copy_swap2(to, from),
        4 => swap::copy_swap4(to, from),
        _ => swap::copy_swap8(to, from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::plan::{IntRepr, Op};
    use crate::{ByteOrder, Format, IOField, NativeField, NativeRecord, NativeType};

    static FIELDS: [NativeField; 3] = [
        NativeField {
            name: "a",
            offset: 0,
            ty: NativeType::Int(4),
        },
        NativeField {
            name: "b",
            offset: 8,
            ty: NativeType::Float(8),
        },
        NativeField {
            name: "c",
            offset: 16,
            ty: NativeType::Array {
                elem: &NativeType::Int(2),
                len: 3,
            },
        },
    ];
    static EDGE: NativeRecord = NativeRecord {
        name: "edge",
        size: 24,
        align: 8,
        fields: &FIELDS,
        defaults: None,
        zero_copy: false,
    };

    /// A big-endian sender whose last field ends exactly at the record's end.
    fn edge_format() -> Format {
        Format::from_fields(
            "edge",
            ByteOrder::Big,
            18,
            &[
                IOField::new("c", "integer[3]", 2, 12),
                IOField::new("b", "float", 8, 4),
                IOField::new("a", "integer", 4, 0),
            ],
            &[],
        )
        .unwrap()
    }

    #[test]
    fn fields_at_the_edge_and_bodies_one_byte_short() {
        let plan = Arc::new(Plan::build(&edge_format(), &EDGE).unwrap());
        let code = Jit::new().unwrap().compile(plan.clone()).unwrap();
        let mut body = 7i32.to_be_bytes().to_vec();
        body.extend_from_slice(&2.5f64.to_be_bytes());
        for x in [1i16, -2, 3] {
            body.extend_from_slice(&x.to_be_bytes());
        }
        assert_eq!(body.len(), 18);
        for n in [18, 17, 12, 0] {
            let (mut a, mut b) = (vec![0u8; 24], vec![0u8; 24]);
            let want = interp::run_fixed(&plan, &body[..n], &mut a);
            let got = code.run_fixed(&body[..n], &mut b);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{n} bytes");
            assert_eq!(a, b);
            assert_eq!(got.is_ok(), n == 18);
        }
        let mut out = vec![0u8; 24];
        code.run_fixed(&body, &mut out).unwrap();
        assert_eq!(&out[..4], &7i32.to_ne_bytes());
        assert_eq!(&out[8..16], &2.5f64.to_ne_bytes());
        assert_eq!(&out[16..18], &1i16.to_ne_bytes());
        assert_eq!(&out[20..22], &3i16.to_ne_bytes());
    }

    fn bogus(steps: Vec<Step>, src_size: usize, dst_size: usize) -> Plan {
        Plan {
            src_size,
            dst_size,
            steps,
            templates: Vec::new(),
            identical: false,
            var: false,
        }
    }

    fn step(src: usize, dst: usize, count: usize, op: Op) -> Step {
        Step {
            src,
            dst,
            count,
            field: "f",
            op,
        }
    }

    /// `count` words of `w` bytes reversed, the expected result of a swap.
    fn reversed(src: &[u8], w: usize) -> Vec<u8> {
        src.chunks(w)
            .flat_map(|c| c.iter().rev().copied())
            .collect()
    }

    /// Swaps long enough to call the interpreter's kernel ([`crate::convert::KERNEL_SWAP`] bytes
    /// or more) and just too short to, of every width, at odd offsets and with odd counts:
    /// the compiled code writes what the interpreter writes (each word reversed) and nothing
    /// outside the field, and refuses a body one byte short as the interpreter does.
    #[test]
    fn long_swaps_call_the_kernel_and_agree_with_the_interpreter() {
        let mut jit = Jit::new().unwrap();
        for w in [2usize, 4, 8] {
            let at = crate::convert::KERNEL_SWAP / w;
            let mut sizes = Vec::new();
            for count in [at - 1, at, at + 1, 3 * at + 7, 12_471] {
                // A field at odd offsets on both sides, padding around it.
                let (src, dst) = (3, 5 + w);
                let plan = Arc::new(bogus(
                    vec![step(src, dst, count, Op::Swap { width: w })],
                    src + count * w + 1,
                    dst + count * w + 3,
                ));
                let code = jit.compile(plan.clone()).unwrap();
                sizes.push((count, code.code_bytes()));
                let body: Vec<u8> = (0..plan.src_size)
                    .map(|i| (i * 7 + i / 256) as u8)
                    .collect();
                let (mut a, mut b) = (vec![0xEEu8; plan.dst_size], vec![0xEEu8; plan.dst_size]);
                interp::run_fixed(&plan, &body, &mut a).unwrap();
                code.run_fixed(&body, &mut b).unwrap();
                assert_eq!(a, b, "w={w} count={count}");
                let field = &b[dst..dst + count * w];
                assert_eq!(field, reversed(&body[src..src + count * w], w));
                assert!(b[..dst]
                    .iter()
                    .chain(&b[dst + count * w..])
                    .all(|&x| x == 0xEE));
                // The growable output, and a body one byte short.
                let mut out = Vec::new();
                code.run(&body, &mut out).unwrap();
                assert_eq!(&out[dst..dst + count * w], field);
                let short = &body[..plan.src_size - 1];
                let want = interp::run_fixed(&plan, short, &mut a).unwrap_err();
                let got = code.run_fixed(short, &mut b).unwrap_err();
                assert_eq!(got.to_string(), want.to_string());
            }
            // At the threshold the swap is one call, smaller than the inline loop below it.
            assert!(sizes[1].1 < sizes[0].1, "w={w}: {sizes:?}");
            assert!(sizes[4].1 < sizes[0].1, "w={w}: {sizes:?}");
        }
    }

    /// Plans that would reach outside the buffers are refused, whatever built them.
    #[test]
    fn plans_outside_their_buffers_are_not_compiled() {
        let int = |size, signed| IntRepr {
            size,
            signed,
            swap: true,
        };
        let cases = [
            bogus(vec![step(13, 0, 1, Op::Swap { width: 4 })], 16, 16),
            bogus(vec![step(0, 13, 1, Op::Swap { width: 4 })], 16, 16),
            bogus(vec![step(0, 0, 5, Op::Copy { width: 4 })], 16, 32),
            bogus(vec![step(0, 0, 1, Op::Swap { width: 3 })], 16, 16),
            bogus(vec![step(0, 0, usize::MAX, Op::Copy { width: 2 })], 16, 16),
            bogus(
                vec![step(
                    0,
                    0,
                    1,
                    Op::Int {
                        from: int(8, true),
                        to: int(4, true),
                    },
                )],
                4,
                4,
            ),
            bogus(
                vec![step(
                    0,
                    0,
                    3,
                    Op::Records {
                        src_stride: 4,
                        dst_stride: 4,
                        steps: vec![step(2, 0, 1, Op::Swap { width: 4 })],
                    },
                )],
                12,
                12,
            ),
            bogus(
                vec![step(
                    0,
                    0,
                    1,
                    Op::Template {
                        index: 0,
                        steps: vec![],
                    },
                )],
                8,
                8,
            ),
            bogus(vec![], crate::MAX_RECORD_SIZE + 1, 8),
        ];
        let mut jit = Jit::new().unwrap();
        for plan in cases {
            let e = jit.compile(Arc::new(plan.clone())).unwrap_err();
            assert!(
                e.to_string().contains("plan not compiled"),
                "{e} for {plan:?}"
            );
        }
        // The same shapes inside their extents compile.
        let ok = bogus(vec![step(12, 12, 1, Op::Swap { width: 4 })], 16, 16);
        jit.compile(Arc::new(ok)).unwrap();
    }
}
