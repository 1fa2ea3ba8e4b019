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
    syn::custom_keyword!(manual_drop);
    syn::custom_keyword!(layout);
    syn::custom_keyword!(size);
    syn::custom_keyword!(align);
    syn::custom_keyword!(in_place);
    syn::custom_keyword!(at);
    syn::custom_keyword!(big);
    syn::custom_keyword!(little);
    syn::custom_keyword!(unit);
    syn::custom_keyword!(bits);
    syn::custom_keyword!(no_member);
    syn::custom_keyword!(encode_only);
    syn::custom_keyword!(formats);
}

/// One item inside `#[marshal(...)]`.
enum Item {
    MaxLen(kw::max_len, LitInt),
    Tag(kw::tag, TagValue),
    NoMember(kw::no_member),
    EncodeOnly(kw::encode_only),
    Default(kw::default),
    Discriminant(kw::discriminant, Box<syn::Type>),
    DefaultMissing(kw::default_missing),
    ManualDrop(kw::manual_drop),
    Layout(
        kw::layout,
        syn::token::Paren,
        Punctuated<LayoutItem, Token![,]>,
    ),
    At(kw::at, LitInt),
    Big(kw::big),
    Little(kw::little),
    Unit(kw::unit, syn::Ident),
    Bits(kw::bits, LitInt, LitInt),
    Crate(Token![crate], syn::LitStr),
    Formats(
        kw::formats,
        syn::token::Paren,
        Punctuated<syn::Ident, Token![,]>,
    ),
}

/// The value of `tag = ...`: an integer literal (negative allowed), `true` / `false`, or the
/// path of a constant (an enum's variant, a `const`).
pub enum TagValue {
    Int(Option<Token![-]>, LitInt),
    Bool(syn::LitBool),
    Path(syn::Path),
}

impl Parse for TagValue {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Token![-]) || input.peek(LitInt) {
            Ok(TagValue::Int(input.parse()?, input.parse()?))
        } else if input.peek(syn::LitBool) {
            Ok(TagValue::Bool(input.parse()?))
        } else {
            input.parse().map(TagValue::Path).map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "a `tag` is an integer literal, `true`, `false` or a constant's path",
                )
            })
        }
    }
}

impl TagValue {
    fn span(&self) -> Span {
        match self {
            TagValue::Int(_, v) => v.span(),
            TagValue::Bool(b) => b.span,
            TagValue::Path(p) => p.span(),
        }
    }
}

/// One item inside `layout(...)`.
enum LayoutItem {
    Size(kw::size, LitInt),
    Align(kw::align, LitInt),
    InPlace(kw::in_place),
}

impl Parse for LayoutItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let la = input.lookahead1();
        if la.peek(kw::size) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(LayoutItem::Size(k, input.parse()?))
        } else if la.peek(kw::align) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(LayoutItem::Align(k, input.parse()?))
        } else if la.peek(kw::in_place) {
            Ok(LayoutItem::InPlace(input.parse()?))
        } else {
            Err(la.error())
        }
    }
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
            Ok(Item::Tag(k, input.parse()?))
        } else if la.peek(kw::no_member) {
            Ok(Item::NoMember(input.parse()?))
        } else if la.peek(kw::encode_only) {
            Ok(Item::EncodeOnly(input.parse()?))
        } else if la.peek(kw::default) {
            Ok(Item::Default(input.parse()?))
        } else if la.peek(kw::default_missing) {
            Ok(Item::DefaultMissing(input.parse()?))
        } else if la.peek(kw::manual_drop) {
            Ok(Item::ManualDrop(input.parse()?))
        } else if la.peek(Token![crate]) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::Crate(k, input.parse()?))
        } else if la.peek(kw::discriminant) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::Discriminant(k, Box::new(input.parse()?)))
        } else if la.peek(kw::layout) {
            let k = input.parse()?;
            let content;
            let paren = syn::parenthesized!(content in input);
            Ok(Item::Layout(
                k,
                paren,
                Punctuated::parse_terminated(&content)?,
            ))
        } else if la.peek(kw::at) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::At(k, input.parse()?))
        } else if la.peek(kw::big) {
            Ok(Item::Big(input.parse()?))
        } else if la.peek(kw::little) {
            Ok(Item::Little(input.parse()?))
        } else if la.peek(kw::unit) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item::Unit(k, input.parse()?))
        } else if la.peek(kw::bits) {
            let k = input.parse()?;
            input.parse::<Token![=]>()?;
            let lo = input.parse()?;
            input.parse::<Token![..]>()?;
            Ok(Item::Bits(k, lo, input.parse()?))
        } else if la.peek(kw::formats) {
            let k = input.parse()?;
            let content;
            let paren = syn::parenthesized!(content in input);
            Ok(Item::Formats(
                k,
                paren,
                Punctuated::parse_terminated(&content)?,
            ))
        } else {
            Err(la.error())
        }
    }
}

