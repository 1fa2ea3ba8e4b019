//! Test support, not API: pseudo-random values of a `.x` file's types, made alike in C over
//! rpcgen's types (`rpcgen -h`) and in Rust over this crate's, so that a test can encode the
//! same value with rpcgen's `xdr_<type>` and with marshal and compare the bytes
//! (`marshal-build/tests-crate/tests/rpcgen_exact.rs`).
//!
//! Both sides walk a type's declaration and draw from the same PRNG (splitmix64, [`C_SUPPORT`]
//! and [`RUST_SUPPORT`]) in the same order, by these rules:
//!
//! - integers: one draw, truncated to the type's width (`hyper`s take all 64 bits); `bool`:
//!   draw % 2; `float`/`double`: (draw % 2001 − 1000) / 4, exact in both (no NaN);
//! - an enum: its `n` enumerators as declared (aliases included), the one at draw % n;
//! - a struct: its fields in order;
//! - a union: the choices are every label of every arm, in order (each label of a
//!   `case A: case B:` arm is a choice), then `default` when Rust can hold it: the one at
//!   draw % count. The discriminant of `default` is, for `int`/`unsigned`, a draw incremented
//!   (wrapping) past the case labels; for an enum or `bool`, the values no case uses, as
//!   declared, the one at draw % their number (none: no `default` choice). Then the arm;
//! - `T x<N>`: a length draw % (min(N, 3) + 1) (strings and opaque data: min(N, 8)), then the
//!   elements (string characters `'a' + draw % 26`, bytes one draw each); `T x[N]`: the
//!   `N` elements;
//! - `T *x`: present if draw % 2 == 1 and fewer than `MAX_DEPTH` (3) pointers are followed
//!   already (so lists stay finite), then `T` one level deeper;
//! - a type the file uses without defining it: `rand_<name>` (Rust) and
//!   `marshal_rand_<name>` (C, `void (struct marshal_rng *, <name> *, int depth)`), which the
//!   includer supplies; rpcgen's `netobj` and `des_block` are built in.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::ast::*;
use super::generate::{camel, snake, Disc, Gen, UnionLayout, DES_BLOCK, NETOBJ};
use crate::lexer::Diag;

/// The C every filler includes as `"marshal_random.h"`: the PRNG and a type's table entry
/// (`random_support.h`).
pub const C_SUPPORT: &str = include_str!("random_support.h");

/// The Rust the fillers use unqualified (`Rng`, `MAX_DEPTH`): `include!` it once and bring it
/// into scope where the fillers are included (`random_support.rs`).
pub const RUST_SUPPORT: &str = include_str!("random_support.rs");

/// The fillers of one `.x` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fillers {
    /// C: `#include`s `"marshal_random.h"` ([`C_SUPPORT`]) and rpcgen's `"<stem>.h"`; one
    /// `marshal_rand_<type>` per type, and the table `marshal_random_<stem>[]` of
    /// `struct marshal_random_type`, ended by a NULL name (`<stem>` with every character that
    /// is not a letter or digit as `_`).
    pub c: String,
    /// Rust: one `pub fn rand_<type>(rng: &mut Rng, depth: u32) -> <RustType>` per type, then
    /// `marshal_random_types! { "<type>" => <RustType>, rand_<type>; … }`, for a macro the
    /// includer defines. The file's types, [`RUST_SUPPORT`] and the external types' fillers
    /// must be in scope.
    pub rust: String,
}

/// The fillers of a parsed file named `file` (`mount.x`).
pub(super) fn fillers(defs: &[Definition], file: &str) -> Result<Fillers, Diag> {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned());
    let mut f = Filler {
        g: Gen::new(defs, file),
        c_protos: String::new(),
        c_fns: String::new(),
        c_table: String::new(),
        rust_fns: Vec::new(),
        rust_table: Vec::new(),
        used: BTreeSet::new(),
    };
    for d in defs {
        f.definition(d)?;
    }
    f.builtins();
    Ok(Fillers {
        c: f.c(file, &stem),
        rust: f.rust(file)?,
    })
}

struct Filler<'a> {
    g: Gen<'a>,
    c_protos: String,
    c_fns: String,
    c_table: String,
    rust_fns: Vec<TokenStream>,
    rust_table: Vec<TokenStream>,
    /// Types used but not defined: rpcgen's built-ins, or the includer's.
    used: BTreeSet<String>,
}

/// What a C filler function starts with.
const C_PREAMBLE: &str = "\t(void)r;\n\t(void)depth;\n";

