//! The typed model of a type given to the derive: parsed once, checked, then generated from.

use proc_macro2::Span;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::attr;
use crate::ctxt::Ctxt;

pub struct Container<'a> {
    pub ident: &'a syn::Ident,
    pub generics: &'a syn::Generics,
    pub data: Data<'a>,
    pub attrs: attr::Container,
}

pub enum Data<'a> {
    Struct(Fields<'a>),
    /// All variants are units with no `#[marshal]` attributes: an XDR `enum`. (Only the XDR and
    /// CDR generators read the names.)
    CEnum(
        #[cfg_attr(not(any(feature = "xdr", feature = "iiop")), allow(dead_code))]
        Vec<&'a syn::Ident>,
    ),
    /// A discriminated union.
    Union(Vec<Variant<'a>>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Named,
    Tuple,
    Unit,
}

pub struct Fields<'a> {
    pub style: Style,
    pub fields: Vec<Field<'a>>,
    /// The last field is `Option<Box<Self>>`: a tail-recursive optional-data list, encoded and
    /// decoded iteratively.
    pub tail_link: bool,
}

pub struct Field<'a> {
    /// `self.name` or `self.0`.
    pub member: syn::Member,
    /// A local binding for the field when matched or constructed.
    pub binding: syn::Ident,
    /// The name used in error paths.
    pub name: String,
    pub ty: &'a syn::Type,
    pub attrs: attr::Field,
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    /// Its labels (`case` values): `#[marshal(tag = ..)]`, one per label, or its index. Empty
    /// for the `default` and `no_member` arms.
    pub tags: Vec<attr::Tag>,
    pub fields: Fields<'a>,
    /// The `default:` arm: its first field is the discriminant, the optional second the body.
    pub is_default: bool,
    /// CDR's implicit `default` without a member (`#[marshal(no_member)] None(D)`): every
    /// discriminant no arm lists decodes into it in CDR; XDR never produces it.
    pub no_member: bool,
}

impl Variant<'_> {
    /// Whether the arm's first field holds the discriminant (the `default` and `no_member`
    /// arms, and arms with several labels): re-encoding writes the one decoded.
    pub fn holds_discriminant(&self) -> bool {
        self.is_default || self.no_member || self.tags.len() > 1
    }

    /// Whether the arm matches listed labels (not `default` or `no_member`).
    pub fn is_tagged(&self) -> bool {
        !self.is_default && !self.no_member
    }
}

impl<'a> Container<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Self> {
        let attrs = attr::Container::from_ast(cx, input);
        if let Some(d) = &attrs.discriminant {
            if !matches!(&input.data, syn::Data::Enum(_)) {
                cx.syn_error(syn::Error::new(
                    d.span,
                    "`discriminant` applies to an enum with data (a union)",
                ));
            }
        }
        if let Some(span) = attrs.default_missing {
            if !matches!(&input.data, syn::Data::Struct(_)) {
                cx.syn_error(syn::Error::new(
                    span,
                    "`default_missing` applies to a struct (NDR records are structs)",
                ));
            }
        }
        let data = match &input.data {
            syn::Data::Struct(s) => Data::Struct(Fields::from_ast(
                cx,
                &s.fields,
                Some((&input.ident, !input.generics.params.is_empty())),
            )),
            syn::Data::Enum(e) => enum_from_ast(cx, input, e)?,
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "Marshal cannot be derived for a Rust `union`; use an enum with data for an XDR union",
                );
                return None;
            }
        };
        if let (Some(span), Data::CEnum(_)) = (attrs.encode_only, &data) {
            cx.syn_error(syn::Error::new(
                span,
                "`encode_only` applies to a struct or union (one that borrows what it sends); a C-like enum always decodes",
            ));
        }
        if let Some(span) = attrs.manual_drop {
            if !matches!(&data, Data::Struct(f) if f.tail_link) {
                cx.syn_error(syn::Error::new(
                    span,
                    "`manual_drop` applies to an optional-data list: a struct whose last field is \
                     `Option<Box<Self>>` (the derive gives such a struct an iterative `Drop` \
                     unless it says `manual_drop`)",
                ));
            }
        }
        // Fields of a packed struct may be unaligned: neither encoding (which borrows them)
        // nor decoding in place can touch them.
        for a in &input.attrs {
            let packed = a.path().is_ident("repr")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("packed")));
            if packed {
                cx.error_spanned_by(
                    a,
                    "Marshal cannot be derived for a `#[repr(packed)]` type: its fields may be unaligned",
                );
            }
        }
        Some(Container {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            data,
        })
    }
}