impl Item {
    fn span(&self) -> Span {
        match self {
            Item::MaxLen(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Tag(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::NoMember(k) => k.span,
            Item::EncodeOnly(k) => k.span,
            Item::Default(k) => k.span,
            Item::Discriminant(k, t) => k.span.join(t.span()).unwrap_or(k.span),
            Item::DefaultMissing(k) => k.span,
            Item::ManualDrop(k) => k.span,
            Item::Layout(k, p, _) => k.span.join(p.span.close()).unwrap_or(k.span),
            Item::At(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Big(k) => k.span,
            Item::Little(k) => k.span,
            Item::Unit(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Bits(k, _, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Crate(k, v) => k.span.join(v.span()).unwrap_or(k.span),
            Item::Formats(k, p, _) => k.span.join(p.span.close()).unwrap_or(k.span),
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
    /// Layout annotations (meaningful only under a container's `layout(...)`).
    pub layout: FieldLayout,
}

/// A field's place in an annotated layout: `at = N`, `big` / `little`, `unit = uN`,
/// `bits = a..b`.
#[derive(Default)]
pub struct FieldLayout {
    pub at: Option<Spanned<usize>>,
    pub order: Option<Spanned<Order>>,
    /// The bit-field's underlying integer, as its width in bytes.
    pub unit: Option<Spanned<usize>>,
    pub bits: Option<Spanned<(u32, u32)>>,
}

impl FieldLayout {
    /// The span of the first layout annotation, if any.
    pub fn first_span(&self) -> Option<Span> {
        [
            self.at.map(|s| s.span),
            self.order.map(|s| s.span),
            self.unit.map(|s| s.span),
            self.bits.map(|s| s.span),
        ]
        .into_iter()
        .flatten()
        .next()
    }
}

/// A field's byte order in an annotated layout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    Big,
    Little,
}

fn parse_usize(cx: &Ctxt, v: &LitInt, what: &str) -> Option<usize> {
    match v.base10_parse::<u32>() {
        Ok(n) => Some(n as usize),
        Err(_) => {
            cx.error_spanned_by(v, format!("`{what}` must be an integer below 2^32"));
            None
        }
    }
}

impl Field {
    pub fn from_ast(cx: &Ctxt, field: &syn::Field) -> Self {
        let mut a = Field::default();
        for item in items(cx, &field.attrs) {
            let span = item.span();
            match item {
                // Whether the bound fits the wire's length is the wire's rule, checked in the
                // generated code.
                Item::MaxLen(_, ref v) => match v.base10_parse::<usize>() {
                    Ok(n) => set_once(cx, &mut a.max_len, n, span, "max_len"),
                    Err(_) => cx.error_spanned_by(v, "`max_len` must be an integer that fits `usize`"),
                },
                Item::At(_, ref v) => {
                    if let Some(n) = parse_usize(cx, v, "at") {
                        set_once(cx, &mut a.layout.at, n, span, "at");
                    }
                }
                Item::Big(_) => set_once(cx, &mut a.layout.order, Order::Big, span, "big/little"),
                Item::Little(_) => {
                    set_once(cx, &mut a.layout.order, Order::Little, span, "big/little")
                }
                Item::Unit(_, ref ty) => {
                    let width = match ty.to_string().as_str() {
                        "u8" => Some(1),
                        "u16" => Some(2),
                        "u32" => Some(4),
                        "u64" => Some(8),
                        _ => None,
                    };
                    match width {
                        Some(w) => set_once(cx, &mut a.layout.unit, w, span, "unit"),
                        None => {
                            cx.error_spanned_by(
                                ty,
                                "a bit-field's `unit` is one of u8, u16, u32, u64",
                            );
                            // A stand-in, so `bits` is not also reported as lacking a unit.
                            set_once(cx, &mut a.layout.unit, 1, span, "unit");
                        }
                    }
                }
                Item::Bits(_, ref lo, ref hi) => {
                    match (lo.base10_parse::<u32>(), hi.base10_parse::<u32>()) {
                        (Ok(l), Ok(h)) => set_once(cx, &mut a.layout.bits, (l, h), span, "bits"),
                        _ => cx.syn_error(syn::Error::new(
                            span,
                            "`bits = a..b` takes two small integers",
                        )),
                    }
                }
                Item::Layout(..) => cx.syn_error(syn::Error::new(
                    span,
                    "`layout(...)` belongs on the struct; a field takes `at = N`",
                )),
                Item::Crate(..) => cx.syn_error(syn::Error::new(
                    span,
                    "`crate = \"...\"` belongs on the type, not on a field",
                )),
                Item::EncodeOnly(..) => cx.syn_error(syn::Error::new(
                    span,
                    "`encode_only` belongs on the type, not on a field",
                )),
                Item::Formats(..) => cx.syn_error(syn::Error::new(
                    span,
                    "`formats(...)` belongs on the type, not on a field",
                )),
                _ => cx.syn_error(syn::Error::new(
                    span,
                    "a field takes `max_len = N`, or in a `layout` struct `at`, `big`, `little`, `unit`, `bits`",
                )),
            }
        }
        a
    }
}

/// One label of a union arm (`tag = ...`), as generated code writes it: an expression of the
/// discriminant's type that is also a pattern.
pub struct Tag {
    /// The label's tokens (`-7`, `true`, `Status::Ok`).
    pub tokens: proc_macro2::TokenStream,
    /// What two labels are compared by to find duplicates: the value of an integer, else
    /// the text.
    pub key: String,
    /// An integer label's value (whether it fits the discriminant is the wire's rule, asserted
    /// in the generated code).
    pub int: Option<i64>,
    pub span: Span,
}

#[derive(Default)]
pub struct Variant {
    /// Its labels, in order (`tag = A, tag = B`: `case A: case B:`).
    pub tags: Vec<Tag>,
    pub default: Option<Span>,
    /// `#[marshal(no_member)]`: CDR's implicit default without a member.
    pub no_member: Option<Span>,
}

impl Variant {
    pub fn from_ast(cx: &Ctxt, variant: &syn::Variant) -> Self {
        let mut a = Variant::default();
        for item in items(cx, &variant.attrs) {
            match item {
                Item::Tag(_, ref v) => {
                    let span = item.span();
                    let tag = match v {
                        TagValue::Int(neg, lit) => {
                            let text = format!(
                                "{}{}",
                                if neg.is_some() { "-" } else { "" },
                                lit.base10_digits()
                            );
                            match text.parse::<i64>() {
                                Ok(n) => {
                                    let abs =
                                        proc_macro2::Literal::u64_unsuffixed(n.unsigned_abs());
                                    let tokens = if n < 0 {
                                        quote::quote_spanned!(lit.span()=> -#abs)
                                    } else {
                                        quote::quote_spanned!(lit.span()=> #abs)
                                    };
                                    Some(Tag {
                                        tokens,
                                        key: n.to_string(),
                                        int: Some(n),
                                        span,
                                    })
                                }
                                Err(_) => {
                                    cx.syn_error(syn::Error::new(
                                        span,
                                        "`tag` must be an integer literal that fits an i64",
                                    ));
                                    None
                                }
                            }
                        }
                        TagValue::Bool(b) => Some(Tag {
                            tokens: quote::quote!(#b),
                            key: b.value.to_string(),
                            int: None,
                            span,
                        }),
                        TagValue::Path(p) => Some(Tag {
                            tokens: quote::quote!(#p),
                            key: quote::quote!(#p).to_string(),
                            int: None,
                            span,
                        }),
                    };
                    if let Some(tag) = tag {
                        if a.tags.iter().any(|t| t.key == tag.key) {
                            cx.syn_error(syn::Error::new(
                                span,
                                format!("duplicate label `{}` on this arm", tag.key),
                            ));
                        } else {
                            a.tags.push(tag);
                        }
                    }
                }
                Item::NoMember(_) => {
                    if a.no_member.is_some() {
                        cx.syn_error(syn::Error::new(
                            item.span(),
                            "duplicate `no_member` attribute",
                        ));
                    }
                    a.no_member = Some(item.span());
                }
                Item::EncodeOnly(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`encode_only` belongs on the type, not on a variant",
                )),
                Item::Formats(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`formats(...)` belongs on the type, not on a variant",
                )),
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
                Item::ManualDrop(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`manual_drop` belongs on a list struct, not on a variant",
                )),
                Item::Crate(..) => cx.syn_error(syn::Error::new(
                    item.span(),
                    "`crate = \"...\"` belongs on the type, not on a variant",
                )),
                _ => cx.syn_error(syn::Error::new(
                    item.span(),
                    "layout annotations belong on a struct and its fields, not on a variant",
                )),
            }
        }
        a
    }
}

/// Container attributes.
#[derive(Default)]
pub struct Container {
    /// `#[marshal(discriminant = T)]`: the type a CDR union switches on (default: the wire
    /// crate's).
    pub discriminant: Option<Spanned<syn::Type>>,
    /// `#[marshal(default_missing)]`: NDR fields an incoming format lacks come from `Default`.
    pub default_missing: Option<Span>,
    /// `#[marshal(manual_drop)]`: an optional-data list that implements `Drop` itself (the
    /// derive otherwise gives it an iterative one).
    pub manual_drop: Option<Span>,
    /// `#[marshal(layout(size = N, align = N, in_place))]`: the struct's bytes are an exact,
    /// annotated layout.
    pub layout: Option<Spanned<ContainerLayout>>,
    /// `#[marshal(crate = "path")]`: generated code names `path` instead of `::marshal`.
    pub crate_path: Option<Spanned<syn::Path>>,
    /// `#[marshal(encode_only)]`: only encoders are generated (a type that borrows what it
    /// sends, `&'a T`, cannot be decoded).
    pub encode_only: Option<Span>,
    /// `#[marshal(formats(cdr, ...))]`: the wire formats code is generated for (among those
    /// whose features are on); all of them without the attribute.
    pub formats: Option<Spanned<Formats>>,
}

/// The wire formats of `formats(...)`.
#[derive(Clone, Copy, Default)]
pub struct Formats {
    pub xdr: bool,
    pub cdr: bool,
    pub ndr: bool,
}

impl Container {
    /// Whether code is generated for the format named `name` (`"xdr"`, `"cdr"`, `"ndr"`).
    #[cfg_attr(
        not(any(feature = "xdr", feature = "iiop", feature = "ndr")),
        allow(dead_code)
    )]
    pub fn wants(&self, name: &str) -> bool {
        let Some(f) = &self.formats else { return true };
        match name {
            "xdr" => f.value.xdr,
            "cdr" => f.value.cdr,
            _ => f.value.ndr,
        }
    }
}

/// `layout(size = N, align = N[, in_place])`.
#[derive(Clone, Copy)]
pub struct ContainerLayout {
    pub size: usize,
    /// The alignment buffers holding the record are guaranteed to have (default 1).
    pub align: usize,
    /// The native struct is `#[repr(C)]` with this very layout: convert in place.
    pub in_place: Option<Span>,
}

impl Container {
    pub fn from_ast(cx: &Ctxt, input: &syn::DeriveInput) -> Self {
        let mut a = Container::default();
        for item in items(cx, &input.attrs) {
            match item {
                // Which types a union may switch on is the wire's rule: a wrong one fails the
                // wire crate's `Discriminant` bound, at the type.
                Item::Discriminant(_, ref ty) => {
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
                Item::ManualDrop(k) => {
                    if a.manual_drop.is_some() {
                        cx.syn_error(syn::Error::new(k.span, "duplicate `manual_drop` attribute"));
                    }
                    a.manual_drop = Some(k.span);
                }
                Item::Layout(k, _, ref list) => {
                    let span = item.span();
                    if let Some(l) = layout_args(cx, k.span, list) {
                        set_once(cx, &mut a.layout, l, span, "layout");
                    }
                }
                Item::EncodeOnly(k) => {
                    if a.encode_only.is_some() {
                        cx.syn_error(syn::Error::new(k.span, "duplicate `encode_only` attribute"));
                    }
                    a.encode_only = Some(k.span);
                }
                Item::Formats(_, _, ref list) => {
                    let span = item.span();
                    let mut f = Formats::default();
                    for name in list {
                        let slot = match name.to_string().as_str() {
                            "xdr" => &mut f.xdr,
                            "cdr" => &mut f.cdr,
                            "ndr" => &mut f.ndr,
                            _ => {
                                cx.error_spanned_by(
                                    name,
                                    "`formats(...)` lists `xdr`, `cdr` or `ndr`",
                                );
                                continue;
                            }
                        };
                        if std::mem::replace(slot, true) {
                            cx.error_spanned_by(name, format!("`{name}` listed twice"));
                        }
                    }
                    if list.is_empty() {
                        cx.syn_error(syn::Error::new(
                            span,
                            "`formats(...)` lists at least one of `xdr`, `cdr`, `ndr`",
                        ));
                    }
                    set_once(cx, &mut a.formats, f, span, "formats");
                }
                Item::Crate(_, ref lit) => {
                    let span = item.span();
                    match lit.parse::<syn::Path>() {
                        Ok(p) => set_once(cx, &mut a.crate_path, p, span, "crate"),
                        Err(_) => cx.error_spanned_by(
                            lit,
                            "`crate` takes the path of the `marshal` crate as a string: `crate = \"marshal\"`",
                        ),
                    }
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

fn layout_args(
    cx: &Ctxt,
    span: Span,
    list: &Punctuated<LayoutItem, Token![,]>,
) -> Option<ContainerLayout> {
    let mut size: Option<Spanned<usize>> = None;
    let mut align: Option<Spanned<usize>> = None;
    let mut in_place: Option<Spanned<()>> = None;
    for item in list {
        match item {
            LayoutItem::Size(k, v) => {
                let s = k.span.join(v.span()).unwrap_or(k.span);
                if let Some(n) = parse_usize(cx, v, "size") {
                    if n == 0 {
                        cx.error_spanned_by(v, "a layout's `size` is at least 1 byte");
                    }
                    set_once(cx, &mut size, n, s, "size");
                }
            }
            LayoutItem::Align(k, v) => {
                let s = k.span.join(v.span()).unwrap_or(k.span);
                if let Some(n) = parse_usize(cx, v, "align") {
                    if !matches!(n, 1 | 2 | 4 | 8 | 16) {
                        cx.error_spanned_by(v, "`align` is 1, 2, 4, 8 or 16");
                    }
                    set_once(cx, &mut align, n, s, "align");
                }
            }
            LayoutItem::InPlace(k) => set_once(cx, &mut in_place, (), k.span, "in_place"),
        }
    }
    let Some(size) = size else {
        cx.syn_error(syn::Error::new(
            span,
            "`layout(...)` needs the record's total bytes: `size = N`",
        ));
        return None;
    };
    Some(ContainerLayout {
        size: size.value,
        align: align.map_or(1, |a| a.value),
        in_place: in_place.map(|i| i.span),
    })
}
