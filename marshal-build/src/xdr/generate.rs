//! Rust from the syntax tree: `#[derive(::marshal::Marshal)]` types and, per program version,
//! a module with its numbers, a typed `Client`, a `Server` trait and `program` (and, when
//! asked, the async stubs of [`async_stubs`]).

use std::collections::{BTreeSet, HashMap};

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

use super::ast::*;
use super::async_stubs::{self, Stub};
use crate::config::GenOptions;
use crate::lexer::Diag;

/// Rust's keywords: such a name becomes a raw identifier.
const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// An identifier for `name`: raw if it is a keyword, `name_` if it cannot be raw.
fn ident(name: &str) -> Ident {
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") || name.is_empty() {
        format_ident!("{}_", name)
    } else if RUST_KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// A type's or variant's name: heck's `UpperCamelCase`.
pub fn camel(name: &str) -> Ident {
    ident(&name.to_upper_camel_case())
}

/// A field's, method's or module's name: heck's `snake_case`.
pub fn snake(name: &str) -> Ident {
    ident(&name.to_snake_case())
}

/// rpcgen's own types, generated when a file uses them without defining them.
pub(super) const NETOBJ: &str = "netobj";
pub(super) const DES_BLOCK: &str = "des_block";

pub(super) struct Gen<'a> {
    file: &'a str,
    /// Constants and enumerators by name.
    values: HashMap<&'a str, &'a Value>,
    /// Typedefs by name.
    typedefs: HashMap<&'a str, &'a Decl>,
    /// Enums by name.
    pub(super) enums: HashMap<&'a str, &'a [Enumerator]>,
    /// Every type the file defines.
    pub(super) defined: BTreeSet<&'a str>,
    /// rpcgen's built-in types used.
    builtins: BTreeSet<&'static str>,
    /// Strings and opaque data as `Cow<'a, …>` ([`Config::borrowed`](super::Config::borrowed)).
    borrowed: bool,
    /// The types that take the lifetime `'a` (those that hold a `Cow`, directly or not).
    borrowing: BTreeSet<&'a str>,
    /// The lifetime written for them: `'a` in definitions and trait methods, `'_` elsewhere.
    lt: TokenStream,
    /// The path to the `marshal` crate (`::marshal`, or [`Config::marshal_path`](super::Config::marshal_path)).
    m: TokenStream,
    /// `#[marshal(crate = "…")]` on derived types when the path is not `::marshal`.
    crate_attr: TokenStream,
    /// An `AsyncClient` per program version ([`Config::async_client`](super::Config::async_client)).
    async_client: bool,
    /// An `AsyncServer` trait and its service per program version
    /// ([`Config::async_server`](super::Config::async_server)).
    async_server: bool,
}

/// What a union switches on.
pub(super) enum Disc {
    I32,
    U32,
    Bool,
    /// An enum of the file, by its `.x` name.
    Enum(String),
}

/// How a union is represented in Rust.
pub(super) enum UnionLayout<'u> {
    /// `switch (bool)` with `TRUE: T` and `FALSE: void`: `Option<T>` (`ty` is `T`).
    Option { ty: TokenStream },
    /// An enum: a variant per arm, in the order of the `.x` file, and the default arm's.
    Enum {
        /// What the union switches on.
        kind: Disc,
        /// Its Rust type.
        disc_ty: TokenStream,
        /// The `case` arms.
        arms: Vec<UnionArm<'u>>,
        /// The `default` arm's variant and declaration (`None`: `void`).
        default: Option<(Ident, Option<&'u Decl>)>,
    },
}

/// One `case` arm of a union as an enum's variant: `V(T)` for one label, `AOrB(D, T)` (holding
/// the label) for several.
pub(super) struct UnionArm<'u> {
    /// The variant's name.
    pub variant: Ident,
    /// The labels, in order.
    pub labels: Vec<Label>,
    /// The arm's declaration, `None` for `void`.
    pub decl: Option<&'u Decl>,
}

/// A case label: its value, and that value as Rust of the discriminant's type.
pub(super) struct Label {
    /// The value.
    pub value: i128,
    /// `Status::Perm`, `3`, `true`.
    pub tokens: TokenStream,
}