fn enum_from_ast<'a>(
    cx: &Ctxt,
    input: &'a syn::DeriveInput,
    e: &'a syn::DataEnum,
) -> Option<Data<'a>> {
    if e.variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "Marshal cannot be derived for an enum with no variants",
        );
        return None;
    }
    let attrs: Vec<attr::Variant> = e
        .variants
        .iter()
        .map(|v| attr::Variant::from_ast(cx, v))
        .collect();
    let c_like = e
        .variants
        .iter()
        .all(|v| matches!(v.fields, syn::Fields::Unit))
        && attrs
            .iter()
            .all(|a| a.tags.is_empty() && a.default.is_none() && a.no_member.is_none());
    if c_like {
        return Some(Data::CEnum(e.variants.iter().map(|v| &v.ident).collect()));
    }
    let mut variants = Vec::new();
    for (i, (v, a)) in e.variants.iter().zip(attrs).enumerate() {
        if let Some((_, expr)) = &v.discriminant {
            cx.error_spanned_by(
                expr,
                "a union arm's discriminant is given with `#[marshal(tag = N)]`",
            );
        }
        let fields = Fields::from_ast(cx, &v.fields, None);
        let is_default = a.default.is_some();
        let no_member = a.no_member.is_some();
        let holds = |span: Span, what: &str| {
            if fields.style != Style::Tuple || !(1..=2).contains(&fields.fields.len()) {
                cx.syn_error(syn::Error::new(
                    span,
                    format!(
                        "{what} holds the discriminant in its first field: it must be a tuple \
                         variant `Name(D)` or `Name(D, Body)`, `D` the union's discriminant type"
                    ),
                ));
            }
        };
        if let Some(span) = a.default {
            if let Some(t) = a.tags.first() {
                cx.syn_error(syn::Error::new(
                    t.span,
                    "the `default` arm takes every other discriminant; it has no `tag`",
                ));
            }
            if let Some(n) = a.no_member {
                cx.syn_error(syn::Error::new(
                    n,
                    "an arm is either `default` or `no_member`, not both",
                ));
            }
            holds(span, "the `default` arm");
        } else if let Some(span) = a.no_member {
            if let Some(t) = a.tags.first() {
                cx.syn_error(syn::Error::new(
                    t.span,
                    "the `no_member` arm takes every discriminant no arm lists; it has no `tag`",
                ));
            }
            if fields.style != Style::Tuple || fields.fields.len() != 1 {
                cx.syn_error(syn::Error::new(
                    span,
                    "the `no_member` arm holds only the discriminant: it must be a tuple \
                     variant `Name(D)`, `D` the union's discriminant type",
                ));
            }
        } else if a.tags.len() > 1 {
            holds(a.tags[1].span, "an arm with several labels");
        }
        let tags = if is_default || no_member || !a.tags.is_empty() {
            a.tags
        } else {
            let l = proc_macro2::Literal::usize_unsuffixed(i);
            vec![attr::Tag {
                tokens: quote::quote_spanned!(v.ident.span()=> #l),
                key: i.to_string(),
                int: i64::try_from(i).ok(),
                span: v.ident.span(),
            }]
        };
        variants.push(Variant {
            ident: &v.ident,
            tags,
            fields,
            is_default,
            no_member,
        });
    }
    check_union(cx, &variants);
    Some(Data::Union(variants))
}

/// Two arms with one label, or more than one `default` or `no_member` arm, or both, are
/// errors. (Labels are compared as written: two spellings of one value are rustc's
/// unreachable-pattern warning.)
fn check_union(cx: &Ctxt, variants: &[Variant<'_>]) {
    let mut catch_all = variants.iter().filter(|v| v.is_default || v.no_member);
    if catch_all.next().is_some() {
        for extra in catch_all {
            cx.error_spanned_by(
                extra.ident,
                "a union has at most one `default` or `no_member` arm",
            );
        }
    }
    let mut seen: Vec<(&str, &syn::Ident)> = Vec::new();
    for v in variants {
        for t in &v.tags {
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == t.key) {
                cx.syn_error(syn::Error::new(
                    t.span,
                    format!(
                        "discriminant {} is already used by variant `{}`",
                        t.key, first
                    ),
                ));
            } else {
                seen.push((&t.key, v.ident));
            }
        }
    }
}

impl<'a> Fields<'a> {
    fn from_ast(
        cx: &Ctxt,
        fields: &'a syn::Fields,
        container: Option<(&syn::Ident, bool)>,
    ) -> Self {
        let style = match fields {
            syn::Fields::Named(_) => Style::Named,
            syn::Fields::Unnamed(_) => Style::Tuple,
            syn::Fields::Unit => Style::Unit,
        };
        let fields: Vec<Field<'a>> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (member, name) = match &f.ident {
                    Some(id) => (syn::Member::Named(id.clone()), id.unraw().to_string()),
                    None => (
                        syn::Member::Unnamed(syn::Index {
                            index: i as u32,
                            span: f.span(),
                        }),
                        i.to_string(),
                    ),
                };
                Field {
                    member,
                    binding: format_ident!("__f{}", i),
                    name,
                    ty: &f.ty,
                    attrs: attr::Field::from_ast(cx, f),
                }
            })
            .collect();
        let tail_link = match (container, fields.last()) {
            (Some((ident, generic)), Some(last)) => {
                last.attrs.max_len.is_none() && is_option_box_of(last.ty, ident, generic)
            }
            _ => false,
        };
        Fields {
            style,
            fields,
            tail_link,
        }
    }
}

/// `Option<Box<Self>>`, or `Option<Box<Ident>>` when the type has no generics (with generics,
/// `Ident<..>` may name another instance, which is not a link of the same list).
fn is_option_box_of(ty: &syn::Type, ident: &syn::Ident, generic: bool) -> bool {
    fn single_arg<'t>(ty: &'t syn::Type, name: &str) -> Option<&'t syn::Type> {
        let syn::Type::Path(p) = ty else { return None };
        let seg = p.path.segments.last()?;
        if seg.ident != name {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
            _ => None,
        }
    }
    let Some(inner) = single_arg(ty, "Option").and_then(|t| single_arg(t, "Box")) else {
        return false;
    };
    let syn::Type::Path(p) = inner else {
        return false;
    };
    let seg = &p.path.segments[0];
    p.qself.is_none()
        && p.path.segments.len() == 1
        && seg.arguments.is_none()
        && (seg.ident == "Self" || (!generic && seg.ident == *ident))
}
