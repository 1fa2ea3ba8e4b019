//! Rust from the IDL syntax tree: modules and interfaces become nested `pub mod`s, types
//! `#[derive(::marshal::Marshal)]` items, and each interface a `Client`, a `Servant` trait and
//! a `skeleton`. Names are resolved as IDL scopes them (innermost scope outwards) and written
//! as paths relative to where they are used (`super::…`), so the output can be included in
//! any module.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::ast::*;
use super::async_stubs::{self, Raises};
use crate::config::GenOptions;
use crate::error::Pos;
use crate::lexer::Diag;
use crate::xdr::generate::{camel, snake};

/// A Rust type, with paths relative to the generated file's root.
#[derive(Debug, Clone)]
enum RTy {
    /// A primitive (`i32`, `bool`, …).
    Prim(&'static str),
    /// `String`.
    String,
    /// `Vec<T>`.
    Vec(Box<RTy>),
    /// `[T; N]`.
    Array(Box<RTy>, u64),
    /// A generated type: module names then the type's name, and whether it takes the
    /// lifetime `'a` (borrowed mode).
    Path(Vec<proc_macro2::Ident>, bool),
    /// An object reference.
    Ior,
    /// Borrowed mode: `Cow<'a, str>` (`true`) or `Cow<'a, [u8]>` (`false`).
    Cow(bool),
}

impl RTy {
    /// The type written in a module `depth` levels below the root, with lifetime `'a`.
    fn emit(&self, depth: usize) -> TokenStream {
        self.emit_lt(depth, &quote!('a))
    }

    /// Whether the type takes a lifetime.
    fn borrows(&self) -> bool {
        match self {
            RTy::Cow(_) => true,
            RTy::Path(_, b) => *b,
            RTy::Vec(t) | RTy::Array(t, _) => t.borrows(),
            RTy::Prim(_) | RTy::String | RTy::Ior => false,
        }
    }

    /// The type with lifetime `lt` (`'a` in definitions and traits, `'_` elsewhere).
    fn emit_lt(&self, depth: usize, lt: &TokenStream) -> TokenStream {
        match self {
            RTy::Prim(p) => {
                let p = format_ident!("{}", p);
                quote!(#p)
            }
            RTy::String => quote!(::std::string::String),
            RTy::Vec(t) => {
                let t = t.emit_lt(depth, lt);
                quote!(::std::vec::Vec<#t>)
            }
            RTy::Array(t, n) => {
                let t = t.emit_lt(depth, lt);
                let n = Literal::usize_unsuffixed(*n as usize);
                quote!([#t; #n])
            }
            RTy::Path(p, borrows) => {
                let sup = (0..depth).map(|_| quote!(super::));
                let lt = borrows.then(|| quote!(<#lt>));
                quote!(#(#sup)* #(#p)::* #lt)
            }
            RTy::Ior => quote!(::marshal::giop::Ior),
            RTy::Cow(true) => quote!(::std::borrow::Cow<#lt, str>),
            RTy::Cow(false) => quote!(::std::borrow::Cow<#lt, [u8]>),
        }
    }
}

/// What a scoped name denotes.
#[derive(Debug, Clone)]
enum Sym<'a> {
    Module,
    /// A type: its Rust path; a typedef also keeps what it stands for.
    Type(Vec<proc_macro2::Ident>, Option<(&'a Type, Vec<String>)>),
    /// An enum: its Rust path and enumerators.
    Enum(Vec<proc_macro2::Ident>),
    /// An enumerator: its enum's path, its ordinal, its name.
    Enumerator(Vec<proc_macro2::Ident>, usize, &'a str),
    /// An exception: its Rust path and repository id.
    Exception(Vec<proc_macro2::Ident>, &'a str),
    /// An interface (forward declarations point at nothing until defined).
    Interface(Option<(&'a Interface, Vec<String>)>),
    /// A constant: type, value and the scope it is declared in.
    Const(&'a Expr, Vec<String>),
}

/// A constant's value.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Int(i128),
    Str(String),
    Bool(bool),
    Enumerator(Vec<proc_macro2::Ident>, usize, String),
}

/// The items of one Rust module, and its submodules in order.
#[derive(Default)]
struct Node {
    doc: String,
    items: Vec<TokenStream>,
    children: Vec<(String, Node)>,
}

impl Node {
    fn child(&mut self, path: &[String]) -> &mut Node {
        let Some((first, rest)) = path.split_first() else {
            return self;
        };
        let i = match self.children.iter().position(|(n, _)| n == first) {
            Some(i) => i,
            None => {
                self.children.push((first.clone(), Node::default()));
                self.children.len() - 1
            }
        };
        self.children[i].1.child(rest)
    }

    fn tokens(&self) -> TokenStream {
        let items = &self.items;
        let children = self.children.iter().map(|(name, n)| {
            let id = snake(name);
            let doc = &n.doc;
            let inner = n.tokens();
            quote! {
                #[doc = #doc]
                pub mod #id { #inner }
            }
        });
        quote!(#(#items)* #(#children)*)
    }
}

struct Gen<'a> {
    syms: HashMap<Vec<String>, Sym<'a>>,
    /// The types (full IDL paths) generated so far that hold an object reference.
    refs: HashSet<Vec<String>>,
    /// Strings and octet sequences as `Cow` ([`Config::borrowed`](super::Config::borrowed)).
    borrowed: bool,
    /// Each interface's `AsyncClient` ([`Config::async_client`](super::Config::async_client)).
    async_client: bool,
    /// Each interface's `AsyncServant` and `service`
    /// ([`Config::async_server`](super::Config::async_server)).
    async_server: bool,
    /// The types generated so far that take the lifetime `'a`.
    borrowing: HashSet<Vec<String>>,
    /// Borrowed mode: the types exceptions hold, generated owned.
    owned: HashSet<Vec<String>>,
    /// Whether the type being generated is one of `owned` (or an exception).
    in_owned: bool,
    /// The member types of each struct, exception, union and typedef, and its scope.
    bodies: HashMap<Vec<String>, (Vec<&'a Type>, Vec<String>)>,
    root: Node,
}

/// Generates the Rust of a parsed file; `file` names it in doc comments.
pub fn generate(defs: &[Def], file: &str, opts: &GenOptions) -> Result<String, Diag> {
    let mut g = Gen {
        syms: HashMap::new(),
        refs: HashSet::new(),
        borrowed: opts.borrowed,
        async_client: opts.async_client,
        async_server: opts.async_server,
        borrowing: HashSet::new(),
        owned: HashSet::new(),
        in_owned: false,
        bodies: HashMap::new(),
        root: Node::default(),
    };
    g.declare(defs, &[])?;
    if g.borrowed {
        let mut owned = HashSet::new();
        g.exception_reach(defs, &[], &mut owned)?;
        g.owned = owned;
    }
    g.defs(defs, &[])?;
    let body = g.root.tokens();
    let header =
        format!("// Generated by marshal-build from `{file}`. Do not edit: edit the IDL file.\n\n");
    let file: syn::File = syn::parse2(body).map_err(|e| {
        Diag::new(
            Pos::START,
            format!("internal error: generated code does not parse: {e}"),
        )
    })?;
    Ok(header + &prettyplease::unparse(&file))
}

/// The Rust path of `name` declared in `scope`.
fn rust_path(scope: &[String], name: &str) -> Vec<proc_macro2::Ident> {
    let mut p: Vec<_> = scope.iter().map(|s| snake(s)).collect();
    p.push(camel(name));
    p
}

fn join(scope: &[String], name: &str) -> Vec<String> {
    let mut p = scope.to_vec();
    p.push(name.to_string());
    p
}

fn err<T>(pos: Pos, msg: impl Into<String>) -> Result<T, Diag> {
    Err(Diag::new(pos, msg))
}

impl<'a> Gen<'a> {
    /// Fills the symbol table.
    fn declare(&mut self, defs: &'a [Def], scope: &[String]) -> Result<(), Diag> {
        for d in defs {
            match d {
                Def::Module(n, inner) => {
                    self.syms.insert(join(scope, &n.name), Sym::Module);
                    self.declare(inner, &join(scope, &n.name))?;
                }
                Def::Typedef(ty, decls) => {
                    for dc in decls {
                        self.bodies
                            .insert(join(scope, &dc.name.name), (vec![ty], scope.to_vec()));
                        let target = dc.dims.is_empty().then(|| (ty, scope.to_vec()));
                        self.syms.insert(
                            join(scope, &dc.name.name),
                            Sym::Type(rust_path(scope, &dc.name.name), target),
                        );
                    }
                }
                Def::Struct(n, members, _) => {
                    let tys = members.iter().map(|m| &m.ty).collect();
                    self.bodies
                        .insert(join(scope, &n.name), (tys, scope.to_vec()));
                    self.syms.insert(
                        join(scope, &n.name),
                        Sym::Type(rust_path(scope, &n.name), None),
                    );
                }
                Def::Union(n, _, cases, _) => {
                    let tys = cases.iter().map(|c| &c.ty).collect();
                    self.bodies
                        .insert(join(scope, &n.name), (tys, scope.to_vec()));
                    self.syms.insert(
                        join(scope, &n.name),
                        Sym::Type(rust_path(scope, &n.name), None),
                    );
                }
                Def::Exception(n, _, id) => {
                    self.syms.insert(
                        join(scope, &n.name),
                        Sym::Exception(rust_path(scope, &n.name), id),
                    );
                }
                Def::Enum(n, items, _) => {
                    let path = rust_path(scope, &n.name);
                    for (i, it) in items.iter().enumerate() {
                        self.syms.insert(
                            join(scope, &it.name),
                            Sym::Enumerator(path.clone(), i, &it.name),
                        );
                    }
                    self.syms.insert(join(scope, &n.name), Sym::Enum(path));
                }
                Def::Const(n, _, e) => {
                    self.syms
                        .insert(join(scope, &n.name), Sym::Const(e, scope.to_vec()));
                }
                Def::Forward(n) => {
                    self.syms
                        .entry(join(scope, &n.name))
                        .or_insert(Sym::Interface(None));
                }
                Def::Interface(it) => {
                    let path = join(scope, &it.name.name);
                    self.syms
                        .insert(path.clone(), Sym::Interface(Some((it, scope.to_vec()))));
                    self.declare(&it.defs, &path)?;
                }
            }
        }
        Ok(())
    }

    /// What `name` used in `scope` denotes, and its full path.
    fn lookup(&self, name: &Scoped, scope: &[String]) -> Result<(Vec<String>, &Sym<'a>), Diag> {
        let starts: Vec<&[String]> = if name.absolute {
            vec![&[]]
        } else {
            (0..=scope.len()).rev().map(|n| &scope[..n]).collect()
        };
        for s in starts {
            let mut full = s.to_vec();
            full.extend(name.parts.iter().cloned());
            if let Some(sym) = self.syms.get(&full) {
                return Ok((full, sym));
            }
            // Names inherited from base interfaces.
            if let Some(Sym::Interface(Some((it, iscope)))) = self.syms.get(s) {
                for b in &it.bases {
                    if let Ok(found) = self.lookup(
                        &Scoped {
                            absolute: true,
                            parts: {
                                let (bp, _) = self.lookup(b, iscope)?;
                                let mut p = bp;
                                p.extend(name.parts.iter().cloned());
                                p
                            },
                            pos: name.pos,
                        },
                        &[],
                    ) {
                        return Ok(found);
                    }
                }
            }
        }
        err(name.pos, format!("`{name}` is not declared"))
    }

    /// The Rust type of `ty` used in `scope`, and its bound (`string<N>`, `sequence<T, N>`).
    fn rty(&self, ty: &Type, scope: &[String]) -> Result<(RTy, Option<u64>), Diag> {
        Ok(match ty {
            Type::Prim(p) => (RTy::Prim(prim(*p)), None),
            Type::String(b) if self.borrowing_now() => {
                (RTy::Cow(true), self.bound(b.as_ref(), scope)?)
            }
            Type::String(b) => (RTy::String, self.bound(b.as_ref(), scope)?),
            Type::Sequence(t, b) => {
                // TODO(issue 22): a bound inside a sequence element (`sequence<string<8>>`)
                // is not checked: the derive's `max_len` applies to the field only.
                let (t, _) = self.rty(t, scope)?;
                let t = match t {
                    RTy::Prim("u8") if self.borrowing_now() => RTy::Cow(false),
                    t => RTy::Vec(Box::new(t)),
                };
                (t, self.bound(b.as_ref(), scope)?)
            }
            Type::Object => (RTy::Ior, None),
            Type::Named(n) => match self.lookup(n, scope)? {
                (full, Sym::Type(p, _)) => {
                    (RTy::Path(p.clone(), self.borrowing.contains(&full)), None)
                }
                (_, Sym::Enum(p)) => (RTy::Path(p.clone(), false), None),
                (_, Sym::Interface(_)) => (RTy::Ior, None),
                (_, Sym::Exception(..)) => {
                    return err(n.pos, format!("`{n}` is an exception, not a type"))
                }
                _ => return err(n.pos, format!("`{n}` is not a type")),
            },
        })
    }

    /// Whether strings and octet sequences are `Cow`s where types are being generated now:
    /// in borrowed mode, except in exceptions and the types they hold (a user exception is
    /// decoded from an error that owns its bytes).
    fn borrowing_now(&self) -> bool {
        self.borrowed && !self.in_owned
    }

    /// Borrowed mode: every type an exception holds, directly or through other types, as
    /// full IDL paths; they are generated owned.
    fn exception_reach(
        &self,
        defs: &'a [Def],
        scope: &[String],
        out: &mut HashSet<Vec<String>>,
    ) -> Result<(), Diag> {
        for d in defs {
            match d {
                Def::Module(n, inner) => self.exception_reach(inner, &join(scope, &n.name), out)?,
                Def::Interface(it) => {
                    self.exception_reach(&it.defs, &join(scope, &it.name.name), out)?
                }
                Def::Exception(_, members, _) => {
                    for m in members {
                        self.reach(&m.ty, scope, out)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Adds the named types `ty` holds (used in `scope`) to `out`, and theirs.
    fn reach(
        &self,
        ty: &Type,
        scope: &[String],
        out: &mut HashSet<Vec<String>>,
    ) -> Result<(), Diag> {
        match ty {
            Type::Sequence(t, _) => self.reach(t, scope, out),
            Type::Named(n) => {
                let (full, _) = self.lookup(n, scope)?;
                if !out.insert(full.clone()) {
                    return Ok(());
                }
                if let Some((tys, s)) = self.bodies.get(&full) {
                    for t in tys {
                        self.reach(t, s, out)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn bound(&self, b: Option<&Expr>, scope: &[String]) -> Result<Option<u64>, Diag> {
        let Some(b) = b else { return Ok(None) };
        match self.eval(b, scope, 0)? {
            Value::Int(n) if n > 0 && n <= i128::from(u32::MAX) => Ok(Some(n as u64)),
            _ => err(b.pos(), "a bound must be a positive integer"),
        }
    }

    /// A declarator's type: arrays around the element type (the element's bound is lost in
    /// an array).
    fn decl_ty(
        &self,
        ty: &Type,
        dc: &Declarator,
        scope: &[String],
    ) -> Result<(RTy, Option<u64>), Diag> {
        let (mut t, bound) = self.rty(ty, scope)?;
        if dc.dims.is_empty() {
            return Ok((t, bound));
        }
        for d in dc.dims.iter().rev() {
            let n = self.bound(Some(d), scope)?.expect("bound of Some is Some");
            t = RTy::Array(Box::new(t), n);
        }
        Ok((t, None))
    }

    /// Evaluates a constant expression.
    fn eval(&self, e: &Expr, scope: &[String], depth: usize) -> Result<Value, Diag> {
        if depth > 64 {
            return err(e.pos(), "constant defined in terms of itself");
        }
        let int = |v: Value, p: Pos| match v {
            Value::Int(n) => Ok(n),
            _ => err(p, "expected an integer"),
        };
        Ok(match e {
            Expr::Int(n, _) => Value::Int(*n),
            Expr::Str(s, _) => Value::Str(s.clone()),
            Expr::Char(c, _) => Value::Int(i128::from(u32::from(*c))),
            Expr::Bool(b, _) => Value::Bool(*b),
            Expr::Name(n) => match self.lookup(n, scope)?.1 {
                Sym::Const(v, s) => self.eval(v, s, depth + 1)?,
                Sym::Enumerator(p, i, name) => Value::Enumerator(p.clone(), *i, name.to_string()),
                _ => return err(n.pos, format!("`{n}` is not a constant")),
            },
            Expr::Unary(op, x, p) => {
                let v = int(self.eval(x, scope, depth + 1)?, x.pos())?;
                Value::Int(match op {
                    '-' => -v,
                    '~' => !v,
                    _ => v,
                })
                .check(*p)?
            }
            Expr::Binary(op, a, b, p) => {
                let x = int(self.eval(a, scope, depth + 1)?, a.pos())?;
                let y = int(self.eval(b, scope, depth + 1)?, b.pos())?;
                let v = match *op {
                    "|" => Some(x | y),
                    "^" => Some(x ^ y),
                    "&" => Some(x & y),
                    "<<" => u32::try_from(y).ok().filter(|s| *s < 64).map(|s| x << s),
                    ">>" => u32::try_from(y).ok().filter(|s| *s < 64).map(|s| x >> s),
                    "+" => x.checked_add(y),
                    "-" => x.checked_sub(y),
                    "*" => x.checked_mul(y),
                    "/" => x.checked_div(y),
                    _ => x.checked_rem(y),
                };
                match v {
                    Some(v) => Value::Int(v).check(*p)?,
                    None => return err(*p, format!("`{op}` overflows or divides by zero")),
                }
            }
        })
    }

    /// Whether a value of `ty` (used in `scope`) holds an object reference, which only CDR
    /// carries: IDL declares types before their use, so the types it names are already
    /// generated and in `self.refs` if they hold one (a struct's `sequence` of itself adds
    /// nothing).
    fn holds_ref(&self, ty: &Type, scope: &[String]) -> Result<bool, Diag> {
        Ok(match ty {
            Type::Prim(_) | Type::String(_) => false,
            Type::Sequence(t, _) => self.holds_ref(t, scope)?,
            Type::Object => true,
            Type::Named(n) => match self.lookup(n, scope)? {
                (_, Sym::Interface(_)) => true,
                (full, _) => self.refs.contains(&full),
            },
        })
    }

    /// The derive of a generated type: a type holding an object reference
    /// ([`holds_ref`](Gen::holds_ref)) is recorded in `self.refs` as `path` and encodes in
    /// CDR only (`Ior` has no encoding in marshal's other formats, whose features the crate
    /// using the output may enable).
    fn derive(&mut self, path: Vec<String>, holds_ref: bool) -> TokenStream {
        let derive = quote!(#[derive(::marshal::Marshal, Debug, Clone, PartialEq)]);
        if holds_ref {
            self.refs.insert(path);
            quote!(#derive #[marshal(formats(cdr))])
        } else {
            derive
        }
    }

    /// `<'a>` for a type at `path` that borrows, which is recorded in `self.borrowing`.
    fn generics(&mut self, path: &[String], borrows: bool) -> Option<TokenStream> {
        borrows.then(|| {
            self.borrowing.insert(path.to_vec());
            quote!(<'a>)
        })
    }

    /// The primitive or enum a union discriminant's type stands for.
    fn disc_kind(&self, ty: &Type, scope: &[String], pos: Pos) -> Result<Disc, Diag> {
        match ty {
            Type::Prim(p) => Ok(match p {
                Prim::Short => Disc::Int("i16"),
                Prim::UShort => Disc::Int("u16"),
                Prim::Long => Disc::Int("i32"),
                Prim::ULong => Disc::Int("u32"),
                // TODO(issue 22): `char` is `i8` elsewhere; the derive switches on `u8`.
                Prim::Char => Disc::Int("u8"),
                Prim::Boolean => Disc::Bool,
                _ => err(pos, "a union cannot switch on this type (marshal-build)")?,
            }),
            Type::Named(n) => match self.lookup(n, scope)?.1 {
                Sym::Enum(p) => Ok(Disc::Enum(p.clone())),
                Sym::Type(_, Some((t, s))) => self.disc_kind(t, s, pos),
                _ => err(n.pos, format!("`{n}` cannot be a union's discriminant")),
            },
            _ => err(pos, "a union cannot switch on this type"),
        }
    }

    // ----- definitions -----

    fn defs(&mut self, defs: &'a [Def], scope: &[String]) -> Result<(), Diag> {
        for d in defs {
            self.def(d, scope)?;
        }
        Ok(())
    }

    fn push(&mut self, scope: &[String], item: TokenStream) {
        self.root.child(scope).items.push(item);
    }

    fn def(&mut self, d: &'a Def, scope: &[String]) -> Result<(), Diag> {
        let depth = scope.len();
        match d {
            Def::Module(n, inner) => {
                let path = join(scope, &n.name);
                self.root.child(&path).doc = format!(" IDL module `{}`.", path.join("::"));
                self.defs(inner, &path)?;
            }
            Def::Forward(_) => {}
            Def::Typedef(ty, decls) => {
                for dc in decls {
                    let name = camel(&dc.name.name);
                    let doc = format!(" IDL `typedef {}`.", dc.name.name);
                    let path = join(scope, &dc.name.name);
                    self.in_owned = self.owned.contains(&path);
                    let (t, bound) = self.decl_ty(ty, dc, scope)?;
                    let gen = self.generics(&path, t.borrows());
                    let t = t.emit(depth);
                    let refs = self.holds_ref(ty, scope)?;
                    let item = match bound {
                        // The bound travels with the type: a newtype.
                        Some(b) => {
                            let b = Literal::u64_unsuffixed(b);
                            let derive = self.derive(path, refs);
                            quote! {
                                #[doc = #doc]
                                #derive
                                pub struct #name #gen (#[marshal(max_len = #b)] pub #t);
                            }
                        }
                        None => {
                            if refs {
                                self.refs.insert(path);
                            }
                            quote! {
                                #[doc = #doc]
                                pub type #name #gen = #t;
                            }
                        }
                    };
                    self.push(scope, item);
                }
            }
            Def::Struct(n, members, id) | Def::Exception(n, members, id) => {
                let name = camel(&n.name);
                let kind = if matches!(d, Def::Struct(..)) {
                    "struct"
                } else {
                    "exception"
                };
                let doc = format!(
                    " IDL {kind} `{}` (`{id}`).",
                    join(scope, &n.name).join("::")
                );
                let mut fields = Vec::new();
                let mut refs = false;
                let path = join(scope, &n.name);
                self.in_owned = matches!(d, Def::Exception(..)) || self.owned.contains(&path);
                let mut borrows = false;
                for m in members {
                    refs |= self.holds_ref(&m.ty, scope)?;
                    for dc in &m.decls {
                        let (t, bound) = self.decl_ty(&m.ty, dc, scope)?;
                        borrows |= t.borrows();
                        let t = t.emit(depth);
                        let f = snake(&dc.name.name);
                        let attr = bound.map(|b| {
                            let b = Literal::u64_unsuffixed(b);
                            quote!(#[marshal(max_len = #b)])
                        });
                        let fdoc = format!(" `{}`.", dc.name.name);
                        fields.push(quote!(#[doc = #fdoc] #attr pub #f: #t));
                    }
                }
                let gen = self.generics(&path, borrows);
                let derive = self.derive(path, refs);
                self.push(
                    scope,
                    quote! {
                        #[doc = #doc]
                        #derive
                        pub struct #name #gen { #(#fields,)* }
                        impl #gen #name #gen {
                            /// The repository id.
                            pub const REPOSITORY_ID: &'static str = #id;
                        }
                    },
                );
            }
            Def::Enum(n, items, id) => {
                let name = camel(&n.name);
                let doc = format!(" IDL enum `{}` (`{id}`).", join(scope, &n.name).join("::"));
                let vs = items.iter().map(|i| {
                    let v = camel(&i.name);
                    let d = format!(" `{}`.", i.name);
                    quote!(#[doc = #d] #v)
                });
                self.push(
                    scope,
                    quote! {
                        #[doc = #doc]
                        #[derive(::marshal::Marshal, Debug, Clone, Copy, PartialEq, Eq, Hash)]
                        pub enum #name { #(#vs,)* }
                        impl #name {
                            /// The repository id.
                            pub const REPOSITORY_ID: &'static str = #id;
                        }
                    },
                );
            }
            Def::Union(n, disc, cases, id) => {
                let mut refs = false;
                let path = join(scope, &n.name);
                self.in_owned = self.owned.contains(&path);
                let mut borrows = false;
                for c in cases {
                    refs |= self.holds_ref(&c.ty, scope)?;
                    borrows |= self.decl_ty(&c.ty, &c.decl, scope)?.0.borrows();
                }
                let gen = self.generics(&path, borrows);
                let derive = self.derive(path, refs);
                let item = self.union(n, disc, cases, id, scope, (derive, gen))?;
                self.push(scope, item);
            }
            Def::Const(n, ty, e) => {
                let item = self.constant(n, ty, e, scope)?;
                self.push(scope, item);
            }
            Def::Interface(it) => self.interface(it, scope)?,
        }
        Ok(())
    }

    fn constant(
        &self,
        n: &Name,
        ty: &Type,
        e: &Expr,
        scope: &[String],
    ) -> Result<TokenStream, Diag> {
        let depth = scope.len();
        let name = format_ident!("{}", n.name);
        let doc = format!(" IDL `const {}`.", n.name);
        let v = self.eval(e, scope, 0)?;
        let (t, value) = match (self.const_ty(ty, scope, n.pos)?, v) {
            (ConstTy::Str, Value::Str(s)) => (quote!(&str), quote!(#s)),
            (ConstTy::Bool, Value::Bool(b)) => (quote!(bool), quote!(#b)),
            (ConstTy::Int(p), Value::Int(v)) => {
                let (lo, hi) = int_range(p);
                if v < lo || v > hi {
                    return err(e.pos(), format!("{v} does not fit `{p}`"));
                }
                let t = format_ident!("{}", p);
                let lit: TokenStream = v.to_string().parse().expect("an integer");
                (quote!(#t), lit)
            }
            (ConstTy::Enum(p), Value::Enumerator(ep, _, name)) if p == ep => {
                let t = RTy::Path(p, false).emit(depth);
                let v = camel(&name);
                (t.clone(), quote!(#t::#v))
            }
            _ => return err(e.pos(), "the value does not have the constant's type"),
        };
        Ok(quote! {
            #[doc = #doc]
            #[allow(non_upper_case_globals)]
            pub const #name: #t = #value;
        })
    }

    fn const_ty(&self, ty: &Type, scope: &[String], pos: Pos) -> Result<ConstTy, Diag> {
        Ok(match ty {
            Type::Prim(Prim::Boolean) => ConstTy::Bool,
            Type::Prim(p) => ConstTy::Int(prim(*p)),
            Type::String(_) => ConstTy::Str,
            Type::Named(n) => match self.lookup(n, scope)?.1 {
                Sym::Enum(p) => ConstTy::Enum(p.clone()),
                Sym::Type(_, Some((t, s))) => self.const_ty(t, s, pos)?,
                _ => return err(n.pos, format!("`{n}` is not a constant's type")),
            },
            _ => return err(pos, "not a constant's type"),
        })
    }

    fn union(
        &self,
        n: &Name,
        disc: &Type,
        cases: &[Case],
        id: &str,
        scope: &[String],
        (derive, gen): (TokenStream, Option<TokenStream>),
    ) -> Result<TokenStream, Diag> {
        let depth = scope.len();
        let name = camel(&n.name);
        let kind = self.disc_kind(disc, scope, n.pos)?;
        // The discriminant's Rust type, which a `default`, `no_member` or several-label arm
        // keeps the decoded discriminant in.
        let disc_ty = match &kind {
            Disc::Int(t) => {
                let t = format_ident!("{}", t);
                quote!(#t)
            }
            Disc::Bool => quote!(bool),
            Disc::Enum(p) => RTy::Path(p.clone(), false).emit(depth),
        };
        let disc_attr = match kind {
            Disc::Int("i32") => None,
            _ => Some(quote!(#[marshal(discriminant = #disc_ty)])),
        };
        let mut variants = Vec::new();
        let mut names = std::collections::HashSet::new();
        let mut seen = std::collections::HashSet::new();
        let mut has_default = false;
        for c in cases {
            let (t, bound) = self.decl_ty(&c.ty, &c.decl, scope)?;
            let t = t.emit(depth);
            let attr = bound.map(|b| {
                let b = Literal::u64_unsuffixed(b);
                quote!(#[marshal(max_len = #b)])
            });
            let vdoc = format!(" `{}`.", c.decl.name.name);
            let mut tags = Vec::new();
            let mut vnames = Vec::new();
            for l in c.labels.iter().flatten() {
                let v = self.eval(l, scope, 0)?;
                let (key, tag, vname) = match (&kind, v) {
                    (Disc::Enum(p), Value::Enumerator(ep, i, en)) if *p == ep => {
                        let v = camel(&en);
                        (i as i128, quote!(#disc_ty::#v), v.to_string())
                    }
                    (Disc::Bool, Value::Bool(b)) => (
                        i128::from(b),
                        if b { quote!(true) } else { quote!(false) },
                        (if b { "True" } else { "False" }).to_string(),
                    ),
                    (Disc::Int(_), Value::Int(v)) => (
                        v,
                        v.to_string().parse().expect("an integer"),
                        if v < 0 {
                            format!("Neg{}", -v)
                        } else {
                            format!("V{v}")
                        },
                    ),
                    _ => return err(l.pos(), "the label does not have the discriminant's type"),
                };
                if !seen.insert(key) {
                    return err(l.pos(), format!("case {key} appears twice in this union"));
                }
                tags.push(tag);
                vnames.push(vname);
            }
            if c.labels.iter().any(Option::is_none) {
                // `default:` covers the arm's other labels too: one variant keeps them all.
                has_default = true;
                names.insert("Default".to_string());
                variants.push(quote! {
                    #[doc = #vdoc]
                    #[marshal(default)]
                    Default(#disc_ty, #attr #t)
                });
            } else if let [tag] = tags.as_slice() {
                let vname = format_ident!("{}", vnames[0]);
                names.insert(vnames[0].clone());
                variants.push(quote! {
                    #[doc = #vdoc]
                    #[marshal(tag = #tag)]
                    #vname(#attr #t)
                });
            } else {
                // Several labels: one variant that keeps the label it was decoded with.
                let joined = vnames.join("Or");
                let vname = format_ident!("{}", joined);
                names.insert(joined);
                variants.push(quote! {
                    #[doc = #vdoc]
                    #[marshal(#(tag = #tags),*)]
                    #vname(#disc_ty, #attr #t)
                });
            }
        }
        // Without `default`, CORBA decodes an unlisted discriminant as "no member".
        if !has_default {
            let all = match &kind {
                Disc::Bool => 2,
                Disc::Enum(p) => self
                    .syms
                    .values()
                    .filter(|s| matches!(s, Sym::Enumerator(ep, ..) if ep == p))
                    .count() as u128,
                Disc::Int(t) => {
                    let (lo, hi) = int_range(t);
                    (hi - lo + 1) as u128
                }
            };
            if (seen.len() as u128) < all {
                let vname = if names.contains("None") {
                    format_ident!("NoMember")
                } else {
                    format_ident!("None")
                };
                variants.push(quote! {
                    /// No member: a discriminant no arm lists.
                    #[marshal(no_member)]
                    #vname(#disc_ty)
                });
            }
        }
        let doc = format!(" IDL union `{}` (`{id}`).", join(scope, &n.name).join("::"));
        Ok(quote! {
            #[doc = #doc]
            #derive
            #disc_attr
            #[allow(clippy::large_enum_variant)]
            pub enum #name #gen { #(#variants,)* }
            impl #gen #name #gen {
                /// The repository id.
                pub const REPOSITORY_ID: &'static str = #id;
            }
        })
    }
}

#[derive(Debug, Clone)]
enum Disc {
    Int(&'static str),
    Bool,
    /// An enum: its Rust path.
    Enum(Vec<proc_macro2::Ident>),
}

enum ConstTy {
    Int(&'static str),
    Bool,
    Str,
    Enum(Vec<proc_macro2::Ident>),
}

impl Value {
    /// An integer within what IDL's largest types hold.
    fn check(self, pos: Pos) -> Result<Value, Diag> {
        match self {
            Value::Int(v) if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) => {
                err(pos, "the value does not fit 64 bits")
            }
            v => Ok(v),
        }
    }
}

fn prim(p: Prim) -> &'static str {
    match p {
        Prim::Short => "i16",
        Prim::UShort => "u16",
        Prim::Long => "i32",
        Prim::ULong => "u32",
        Prim::LongLong => "i64",
        Prim::ULongLong => "u64",
        Prim::Float => "f32",
        Prim::Double => "f64",
        Prim::Char => "i8",
        Prim::Octet => "u8",
        Prim::Boolean => "bool",
    }
}

fn int_range(p: &str) -> (i128, i128) {
    match p {
        "i8" => (-128, 127),
        "u8" => (0, 255),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        _ => (0, u64::MAX.into()),
    }
}

/// An interface's operations and attributes, its own and inherited, each with the scope its
/// types are named in.
#[derive(Default)]
struct Members<'a> {
    ops: Vec<(&'a Operation, Vec<String>)>,
    attrs: Vec<(&'a Attribute, Vec<String>)>,
    ids: Vec<&'a str>,
    seen: Vec<Vec<String>>,
}

/// One parameter or result of a generated method.
struct Slot {
    name: proc_macro2::Ident,
    /// The type in the servant trait (lifetime `'a`).
    ty: TokenStream,
    /// The type in the client and the skeleton (lifetime `'_`).
    ty_c: TokenStream,
    /// What the client's method takes a reference to: `str` and `[u8]` for a `Cow`.
    ty_arg: TokenStream,
    borrows: bool,
}

impl Slot {
    fn new(name: proc_macro2::Ident, t: &RTy, depth: usize) -> Slot {
        let ty_c = t.emit_lt(depth, &quote!('_));
        Slot {
            name,
            ty: t.emit(depth),
            ty_arg: match t {
                RTy::Cow(true) => quote!(str),
                RTy::Cow(false) => quote!([u8]),
                _ => ty_c.clone(),
            },
            ty_c,
            borrows: t.borrows(),
        }
    }
}

/// A tuple type or expression of `items` (`()`, the item, or a tuple).
fn tuple(items: &[TokenStream]) -> TokenStream {
    match items {
        [one] => one.clone(),
        _ => quote!((#(#items),*)),
    }
}

impl<'a> Gen<'a> {
    fn members(
        &self,
        it: &'a Interface,
        iscope: &[String],
        out: &mut Members<'a>,
    ) -> Result<(), Diag> {
        let path = join(iscope, &it.name.name);
        if out.seen.contains(&path) {
            return Ok(());
        }
        out.seen.push(path.clone());
        out.ids.push(&it.id);
        for op in &it.ops {
            out.ops.push((op, path.clone()));
        }
        for a in &it.attrs {
            out.attrs.push((a, path.clone()));
        }
        for b in &it.bases {
            match self.lookup(b, iscope)?.1 {
                Sym::Interface(Some((bi, bscope))) => self.members(bi, bscope, out)?,
                Sym::Interface(None) => {
                    return err(b.pos, format!("`{b}` is declared but not defined"))
                }
                _ => return err(b.pos, format!("`{b}` is not an interface")),
            }
        }
        Ok(())
    }

    fn interface(&mut self, it: &'a Interface, scope: &[String]) -> Result<(), Diag> {
        let path = join(scope, &it.name.name);
        let depth = path.len();
        let mut m = Members::default();
        self.members(it, scope, &mut m)?;
        {
            let node = self.root.child(&path);
            node.doc = format!(
                " IDL interface `{}`: its `Client`, `Servant` trait and `skeleton`.",
                path.join("::")
            );
        }
        self.defs(&it.defs, &path)?;

        let id = &it.id;
        let ids = &m.ids;
        let call_error = quote!(::marshal::giop::CallError);
        let mut client_methods = Vec::new();
        let mut servant_methods = Vec::new();
        let mut error_types = Vec::new();
        // (wire name, dispatch arm body)
        let mut arms: Vec<(String, TokenStream)> = Vec::new();
        // The operations and accessors as the async stubs declare them.
        let mut async_ops: Vec<async_stubs::Op> = Vec::new();

        for (op, oscope) in &m.ops {
            let wire = &op.name.name;
            let method = snake(wire);
            let mut ins = Vec::new();
            let mut outs = Vec::new();
            self.in_owned = false;
            if let Some(r) = &op.ret {
                let (t, _) = self.rty(r, oscope)?;
                outs.push(Slot::new(format_ident!("result"), &t, depth));
            }
            for p in &op.params {
                let (t, _) = self.rty(&p.ty, oscope)?;
                let name = snake(&p.name.name);
                match p.dir {
                    Dir::In => ins.push(Slot::new(name, &t, depth)),
                    Dir::Out => outs.push(Slot::new(name, &t, depth)),
                    Dir::InOut => {
                        outs.push(Slot::new(name.clone(), &t, depth));
                        ins.push(Slot::new(name, &t, depth));
                    }
                }
            }
            // Borrowed mode: the servant's method names the lifetime its arguments and
            // results share; the client's results borrow from the reply.
            let slt = ins
                .iter()
                .chain(&outs)
                .any(|s| s.borrows)
                .then(|| quote!(<'a>));
            // Exceptions raised.
            let mut raised = Vec::new();
            for r in &op.raises {
                match self.lookup(r, oscope)?.1 {
                    Sym::Exception(p, rid) => raised.push((
                        camel(p.last().expect("a name").to_string().as_str()),
                        RTy::Path(p.clone(), false).emit(depth),
                        rid.to_string(),
                    )),
                    _ => return err(r.pos, format!("`{r}` is not an exception")),
                }
            }
            let in_names: Vec<_> = ins.iter().map(|s| &s.name).collect();
            let in_tys: Vec<_> = ins.iter().map(|s| &s.ty).collect();
            let in_tys_c: Vec<_> = ins.iter().map(|s| &s.ty_c).collect();
            let in_tys_arg: Vec<_> = ins.iter().map(|s| &s.ty_arg).collect();
            let out_tys: Vec<_> = outs.iter().map(|s| s.ty.clone()).collect();
            let out_tys_c: Vec<_> = outs.iter().map(|s| s.ty_c.clone()).collect();
            let ret = tuple(&out_tys);
            let ret_c = tuple(&out_tys_c);
            let args = match in_names.as_slice() {
                [] => quote!(&()),
                [one] => quote!(#one),
                many => quote!(&(#(#many),*)),
            };
            let doc = format!(" `{wire}`{}.", if op.oneway { " (oneway)" } else { "" });
            // TODO(issue 22): `oneway` operations are sent expecting a reply: the GIOP client
            // has no one-way send yet.
            let (err_ty, servant_ret) = if raised.is_empty() {
                (call_error.clone(), ret.clone())
            } else {
                let ename = format_ident!("{}Error", camel(wire));
                let variants = raised.iter().map(|(v, t, rid)| {
                    let d = format!(" The user exception `{rid}`.");
                    quote!(#[doc = #d] #v(#t))
                });
                let decode_arms = raised.iter().map(|(v, _, rid)| {
                    quote! {
                        #rid => #ename::#v(
                            client.decode_user_exception(body).map_err(#call_error::Marshal)?,
                        ),
                    }
                });
                let display_arms = raised.iter().map(|(v, _, rid)| {
                    let rid = rid.replace('{', "{{").replace('}', "}}");
                    let fmt = format!("{rid}: {{:?}}");
                    quote!(#ename::#v(e) => write!(f, #fmt, e),)
                });
                let edoc = format!(
                    " What `{wire}` fails with: a user exception it raises, or a failed call."
                );
                error_types.push(quote! {
                    #[doc = #edoc]
                    #[derive(Debug)]
                    #[allow(clippy::large_enum_variant)]
                    pub enum #ename {
                        #(#variants,)*
                        /// The call failed (or, from a servant, a system exception `UNKNOWN`).
                        Call(#call_error),
                    }
                    impl #ename {
                        fn from_call(client: &::marshal::giop::Client, e: #call_error) -> #ename {
                            let decoded = match &e {
                                #call_error::UserException { repository_id, body } => {
                                    (|| -> ::core::result::Result<#ename, #call_error> {
                                        ::core::result::Result::Ok(match repository_id.as_str() {
                                            #(#decode_arms)*
                                            _ => return ::core::result::Result::Err(#call_error::Protocol(
                                                ::std::format!("unexpected user exception {repository_id}"))),
                                        })
                                    })()
                                }
                                _ => return #ename::Call(e),
                            };
                            decoded.unwrap_or_else(#ename::Call)
                        }
                    }
                    impl ::core::convert::From<#call_error> for #ename {
                        fn from(e: #call_error) -> Self {
                            #ename::Call(e)
                        }
                    }
                    impl ::core::fmt::Display for #ename {
                        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            match self {
                                #(#display_arms)*
                                #ename::Call(e) => ::core::fmt::Display::fmt(e, f),
                            }
                        }
                    }
                    impl ::std::error::Error for #ename {}
                });
                (quote!(#ename), quote!(::core::result::Result<#ret, #ename>))
            };
            let invoke = match (raised.is_empty(), self.borrowed) {
                (true, false) => quote!(self.inner.invoke::<_, #ret_c>(#wire, #args)),
                (true, true) => quote!(self.inner.invoke_ref::<_, #ret_c>(#wire, #args)),
                (false, false) => quote! {
                    self.inner
                        .invoke::<_, #ret_c>(#wire, #args)
                        .map_err(|e| #err_ty::from_call(&self.inner, e))
                },
                // The error is decoded before anything borrows the client.
                (false, true) => quote! {
                    self.inner.invoke_ref_or_else::<_, #ret_c, #err_ty>(#wire, #args, #err_ty::from_call)
                },
            };
            client_methods.push(quote! {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments, clippy::type_complexity)]
                pub fn #method(&mut self, #(#in_names: &#in_tys_arg),*) -> ::core::result::Result<#ret_c, #err_ty> {
                    #invoke
                }
            });
            servant_methods.push(quote! {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments, clippy::type_complexity)]
                fn #method #slt(&self, #(#in_names: #in_tys),*) -> #servant_ret;
            });
            let decode = if ins.is_empty() {
                quote!(call.args::<()>()?;)
            } else {
                let pat = tuple(&in_names.iter().map(|n| quote!(#n)).collect::<Vec<_>>());
                let ty = tuple(&in_tys_c.iter().map(|t| quote!(#t)).collect::<Vec<_>>());
                quote!(let #pat: #ty = call.args()?;)
            };
            let answer = if raised.is_empty() {
                quote!(call.reply(&self.0.#method(#(#in_names),*)))
            } else {
                let ename = format_ident!("{}Error", camel(wire));
                let raise = raised.iter().map(|(v, _, rid)| {
                    quote!(::core::result::Result::Err(#ename::#v(e)) => call.user_exception(#rid, &e),)
                });
                quote! {
                    match self.0.#method(#(#in_names),*) {
                        ::core::result::Result::Ok(r) => call.reply(&r),
                        #(#raise)*
                        ::core::result::Result::Err(#ename::Call(_)) => call.system_exception(
                            &::marshal::giop::SystemException::new(
                                "UNKNOWN", 0, ::marshal::giop::Completion::Maybe)),
                    }
                }
            };
            arms.push((wire.clone(), quote!({ #decode #answer })));
            async_ops.push(async_stubs::Op {
                wire: wire.clone(),
                method: method.clone(),
                doc: doc.clone(),
                params: in_names.iter().map(|n| (*n).clone()).collect(),
                client_params: in_tys_arg.iter().map(|t| (*t).clone()).collect(),
                decoded_params: in_tys_c.iter().map(|t| (*t).clone()).collect(),
                servant_params: in_tys.iter().map(|t| (*t).clone()).collect(),
                result: ret_c.clone(),
                result_borrows: outs.iter().any(|s| s.borrows),
                servant_result: servant_ret.clone(),
                borrows: slt.is_some(),
                raises: (!raised.is_empty()).then(|| Raises {
                    error: format_ident!("{}Error", camel(wire)),
                    exceptions: raised
                        .iter()
                        .map(|(v, _, rid)| (v.clone(), rid.clone()))
                        .collect(),
                }),
            });
        }

        for (a, ascope) in &m.attrs {
            self.in_owned = false;
            let (rt, _) = self.rty(&a.ty, ascope)?;
            let t = rt.emit(depth);
            let t_c = rt.emit_lt(depth, &quote!('_));
            let lt = rt.borrows().then(|| quote!(<'a>));
            let invoke = if self.borrowed {
                quote!(invoke_ref)
            } else {
                quote!(invoke)
            };
            for n in &a.names {
                let get = snake(&n.name);
                let get_wire = format!("_get_{}", n.name);
                let gdoc = format!(" Reads attribute `{}`.", n.name);
                client_methods.push(quote! {
                    #[doc = #gdoc]
                    pub fn #get(&mut self) -> ::core::result::Result<#t_c, #call_error> {
                        self.inner.#invoke::<_, #t_c>(#get_wire, &())
                    }
                });
                servant_methods.push(quote! {
                    #[doc = #gdoc]
                    fn #get #lt(&self) -> #t;
                });
                arms.push((
                    get_wire.clone(),
                    quote!({ call.args::<()>()?; call.reply(&self.0.#get()) }),
                ));
                async_ops.push(async_stubs::Op {
                    wire: get_wire,
                    method: get.clone(),
                    doc: gdoc,
                    params: Vec::new(),
                    client_params: Vec::new(),
                    decoded_params: Vec::new(),
                    servant_params: Vec::new(),
                    result: t_c.clone(),
                    result_borrows: rt.borrows(),
                    servant_result: t.clone(),
                    borrows: rt.borrows(),
                    raises: None,
                });
                if !a.readonly {
                    let set = format_ident!(
                        "set_{}",
                        snake(&n.name).to_string().trim_start_matches("r#")
                    );
                    let set_wire = format!("_set_{}", n.name);
                    let sdoc = format!(" Writes attribute `{}`.", n.name);
                    client_methods.push(quote! {
                        #[doc = #sdoc]
                        pub fn #set(&mut self, value: &#t_c) -> ::core::result::Result<(), #call_error> {
                            self.inner.invoke::<_, ()>(#set_wire, value)
                        }
                    });
                    servant_methods.push(quote! {
                        #[doc = #sdoc]
                        fn #set #lt(&self, value: #t);
                    });
                    arms.push((
                        set_wire.clone(),
                        quote!({ let value: #t_c = call.args()?; self.0.#set(value); call.reply(&()) }),
                    ));
                    async_ops.push(async_stubs::Op {
                        wire: set_wire,
                        method: set,
                        doc: sdoc,
                        params: vec![format_ident!("value")],
                        client_params: vec![t_c.clone()],
                        decoded_params: vec![t_c.clone()],
                        servant_params: vec![t.clone()],
                        result: quote!(()),
                        result_borrows: false,
                        servant_result: quote!(()),
                        borrows: rt.borrows(),
                        raises: None,
                    });
                }
            }
        }
        arms.push((
            "_is_a".into(),
            quote!({
                let id: ::std::string::String = call.args()?;
                call.reply(&REPOSITORY_IDS.contains(&id.as_str()))
            }),
        ));
        for ne in ["_non_existent", "_not_existent"] {
            arms.push((
                ne.into(),
                quote!({
                    call.args::<()>()?;
                    call.reply(&false)
                }),
            ));
        }

        let dispatch = demux(arms, &quote!(call.bad_operation()));

        let idoc = format!(" The repository id of `{}`.", path.join("::"));
        let skeleton_name = format!("{} skeleton", path.join("::"));
        let items = quote! {
            #[doc = #idoc]
            pub const REPOSITORY_ID: &str = #id;
            /// The repository ids this interface answers `_is_a` for: its own and its bases'.
            pub const REPOSITORY_IDS: &[&str] = &[#(#ids),*];

            #(#error_types)*

            /// A typed client of the interface over a GIOP client.
            #[derive(Debug)]
            pub struct Client {
                inner: ::marshal::giop::Client,
            }

            // Methods are named after the IDL's operations (`from_idl_form`), whatever Rust's
            // conventions for such names.
            #[allow(clippy::wrong_self_convention)]
            impl Client {
                /// A client calling through `inner` (connected to an object of this interface).
                pub fn new(inner: ::marshal::giop::Client) -> Client {
                    Client { inner }
                }
                /// The GIOP client, for settings (timeouts, byte order).
                pub fn inner(&mut self) -> &mut ::marshal::giop::Client {
                    &mut self.inner
                }
                /// The GIOP client back.
                pub fn into_inner(self) -> ::marshal::giop::Client {
                    self.inner
                }
                /// Whether the object is of interface `repository_id` (CORBA's `_is_a`).
                pub fn is_a(&mut self, repository_id: &str) -> ::core::result::Result<bool, #call_error> {
                    self.inner.invoke::<_, bool>("_is_a", repository_id)
                }
                #(#client_methods)*
            }

            /// What an implementation of the interface provides: one method per operation
            /// and attribute (the inherited ones too).
            #[allow(clippy::wrong_self_convention)]
            pub trait Servant: Send + Sync + 'static {
                #(#servant_methods)*
            }

            /// A GIOP servant dispatching to `imp`; it also answers `_is_a` and
            /// `_non_existent`.
            pub fn skeleton(imp: impl Servant) -> impl ::marshal::giop::Servant {
                Skeleton(imp)
            }

            struct Skeleton<S>(S);

            impl<S> ::core::fmt::Debug for Skeleton<S> {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#skeleton_name)
                }
            }

            /// An operation name as little-endian 8-byte words, the last zero-padded: the
            /// constants the skeleton matches names against.
            const fn op_words<const N: usize>(name: &[u8]) -> [u64; N] {
                let mut w = [0u64; N];
                let mut i = 0;
                while i < name.len() {
                    w[i / 8] |= (name[i] as u64) << (8 * (i % 8));
                    i += 1;
                }
                w
            }

            /// [`op_words`] of a received name, a word at a time.
            fn words<const N: usize>(op: &[u8]) -> [u64; N] {
                let mut w = [0u64; N];
                for (i, c) in op.chunks(8).enumerate() {
                    let mut b = [0u8; 8];
                    b[..c.len()].copy_from_slice(c);
                    w[i] = u64::from_le_bytes(b);
                }
                w
            }

            impl<S: Servant> ::marshal::giop::Servant for Skeleton<S> {
                fn invoke(&self, call: &mut ::marshal::giop::Call<'_>) -> ::core::result::Result<(), ::marshal::Error> {
                    let op = call.operation();
                    #dispatch
                }
            }
        };
        self.root.child(&path).items.push(items);
        if self.async_client {
            let client = async_stubs::client(&async_ops);
            self.root.child(&path).items.push(client);
        }
        if self.async_server {
            let mut arms: Vec<(String, TokenStream)> = async_ops
                .iter()
                .map(|op| (op.wire.clone(), async_stubs::arm(op)))
                .collect();
            arms.extend(async_stubs::builtin_arms());
            let dispatch = demux(arms, &async_stubs::bad_operation());
            let server = async_stubs::server(&async_ops, dispatch, &path.join("::"));
            self.root.child(&path).items.push(server);
        }
        Ok(())
    }
}

/// Flick's demultiplexing of the operation name `op`, `arms` being each name's answer and
/// `bad` the answer to any other name: the name's length first, then the name as whole 8-byte
/// words (little-endian, the last one zero-padded) matched as integers, so the compiler
/// builds a decision tree of word compares rather than a chain of string compares. A name
/// listed twice is answered by its first arm. Needs the interface module's `op_words` and
/// `words`.
fn demux(arms: Vec<(String, TokenStream)>, bad: &TokenStream) -> TokenStream {
    let mut by_len: std::collections::BTreeMap<usize, Vec<(String, TokenStream)>> =
        std::collections::BTreeMap::new();
    for (w, body) in arms {
        let v = by_len.entry(w.len()).or_default();
        if v.iter().any(|(x, _)| *x == w) {
            continue;
        }
        v.push((w, body));
    }
    let len_arms = by_len.iter().map(|(len, v)| {
        let n = Literal::usize_unsuffixed(len.div_ceil(8));
        let lit_len = Literal::usize_unsuffixed(*len);
        let consts = v.iter().map(|(w, _)| {
            let c = format_ident!("{}", w.to_uppercase());
            let lit = Literal::byte_string(w.as_bytes());
            quote!(const #c: [u64; #n] = op_words(#lit);)
        });
        let inner = v.iter().map(|(w, body)| {
            let c = format_ident!("{}", w.to_uppercase());
            quote!(#c => #body)
        });
        quote!(#lit_len => {
            #(#consts)*
            match words::<#n>(op) { #(#inner,)* _ => #bad, }
        })
    });
    quote! {
        match op.len() {
            #(#len_arms)*
            _ => #bad,
        }
    }
}