/// Generates the Rust of a parsed file; `file` names it in doc comments.
pub fn generate(defs: &[Definition], file: &str, opts: &GenOptions) -> Result<String, Diag> {
    let mut g = Gen::new(defs, file);
    g.borrowed = opts.borrowed;
    g.async_client = opts.async_client;
    g.async_server = opts.async_server;
    if let Some(path) = &opts.marshal_path {
        let p: syn::Path = syn::parse_str(path).map_err(|e| {
            Diag::new(
                crate::error::Pos::START,
                format!("the marshal path `{path}` is not a Rust path: {e}"),
            )
        })?;
        g.m = quote!(#p);
        g.crate_attr = quote!(#[marshal(crate = #path)]);
    }
    if g.borrowed {
        g.borrowing = borrowing(defs);
    }
    let mut items = Vec::new();
    let mut seen: HashMap<String, &Name> = HashMap::new();
    for d in defs {
        if let Some(item) = g.definition(d, &mut seen)? {
            items.push(item);
        }
    }
    let (rt, crate_attr) = (g.m.clone(), g.crate_attr.clone());
    if g.builtins.contains(NETOBJ) {
        items.push(quote! {
            /// rpcgen's `netobj`: `opaque<MAX_NETOBJ_SZ>` (1024).
            #[derive(#rt::Marshal, Debug, Clone, PartialEq, Eq, Hash, Default)]
            #crate_attr
            #[allow(dead_code)]
            pub struct Netobj(#[marshal(max_len = 1024)] pub ::std::vec::Vec<u8>);
        });
    }
    if g.builtins.contains(DES_BLOCK) {
        items.push(quote! {
            /// rpcgen's `des_block`: 8 opaque bytes.
            #[allow(dead_code)]
            pub type DesBlock = [u8; 8];
        });
    }
    let file_tokens = quote!(#(#items)*);
    let parsed: syn::File = syn::parse2(file_tokens).map_err(|e| {
        Diag::new(
            crate::error::Pos::START,
            format!("internal error: generated code does not parse: {e}"),
        )
    })?;
    Ok(format!(
        "// Generated by marshal-build from `{file}`. Do not edit.\n\n{}",
        prettyplease::unparse(&parsed)
    ))
}

impl<'a> Gen<'a> {
    /// The file's constants, enumerators, typedefs and enums, and every type it defines.
    pub(super) fn new(defs: &'a [Definition], file: &'a str) -> Gen<'a> {
        let mut g = Gen {
            file,
            values: HashMap::new(),
            typedefs: HashMap::new(),
            enums: HashMap::new(),
            defined: BTreeSet::new(),
            builtins: BTreeSet::new(),
            borrowed: false,
            borrowing: BTreeSet::new(),
            lt: quote!('a),
            m: quote!(::marshal),
            crate_attr: TokenStream::new(),
            async_client: false,
            async_server: false,
        };
        for d in defs {
            let name = match d {
                Definition::Const(n, v) => {
                    g.values.insert(&n.name, v);
                    continue;
                }
                Definition::Enum(n, es) => {
                    for e in es {
                        g.values.insert(&e.name.name, &e.value);
                    }
                    g.enums.insert(&n.name, es);
                    n
                }
                Definition::Typedef(t) => {
                    g.typedefs.insert(&t.name.name, t);
                    &t.name
                }
                Definition::Struct(n, _) | Definition::Union(n, _) => n,
                Definition::Program(p) => {
                    // rpcgen `#define`s program, version and procedure names: usable as constants.
                    g.values.insert(&p.name.name, &p.number);
                    for v in &p.versions {
                        g.values.insert(&v.name.name, &v.number);
                        for pr in &v.procedures {
                            g.values.insert(&pr.name.name, &pr.number);
                        }
                    }
                    continue;
                }
            };
            g.defined.insert(&name.name);
        }
        g
    }

    /// The value of a constant expression.
    pub(super) fn resolve(&self, v: &Value) -> Result<i128, Diag> {
        self.resolve_depth(v, 0)
    }

    fn resolve_depth(&self, v: &Value, depth: usize) -> Result<i128, Diag> {
        match v {
            Value::Number(n, _) => Ok(*n),
            Value::Str(_, p) => Err(Diag::new(*p, "expected a number, found a string")),
            Value::Name(n) => match (self.values.get(n.name.as_str()), n.name.as_str()) {
                (Some(_), _) if depth > 64 => Err(Diag::new(
                    n.pos,
                    format!("`{}` is defined by itself", n.name),
                )),
                (Some(v), _) => self.resolve_depth(v, depth + 1),
                (None, "TRUE") => Ok(1),
                (None, "FALSE") => Ok(0),
                (None, _) => Err(Diag::new(n.pos, format!("unknown constant `{}`", n.name))),
            },
        }
    }

    /// A bound or size: a non-negative number that fits `u32`.
    pub(super) fn size(&self, v: &Value) -> Result<u32, Diag> {
        let n = self.resolve(v)?;
        u32::try_from(n)
            .map_err(|_| Diag::new(value_pos(v), format!("size {n} is not in 0..=4294967295")))
    }

    /// A discriminant's wire value (`int` or `unsigned`): as the `i32` the derive takes.
    fn tag(&self, v: &Value) -> Result<i32, Diag> {
        let n = self.resolve(v)?;
        if let Ok(t) = i32::try_from(n) {
            Ok(t)
        } else if let Ok(u) = u32::try_from(n) {
            Ok(u as i32)
        } else {
            Err(Diag::new(value_pos(v), format!("{n} does not fit 32 bits")))
        }
    }

    /// A named type's Rust path (`prefix` reaches the file's top level).
    fn named(&mut self, n: &Name, prefix: &TokenStream) -> TokenStream {
        if !self.defined.contains(n.name.as_str()) {
            if n.name == NETOBJ {
                self.builtins.insert(NETOBJ);
            } else if n.name == DES_BLOCK {
                self.builtins.insert(DES_BLOCK);
            }
        }
        let id = camel(&n.name);
        if self.borrowing.contains(n.name.as_str()) {
            let lt = &self.lt;
            quote!(#prefix #id<#lt>)
        } else {
            quote!(#prefix #id)
        }
    }

    /// Whether a type takes the lifetime (in borrowed mode).
    fn borrows(&self, ty: &Type) -> bool {
        match ty {
            Type::String | Type::Opaque => self.borrowed,
            Type::Named(n) => self.borrowing.contains(n.name.as_str()),
            _ => false,
        }
    }

    /// The generics of a definition named `name`: `<'a>` if it borrows.
    fn generics(&self, name: &Name) -> Option<TokenStream> {
        self.borrowing
            .contains(name.name.as_str())
            .then(|| quote!(<'a>))
    }

    fn base(&mut self, ty: &Type, prefix: &TokenStream) -> TokenStream {
        match ty {
            Type::Int => quote!(i32),
            Type::UInt => quote!(u32),
            Type::Hyper => quote!(i64),
            Type::UHyper => quote!(u64),
            Type::Short => quote!(i16),
            Type::UShort => quote!(u16),
            Type::Char => quote!(i8),
            Type::UChar => quote!(u8),
            Type::Float => quote!(f32),
            Type::Double => quote!(f64),
            Type::Bool => quote!(bool),
            Type::String if self.borrowed => {
                let lt = &self.lt;
                quote!(::std::borrow::Cow<#lt, str>)
            }
            Type::Opaque if self.borrowed => {
                let lt = &self.lt;
                quote!(::std::borrow::Cow<#lt, [u8]>)
            }
            Type::String => quote!(::std::string::String),
            Type::Opaque => quote!(::std::vec::Vec<u8>),
            Type::Named(n) => self.named(n, prefix),
        }
    }

    /// A declaration's Rust type and its `max_len`.
    pub(super) fn decl_type(
        &mut self,
        d: &Decl,
        prefix: &TokenStream,
    ) -> Result<(TokenStream, Option<u32>), Diag> {
        if d.ty == Type::UChar && matches!(d.shape, Shape::Fixed(_) | Shape::Var(_)) {
            // `[u8; N]` and `Vec<u8>` are opaque data to marshal (one byte each), where rpcgen
            // codes each `unsigned char` as a word.
            return Err(Diag::new(
                d.name.pos,
                "an array of `unsigned char` is one 4-byte word per element in rpcgen's coding, \
                 which marshal-build does not generate: declare it `opaque` (packed bytes) or \
                 `unsigned int`",
            ));
        }
        let base = self.base(&d.ty, prefix);
        Ok(match &d.shape {
            Shape::Plain => (base, None),
            Shape::Optional => (
                quote!(::core::option::Option<::std::boxed::Box<#base>>),
                None,
            ),
            Shape::Fixed(v) => {
                let n = proc_macro2::Literal::u32_unsuffixed(self.size(v)?);
                match d.ty {
                    Type::Opaque => (quote!([u8; #n]), None),
                    _ => (quote!([#base; #n]), None),
                }
            }
            Shape::Var(v) => {
                let bound = v.as_ref().map(|v| self.size(v)).transpose()?;
                match d.ty {
                    Type::String | Type::Opaque => (base, bound),
                    _ => (quote!(::std::vec::Vec<#base>), bound),
                }
            }
        })
    }

    /// The type a declaration points to, through typedefs (`typedef struct x *xp; xp next;`).
    fn pointee(&self, d: &Decl) -> Option<String> {
        let mut d: &Decl = d;
        for _ in 0..64 {
            match (&d.shape, &d.ty) {
                (Shape::Optional, Type::Named(n)) => return Some(n.name.clone()),
                (Shape::Plain, Type::Named(n)) => d = self.typedefs.get(n.name.as_str())?,
                _ => return None,
            }
        }
        None
    }

    fn doc(&self, what: String) -> TokenStream {
        let text = format!(" XDR `{what}` of `{}`.", self.file);
        quote!(#[doc = #text])
    }

    fn check_name(
        &self,
        n: &'a Name,
        rust: &Ident,
        seen: &mut HashMap<String, &'a Name>,
    ) -> Result<(), Diag> {
        if let Some(prev) = seen.insert(rust.to_string(), n) {
            let what = if prev.name == n.name {
                format!("`{}` is already defined", n.name)
            } else {
                format!("`{}` and `{}` are both `{rust}` in Rust", prev.name, n.name)
            };
            return Err(Diag::new(n.pos, what));
        }
        Ok(())
    }

    fn definition(
        &mut self,
        d: &'a Definition,
        seen: &mut HashMap<String, &'a Name>,
    ) -> Result<Option<TokenStream>, Diag> {
        let top = TokenStream::new();
        let (rt, crate_attr) = (self.m.clone(), self.crate_attr.clone());
        Ok(Some(match d {
            Definition::Const(n, Value::Str(text, _)) => {
                let id = Ident::new(&n.name, Span::call_site());
                let doc = self.doc(format!("const {}", n.name));
                // The text as C wrote it: its escapes are Rust's too, for what `.x` files use.
                let lit: proc_macro2::TokenStream = format!("\"{text}\"")
                    .parse()
                    .map_err(|_| Diag::new(n.pos, "this string is not a Rust string literal"))?;
                quote! {
                    #doc
                    #[allow(dead_code, non_upper_case_globals)]
                    pub const #id: &str = #lit;
                }
            }
            Definition::Const(n, v) => {
                let id = Ident::new(&n.name, Span::call_site());
                let value = self.resolve(v)?;
                let doc = self.doc(format!("const {}", n.name));
                let (ty, lit) = const_literal(value).ok_or_else(|| {
                    Diag::new(value_pos(v), format!("{value} does not fit 64 bits"))
                })?;
                quote! {
                    #doc
                    #[allow(dead_code, non_upper_case_globals)]
                    pub const #id: #ty = #lit;
                }
            }
            Definition::Typedef(t) => {
                let id = camel(&t.name.name);
                let (ty, bound) = self.decl_type(t, &top)?;
                // `typedef rpcb RPCB;`: the same Rust name as its target; nothing to declare.
                if let (Shape::Plain, Type::Named(target), None) = (&t.shape, &t.ty, bound) {
                    if camel(&target.name) == id {
                        return Ok(None);
                    }
                }
                self.check_name(&t.name, &id, seen)?;
                let doc = self.doc(format!("typedef {}", t.name.name));
                let gen = self.generics(&t.name);
                match bound {
                    // The bound must travel with the type (a vector of them keeps it): a newtype.
                    Some(n) => {
                        let n = proc_macro2::Literal::u32_unsuffixed(n);
                        quote! {
                            #doc
                            #[derive(#rt::Marshal, Debug, Clone, PartialEq)]
                            #crate_attr
                            #[allow(dead_code)]
                            pub struct #id #gen (#[marshal(max_len = #n)] pub #ty);
                        }
                    }
                    None => quote! {
                        #doc
                        #[allow(dead_code)]
                        pub type #id #gen = #ty;
                    },
                }
            }
            Definition::Enum(n, es) => {
                let id = camel(&n.name);
                self.check_name(n, &id, seen)?;
                let doc = self.doc(format!("enum {}", n.name));
                let mut variants = Vec::new();
                let mut aliases = Vec::new();
                let mut by_value: HashMap<i32, Ident> = HashMap::new();
                for e in es {
                    let v = self.tag(&e.value)?;
                    let vid = camel(&e.name.name);
                    match by_value.get(&v) {
                        Some(first) => aliases.push(quote! {
                            #[allow(non_upper_case_globals)]
                            pub const #vid: #id = #id::#first;
                        }),
                        None => {
                            by_value.insert(v, vid.clone());
                            let lit = proc_macro2::Literal::i32_unsuffixed(v);
                            variants.push(quote!(#vid = #lit));
                        }
                    }
                }
                let aliases = (!aliases.is_empty()).then(|| {
                    quote! {
                        #[allow(dead_code)]
                        impl #id { #(#aliases)* }
                    }
                });
                quote! {
                    #doc
                    #[derive(#rt::Marshal, Debug, Clone, Copy, PartialEq, Eq, Hash)]
                    #crate_attr
                    #[repr(i32)]
                    #[allow(dead_code)]
                    pub enum #id { #(#variants,)* }
                    #aliases
                }
            }
            Definition::Struct(n, fields) => {
                let id = camel(&n.name);
                self.check_name(n, &id, seen)?;
                let doc = self.doc(format!("struct {}", n.name));
                let gen = self.generics(n);
                let mut fs = Vec::new();
                for (i, f) in fields.iter().enumerate() {
                    let fid = snake(&f.name.name);
                    let last = i + 1 == fields.len();
                    let (ty, bound) = if last && self.pointee(f).as_deref() == Some(n.name.as_str())
                    {
                        // The optional-data list: the derive codes it with a loop.
                        (
                            quote!(::core::option::Option<::std::boxed::Box<Self>>),
                            None,
                        )
                    } else {
                        self.decl_type(f, &top)?
                    };
                    let attr = bound.map(|b| {
                        let b = proc_macro2::Literal::u32_unsuffixed(b);
                        quote!(#[marshal(max_len = #b)])
                    });
                    fs.push(quote!(#attr pub #fid: #ty));
                }
                quote! {
                    #doc
                    #[derive(#rt::Marshal, Debug, Clone, PartialEq)]
                    #crate_attr
                    #[allow(dead_code)]
                    pub struct #id #gen { #(#fs,)* }
                }
            }
            Definition::Union(n, u) => {
                let id = camel(&n.name);
                self.check_name(n, &id, seen)?;
                self.union(n, &id, u)?
            }
            Definition::Program(p) => self.program(p)?,
        }))
    }

    /// How a union is represented in Rust: an `Option<T>`, or an enum whose variants are named
    /// after the labels. Checks that no label is used twice.
    pub(super) fn union_layout<'u>(&mut self, u: &'u Union) -> Result<UnionLayout<'u>, Diag> {
        let top = TokenStream::new();
        // `switch (bool)` with `TRUE: T` and `FALSE: void`: an `Option<T>`, the same bytes.
        if u.discriminant.ty == Type::Bool && u.default.is_none() && u.arms.len() == 2 {
            let mut body = None;
            let mut void_false = false;
            for a in &u.arms {
                match (a.labels.as_slice(), &a.decl) {
                    ([l], Some(d)) if self.resolve(l)? == 1 => body = Some(d),
                    ([l], None) if self.resolve(l)? == 0 => void_false = true,
                    _ => {}
                }
            }
            if let (Some(d), true) = (body, void_false) {
                let (ty, bound) = self.decl_type(d, &top)?;
                if bound.is_none() {
                    return Ok(UnionLayout::Option { ty });
                }
            }
        }
        let kind = self.disc_kind(&u.discriminant);
        let disc_ty = match &kind {
            Disc::I32 => quote!(i32),
            Disc::U32 => quote!(u32),
            Disc::Bool => quote!(bool),
            Disc::Enum(e) => {
                let e = camel(e);
                quote!(#e)
            }
        };
        let mut arms = Vec::new();
        let mut seen: HashMap<i128, &Value> = HashMap::new();
        let mut names = BTreeSet::new();
        for a in &u.arms {
            let mut labels = Vec::new();
            let mut vnames = Vec::new();
            for l in &a.labels {
                let (key, tokens) = self.label(l, &kind, &disc_ty)?;
                if let Some(prev) = seen.insert(key, l) {
                    let (now, before) = (show_value(l), show_value(prev));
                    let what = if now == before {
                        format!("case `{now}` appears twice in this union")
                    } else {
                        format!("case `{now}` is {key}, already this union's case `{before}`")
                    };
                    return Err(Diag::new(value_pos(l), what));
                }
                let vid = match l {
                    Value::Name(n) => camel(&n.name).to_string(),
                    Value::Str(..) => {
                        return Err(Diag::new(value_pos(l), "a case label is a number"))
                    }
                    Value::Number(v, _) if *v < 0 => format!("Neg{}", v.unsigned_abs()),
                    Value::Number(v, _) => format!("V{v}"),
                };
                labels.push(Label { value: key, tokens });
                vnames.push(vid);
            }
            // Several labels: one variant that keeps the label it was decoded with.
            let joined = vnames.join("Or");
            arms.push(UnionArm {
                variant: format_ident!("{}", joined),
                labels,
                decl: a.decl.as_ref(),
            });
            names.insert(joined);
        }
        let default = u.default.as_ref().map(|d| {
            let vid = if names.contains("Default") {
                format_ident!("Other")
            } else {
                format_ident!("Default")
            };
            (vid, d.as_ref())
        });
        Ok(UnionLayout::Enum {
            kind,
            disc_ty,
            arms,
            default,
        })
    }

    fn union(&mut self, n: &Name, id: &Ident, u: &Union) -> Result<TokenStream, Diag> {
        let top = TokenStream::new();
        let (rt, crate_attr) = (self.m.clone(), self.crate_attr.clone());
        let doc = self.doc(format!("union {}", n.name));
        let gen = self.generics(n);
        let (kind, disc_ty, arms, default) = match self.union_layout(u)? {
            UnionLayout::Option { ty } => {
                return Ok(quote! {
                    #doc
                    #[allow(dead_code)]
                    pub type #id #gen = ::core::option::Option<#ty>;
                })
            }
            UnionLayout::Enum {
                kind,
                disc_ty,
                arms,
                default,
            } => (kind, disc_ty, arms, default),
        };
        let disc_attr = match kind {
            Disc::I32 => None,
            _ => Some(quote!(#[marshal(discriminant = #disc_ty)])),
        };
        let mut variants = Vec::new();
        for a in &arms {
            let body = match a.decl {
                Some(d) => {
                    let (ty, bound) = self.decl_type(d, &top)?;
                    let attr = bound.map(|b| {
                        let b = proc_macro2::Literal::u32_unsuffixed(b);
                        quote!(#[marshal(max_len = #b)])
                    });
                    Some(quote!(#attr #ty))
                }
                None => None,
            };
            let vid = &a.variant;
            let tags = a.labels.iter().map(|l| &l.tokens);
            if a.labels.len() == 1 {
                let body = body.map(|b| quote!((#b)));
                variants.push(quote!(#[marshal(#(tag = #tags),*)] #vid #body));
            } else {
                let body = body.map(|b| quote!(, #b));
                variants.push(quote!(#[marshal(#(tag = #tags),*)] #vid(#disc_ty #body)));
            }
        }
        if let Some((vid, d)) = default {
            let body = match d {
                Some(d) => {
                    let (ty, bound) = self.decl_type(d, &top)?;
                    let attr = bound.map(|b| {
                        let b = proc_macro2::Literal::u32_unsuffixed(b);
                        quote!(#[marshal(max_len = #b)])
                    });
                    quote!(, #attr #ty)
                }
                None => TokenStream::new(),
            };
            variants.push(quote!(#[marshal(default)] #vid(#disc_ty #body)));
        }
        Ok(quote! {
            #doc
            #[derive(#rt::Marshal, Debug, Clone, PartialEq)]
            #crate_attr
            #disc_attr
            #[allow(dead_code, clippy::large_enum_variant)]
            pub enum #id #gen { #(#variants,)* }
        })
    }

    /// What a union switches on, through typedefs: an enum of this file, `unsigned`, `bool`,
    /// or else `int`.
    pub(super) fn disc_kind(&self, d: &Decl) -> Disc {
        let mut d = d;
        for _ in 0..64 {
            match (&d.shape, &d.ty) {
                (Shape::Plain, Type::UInt) => return Disc::U32,
                (Shape::Plain, Type::Bool) => return Disc::Bool,
                (Shape::Plain, Type::Named(n)) => {
                    if self.enums.contains_key(n.name.as_str()) {
                        return Disc::Enum(n.name.clone());
                    }
                    match self.typedefs.get(n.name.as_str()) {
                        Some(t) => d = t,
                        None => return Disc::I32,
                    }
                }
                _ => return Disc::I32,
            }
        }
        Disc::I32
    }

    /// A case label's value and its tokens as a value of the discriminant's type.
    fn label(
        &self,
        l: &Value,
        kind: &Disc,
        disc_ty: &TokenStream,
    ) -> Result<(i128, TokenStream), Diag> {
        let v = self.resolve(l)?;
        let bad = |what: &str| Diag::new(value_pos(l), format!("{v} is not {what}"));
        Ok(match kind {
            Disc::I32 => {
                let t = self.tag(l)?;
                (
                    i128::from(t),
                    proc_macro2::Literal::i32_unsuffixed(t).into_token_stream(),
                )
            }
            Disc::U32 => {
                let t = u32::try_from(v).map_err(|_| bad("an `unsigned`"))?;
                (
                    v,
                    proc_macro2::Literal::u32_unsuffixed(t).into_token_stream(),
                )
            }
            Disc::Bool => match v {
                0 => (v, quote!(false)),
                1 => (v, quote!(true)),
                _ => return Err(bad("a `bool`")),
            },
            Disc::Enum(e) => {
                let es = self.enums[e.as_str()];
                let mut found = None;
                for en in es {
                    if self.resolve(&en.value)? == v {
                        found = Some(camel(&en.name.name));
                        break;
                    }
                }
                let vid = found.ok_or_else(|| bad(&format!("a value of enum `{e}`")))?;
                (v, quote!(#disc_ty::#vid))
            }
        })
    }

    fn program(&mut self, p: &Program) -> Result<TokenStream, Diag> {
        let rt = self.m.clone();
        let prefix = quote!(super::super::);
        let pmod = snake(&p.name.name);
        let prog = proc_macro2::Literal::u32_unsuffixed(self.size(&p.number)?);
        let mut versions = Vec::new();
        let mut version_numbers = HashMap::new();
        for v in &p.versions {
            let vmod = snake(&v.name.name);
            let vnum = self.size(&v.number)?;
            if let Some(prev) = version_numbers.insert(vnum, &v.name.name) {
                return Err(Diag::new(
                    value_pos(&v.number),
                    format!("version number {vnum} is already `{prev}`'s"),
                ));
            }
            let vers = proc_macro2::Literal::u32_unsuffixed(vnum);
            let mut proc_numbers = HashMap::new();
            let mut proc_names = HashMap::new();
            let mut consts = Vec::new();
            let mut client = Vec::new();
            let mut server = Vec::new();
            let mut arms = Vec::new();
            let mut stubs = Vec::new();
            for pr in &v.procedures {
                let cid = Ident::new(&pr.name.name, Span::call_site());
                let pnum = self.size(&pr.number)?;
                if let Some(prev) = proc_numbers.insert(pnum, &pr.name.name) {
                    return Err(Diag::new(
                        value_pos(&pr.number),
                        format!("procedure number {pnum} is already `{prev}`'s"),
                    ));
                }
                if proc_names
                    .insert(snake(&pr.name.name).to_string(), ())
                    .is_some()
                {
                    return Err(Diag::new(
                        pr.name.pos,
                        format!("`{}` is already a procedure of this version", pr.name.name),
                    ));
                }
                let num = proc_macro2::Literal::u32_unsuffixed(pnum);
                let cdoc = format!(" `{}`: procedure {num}.", pr.name.name);
                consts.push(quote! {
                    #[doc = #cdoc]
                    #[allow(non_upper_case_globals)]
                    pub const #cid: u32 = #num;
                });
                let m = snake(&pr.name.name);
                // Client and dispatch write `'_` for the lifetime of borrowing types; the trait
                // names it `'a`, shared by the arguments and the result.
                self.lt = quote!('_);
                let ret = match &pr.result {
                    Some(t) => self.base(t, &prefix),
                    None => quote!(()),
                };
                // What the client takes by reference: `str` and `[u8]` for bare strings and
                // opaque data.
                let args: Vec<TokenStream> = pr
                    .args
                    .iter()
                    .map(|t| match t {
                        Type::String => quote!(str),
                        Type::Opaque => quote!([u8]),
                        t => self.base(t, &prefix),
                    })
                    .collect();
                let dargs: Vec<TokenStream> =
                    pr.args.iter().map(|t| self.base(t, &prefix)).collect();
                self.lt = quote!('a);
                let sres = pr.result.as_ref().map(|t| self.base(t, &prefix));
                // The trait's methods say nothing for `void` (clippy's `unused_unit`).
                let sret = sres.as_ref().map(|t| quote!(-> #t));
                let sargs: Vec<TokenStream> =
                    pr.args.iter().map(|t| self.base(t, &prefix)).collect();
                let borrows = pr.result.iter().chain(&pr.args).any(|t| self.borrows(t));
                let slt = borrows.then(|| quote!(<'a>));
                // A result that borrows from the reply keeps the client borrowed.
                let result_borrows = pr.result.as_ref().is_some_and(|t| self.borrows(t));
                let call = if result_borrows {
                    quote!(call_ref)
                } else {
                    quote!(call)
                };
                stubs.push(Stub {
                    name: pr.name.name.clone(),
                    number: cid.clone(),
                    num: num.clone(),
                    method: m.clone(),
                    client_args: args.clone(),
                    decoded_args: dargs.clone(),
                    server_args: sargs.clone(),
                    result: ret.clone(),
                    server_result: sres,
                    result_borrows,
                    borrows,
                });
                let doc = format!(" Calls `{}` (procedure {num}).", pr.name.name);
                let sdoc = format!(" Serves `{}` (procedure {num}).", pr.name.name);
                let call_reply = if pr.result.is_some() {
                    quote!(call.reply(&r))
                } else {
                    quote!(call.reply(&()))
                };
                let bind_r = if pr.result.is_some() {
                    quote!(let r = )
                } else {
                    TokenStream::new()
                };
                match (args.as_slice(), sargs.as_slice(), dargs.as_slice()) {
                    ([], _, _) => {
                        client.push(quote! {
                            #[doc = #doc]
                            pub fn #m(&mut self) -> ::core::result::Result<#ret, #rt::rpc::RpcError> {
                                self.inner.#call::<(), #ret>(#cid, &())
                            }
                        });
                        server.push(quote!(#[doc = #sdoc] fn #m #slt(&self) #sret;));
                        arms.push(quote!(#cid => {
                            call.args::<()>()?;
                            #bind_r self.0.#m();
                            #call_reply
                        }));
                    }
                    ([a], [sa], [da]) => {
                        client.push(quote! {
                            #[doc = #doc]
                            pub fn #m(&mut self, args: &#a) -> ::core::result::Result<#ret, #rt::rpc::RpcError> {
                                self.inner.#call::<#a, #ret>(#cid, args)
                            }
                        });
                        server.push(quote!(#[doc = #sdoc] fn #m #slt(&self, args: #sa) #sret;));
                        arms.push(quote!(#cid => {
                            let args: #da = call.args()?;
                            #bind_r self.0.#m(args);
                            #call_reply
                        }));
                    }
                    (many, smany, dmany) => {
                        let names: Vec<Ident> =
                            (0..many.len()).map(|i| format_ident!("arg{}", i)).collect();
                        client.push(quote! {
                            #[doc = #doc]
                            pub fn #m(&mut self, #(#names: &#many),*) -> ::core::result::Result<#ret, #rt::rpc::RpcError> {
                                self.inner.#call::<(#(&#many,)*), #ret>(#cid, &(#(#names,)*))
                            }
                        });
                        server.push(
                            quote!(#[doc = #sdoc] fn #m #slt(&self, #(#names: #smany),*) #sret;),
                        );
                        arms.push(quote!(#cid => {
                            let (#(#names,)*): (#(#dmany,)*) = call.args()?;
                            #bind_r self.0.#m(#(#names),*);
                            #call_reply
                        }));
                    }
                }
            }
            let vdoc = format!(
                " Version `{}` ({vers}) of program `{}` ({prog}).",
                v.name.name, p.name.name
            );
            let dname = format!("{}::{}::program", pmod, vmod);
            let async_client = self.async_client.then(|| async_stubs::client(&stubs, &rt));
            let async_server = self
                .async_server
                .then(|| async_stubs::server(&stubs, &rt, &format!("{}::{}::service", pmod, vmod)));
            versions.push(quote! {
                #[doc = #vdoc]
                pub mod #vmod {
                    /// The program number.
                    pub const PROGRAM: u32 = #prog;
                    /// The version number.
                    pub const VERSION: u32 = #vers;
                    #(#consts)*

                    /// A typed client: one method per procedure.
                    #[derive(Debug)]
                    pub struct Client {
                        inner: #rt::rpc::Client,
                    }

                    impl Client {
                        /// A client over `inner` (connected to this program and version).
                        pub fn new(inner: #rt::rpc::Client) -> Client {
                            Client { inner }
                        }
                        /// The RPC client underneath.
                        pub fn get_mut(&mut self) -> &mut #rt::rpc::Client {
                            &mut self.inner
                        }
                        /// The RPC client underneath, given back.
                        pub fn into_inner(self) -> #rt::rpc::Client {
                            self.inner
                        }
                        #(#client)*
                    }

                    /// What a server implements: one method per procedure.
                    pub trait Server: Send + Sync + 'static {
                        #(#server)*
                    }

                    /// The program for `marshal::rpc::Server::add(PROGRAM, VERSION, …)`.
                    pub fn program(imp: impl Server) -> impl #rt::rpc::Program {
                        Dispatch(imp)
                    }

                    struct Dispatch<S>(S);

                    impl<S> ::core::fmt::Debug for Dispatch<S> {
                        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str(#dname)
                        }
                    }

                    impl<S: Server> #rt::rpc::Program for Dispatch<S> {
                        fn call(&self, call: &mut #rt::rpc::Call<'_>) -> ::core::result::Result<(), #rt::Error> {
                            match call.procedure() {
                                #(#arms)*
                                _ => call.proc_unavail(),
                            }
                        }
                    }
                    #async_client
                    #async_server
                }
            });
        }
        let pdoc = format!(" Program `{}` ({prog}) of `{}`.", p.name.name, self.file);
        Ok(quote! {
            #[doc = #pdoc]
            #[allow(dead_code)]
            pub mod #pmod {
                #(#versions)*
            }
        })
    }
}

/// A constant's Rust type and literal: `u32` if it fits, then `i32`, `u64`, `i64`.
fn const_literal(v: i128) -> Option<(TokenStream, proc_macro2::Literal)> {
    use proc_macro2::Literal;
    if let Ok(u) = u32::try_from(v) {
        Some((quote!(u32), Literal::u32_unsuffixed(u)))
    } else if let Ok(i) = i32::try_from(v) {
        Some((quote!(i32), Literal::i32_unsuffixed(i)))
    } else if let Ok(u) = u64::try_from(v) {
        Some((quote!(u64), Literal::u64_unsuffixed(u)))
    } else {
        i64::try_from(v)
            .ok()
            .map(|i| (quote!(i64), Literal::i64_unsuffixed(i)))
    }
}

fn value_pos(v: &Value) -> crate::error::Pos {
    match v {
        Value::Number(_, p) => *p,
        Value::Name(n) => n.pos,
        Value::Str(_, p) => *p,
    }
}

fn show_value(v: &Value) -> String {
    match v {
        Value::Number(n, _) => n.to_string(),
        Value::Name(n) => n.name.clone(),
        Value::Str(s, _) => format!("{s:?}"),
    }
}

/// The types of `defs` that hold a string or variable-length opaque data, directly or through
/// other types of the file: in borrowed mode they take the lifetime `'a`.
fn borrowing(defs: &[Definition]) -> BTreeSet<&str> {
    let mut set: BTreeSet<&str> = BTreeSet::new();
    let holds = |d: &Decl, set: &BTreeSet<&str>| match &d.ty {
        Type::String => true,
        Type::Opaque => matches!(d.shape, Shape::Var(_)),
        Type::Named(n) => set.contains(n.name.as_str()),
        _ => false,
    };
    loop {
        let before = set.len();
        for d in defs {
            let (name, yes) = match d {
                Definition::Typedef(t) => (&t.name, holds(t, &set)),
                Definition::Struct(n, fields) => (n, fields.iter().any(|f| holds(f, &set))),
                Definition::Union(n, u) => (
                    n,
                    u.arms
                        .iter()
                        .filter_map(|a| a.decl.as_ref())
                        .chain(u.default.iter().flatten())
                        .any(|d| holds(d, &set)),
                ),
                _ => continue,
            };
            if yes {
                set.insert(&name.name);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}
