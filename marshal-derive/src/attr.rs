//! `#[marshal(...)]` attributes, parsed once with real keyword tokens (as binrw does).

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned as _;
use syn::{LitInt, Token};

use crate::ctxt::Ctxt;

mod kw {
    syn::custom_keyword!(max_len);
    syn::custom_keyword!(tag);
    syn::custom_keyword!(default);
    syn::custom_keyword!(discriminant);
    syn::custom_keyword!(default_missing);
}

/// One item inside `#[marshal(...)]`.
enum Item {
    MaxLen(kw::max_len, LitInt),
    Tag(kw::tag, Option<Token![-]>, LitInt),
    Default(kw::default),
    Discriminant(kw::discriminant, Box<syn::Type>),
    DefaultMissing(kw::default_missing),
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let la = input.lookahead1();
        if la.peek(kw::max_len) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::MaxLen(k, input.parse()?))
        } else if la.peek(kw::tag) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::Tag(k, input.parse()?, input.parse()?))
        } else if la.peek(kw::default) {
            Ok(Item::Default(input.parse()?))
        } else if la.peek(kw::default_missing) {
            Ok(Item::DefaultMissing(input.parse()?))
        } else if la.peek(kw::discriminant) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::Discriminant(k, Box::new(input.parse()?)))
        } else {
            Err(la.error())
        }
    }
}

impl Item {
    fn span(&self) -> Span {
        match self {
            Item::MaxLen(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Tag(k, _, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Default(k) => k.span,
            Item::Discriminant(k, t) => k.span.join(t.span()).unwrap_or(k.span),
            Item::DefaultMissing(k) => k.span,
        }
    }
}

/// Parses every `#[marshal(...)]` on an item.
fn items(cx: &Ctxt, attrs: &[syn::Attribute]) -> Vec<Item> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("marshal")) {
        match attr.parse_args_with(Punctuated::<Item, Token![,]>::parse_terminated) {
            Ok(list) => out.extend(list),
            Err(e) => cx.syn_error(e),
        }
    }
    out
}

/// A value with the span of the attribute that gave it.
#[derive(Clone, Copy)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// Records `value` unless already set (a duplicate is an error at the second one).
fn set_once<T>(cx: &Ctxt, slot: &mut Option<Spanned<T>>, value: T, span: Span, name: &str) {
    if slot.is_some() {
        cx.syn_error(syn::Error::new(
            span,
            format!("duplicate `{name}` attribute"),
        ));
    } else {
        *slot = Some(Spanned { value, span });
    }
}

#[derive(Default)]
pub struct Field {
    pub max_len: Option<Spanned<usize>>,
}

impl Field {
    pub fn from_ast(cx: &Ctxt, field: &syn::Field) -> Self {
        let mut a = Field::default();
        for item in items(cx, &field.attrs) {
            match item {
                Item::MaxLen(_, ref v) => match v.base10_parse::<u32>() {
                    Ok(n) => set_once(cx, &mut a.max_len, n as usize, item.span(), "max_len"),
                    Err(_) => cx.error_spanned_by(v, "`max_len` must fit the wire's 32-bit length"),
                },
                other => cx.syn_error(syn::Error::new(
                    other.span(),
                    "only `max_len = N` is allowed on a field",
                )),
            }
        }
        a
    }
}

#[derive(Default)]
pub struct Variant {
    pub tag: Option<Spanned<i32>>,
    pub default: Option<Span>,
}

impl Variant {
    pub fn from_ast(cx: &Ctxt, variant: &syn::Variant) -> Self {
        let mut a = Variant::default();
        for item in items(cx, &variant.attrs) {
            match item {
                Item::Tag(_, ref neg, ref v) => {
                    let text = format!(
                        "{}{}",
                        if neg.is_some() { "-" } else { "" },
                        v.base10_digits()
                    );
                    match text.parse::<i32>() {
                        Ok(n) => set_once(cx, &mut a.tag, n, item.span(), "tag"),
                        Err(_) => cx.syn_error(syn::Error::new(
                            item.span(),
                            "`tag` must be an i32 literal",
                        )),
                    }
                }
                Item::Default(_) => {
                    if a.default.is_some() {
                        cx.syn_error(syn::Error::new(
                            item.span(),
                            "duplicate `default` attribute",
                        ));
                    }
                    a.default = Some(item.span());
                }
                Item::MaxLen(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`max_len` belongs on a field, not on a variant",
                )),
                Item::Discriminant(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`discriminant` belongs on the enum, not on a variant",
                )),
                Item::DefaultMissing(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`default_missing` belongs on a struct, not on a variant",
                )),
            }
        }
        a
    }
}

/// Container attributes.
#[derive(Default)]
pub struct Container {
    /// `#[marshal(discriminant = T)]`: the type a CDR union switches on (default `i32`).
    pub discriminant: Option<Spanned<syn::Type>>,
    /// `#[marshal(default_missing)]`: NDR fields an incoming format lacks come from `Default`.
    pub default_missing: Option<Span>,
}

const DISCRIMINANTS: [&str; 6] = ["i16", "u16", "i32", "u32", "u8", "bool"];

impl Container {
    pub fn from_ast(cx: &Ctxt, input: &syn::DeriveInput) -> Self {
        let mut a = Container::default();
        for item in items(cx, &input.attrs) {
            match item {
                Item::Discriminant(_, ref ty) => {
                    let ok = matches!(&**ty, syn::Type::Path(p)
                        if p.qself.is_none()
                            && DISCRIMINANTS.iter().any(|d| p.path.is_ident(d)));
                    if !ok {
                        cx.error_spanned_by(
                            ty,
                            "a union discriminant must be one of i16, u16, i32, u32, u8, bool",
                        );
                    }
                    let span = item.span();
                    set_once(
                        cx,
                        &mut a.discriminant,
                        (**ty).clone(),
                        span,
                        "discriminant",
                    );
                }
                Item::DefaultMissing(k) => {
                    if a.default_missing.is_some() {
                        cx.syn_error(syn::Error::new(
                            k.span,
                            "duplicate `default_missing` attribute",
                        ));
                    }
                    a.default_missing = Some(k.span);
                }
                other => cx.syn_error(syn::Error::new(
                    other.span(),
                    "this attribute belongs on a field or variant, not on the type",
                )),
            }
        }
        a
    }
}