impl<'a> Filler<'a> {
    fn definition(&mut self, d: &'a Definition) -> Result<(), Diag> {
        let (name, c_body, rust_body) = match d {
            Definition::Const(..) | Definition::Program(_) => return Ok(()),
            Definition::Typedef(t) => {
                let mut c = String::new();
                self.c_decl(t, "(*p)", &mut c)?;
                let (_, bound) = self.g.decl_type(t, &TokenStream::new())?;
                let value = self.rust_decl(t)?;
                let rust = match bound {
                    // A bounded typedef is a newtype.
                    Some(_) => {
                        let id = camel(&t.name.name);
                        quote!(#id(#value))
                    }
                    None => value,
                };
                (&t.name, c, rust)
            }
            Definition::Enum(n, es) => {
                let id = camel(&n.name);
                let mut c = format!("\tswitch (marshal_rng_next(r) % {}) {{\n", es.len());
                let mut arms = Vec::new();
                for (i, e) in es.iter().enumerate() {
                    writeln!(c, "\tcase {i}: *p = {}; break;", e.name.name).unwrap();
                    let vid = camel(&e.name.name);
                    let i = Literal::u64_unsuffixed(i as u64);
                    arms.push(quote!(#i => #id::#vid,));
                }
                c.push_str("\t}\n");
                let n_lit = Literal::u64_unsuffixed(es.len() as u64);
                let rust = quote!(match rng.draw() % #n_lit { #(#arms)* _ => unreachable!() });
                (n, c, rust)
            }
            Definition::Struct(n, fields) => {
                let id = camel(&n.name);
                let mut c = String::new();
                let mut fs = Vec::new();
                for f in fields {
                    self.c_decl(f, &format!("(*p).{}", f.name.name), &mut c)?;
                    let fid = snake(&f.name.name);
                    let value = self.rust_decl(f)?;
                    fs.push(quote!(#fid: #value));
                }
                // Rust evaluates a struct expression's fields in the order written: the
                // order of the C statements.
                (n, c, quote!(#id { #(#fs,)* }))
            }
            Definition::Union(n, u) => {
                let (c, rust) = self.union(n, u)?;
                (n, c, rust)
            }
        };
        let cname = &name.name;
        let id = camel(cname);
        let rust_fn = format_ident!("rand_{}", cname);
        writeln!(
            self.c_protos,
            "static void marshal_rand_{cname}(struct marshal_rng *r, {cname} *p, int depth);"
        )
        .unwrap();
        write!(
            self.c_fns,
            "static void marshal_rand_{cname}(struct marshal_rng *r, {cname} *p, int depth)\n\
             {{\n{C_PREAMBLE}{c_body}}}\n\n\
             static void marshal_seed_{cname}(uint64_t seed, void *p)\n\
             {{\n\tstruct marshal_rng r = {{ seed }};\n\tmarshal_rand_{cname}(&r, p, 0);\n}}\n\n"
        )
        .unwrap();
        writeln!(
            self.c_table,
            "\t{{ \"{cname}\", (xdrproc_t)xdr_{cname}, marshal_seed_{cname}, sizeof({cname}) }},"
        )
        .unwrap();
        let doc = format!(" A pseudo-random `{cname}`.");
        // `% 1`: a choice of one still draws, as C does.
        self.rust_fns.push(quote! {
            #[doc = #doc]
            #[allow(non_snake_case, unused_variables, clippy::modulo_one)]
            pub fn #rust_fn(rng: &mut Rng, depth: u32) -> #id {
                #rust_body
            }
        });
        self.rust_table.push(quote!(#cname => #id, #rust_fn;));
        Ok(())
    }

    /// A union's C statements and Rust expression.
    fn union(&mut self, n: &Name, u: &'a Union) -> Result<(String, TokenStream), Diag> {
        let layout = self.g.union_layout(u)?;
        let disc = format!("(*p).{}", u.discriminant.name.name);
        let arm_lv = |d: &Decl| format!("(*p).{}_u.{}", n.name, d.name.name);
        let mut c = String::new();
        let mut rust = Vec::new();
        let mut k = 0u64;
        for (ai, a) in u.arms.iter().enumerate() {
            for (li, l) in a.labels.iter().enumerate() {
                let value = self.g.resolve(l)?;
                writeln!(c, "\tcase {k}:\n\t\t{disc} = {};", c_number(value)).unwrap();
                if let Some(d) = &a.decl {
                    c.push_str(&indent(&self.c_stmts(d, &arm_lv(d))?, 1));
                }
                c.push_str("\t\tbreak;\n");
                let body = a.decl.as_ref().map(|d| self.rust_decl(d)).transpose()?;
                let expr = match &layout {
                    UnionLayout::Option { .. } => match (value, body) {
                        (1, Some(b)) => quote!(::core::option::Option::Some(#b)),
                        _ => quote!(::core::option::Option::None),
                    },
                    UnionLayout::Enum { arms, .. } => {
                        let arm = &arms[ai];
                        let vid = &arm.variant;
                        let id = camel(&n.name);
                        match (arm.labels.len(), body) {
                            (1, Some(b)) => quote!(#id::#vid(#b)),
                            (1, None) => quote!(#id::#vid),
                            (_, b) => {
                                let label = &arm.labels[li].tokens;
                                let b = b.map(|b| quote!(, #b));
                                quote!(#id::#vid(#label #b))
                            }
                        }
                    }
                };
                let kl = Literal::u64_unsuffixed(k);
                rust.push(quote!(#kl => #expr,));
                k += 1;
            }
        }
        if let (
            Some(d),
            UnionLayout::Enum {
                kind,
                arms,
                default,
                ..
            },
        ) = (&u.default, &layout)
        {
            let labels: Vec<i128> = arms
                .iter()
                .flat_map(|a| a.labels.iter().map(|l| l.value))
                .collect();
            let (vid, _) = default.as_ref().expect("a default arm has a variant");
            let id = camel(&n.name);
            let body = d
                .as_ref()
                .map(|d| self.rust_decl(d).map(|b| quote!(, #b)))
                .transpose()?;
            let c_arm = match d {
                Some(d) => indent(&self.c_stmts(d, &arm_lv(d))?, 1),
                None => String::new(),
            };
            let kl = Literal::u64_unsuffixed(k);
            match kind {
                Disc::I32 | Disc::U32 => {
                    let words: Vec<u32> = labels.iter().map(|&v| v as u32).collect();
                    let c_cond = words
                        .iter()
                        .map(|w| format!("d == {w}u"))
                        .collect::<Vec<_>>()
                        .join(" || ");
                    writeln!(
                        c,
                        "\tcase {k}: {{\n\t\tuint32_t d = (uint32_t)marshal_rng_next(r);"
                    )
                    .unwrap();
                    let words: Vec<Literal> =
                        words.into_iter().map(Literal::u32_suffixed).collect();
                    let skip = if words.is_empty() {
                        quote!()
                    } else {
                        writeln!(c, "\t\twhile ({c_cond})\n\t\t\td++;").unwrap();
                        quote! {
                            while matches!(d, #(#words)|*) {
                                d = d.wrapping_add(1);
                            }
                        }
                    };
                    write!(c, "\t\t{disc} = d;\n{c_arm}\t\tbreak;\n\t}}\n").unwrap();
                    let d_value = match kind {
                        Disc::I32 => quote!(d as i32),
                        _ => quote!(d),
                    };
                    let mutable = (!skip.is_empty()).then(|| quote!(mut));
                    rust.push(quote!(#kl => {
                        let #mutable d = rng.draw() as u32;
                        #skip
                        #id::#vid(#d_value #body)
                    }));
                    k += 1;
                }
                Disc::Bool | Disc::Enum(_) => {
                    // The values no case uses, as the discriminant's type declares them.
                    let free: Vec<(String, TokenStream)> = match kind {
                        Disc::Bool => [(0, "FALSE", quote!(false)), (1, "TRUE", quote!(true))]
                            .into_iter()
                            .filter(|(v, ..)| !labels.contains(v))
                            .map(|(_, c, r)| (c.to_string(), r))
                            .collect(),
                        Disc::Enum(e) => {
                            let eid = camel(e);
                            let mut free = Vec::new();
                            for en in self.g.enums[e.as_str()] {
                                if !labels.contains(&self.g.resolve(&en.value)?) {
                                    let vid = camel(&en.name.name);
                                    free.push((en.name.name.clone(), quote!(#eid::#vid)));
                                }
                            }
                            free
                        }
                        _ => unreachable!(),
                    };
                    if !free.is_empty() {
                        writeln!(
                            c,
                            "\tcase {k}:\n\t\tswitch (marshal_rng_next(r) % {}) {{",
                            free.len()
                        )
                        .unwrap();
                        let mut choose = Vec::new();
                        for (i, (cv, rv)) in free.iter().enumerate() {
                            writeln!(c, "\t\tcase {i}: {disc} = {cv}; break;").unwrap();
                            let i = Literal::u64_unsuffixed(i as u64);
                            choose.push(quote!(#i => #rv,));
                        }
                        write!(c, "\t\t}}\n{c_arm}\t\tbreak;\n").unwrap();
                        let m = Literal::u64_unsuffixed(free.len() as u64);
                        rust.push(quote!(#kl => {
                            let d = match rng.draw() % #m { #(#choose)* _ => unreachable!() };
                            #id::#vid(d #body)
                        }));
                        k += 1;
                    }
                }
            }
        }
        // The parser wants a `case` arm: this only guards the `% k` below.
        if k == 0 {
            return Err(Diag::new(
                n.pos,
                format!("union `{}` has no value that Rust can hold", n.name),
            ));
        }
        let c = format!("\tswitch (marshal_rng_next(r) % {k}) {{\n{c}\t}}\n");
        let kl = Literal::u64_unsuffixed(k);
        Ok((
            c,
            quote!(match rng.draw() % #kl { #(#rust)* _ => unreachable!() }),
        ))
    }

    /// [`c_decl`](Filler::c_decl)'s statements.
    fn c_stmts(&mut self, d: &Decl, lv: &str) -> Result<String, Diag> {
        let mut out = String::new();
        self.c_decl(d, lv, &mut out)?;
        Ok(out)
    }

    /// [`c_base`](Filler::c_base)'s statement.
    fn c_stmts_base(&mut self, d: &Decl, lv: &str, depth: &str) -> Result<String, Diag> {
        let mut out = String::new();
        self.c_base(d, lv, depth, &mut out)?;
        Ok(out)
    }

    /// C statements that fill `lv`, an lvalue of the C type rpcgen gives declaration `d`.
    fn c_decl(&mut self, d: &Decl, lv: &str, out: &mut String) -> Result<(), Diag> {
        let name = &d.name.name;
        match &d.shape {
            Shape::Plain => self.c_base(d, lv, "depth", out),
            Shape::Optional => {
                write!(
                    out,
                    "\tif (marshal_rng_next(r) % 2 == 1 && depth < MARSHAL_RANDOM_MAX_DEPTH) {{\n\
                     \t\t{lv} = malloc(sizeof *{lv});\n"
                )
                .unwrap();
                let stmt = self.c_stmts_base(d, &format!("(*{lv})"), "depth + 1")?;
                out.push_str(&indent(&stmt, 1));
                writeln!(out, "\t}} else {{\n\t\t{lv} = NULL;\n\t}}").unwrap();
                Ok(())
            }
            Shape::Fixed(n) => {
                let n = self.g.size(n)?;
                writeln!(out, "\t{{\n\t\tu_int i;\n\t\tfor (i = 0; i < {n}; i++) {{").unwrap();
                match d.ty {
                    Type::Opaque => {
                        writeln!(out, "\t\t\t{lv}[i] = (char)marshal_rng_next(r);").unwrap()
                    }
                    Type::String => return Err(Diag::new(d.name.pos, "`string x[N]`")),
                    _ => {
                        let stmt = self.c_stmts_base(d, &format!("{lv}[i]"), "depth")?;
                        out.push_str(&indent(&stmt, 2));
                    }
                }
                writeln!(out, "\t\t}}\n\t}}").unwrap();
                Ok(())
            }
            Shape::Var(bound) => {
                let bound = bound.as_ref().map(|b| self.g.size(b)).transpose()?;
                match d.ty {
                    Type::String => {
                        let m = var_len(bound, 8) + 1;
                        write!(
                            out,
                            "\t{{\n\t\tu_int n = marshal_rng_next(r) % {m}, i;\n\
                             \t\t{lv} = malloc(n + 1);\n\
                             \t\tfor (i = 0; i < n; i++)\n\
                             \t\t\t{lv}[i] = 'a' + marshal_rng_next(r) % 26;\n\
                             \t\t{lv}[n] = 0;\n\t}}\n"
                        )
                        .unwrap();
                        Ok(())
                    }
                    Type::Opaque => {
                        c_var_opaque(
                            &format!("{lv}.{name}_len"),
                            &format!("{lv}.{name}_val"),
                            bound,
                            out,
                        );
                        Ok(())
                    }
                    _ => {
                        let m = var_len(bound, 3) + 1;
                        let (len, val) = (format!("{lv}.{name}_len"), format!("{lv}.{name}_val"));
                        write!(
                            out,
                            "\t{{\n\t\tu_int n = marshal_rng_next(r) % {m}, i;\n\
                             \t\t{len} = n;\n\
                             \t\t{val} = malloc((n + 1) * sizeof *{val});\n\
                             \t\tfor (i = 0; i < n; i++) {{\n"
                        )
                        .unwrap();
                        let stmt = self.c_stmts_base(d, &format!("{val}[i]"), "depth")?;
                        out.push_str(&indent(&stmt, 2));
                        writeln!(out, "\t\t}}\n\t}}").unwrap();
                        Ok(())
                    }
                }
            }
        }
    }

    /// A C statement that fills `lv`, an lvalue of `d`'s base type.
    fn c_base(&mut self, d: &Decl, lv: &str, depth: &str, out: &mut String) -> Result<(), Diag> {
        let cast = match &d.ty {
            Type::Int => "(int32_t)(uint32_t)",
            Type::UInt => "(uint32_t)",
            Type::Hyper => "(int64_t)",
            Type::UHyper => "(uint64_t)",
            Type::Short => "(int16_t)(uint16_t)",
            Type::UShort => "(uint16_t)",
            Type::Char => "(char)(uint8_t)",
            Type::UChar => "(u_char)",
            Type::Float | Type::Double => {
                let t = if d.ty == Type::Float {
                    "float"
                } else {
                    "double"
                };
                writeln!(
                    out,
                    "\t{lv} = ({t})((int)(marshal_rng_next(r) % 2001) - 1000) / 4;"
                )
                .unwrap();
                return Ok(());
            }
            Type::Bool => {
                writeln!(out, "\t{lv} = (bool_t)(marshal_rng_next(r) % 2);").unwrap();
                return Ok(());
            }
            Type::String | Type::Opaque => return Err(not_alone(d)),
            Type::Named(n) => {
                self.uses(&n.name);
                writeln!(out, "\tmarshal_rand_{}(r, &{lv}, {depth});", n.name).unwrap();
                return Ok(());
            }
        };
        writeln!(out, "\t{lv} = {cast}marshal_rng_next(r);").unwrap();
        Ok(())
    }

    /// A Rust expression, of the type this crate generates for declaration `d`, over `rng`
    /// and `depth`.
    fn rust_decl(&mut self, d: &Decl) -> Result<TokenStream, Diag> {
        Ok(match &d.shape {
            Shape::Plain => self.rust_base(d, quote!(depth))?,
            Shape::Optional => {
                let inner = self.rust_base(d, quote!(depth + 1))?;
                quote! {
                    if rng.draw() % 2 == 1 && depth < MAX_DEPTH {
                        ::core::option::Option::Some(::std::boxed::Box::new(#inner))
                    } else {
                        ::core::option::Option::None
                    }
                }
            }
            Shape::Fixed(n) => {
                let n = Literal::usize_unsuffixed(self.g.size(n)? as usize);
                match d.ty {
                    Type::Opaque => quote!({
                        let mut a = [0u8; #n];
                        for b in a.iter_mut() {
                            *b = rng.draw() as u8;
                        }
                        a
                    }),
                    Type::String => return Err(Diag::new(d.name.pos, "`string x[N]`")),
                    _ => {
                        let elem = self.rust_base(d, quote!(depth))?;
                        quote!({
                            let mut v = ::std::vec::Vec::with_capacity(#n);
                            for _ in 0..#n {
                                v.push(#elem);
                            }
                            match v.try_into() {
                                ::core::result::Result::Ok(a) => a,
                                ::core::result::Result::Err(_) => unreachable!(),
                            }
                        })
                    }
                }
            }
            Shape::Var(bound) => {
                let bound = bound.as_ref().map(|b| self.g.size(b)).transpose()?;
                match d.ty {
                    Type::String => {
                        let m = Literal::u64_unsuffixed(u64::from(var_len(bound, 8)) + 1);
                        quote!({
                            let n = (rng.draw() % #m) as usize;
                            let mut s = ::std::string::String::with_capacity(n);
                            for _ in 0..n {
                                s.push(char::from(b'a' + (rng.draw() % 26) as u8));
                            }
                            s
                        })
                    }
                    Type::Opaque => rust_var_opaque(bound),
                    _ => {
                        let m = Literal::u64_unsuffixed(u64::from(var_len(bound, 3)) + 1);
                        let elem = self.rust_base(d, quote!(depth))?;
                        quote!({
                            let n = (rng.draw() % #m) as usize;
                            let mut v = ::std::vec::Vec::with_capacity(n);
                            for _ in 0..n {
                                v.push(#elem);
                            }
                            v
                        })
                    }
                }
            }
        })
    }

    /// A Rust expression of `d`'s base type.
    fn rust_base(&mut self, d: &Decl, depth: TokenStream) -> Result<TokenStream, Diag> {
        Ok(match &d.ty {
            Type::Int => quote!(rng.draw() as i32),
            Type::UInt => quote!(rng.draw() as u32),
            Type::Hyper => quote!(rng.draw() as i64),
            Type::UHyper => quote!(rng.draw()),
            Type::Short => quote!(rng.draw() as i16),
            Type::UShort => quote!(rng.draw() as u16),
            Type::Char => quote!(rng.draw() as i8),
            Type::UChar => quote!(rng.draw() as u8),
            Type::Float => quote!(((rng.draw() % 2001) as i32 - 1000) as f32 / 4.0),
            Type::Double => quote!(((rng.draw() % 2001) as i32 - 1000) as f64 / 4.0),
            Type::Bool => quote!(rng.draw() % 2 == 1),
            Type::String | Type::Opaque => return Err(not_alone(d)),
            Type::Named(n) => {
                self.uses(&n.name);
                let f = format_ident!("rand_{}", n.name);
                quote!(#f(rng, #depth))
            }
        })
    }

    /// Notes a use of a type the file does not define.
    fn uses(&mut self, name: &str) {
        if !self.g.defined.contains(name) {
            self.used.insert(name.to_string());
        }
    }

    /// The fillers of rpcgen's built-in types the file uses; the includer's types get a
    /// C prototype.
    fn builtins(&mut self) {
        for name in std::mem::take(&mut self.used) {
            let (c_body, rust_body, rust_ty) = match name.as_str() {
                NETOBJ => {
                    let mut c = String::new();
                    c_var_opaque("(*p).n_len", "(*p).n_bytes", Some(1024), &mut c);
                    let body = rust_var_opaque(Some(1024));
                    (c, quote!(Netobj(#body)), quote!(Netobj))
                }
                DES_BLOCK => {
                    let c = "\t{\n\t\tu_int i;\n\t\tfor (i = 0; i < 8; i++)\n\
                             \t\t\t(*p).c[i] = (char)marshal_rng_next(r);\n\t}\n"
                        .to_string();
                    let rust = quote!({
                        let mut a = [0u8; 8];
                        for b in a.iter_mut() {
                            *b = rng.draw() as u8;
                        }
                        a
                    });
                    (c, rust, quote!(DesBlock))
                }
                _ => {
                    writeln!(
                        self.c_protos,
                        "void marshal_rand_{name}(struct marshal_rng *r, {name} *p, int depth);"
                    )
                    .unwrap();
                    continue;
                }
            };
            writeln!(
                self.c_protos,
                "static void marshal_rand_{name}(struct marshal_rng *r, {name} *p, int depth);"
            )
            .unwrap();
            write!(
                self.c_fns,
                "static void marshal_rand_{name}(struct marshal_rng *r, {name} *p, int depth)\n\
                 {{\n{C_PREAMBLE}{c_body}}}\n\n"
            )
            .unwrap();
            let f = format_ident!("rand_{}", name);
            let doc = format!(" A pseudo-random `{name}` (rpcgen's).");
            self.rust_fns.push(quote! {
                #[doc = #doc]
                #[allow(unused_variables)]
                pub fn #f(rng: &mut Rng, depth: u32) -> #rust_ty {
                    #rust_body
                }
            });
        }
    }

    fn c(&self, file: &str, stem: &str) -> String {
        let table: String = stem
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!(
            "/* Pseudo-random values of the types of `{file}` (marshal-build test support).\n \
             * Generated by marshal-build. Do not edit. */\n\n\
             #include \"marshal_random.h\"\n#include \"{stem}.h\"\n\n\
             {}\n{}\
             const struct marshal_random_type marshal_random_{table}[] = {{\n{}\t{{ NULL, NULL, NULL, 0 }}\n}};\n",
            self.c_protos, self.c_fns, self.c_table
        )
    }

    fn rust(&self, file: &str) -> Result<String, Diag> {
        let fns = &self.rust_fns;
        let table = &self.rust_table;
        let tokens = quote! {
            #(#fns)*
            marshal_random_types! { #(#table)* }
        };
        let parsed: syn::File = syn::parse2(tokens).map_err(|e| {
            Diag::new(
                crate::error::Pos::START,
                format!("internal error: generated fillers do not parse: {e}"),
            )
        })?;
        Ok(format!(
            "// Pseudo-random values of the types of `{file}` (marshal-build test support).\n\
             // Generated by marshal-build. Do not edit.\n\n{}",
            prettyplease::unparse(&parsed)
        ))
    }
}

/// C lines indented `n` more tabs.
fn indent(c: &str, n: usize) -> String {
    let tabs = "\t".repeat(n);
    c.lines().map(|l| format!("{tabs}{l}\n")).collect()
}

/// The longest length drawn for `x<bound>`: at most `most`.
fn var_len(bound: Option<u32>, most: u32) -> u32 {
    bound.map_or(most, |b| b.min(most))
}

/// C statements that fill counted opaque data.
fn c_var_opaque(len: &str, val: &str, bound: Option<u32>, out: &mut String) {
    let m = var_len(bound, 8) + 1;
    write!(
        out,
        "\t{{\n\t\tu_int n = marshal_rng_next(r) % {m}, i;\n\
         \t\t{len} = n;\n\
         \t\t{val} = malloc(n + 1);\n\
         \t\tfor (i = 0; i < n; i++)\n\
         \t\t\t{val}[i] = (char)marshal_rng_next(r);\n\t}}\n"
    )
    .unwrap();
}

/// A Rust expression of counted opaque data (`Vec<u8>`).
fn rust_var_opaque(bound: Option<u32>) -> TokenStream {
    let m = Literal::u64_unsuffixed(u64::from(var_len(bound, 8)) + 1);
    quote!({
        let n = (rng.draw() % #m) as usize;
        let mut v = ::std::vec::Vec::with_capacity(n);
        for _ in 0..n {
            v.push(rng.draw() as u8);
        }
        v
    })
}

/// A C literal of a discriminant's value.
fn c_number(v: i128) -> String {
    if v < 0 {
        format!("({v})")
    } else if v > i128::from(i32::MAX) {
        format!("{v}u")
    } else {
        v.to_string()
    }
}

fn not_alone(d: &Decl) -> Diag {
    Diag::new(
        d.name.pos,
        format!(
            "`{}`: `string` and `opaque` need `<…>` or `[…]`",
            d.name.name
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    mod support {
        include!("random_support.rs");
    }

    fn fillers_of(x: &str) -> Fillers {
        let defs = super::super::parse::parse(&crate::lexer::lex(x).unwrap()).unwrap();
        fillers(&defs, "t.x").unwrap()
    }

    #[test]
    fn the_rng_is_splitmix64_alike_in_both_languages() {
        // splitmix64's first outputs from 0.
        let mut r = support::Rng::new(0);
        assert_eq!(r.draw(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.draw(), 0x6e78_9e6a_a1b9_65f4);
        for constant in [
            "0x9e3779b97f4a7c15",
            "0xbf58476d1ce4e5b9",
            "0x94d049bb133111eb",
        ] {
            assert!(C_SUPPORT.contains(constant), "{constant}");
        }
        assert!(C_SUPPORT.contains(&format!(
            "#define MARSHAL_RANDOM_MAX_DEPTH {}\n",
            support::MAX_DEPTH
        )));
    }

    #[test]
    fn c_follows_rpcgen_layouts() {
        let f = fillers_of(
            "typedef opaque blob<4>;
             struct s { int v<>; string name<>; s *next; int fixed[2]; };
             union u switch (int k) { case 1: blob b; case 2: opaque raw<>; default: void; };",
        );
        // A typedef's counted array is the typedef's own members.
        assert!(f.c.contains("(*p).blob_len = n;"), "{}", f.c);
        // A field's: `<field>.<field>_len`.
        assert!(f.c.contains("(*p).v.v_len = n;"));
        assert!(f
            .c
            .contains("(*p).v.v_val = malloc((n + 1) * sizeof *(*p).v.v_val);"));
        assert!(f.c.contains("(*p).name[n] = 0;"));
        assert!(f.c.contains("(*p).next = malloc(sizeof *(*p).next);"));
        assert!(f.c.contains("marshal_rand_s(r, &(*(*p).next), depth + 1);"));
        assert!(f
            .c
            .contains("(*p).fixed[i] = (int32_t)(uint32_t)marshal_rng_next(r);"));
        // A union's arms are members of `<union>_u`.
        assert!(f.c.contains("marshal_rand_blob(r, &(*p).u_u.b, depth);"));
        assert!(f.c.contains("(*p).u_u.raw.raw_len = n;"));
        assert!(f
            .c
            .contains("{ \"u\", (xdrproc_t)xdr_u, marshal_seed_u, sizeof(u) },"));
        assert!(f
            .c
            .contains("const struct marshal_random_type marshal_random_t[] = {"));
        // The Rust side parses, names the generator's types and lists every type.
        assert!(f
            .rust
            .contains("pub fn rand_blob(rng: &mut Rng, depth: u32) -> Blob {"));
        assert!(f.rust.contains("Blob({"));
        assert!(f.rust.contains("\"s\" => S, rand_s;"));
    }

    #[test]
    fn union_choices_follow_the_generated_variants() {
        let f = fillers_of(
            "enum status { OK = 0, PERM = 1, IO = 5, NOENT = 2, EIO = 5 };
             union res switch (status st) {
             case OK: int n; case PERM: case IO: void; default: hyper code; };
             union opt switch (bool b) { case TRUE: int yes; case FALSE: void; };
             union by_int switch (int k) { case -1: case 7: int x; default: void; };
             union full switch (bool b) { case TRUE: void; case FALSE: int no; default: int d; };",
        );
        // Labels, then the default arm with the enumerators no case uses (NOENT; EIO is IO).
        assert!(f.rust.contains("match rng.draw() % 4 {"), "{}", f.rust);
        assert!(f.rust.contains("0 => Res::Ok(rng.draw() as i32),"));
        assert!(f.rust.contains("1 => Res::PermOrIo(Status::Perm),"));
        assert!(f.rust.contains("2 => Res::PermOrIo(Status::Io),"));
        assert!(f
            .rust
            .contains("match rng.draw() % 1 {\n                0 => Status::Noent,"));
        assert!(f.c.contains("case 0: (*p).st = NOENT; break;"), "{}", f.c);
        // `switch (bool)` with TRUE: T and FALSE: void is an `Option`.
        assert!(f
            .rust
            .contains("0 => ::core::option::Option::Some(rng.draw() as i32),"));
        assert!(f.rust.contains("1 => ::core::option::Option::None,"));
        // `int`: a draw moved past the labels, as words.
        assert!(f.rust.contains("while matches!(d, 4294967295u32 | 7u32)"));
        assert!(f.c.contains("while (d == 4294967295u || d == 7u)"));
        assert!(f.rust.contains("ByInt::Default(d as i32)"));
        assert!(f.c.contains("(*p).k = (-1);"));
        // Both `bool`s used: `default` is no choice.
        assert!(f.c.contains("marshal_rand_full(struct marshal_rng *r, full *p, int depth)\n{\n\t(void)r;\n\t(void)depth;\n\tswitch (marshal_rng_next(r) % 2) {"));
    }

    #[test]
    fn rpcgen_builtins_and_external_types() {
        let f = fillers_of("struct s { netobj key; des_block b; rpcprog_t prog; };");
        assert!(f.c.contains("(*p).n_len = n;"));
        assert!(f.c.contains("(*p).c[i] = (char)marshal_rng_next(r);"));
        assert!(f
            .rust
            .contains("pub fn rand_netobj(rng: &mut Rng, depth: u32) -> Netobj {"));
        assert!(f
            .rust
            .contains("pub fn rand_des_block(rng: &mut Rng, depth: u32) -> DesBlock {"));
        // What the includer supplies: declared, not defined.
        assert!(f.c.contains(
            "void marshal_rand_rpcprog_t(struct marshal_rng *r, rpcprog_t *p, int depth);"
        ));
        assert!(!f.rust.contains("fn rand_rpcprog_t"));
        assert!(f.rust.contains("prog: rand_rpcprog_t(rng, depth),"));
    }

    #[test]
    fn a_default_no_enumerator_is_left_for_is_no_choice() {
        let f = fillers_of("enum e { A = 0, B = 1 }; union u switch (e d) { case A: case B: void; default: int x; };");
        assert!(
            f.c.contains("switch (marshal_rng_next(r) % 2) {"),
            "{}",
            f.c
        );
        assert!(!f.rust.contains("U::Default"), "{}", f.rust);
        assert!(f.rust.contains("1 => U::AOrB(E::B),"));
    }
}
